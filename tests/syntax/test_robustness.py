"""No input makes tirxc crash: every file gets diagnostics that point inside
it, or a clean success, and never a traceback or the internal-error guard.

Each input is run through `parse` (fast, exact expectations) and through the
whole command (`python -m transpiler FILE`, default CUDA output), which is
what proves that the last-resort guard in cli.main is never what catches it.
"""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from transpiler.cli import main as cli
from transpiler.diag.diagnostics import Diagnostics, Renderer
from transpiler.driver import compile_file
from transpiler.syntax.parse import MAX_SYNTAX_ERRORS, parse
from transpiler.syntax.source import SourceFile

from ._util import parse_text

ROOT = Path(__file__).resolve().parents[2]
KERNEL = (ROOT / "samples" / "smem_demo.tx").read_text(encoding="utf-8")
DEEP = 10_000


def _deep_blocks() -> str:
    return "".join(" " * i + "if x:\n" for i in range(DEEP)) + " " * DEEP + "pass\n"


# name -> (file content, expected (code, line, col) of the first error, or None for success)
INPUTS: dict[str, tuple[bytes, tuple[str, int, int] | None]] = {
    "empty": (b"", None),
    "blank lines and spaces": (b"\n\n   \n\t\n", None),
    "only comments": ("# 注释\n#\n   # indented\n".encode(), None),
    "binary garbage": (random.Random(0).randbytes(4096), ("E0001", None, None)),
    "NUL byte": (b"x = 1\ny = \x002\n", ("E0001", 2, 5)),
    "invalid UTF-8": (b"x = 1\n# caf\xe9\n", ("E0001", 2, 6)),
    "truncated UTF-8": ("x = '中'\n".encode()[:-3], ("E0001", 1, 6)),
    "BOM": (b"\xef\xbb\xbf" + KERNEL.encode(), None),
    "BOM only": (b"\xef\xbb\xbf", None),
    "UTF-16": ("x = 1\n".encode("utf-16"), ("E0001", 1, 1)),
    "CRLF": (KERNEL.replace("\n", "\r\n").encode(), None),
    "CR only": (KERNEL.replace("\n", "\r").encode(), None),
    "CRLF with an error": (b"x = 1\r\ny = = 2\r\n", ("E0100", 2, 5)),
    "tabs and spaces mixed": (b"if x:\n\ty = 1\n        z = 2\n", ("E0105", 3, 1)),
    "tab after spaces": (b"if x:\n    y = 1\n    \tz = 2\n", ("E0105", 3, 1)),
    "tabs only, consistently": (KERNEL.replace("    ", "\t").encode(), None),
    "deep brackets": (("x = " + "(" * DEEP + "1" + ")" * DEEP + "\n").encode(), ("E0108", 1, 105)),
    "deep lists": (("x = " + "[" * DEEP + "]" * DEEP + "\n").encode(), ("E0108", 1, 105)),
    "deep unclosed brackets": (("x = " + "(" * DEEP + "\n").encode(), ("E0108", 1, 105)),
    "deep blocks": (_deep_blocks().encode(), ("E0108", 102, 1)),
    "deep binary operators": (("x = " + "+".join(["1"] * DEEP) + "\n").encode(), ("E0108", 1, None)),
    "deep unary minus": (("x = " + "-" * DEEP + "1\n").encode(), ("E0108", 1, 205)),
    "deep not": (("x = " + "not " * DEEP + "a\n").encode(), ("E0108", 1, 805)),
    "deep calls": (("x = " + "f(" * DEEP + ")" * DEEP + "\n").encode(), ("E0108", 1, 206)),
    "deep attribute chain": (("x = a" + ".b" * DEEP + "\n").encode(), ("E0108", 1, 5)),
    "deep subscripts": (("x = a" + "[0]" * DEEP + "\n").encode(), ("E0108", 1, None)),
    "deep conditional expressions": (("x = " + "a if b else " * DEEP + "c\n").encode(), ("E0108", 1, None)),
    "deep power": (("x = " + "**".join(["2"] * DEEP) + "\n").encode(), ("E0108", 1, None)),
    "deep lambdas": (("f = " + "lambda: " * DEEP + "1\n").encode(), ("E0108", 1, None)),
    "long flat sum": (("x = " + "+".join(["1"] * 150) + "\n").encode(), None),
    "very long line": (("x = '" + "a" * 200_000 + "'\n").encode(), None),
    "many errors": (b"x = = 1\n" * 1000, ("E0100", 1, 5)),
    "unterminated triple quote": (b'x = """' + b"abc\n" * 1000, ("E0102", 1, 5)),
    "lone backslash at end": (b"x = 1 \\", ("E0100", 1, 8)),
    "control characters": (b"x = 1\x1b[2J\x07\n", ("E0101", 1, 6)),
    "bidi override": ("x = 1 \u202e+ 2\n".encode(), ("E0101", 1, 7)),
}


