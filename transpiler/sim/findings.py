"""What `tirxc sim --racecheck` / `--synccheck` found, as tirxc diagnostics (docs/sim.md, "Race
checking" and "Barrier protocols").

The simulator writes one line per finding (include/tirx_sim_check.h gives the format): the code,
the site of the access or call that found it and of the earlier access it conflicts with (indices
into the site table the checked sim printer wrote, codegen/cuda_sim.py), the block and threads,
and where the bytes are. This module turns those lines into Diagnostic objects: the primary span
is the later access, a note at the earlier one, and notes naming the threads (block, warp, lane),
the buffer and the element; launch.SimFindings carries them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from transpiler.diag.diagnostics import Diagnostic, Note

_KINDS = {"r": "read", "w": "write", "a": "atomic"}
_RACE_MESSAGES = {
    "E0820": "data race on {space} memory: this {kind} and a {kind0} by another thread of the block are not "
             "ordered (no barrier or synchronisation between them)",
    "E0821": "data race on global memory between blocks: this {kind} and a {kind0} by another block (blocks are "
             "ordered only through atomics)",
    "E0827": "data race on {space} memory between the CTAs of a cluster: this {kind} and a {kind0} by a thread of "
             "another CTA are not ordered (no cluster barrier or mbarrier between them)",
    "E0828": "this tcgen05 operation's {kind} of {space} memory and a {kind0} by another thread's tcgen05 operation "
             "(or the write it reads) are ordered by a thread sync without tcgen05.fence::before_thread_sync after "
             "the first and tcgen05.fence::after_thread_sync before the second",
    "E0822": "this read of {space} memory comes before the wait of the async copy that writes it",
    "E0823": "this {kind} of {space} memory comes while an async operation still {kind0}s it",
}


@dataclass(frozen=True)
class Layout:
    """What the findings need to name bytes: the argument image's buffers (name, image offset,
    bytes, dtype) and the shared area's arrays (name, offset, bytes, dtype)."""
    image: tuple
    shared: tuple
    block: tuple  # the launch's block shape (x, y, z)


def parse(text: str) -> list[list[str]]:
    """The finding lines of one run, split into fields (an `S` line's text is its last field)."""
    records = []
    for line in text.splitlines():
        if line.startswith("R "):
            records.append(line.split())
        elif line.startswith("S "):
            records.append(line.split(" ", 8))
    return records


_SITE = re.compile(r"site (-?\d+)")


def _line(span) -> str:
    return f"line {span.line}:{span.col}" if span.line > 0 else "an unknown place"


def _thread(linear: int, block: tuple) -> str:
    x, y = block[0], block[1]
    return (f"thread ({linear % x}, {linear // x % y}, {linear // (x * y)}) "
            f"(warp {linear // 32}, lane {linear % 32})")


def _place(space: str, offset: int, layout: Layout, through: str, element: int) -> str:
    """The bytes a finding is about: the buffer parameter or shared array they are in, and the
    element of the buffer the access went through (a view of it, by another name) when known."""
    if space == "t":  # (tensor memory: a cell of 4 bytes per lane and column)
        return f"tensor memory lane {offset // 2048}, column {offset % 2048 // 4}"
    area = "global memory" if space == "g" else "shared memory"
    text = f"byte {offset} of {area}"
    table = layout.image if space == "g" else layout.shared
    for name, start, nbytes, itemsize in table:
        if start <= offset < start + nbytes:
            name = name.removesuffix("_ptr")
            text = f"`{name}` element {(offset - start) // itemsize} ({area})"
            if name == through:
                return text
            break
    return text + (f", element {element} of `{through}`" if element >= 0 else "")


def diagnostics(records: list[list[str]], sites: list, layout: Layout) -> list[Diagnostic]:
    """Diagnostic objects for the finding lines `records`; `sites` is the checked printer's table."""
    from transpiler.ir import NOWHERE

    def span_of(index: int):
        return sites[index].span if 0 <= index < len(sites) else NOWHERE

    def name_of(index: int) -> str:
        return sites[index].name if 0 <= index < len(sites) else "?"

    out = []
    for r in records:
        record, code, site, site0 = r[0], r[1], int(r[2]), int(r[3])
        block = f"block ({r[4]}, {r[5]}, {r[6]})"
        if record == "S":
            thread, text = int(r[7]), r[8] if len(r) > 8 else ""
            others = [int(i) for i in _SITE.findall(text)]
            text = _SITE.sub(lambda m: _line(span_of(int(m.group(1)))), text)
            notes = [Note("the other place", span_of(i)) for i in others if 0 <= i < len(sites)]
            notes.append(Note(f"found in {block}, {_thread(thread, layout.block)}"))
            out.append(Diagnostic(code, "error", text, span_of(site), tuple(notes)))
            continue
        thread, block0, thread0, space, offset, element = int(r[7]), int(r[8]), int(r[9]), r[10], int(r[11]), int(r[12])
        kind, kind0 = _KINDS[r[13]], _KINDS[r[14]]
        message = _RACE_MESSAGES[code].format(kind=kind, kind0=kind0, space={"s": "shared", "t": "tensor"}.get(space, "global"))
        other_block = f"block {block0}, " if code in ("E0821", "E0827") else ""
        first = "the async operation, issued by" if code in ("E0822", "E0823") else f"the {kind0}, by"
        notes = (Note(f"{first} {other_block}{_thread(thread0, layout.block)}", span_of(site0)),
                 Note(f"this {kind}: {block}, {_thread(thread, layout.block)}"),
                 Note(f"the bytes: {_place(space, offset, layout, name_of(site), element)}"))
        out.append(Diagnostic(code, "error", message, span_of(site), notes))
    return out
