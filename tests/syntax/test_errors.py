"""Syntax errors: one row per class of mistake, with the exact code, position
and wording; every construct outside the subset is rejected by name (E0109);
all errors of a file come in one run, in source order."""
from __future__ import annotations

import pytest

from transpiler.diag.codes import CODES
from transpiler.syntax.parse import MAX_SYNTAX_ERRORS

from ._util import parse_text, problems

# (source, code, line, col, fragment of the message)
SYNTAX_ERRORS = [
    # -- characters and tokens
    ("x = $\n", "E0101", 1, 5, "unexpected character '$'"),
    ("x = a ? b : c\n", "E0101", 1, 7, "unexpected character '?'"),
    ("x = `a`\n", "E0101", 1, 5, "unexpected character '`'"),
    ("if !done:\n    pass\n", "E0101", 1, 4, "unexpected character '!'"),
    ("x = a \u2192 b\n", "E0101", 1, 7, "U+2192 RIGHTWARDS ARROW"),
    ("x = \u201chello\u201d\n", "E0101", 1, 5, "U+201C"),
    ("x = 1\u00a0+ 2\n", "E0101", 1, 6, "unexpected character U+00A0"),
    ("x = 1 +\x1b2\n", "E0101", 1, 8, "unexpected character U+001B"),
    ("x = 1 + \\ # comment\n    2\n", "E0101", 1, 9, "after line continuation"),
    ("x = 1 + \\  \n    2\n", "E0101", 1, 9, "after line continuation"),
    # -- strings
    ("x = 'abc\n", "E0102", 1, 5, "unterminated string literal"),
    ("x = \"abc\ny = 1\n", "E0102", 1, 5, "unterminated string literal"),
    ("x = f('abc, y)\n", "E0102", 1, 7, "unterminated string literal"),
    ("x = \"\"\"abc\n\ny = 1\n", "E0102", 1, 5, "unterminated triple-quoted string literal"),
    ("x = r'''abc\n", "E0102", 1, 5, "unterminated triple-quoted string literal"),
    # -- brackets
    ("x = (1,\n", "E0103", 1, 5, "'(' was never closed"),
    ("x = f(a, [1, 2\n", "E0103", 1, 10, "'[' was never closed"),
    ("x = foo(a,\ny = 2\nz = 3\n", "E0103", 1, 8, "'(' was never closed"),
    ("d = {1: 2\n\ndef f():\n    pass\n", "E0103", 1, 5, "'{' was never closed"),
    ("x = )\n", "E0104", 1, 5, "unmatched ')'"),
    ("x = f(a))\n", "E0104", 1, 9, "unmatched ')'"),
    ("]\n", "E0104", 1, 1, "unmatched ']'"),
    ("x = (1, 2]\n", "E0104", 1, 10, "closing ']' does not match '('"),
    ("x = [a, (b}]\n", "E0104", 1, 11, "closing '}' does not match '('"),
    # -- indentation
    ("x = 1\n    y = 2\n", "E0105", 2, 1, "unexpected indentation"),
    ("  x = 1\n", "E0105", 1, 1, "unexpected indentation"),
    ("# comment\n  x = 1\n", "E0105", 2, 1, "unexpected indentation"),
    ("if a:\n    x = 1\n  y = 2\n", "E0105", 3, 1, "unindent does not match any outer indentation level"),
    ("if a:\n\tx = 1\n        y = 2\n", "E0105", 3, 1, "inconsistent use of tabs and spaces"),
    ("if a:\n        x = 1\n\ty = 2\n", "E0105", 3, 1, "inconsistent use of tabs and spaces"),
    ("if a:\n    \tx = 1\n\ty = 2\n", "E0105", 3, 1, "inconsistent use of tabs and spaces"),
    ("def f():\nx = 1\n", "E0106", 2, 1, "expected an indented block after the function definition on line 1"),
    ("if a:\n\n# comment\nx = 1\n", "E0106", 4, 1, "expected an indented block after the `if` statement on line 1"),
    ("for i in a:\n", "E0106", 1, 12, "expected an indented block after the `for` statement on line 1"),
    ("while a:\n\n\n", "E0106", 1, 9, "expected an indented block after the `while` statement on line 1"),
    ("if a:\n    pass\nelse:\npass\n", "E0106", 4, 1, "expected an indented block after `else` on line 3"),
    ("with a:\nb\n", "E0106", 2, 1, "after the `with` statement on line 1"),
    # -- missing ':'
    ("if x\n    pass\n", "E0107", 1, 5, "expected ':' after the `if` condition"),
    ("if (a and\n        b)\n    pass\n", "E0107", 2, 11, "expected ':' after the `if` condition"),
    ("if a:\n    pass\nelif b\n    pass\n", "E0107", 3, 7, "expected ':' after the `elif` condition"),
    ("if a:\n    pass\nelse\n    pass\n", "E0107", 3, 5, "expected ':' after `else`"),
    ("while i < n\n    i += 1\n", "E0107", 1, 12, "expected ':' after the `while` condition"),
    ("for i in range(3)\n    pass\n", "E0107", 1, 18, "expected ':' after the `for` header"),
    ("with T.block()\n    pass\n", "E0107", 1, 15, "expected ':' after the `with` items"),
    ("def f(a: T.handle)\n    pass\n", "E0107", 1, 19, "expected ':' after the function signature"),
    ("def f()  # comment\n    pass\n", "E0107", 1, 8, "expected ':' after the function signature"),
    # -- nesting limits
    ("x = " + "(" * 101 + "1" + ")" * 101 + "\n", "E0108", 1, 105, "brackets nested more than 100 deep"),
    ("".join("    " * i + "if a:\n" for i in range(101)) + "    " * 101 + "pass\n",
     "E0108", 102, 1, "blocks nested more than 100 deep"),
    ("x = " + "-" * 300 + "1\n", "E0108", 1, 205, "expression nested more than 200 levels deep"),
    # -- numbers
    ("x = 0777\n", "E0110", 1, 5, "invalid number literal `0777`"),
    ("x = 09\n", "E0110", 1, 5, "invalid number literal `09`"),
    ("x = 1__000\n", "E0110", 1, 5, "invalid number literal `1__000`"),
    ("x = 1_\n", "E0110", 1, 5, "invalid number literal `1_`"),
    ("x = 0x\n", "E0110", 1, 5, "invalid number literal `0x`"),
    ("x = 0xZZ\n", "E0110", 1, 5, "invalid number literal `0xZZ`"),
    ("x = 0b102\n", "E0110", 1, 5, "invalid number literal `0b102`"),
    ("x = 0o8\n", "E0110", 1, 5, "invalid number literal `0o8`"),
    ("x = 1e\n", "E0110", 1, 5, "invalid number literal `1e`"),
    ("x = 1.2.3\n", "E0110", 1, 5, "invalid number literal `1.2.3`"),
    ("x = 3abc + 1\n", "E0110", 1, 5, "invalid number literal `3abc`"),
    ("x = " + "9" * 5000 + "\n", "E0110", 1, 5, "integer literal with 5000 digits is too large"),
    # -- keywords as names
    ("def if():\n    pass\n", "E0111", 1, 5, "`if` is a keyword and cannot be used as a name"),
    ("x = a.class\n", "E0111", 1, 7, "`class` is a keyword"),
    ("import for\n", "E0111", 1, 8, "`for` is a keyword"),
    ("def f(None: T.int32):\n    pass\n", "E0111", 1, 7, "`None` is a keyword"),
    ("x = T.True\n", "E0111", 1, 7, "`True` is a keyword"),
    # -- statements that end early or go on too long
    ("x = 1 +\n", "E0100", 1, 8, "expected an expression after '+'"),
    ("x =\n", "E0100", 1, 4, "expected an expression after '='"),
    ("x = a and\n", "E0100", 1, 10, "expected an expression after `and`"),
    ("assert\n", "E0100", 1, 7, "expected an expression after `assert`"),
    ("from tvm import\n", "E0100", 1, 16, "expected a name after `import`"),
    ("x = f(a)  .\n", "E0100", 1, 12, "expected a name after '.'"),
    ("x = 1 2\n", "E0100", 1, 7, "unexpected number `2`"),
    ("a b\n", "E0100", 1, 3, "unexpected name `b`"),
    ("x = [1, 2 3]\n", "E0100", 1, 11, "unexpected number `3`"),
    ("x = = 1\n", "E0100", 1, 5, "unexpected '='"),
    ("if x = 1:\n    pass\n", "E0100", 1, 6, "unexpected '='"),
    ("x = (a == )\n", "E0100", 1, 11, "unexpected ')'"),
    ("x = 1 +* 2\n", "E0100", 1, 8, "unexpected '*'"),
    ("return return\n", "E0100", 1, 8, "unexpected keyword `return`"),
    ("x = if\n", "E0100", 1, 5, "unexpected keyword `if`"),
    ("else:\n    pass\n", "E0100", 1, 1, "unexpected keyword `else`"),
    ("for i range(4):\n    pass\n", "E0100", 1, 7, "expected `in` after the `for` target"),
    ("def (a):\n    pass\n", "E0100", 1, 5, "expected a function name after `def`"),
    ("def f:\n    pass\n", "E0100", 1, 6, "expected '(' after the function name"),
    ("@T.prim_func\nx = 1\n", "E0100", 2, 1, "expected a function definition after the decorator"),
    ("@T.prim_func\n", "E0100", 1, 13, "expected a function definition after the decorator"),
    ("f(a.b=1)\n", "E0100", 1, 3, "a keyword argument needs a plain name before `=`"),
    ("f(a=1, 2)\n", "E0100", 1, 8, "positional argument follows keyword argument"),
    ("f(a=1, a=2)\n", "E0100", 1, 8, "keyword argument `a` repeated"),
    ("a, b: T.int32 = 1, 2\n", "E0100", 1, 1, "only a single target can be annotated"),
    ("a, b += 1\n", "E0100", 1, 1, "`+=` needs a single target, not a tuple"),
]