def test_utf16_is_named():
    result = compile_file("t.tx", "x = 1\n".encode("utf-16-le").join([b"\xff\xfe", b""]), until="ast")
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("E0001", "the file is UTF-16 encoded; save it as UTF-8")]


def test_encoding_problems_point_at_the_bad_byte():
    result = compile_file("t.tx", "x = '中'\ny = 'caf\xe9'\n".encode("utf-8").replace(b"\xc3\xa9", b"\xe9"),
                          until="ast")
    assert [(d.code, d.span.line, d.span.col, d.message) for d in result.diagnostics] == [
        ("E0001", 2, 9, "invalid UTF-8 byte 0xe9")]


def _first_error(data: bytes):
    result = compile_file("t.tx", data, until="ast")
    return result, [d for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("name", list(INPUTS))
def test_parse_level(name):
    data, expected = INPUTS[name]
    result, errors = _first_error(data)
    if expected is None:
        assert errors == [], [(d.span.line, d.span.col, d.code, d.message) for d in errors]
        assert result.module is not None
        return
    code, line, col = expected
    assert errors, "an error was expected"
    first = errors[0]
    assert first.code == code, first.message
    if line is not None:
        assert first.span.line == line, first.message
    if col is not None:
        assert first.span.col == col, first.message
    _assert_inside(result.source, result.diagnostics)


def _assert_inside(source: SourceFile, diagnostics) -> None:
    """Every span starts at a real position of the file (the column may be one
    past the end of a line: that is where something is missing)."""
    assert len(diagnostics) <= MAX_SYNTAX_ERRORS + 1
    for d in diagnostics:
        spans = [d.span] + [n.span for n in d.notes if n.span is not None]
        for span in spans:
            assert 1 <= span.line <= source.line_count, (d.message, span)
            assert 1 <= span.col <= len(source.line_text(span.line)) + 1, (d.message, span)
            assert (span.end_line, span.end_col) >= (span.line, span.col), (d.message, span)


# ---- through the command line ------------------------------------------------------------------------

LOCATION = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?:error|warning|note)", re.M)


