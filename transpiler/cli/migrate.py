"""`tirxc migrate`: a file in an older spelling of TIRx rewritten into today's (docs/older-spellings.md),
keeping its comments and layout; `--check` only says whether files need it (exit 1 when one does)."""
from __future__ import annotations

import sys

import click

from transpiler.cli.files import print_diagnostics, read_input, same_file, write_file, write_stdout


def _read(path: str):
    from transpiler.diag.diagnostics import Diagnostics
    from transpiler.driver import migrate_source
    from transpiler.syntax.source import SourceFile

    name, data = read_input(path)
    source, problem = SourceFile.from_bytes(name, data)
    if problem is not None:
        diags = Diagnostics()
        diags.error("E0001", problem.message, source.span(problem.line, problem.col))
        return source, None, diags.sorted()
    reading = migrate_source(source)
    return source, reading, reading.diagnostics


def _print(source, diagnostics) -> None:
    from types import SimpleNamespace

    print_diagnostics(SimpleNamespace(source=source, diagnostics=[d for d in diagnostics if d.severity == "error"]))


EXAMPLES = """\b
Examples:
  tirxc migrate a.tx -o b.tx        a.tx in today's spelling, into b.tx
  tirxc migrate --check a.tx b.tx   exit 1 when a file needs migrating
"""


@click.command("migrate", context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
@click.argument("files", nargs=-1, required=True, metavar="FILE.tx...")
@click.option("-o", "--output", metavar="PATH", help="Write the migrated file here (standard output without).")
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 when a file needs migrating (for CI).")
def migrate_command(files, output, check_only):
    """Rewrite a file written in an older spelling of TIRx into today's spelling."""
    if not check_only and len(files) != 1:
        raise click.UsageError("migrate rewrites one file at a time (--check takes several)")
    if output and check_only:
        raise click.UsageError("--check writes nothing: not with -o")
    if output and output != "-" and files[0] != "-" and same_file(files[0], output):
        raise click.UsageError(f"refusing to overwrite the input file '{files[0]}': give -o another path")
    failed = pending = False
    for path in files:
        source, reading, diagnostics = _read(path)
        if reading is None or reading.stop:
            _print(source, diagnostics)
            failed = True
            continue
        if check_only:
            if reading.migrated:
                sys.stderr.write(f"{source.name}: needs migrating (read as {_spelling(reading.era)})\n")
                pending = True
            continue
        if output is None or output == "-":
            write_stdout(reading.text)
        else:
            write_file(output, reading.text)
    if failed or pending:
        sys.exit(1)


def _spelling(era: str) -> str:
    from transpiler.dialect.spellings import SPELLINGS

    return SPELLINGS[era]