@pytest.mark.parametrize("source, code, line, col, fragment", SYNTAX_ERRORS,
                         ids=[f"{r[1]}-{i}-{r[0][:24]!r}" for i, r in enumerate(SYNTAX_ERRORS)])
def test_syntax_error(source, code, line, col, fragment):
    module, diags = parse_text(source)
    assert module is None
    assert len(diags) == 1, [(d.span.line, d.span.col, d.code, d.message) for d in diags]
    d = diags[0]
    assert (d.code, d.span.line, d.span.col) == (code, line, col), d.message
    assert fragment in d.message


def test_every_syntax_code_is_exercised_and_documented():
    used = {row[1] for row in SYNTAX_ERRORS} | {"E0109"}
    # E0130-E0159 are the checker's codes for the Python level (evaluator/core.py)
    assert {c for c in CODES if c.startswith("E01") and not "E0130" <= c <= "E0159"} - {"E0112"} <= used
    assert all(code in CODES for code in used)


# Messages are plain words: never Lark's terminal names or token dumps.
@pytest.mark.parametrize("source", [row[0] for row in SYNTAX_ERRORS])
def test_messages_never_show_parser_internals(source):
    module, diags = parse_text(source)
    for d in diags:
        text = " ".join([d.message, d.help or ""] + [n.message for n in d.notes])
        for internal in ("Token(", "__ANON", "_NEWLINE", "_INDENT", "_DEDENT", "$END", "LPAR", "RSQB", "NAME",
                         "Expected one of", "UnexpectedToken", "lark"):
            assert internal not in text


