"""A file in an older spelling, read: parsed, scanned (scan.py), and either rewritten into today's
spelling (the text the rest of the compiler reads, and what `tirxc migrate` writes) with one note
that names the spelling it was read as, or refused: a kernel that mixes an older spelling with
today's, or an older form tirxc cannot migrate yet, is an error that says so."""
from __future__ import annotations

from dataclasses import dataclass, field

from transpiler.dialect import spellings
from transpiler.dialect.edits import PositionMap, apply, settle
from transpiler.dialect.scan import scan
from transpiler.diag.diagnostics import Diagnostic, Diagnostics, Note
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile


@dataclass
class Reading:
    """What an older file reads as. `source` is the text the compiler reads (the original when the
    file is today's spelling), in today's spelling with every line where it was in the file; `migrated_text`
    the same with the tile import on a line of its own, as `tirxc migrate` writes it; `diagnostics`
    the note, or the errors that stop the run (`stop`); `positions` maps the positions of `source`
    back to the original's."""
    source: SourceFile
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stop: bool = False
    positions: PositionMap | None = None
    era: str | None = None
    migrated_text: str | None = None  # what `tirxc migrate` writes (None: the file is today's spelling)

    @property
    def migrated(self) -> bool:
        return self.positions is not None

    @property
    def text(self) -> str:
        """The file in today's spelling, as `tirxc migrate` writes it."""
        return self.migrated_text if self.migrated_text is not None else self.source.text

    def restore(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Diagnostics about the rewritten text, pointed at the file the user wrote, with the note."""
        moved = [self.positions.diagnostic(d) for d in diagnostics] if self.positions else list(diagnostics)
        return sorted(self.diagnostics + moved, key=lambda d: (d.span.line, d.span.col))


def read(source: SourceFile) -> Reading:
    """The file read in the spelling it was written in (see the module's docstring)."""
    diags = Diagnostics()
    module = parse(source, diags)
    if module is None or diags.has_errors:
        return Reading(source, diags.sorted(), stop=True)
    found = scan(source, module)
    if not found.older and not found.problems:
        return Reading(source)
    era = found.era
    order = spellings.ORDER + ("today",)
    for kernel in dict.fromkeys(f.kernel for f in found.older if f.kernel is not None):
        pair = next(((old, today) for today in found.current if today.kernel == kernel
                     for old in found.older if old.kernel == kernel and order.index(old.era) < order.index(today.era)),
                    None)
        if pair is not None:
            old, today = pair
            diags.error("E0210", f"kernel `{kernel}` mixes an older spelling of TIRx with today's: {today.what} is "
                                 f"today's spelling, {old.what} an older one", today.span,
                        notes=[Note(f"{old.what}, of {spellings.SPELLINGS[old.era]}", old.span)],
                        help="write the kernel in one spelling: `tirxc migrate` rewrites an older file into "
                             "today's")
    for span, message, help in found.problems:
        diags.error("E0211", message, span, help=help)
    edits, conflicts = settle(found.all_edits(own_line=False))
    for first, second in conflicts:
        where = source.span(*_position(source, second.start))
        diags.error("E0211", "two older forms overlap here and cannot both be migrated yet", where,
                    help="migrate this statement by hand")
    if diags.has_errors:
        return Reading(source, diags.sorted(), stop=True, era=era)
    rewritten = SourceFile(source.name, apply(source.text, edits))
    first = found.older[0]
    note = Diagnostic("W0005", "note", f"read as {spellings.SPELLINGS[era]}", first.span,
                      help="`tirxc migrate` rewrites the file into today's spelling (docs/older-spellings.md)")
    migrated = apply(source.text, settle(found.all_edits(own_line=True))[0])
    return Reading(rewritten, [note], positions=PositionMap(source, rewritten, edits), era=era, migrated_text=migrated)


def _position(source: SourceFile, offset: int) -> tuple[int, int]:
    return source.position(offset)