def _run_cli(path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TIRXC_DEBUG"}
    return subprocess.run([sys.executable, "-m", "transpiler", str(path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, timeout=300)


def _check_cli(path: Path, data: bytes, expect_error: bool) -> None:
    result = _run_cli(path)
    err = result.stderr.decode("utf-8")
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert result.returncode == (1 if expect_error else 0), err[-2000:]
    source, _ = SourceFile.from_bytes(str(path), data)
    locations = [(int(m["line"]), int(m["col"])) for m in LOCATION.finditer(err)]
    if expect_error:
        assert locations, err[-2000:]
        assert result.stdout == b""
    else:
        assert "__global__" in result.stdout.decode() or "no `@T.prim_func` kernels" in err
    for line, col in locations:
        assert 1 <= line <= source.line_count and 1 <= col <= len(source.line_text(line)) + 1


@pytest.mark.parametrize("name", list(INPUTS))
def test_command_line(name, tmp_path, capsys):
    """In-process through cli.main (the same code as the `tirxc` script, minus
    the interpreter start-up): exit 0 or 1, never the guard's 3."""
    data, expected = INPUTS[name]
    path = tmp_path / "input.tx"
    path.write_bytes(data)
    with pytest.raises(SystemExit) as exit_info:
        cli.main([str(path)])
        raise SystemExit(0)  # main returns normally on success
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    assert exit_info.value.code == (1 if expected is not None else 0), err[-2000:]
    source, _ = SourceFile.from_bytes(str(path), data)
    locations = [(int(m["line"]), int(m["col"])) for m in LOCATION.finditer(err)]
    if expected is not None:
        assert locations and out == ""
    else:
        assert "__global__" in out or "no `@T.prim_func` kernels" in err
    for line, col in locations:
        assert 1 <= line <= source.line_count and 1 <= col <= len(source.line_text(line)) + 1


@pytest.mark.parametrize("name", ["binary garbage", "deep brackets", "deep blocks", "deep binary operators",
                                  "deep unary minus", "deep calls", "CRLF", "tabs and spaces mixed"])
def test_command_line_subprocess(name, tmp_path):
    """The same, as a separate `python -m transpiler` process."""
    data, expected = INPUTS[name]
    path = tmp_path / "input.tx"
    path.write_bytes(data)
    _check_cli(path, data, expected is not None)


def test_five_megabyte_file(tmp_path):
    """A 5 MB kernel file: a real kernel, a 2.5 MB CUDA source string (the kind
    `T.cuda.func_call(source_code=...)` takes) and 2.5 MB of comment lines."""
    cuda = "// helper\n__device__ float ld(const float* p) { return *p; }\n"
    text = (KERNEL + "\n\nSRC = \"\"\"\n" + cuda * (2_500_000 // len(cuda)) + "\"\"\"\n\n"
            + "# padding comment line\n" * (2_500_000 // 23))
    data = text.encode()
    assert len(data) >= 5_000_000
    path = tmp_path / "big.tx"
    path.write_bytes(data)
    _check_cli(path, data, expect_error=False)


def test_five_megabyte_file_with_an_error_at_its_end(tmp_path):
    text = "# padding comment line\n" * (5_000_000 // 23) + "x = (1, 2]\n"
    data = text.encode()
    path = tmp_path / "big.tx"
    path.write_bytes(data)
    result = _run_cli(path)
    assert result.returncode == 1
    line = text.count("\n")
    assert f"big.tx:{line}:10: error[E0104]" in result.stderr.decode()


def test_five_megabytes_of_garbage(tmp_path):
    data = random.Random(5).randbytes(5_000_000)
    path = tmp_path / "garbage.tx"
    path.write_bytes(data)
    _check_cli(path, data, expect_error=True)


def test_printable_garbage_is_capped(tmp_path):
    rng = random.Random(7)
    alphabet = "abcxyz0123456789 ()[]{}:=+-*/.,'\"#\\\n\n\n    $?!@"
    text = "".join(rng.choice(alphabet) for _ in range(200_000))
    module, diags = parse_text(text)
    assert module is None and 1 <= len(diags) <= MAX_SYNTAX_ERRORS + 1
    _assert_inside(SourceFile("t.tx", text), diags)


# ---- property tests --------------------------------------------------------------------------------

_FRAGMENTS = ["x", "A", "T.", "foo", "1", "0x1F", "2.5", "'s'", '"""', "'''", "(", ")", "[", "]", "{", "}", ":",
              ",", ";", ".", "=", "==", "+", "-", "*", "**", "/", "//", "%", "@", "<<", "&", "|", "^", "~",
              "<", ">=", "!=", "not", "and", "or", "if", "elif", "else", "for", "in", "while", "def", "return",
              "pass", "break", "class", "lambda", "import", "from", "as", "with", "assert", "@T.prim_func",
              "\n", "\n", "\n    ", "\n        ", "\n\t", " ", " ", "\\\n", "#c", "$", "\u00e9", "\u4e2d",
              "\r\n", "\x00", "\ufeff", "0777", "1_", "\"", "'"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=80))
def test_token_soup_never_crashes(fragments):
    text = "".join(fragments)
    source = SourceFile("t.tx", text)
    diags = Diagnostics()
    module = parse(source, diags)
    assert (module is None) == diags.has_errors
    _assert_inside(source, diags.sorted())
    Renderer(source).render_all(diags.sorted())  # rendering never fails either


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_never_crash(data):
    result = compile_file("t.tx", data, until="ast")
    _assert_inside(result.source, result.diagnostics)
    Renderer(result.source).render_all(result.diagnostics)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_never_crashes(text):
    source = SourceFile("t.tx", text)
    diags = Diagnostics()
    parse(source, diags)
    _assert_inside(source, diags.sorted())