def test_helps_name_the_fix():
    cases = {
        "x = 0777\n": "0o",
        "x = 1__0\n": "`_` may only appear between two digits",
        "x = 0x\n": "hexadecimal",
        "x = 1e\n": "exponent",
        "if x = 1:\n    pass\n": "`==`",
        "if !x:\n    pass\n": "`not`",
        "x = [1, 2 3]\n": "','",
        "def f():\nx = 1\n": "`pass`",
        "x = (1, 2]\n": "write ')' here",
    }
    for source, fragment in cases.items():
        _, diags = parse_text(source)
        assert fragment in (diags[0].help or ""), (source, diags[0].help)


def test_mismatched_bracket_has_a_note_at_the_opener():
    _, diags = parse_text("x = [a,\n     (b}]\n")
    (d,) = diags
    assert (d.span.line, d.span.col) == (2, 8)
    (note,) = d.notes
    assert "'(' opened here" in note.message and (note.span.line, note.span.col) == (2, 6)


# ---- constructs outside the subset: E0109 names them -------------------------------------

# (source, line, col, the construct as the message names it)
REJECTED = [
    ("class A(metaclass=M):\n    pass\n", 1, 9, "keyword argument of a class definition"),
    ("from tvm.tirx.layout import *\n", 1, 29, "`import *`"),
    ("from . import kernels\n", 1, 6, "relative import"),
    ("from ..a.b import c\n", 1, 6, "relative import"),
    ("from ... import c\n", 1, 6, "relative import"),
    ("def f():\n    yield 1\n", 2, 5, "`yield`"),
    ("x = yield\n", 1, 5, "`yield`"),
    ("x = await f()\n", 1, 5, "`await`"),
    ("async def f():\n    pass\n", 1, 1, "`async`"),
    ("x = b\"raw\"\n", 1, 5, "bytes literal"),
    ("x = (y := 1)\n", 1, 6, "walrus operator `:=`"),
    ("def f(a, /, b):\n    pass\n", 1, 10, "positional-only marker `/`"),
    ("x = 1j\n", 1, 5, "complex number"),
    ("match command:\n    case 1:\n        pass\n", 1, 1, "`match` statement"),
    ("match (command):\n    case 1:\n        pass\n", 1, 1, "`match` statement"),
    ("type Index = int\n", 1, 1, "`type` alias statement"),
]


@pytest.mark.parametrize("source, line, col, construct", REJECTED, ids=[r[3] + "-" + str(i) for i, r in
                                                                       enumerate(REJECTED)])
def test_rejected_construct_is_named(source, line, col, construct):
    module, diags = parse_text(source)
    assert module is None
    assert [(d.code, d.span.line, d.span.col) for d in diags] == [("E0109", line, col)], \
        [(d.span.line, d.span.col, d.code, d.message) for d in diags]
    assert diags[0].message == f"{construct} is not supported in a kernel file"


def test_rejected_constructs_inside_a_kernel_are_all_reported():
    source = ("@T.prim_func\n"
              "def k(a: T.handle):\n"
              "    x = 1j\n"
              "    y = b\"x\"\n"
              "    z = 2j + 3j\n"
              "    assert (y := b)\n")
    assert [(line, col, code) for line, col, code, _ in problems(source)] == [
        (3, 9, "E0109"), (4, 9, "E0109"), (5, 9, "E0109"), (6, 13, "E0109")]


# ---- many errors in one run -------------------------------------------------------------

def test_all_errors_of_a_file_in_source_order():
    source = ("from tvm.script import tirx as T\n"   # 1
              "x = = 1\n"                            # 2: E0100
              "y = 2j\n"                             # 3: E0109, found by the builder
              "if z\n"                               # 4: E0107, repaired: the block is still parsed
              "    w = $\n"                          # 5: E0101
              "else:\n"                              # 6
              "    pass\n"                           # 7
              "@T.prim_func\n"                       # 8
              "def k(a: T.handle):\n"                # 9
              "    b = (1, 2]\n"                     # 10: E0104, and parsing goes on inside the kernel
              "    c = 0777\n"                       # 11: E0110
              "    d = 1j\n"                         # 12: E0109
              "    e = 'open\n"                      # 13: E0102
              "    f = )\n"                          # 14: E0104
              "g = 1 2\n")                           # 15: E0100
    assert [(line, col, code) for line, col, code, _ in problems(source)] == [
        (2, 5, "E0100"), (3, 5, "E0109"), (4, 5, "E0107"), (5, 9, "E0101"), (10, 14, "E0104"), (11, 9, "E0110"),
        (12, 9, "E0109"), (13, 9, "E0102"), (14, 9, "E0104"), (15, 7, "E0100")]


def test_a_missing_colon_is_repaired_and_the_block_still_checked():
    source = ("@T.prim_func\n"
              "def k(a: T.handle)\n"   # 2: E0107
              "    x = 1\n"
              "    if x > 0\n"          # 4: E0107
              "        y = = 2\n"       # 5: E0100
              "    else\n"              # 6: E0107
              "        z = 0777\n"      # 7: E0110
              "w = $\n")                # 8: E0101
    assert [(line, col, code) for line, col, code, _ in problems(source)] == [
        (2, 19, "E0107"), (4, 13, "E0107"), (5, 13, "E0100"), (6, 9, "E0107"), (7, 13, "E0110"), (8, 5, "E0101")]


def test_a_block_header_without_a_block_drops_only_the_header():
    # `x = 1 +` after the empty `def` is parsed as a statement of its own.
    assert [(line, code) for line, _, code, _ in problems("def f():\nx = 1 +\ny = 2\n")] == [
        (2, "E0106"), (2, "E0100")]


def test_one_error_per_broken_statement():
    # After the first error in a statement, what follows in it is not reported.
    assert [code for _, _, code, _ in problems("x = = $ ) 0777\ny = 1\n")] == ["E0100"]


def test_error_in_the_last_statement_of_a_block_keeps_the_block():
    # Recovery puts a stand-in where the broken statement was, so the `if`
    # still has a body and nothing else is reported.
    assert [code for _, _, code, _ in problems("if a:\n    x = = 1\ny = 2\n")] == ["E0100"]
    assert [code for _, _, code, _ in problems("def f():\n    x = (1,\n    2]\n    y = 3 3\n")] == \
        ["E0104", "E0100"]


def test_too_many_errors_stop_the_parse():
    _, diags = parse_text("x = = 1\n" * (MAX_SYNTAX_ERRORS + 50))
    assert len(diags) == MAX_SYNTAX_ERRORS + 1
    last = diags[-1]
    assert (last.code, last.span.line) == ("E0112", MAX_SYNTAX_ERRORS + 1)
    assert f"more than {MAX_SYNTAX_ERRORS} syntax errors" in last.message


def test_a_fatal_layout_error_ends_the_parse_but_keeps_earlier_errors():
    source = "x = 2j\ny = = 1\nif a:\n        b = 1\n    c = 2\nd = $\n"
    assert [(line, code) for line, _, code, _ in problems(source)] == [(1, "E0109"), (2, "E0100"), (5, "E0105")]


# ---- errors at the end of the file ------------------------------------------------------------

@pytest.mark.parametrize("source, line, col", [
    ("def f():\n", 1, 9),
    ("def f():\n\n\n   \n", 1, 9),
    ("def f():  # comment\n\n", 1, 20),
    ("x = (1,\n   2,\n\n", 1, 5),
    ("@T.prim_func\n\n\n", 1, 13),
    ("if a:\n    pass\nelse:", 3, 6),
])
def test_errors_at_end_of_file_point_at_the_last_line_with_text(source, line, col):
    _, diags = parse_text(source)
    (d,) = diags
    assert (d.span.line, d.span.col) == (line, col), d.message


# ---- nesting limits are exact -----------------------------------------------------------------

def test_expression_depth_limit_is_200_levels_of_expression():
    assert problems("x = " + "-" * 199 + "1\n") == []  # 199 minus signs and the constant: 200 levels
    assert [code for _, _, code, _ in problems("x = " + "-" * 200 + "1\n")] == ["E0108"]
    # Statements around an expression do not count towards its depth.
    nested = "".join("    " * i + "if a:\n" for i in range(50)) + "    " * 50 + "x = " + "-" * 199 + "1\n"
    assert problems(nested) == []
    # A flat chain of 200 operands is 199 BinOps deep plus the operand.
    assert problems("x = " + " + ".join(["a"] * 200) + "\n") == []


def test_bracket_and_block_limits_are_100():
    assert problems("x = " + "(" * 100 + "1" + ")" * 100 + "\n") == []
    assert [c for _, _, c, _ in problems("x = " + "(" * 101 + "1" + ")" * 101 + "\n")] == ["E0108"]
    blocks = lambda n: "".join(" " * i + "if a:\n" for i in range(n)) + " " * n + "pass\n"
    assert problems(blocks(100)) == []  # 100 `if`s: 100 indented blocks below the module level
    assert [(line, c) for line, _, c, _ in problems(blocks(101))] == [(102, "E0108")]
