"""The accepted subset: every construct of the issue parses to the AST it should.

Shapes are compared as compact s-expressions (see _util.sx) so that a
precedence or associativity mistake shows up as a readable diff.
"""
from __future__ import annotations

import logging
from importlib import resources

import pytest
from lark import Lark, logger as lark_logger

from transpiler.syntax import ast
from transpiler.syntax.builder import Builder
from transpiler.syntax.grammar import compiled_grammar

from ._util import expr, parse_ok, stmt, sx


# ---- the grammar itself ---------------------------------------------------------------

def test_grammar_has_no_lalr_conflicts(caplog):
    """Lark resolves shift/reduce conflicts silently (as shift) and only logs
    them in debug mode; a conflict means an ambiguous grammar."""
    text = resources.files("transpiler.grammar").joinpath("tirx.lark").read_text(encoding="utf-8")
    old = lark_logger.level
    lark_logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(text, parser="lalr", lexer="basic", debug=True, maybe_placeholders=True)
    finally:
        lark_logger.setLevel(old)
    conflicts = [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]
    assert conflicts == []


def test_every_tree_the_grammar_builds_has_a_builder_method():
    """The AST builder dispatches on tree names; a missing method would leave a
    raw parse tree inside the AST."""
    names = set()
    for rule in compiled_grammar().rules:
        name = rule.alias or rule.origin.name
        if name.startswith("_"):
            continue  # spliced into the parent
        kept = [s for s in rule.expansion if not (s.is_term and s.filter_out)]
        if rule.options.expand1 and not rule.alias and len(kept) == 1:
            continue  # `?rule` with one child: replaced by the child
        names.add(str(name))
    missing = sorted(n for n in names if not hasattr(Builder, n))
    assert missing == []


# ---- module level -------------------------------------------------------------------

def test_module_level_imports_constants_comments_docstrings_and_kernels():
    module = parse_ok('''"""Module docstring."""
# a comment line
import tvm.script.tirx as T   # trailing comment
from tvm.tirx.layout import TileLayout, S as Shape, laneid
from tvm.tirx.layout import (
    TileLayout,
    S,
)
N = 128
BM, BK = 64, 32


@T.prim_func
def first(a: T.handle):
    """Kernel docstring."""
    pass


@T.prim_func(private=True)
def second(a: T.handle, n: T.int32, x: T.Buffer((128,), "float32")):
    return
''')
    kinds = [type(s).__name__ for s in module.body]
    assert kinds == ["ExprStmt", "Import", "ImportFrom", "ImportFrom", "Assign", "Assign", "FunctionDef",
                     "FunctionDef"]
    imp = module.body[1]
    assert [(a.name, a.asname) for a in imp.names] == [("tvm.script.tirx", "T")]
    frm = module.body[2]
    assert frm.module == "tvm.tirx.layout"
    assert [(a.name, a.asname) for a in frm.names] == [("TileLayout", None), ("S", "Shape"), ("laneid", None)]
    assert [a.name for a in module.body[3].names] == ["TileLayout", "S"]
    first, second = module.body[6], module.body[7]
    assert first.name == "first" and [sx(d) for d in first.decorators] == ["T.prim_func"]
    assert isinstance(first.body[0], ast.ExprStmt) and first.body[0].value.value == "Kernel docstring."
    assert first.span.line == 13 and first.name_span.line == 14 and first.name_span.col == 5
    assert sx(second.decorators[0]) == "(call T.prim_func private=True)"
    assert [(p.name, sx(p.annotation)) for p in second.params] == [
        ("a", "T.handle"), ("n", "T.int32"), ("x", "(call T.Buffer (tuple 128) 'float32')")]


def test_decorator_and_def_spans():
    module = parse_ok("@T.prim_func\ndef k(a: T.handle):\n    x = 1\n\n\n")
    func = module.body[0]
    assert (func.span.line, func.span.col, func.span.end_line, func.span.end_col) == (1, 1, 3, 10)
    assert (func.name_span.line, func.name_span.col, func.name_span.end_col) == (2, 5, 6)


# ---- statements ---------------------------------------------------------------------

STATEMENTS = [
    ("x = 1\n", "(Assign x 1)"),
    ("x, y = 1, 2\n", "(Assign (tuple x y) (tuple 1 2))"),
    ("A[i, j] = B[j, i]\n", "(Assign (sub A [i j]) (sub B [j i]))"),
    ("x: T.int32 = 0\n", "(AnnAssign x T.int32 0)"),
    ("x: T.float32[8]\n", "(AnnAssign x (sub T.float32 [8]) _)"),
    ("half: T.let[T.int32] = N // 2\n", "(AnnAssign half (sub T.let [T.int32]) (// N 2))"),
    ("x += 1\n", "(AugAssign x + 1)"),
    ("x -= 1\n", "(AugAssign x - 1)"),
    ("x *= 2\n", "(AugAssign x * 2)"),
    ("x /= 2\n", "(AugAssign x / 2)"),
    ("x //= 2\n", "(AugAssign x // 2)"),
    ("x %= 2\n", "(AugAssign x % 2)"),
    ("x @= y\n", "(AugAssign x @ y)"),
    ("x &= 1\n", "(AugAssign x & 1)"),
    ("x |= 1\n", "(AugAssign x | 1)"),
    ("x ^= 1\n", "(AugAssign x ^ 1)"),
    ("x <<= 1\n", "(AugAssign x << 1)"),
    ("x >>= 1\n", "(AugAssign x >> 1)"),
    ("phase[0] += 1\n", "(AugAssign (sub phase [0]) + 1)"),
    ("T.cuda.cta_sync()\n", "(ExprStmt (call T.cuda.cta_sync))"),
    ("pass\n", "(Pass)"),
    ("return\n", "(Return _)"),
    ("return x + 1\n", "(Return (+ x 1))"),
    ("return a, b\n", "(Return (tuple a b))"),
    ("assert n > 0\n", "(Assert (cmp n > 0) _)"),
    ("assert n % 4 == 0, \"n must be a multiple of 4\"\n",
     "(Assert (cmp (% n 4) == 0) 'n must be a multiple of 4')"),
    ("if a:\n    x = 1\n", "(If a [(Assign x 1)] [])"),
    ("if a: x = 1\n", "(If a [(Assign x 1)] [])"),
    ("if a:\n    pass\nelse:\n    y = 2\n", "(If a [(Pass)] [(Assign y 2)])"),
    ("if a:\n    pass\nelif b:\n    pass\nelif c:\n    x = 1\nelse:\n    x = 2\n",
     "(If a [(Pass)] [(If b [(Pass)] [(If c [(Assign x 1)] [(Assign x 2)])])])"),
    ("for i in range(4):\n    A[i] = 0\n", "(For i (call range 4) [(Assign (sub A [i]) 0)])"),
    ("for k in T.unroll(4):\n    r[k] = A[tx, k]\n", "(For k (call T.unroll 4) [(Assign (sub r [k]) (sub A [tx k]))])"),
    ("for i, j in T.grid(4, 8):\n    pass\n", "(For (tuple i j) (call T.grid 4 8) [(Pass)])"),
    ("while i < n:\n    i += 1\n    if i > 3:\n        break\n    continue\n",
     "(While (cmp i < n) [(AugAssign i + 1) (If (cmp i > 3) [(Break)] []) (Continue)])"),
    ("for i in a:\n    pass\nelse:\n    x = 1\n", "(For i a [(Pass)] [(Assign x 1)])"),
    ("while a:\n    break\nelse:\n    pass\n", "(While a [(Break)] [(Pass)])"),
    ("del a, b[1], c.d\n", "(Delete [a (sub b [1]) c.d])"),
    ("del (a, b)\n", "(Delete [a b])"),
    ("with T.block():\n    pass\n", "(With [(WithItem (call T.block) _)] [(Pass)])"),
    ("with a as b, c:\n    pass\n", "(With [(WithItem a b) (WithItem c _)] [(Pass)])"),
    ("x = 1; y = 2;\n", None),  # two statements, checked below
]


@pytest.mark.parametrize("source, expected", [s for s in STATEMENTS if s[1] is not None],
                         ids=[s[0].split("\n")[0] for s in STATEMENTS if s[1] is not None])
def test_statement(source, expected):
    assert stmt(source) == expected


def test_nonlocal_names_each_name():
    (fdef,) = parse_ok("def f():\n    nonlocal n, m\n").body
    assert isinstance(fdef.body[0], ast.Nonlocal) and fdef.body[0].names == ("n", "m")


def test_semicolons_separate_statements_on_one_line():
    module = parse_ok("x = 1; y = 2;\nz = 3\n")
    assert [type(s).__name__ for s in module.body] == ["Assign", "Assign", "Assign"]
    assert [(s.span.line, s.span.col) for s in module.body] == [(1, 1), (1, 8), (2, 1)]


def test_statement_spans_end_at_the_last_statement_of_the_block():
    module = parse_ok("if a:\n    x = 1\n    y = 22\n\n# trailing comment\nz = 3\n")
    branch = module.body[0]
    assert (branch.span.line, branch.span.col, branch.span.end_line, branch.span.end_col) == (1, 1, 3, 11)
    assert (module.span.end_line, module.span.end_col) == (6, 6)


def test_elif_spans_start_at_their_keyword():
    module = parse_ok("if a:\n    pass\nelif b:\n    x = 1\nelse:\n    y = 2\n")
    outer = module.body[0]
    inner = outer.orelse[0]
    assert isinstance(inner, ast.If)
    assert (inner.span.line, inner.span.col, inner.span.end_line, inner.span.end_col) == (3, 1, 6, 10)
    # the `if` itself still starts at its own keyword
    assert (outer.span.line, outer.span.col, outer.span.end_line, outer.span.end_col) == (1, 1, 6, 10)


# ---- expressions ---------------------------------------------------------------------

EXPRESSIONS = [
    # arithmetic precedence and associativity
    ("a + b * c", "(+ a (* b c))"),
    ("a * b + c", "(+ (* a b) c)"),
    ("a - b - c", "(- (- a b) c)"),
    ("a // b % c", "(% (// a b) c)"),
    ("a / b * c", "(* (/ a b) c)"),
    ("(a + b) * c", "(* (+ a b) c)"),
    ("-a * b", "(* (- a) b)"),
    ("-a.b[0]", "(- (sub a.b [0]))"),
    ("~a + +b", "(+ (~ a) (+ b))"),
    ("- - a", "(- (- a))"),
    # `@` binds like `*` (layouts write `1 @ laneid`)
    ("1 @ laneid", "(@ 1 laneid)"),
    ("a @ b * c", "(* (@ a b) c)"),
    ("a + 1 @ laneid", "(+ a (@ 1 laneid))"),
    # shifts and bitwise operators
    ("a << b + c", "(<< a (+ b c))"),
    ("a >> 1 << 2", "(<< (>> a 1) 2)"),
    ("a & b << 1", "(& a (<< b 1))"),
    ("a | b ^ c & d", "(| a (^ b (& c d)))"),
    ("a & b == c", "(cmp (& a b) == c)"),
    # comparisons, boolean operators, conditional expressions
    ("a < b", "(cmp a < b)"),
    ("0 <= i < n", "(cmp 0 <= i < n)"),
    ("a == b != c", "(cmp a == b != c)"),
    ("a > b >= c", "(cmp a > b >= c)"),
    ("not a", "(not a)"),
    ("not a == b", "(not (cmp a == b))"),
    ("a and b or c and d", "(or (and a b) (and c d))"),
    ("a or b or c", "(or a b c)"),
    ("not a and not b", "(and (not a) (not b))"),
    ("x if c else y", "(ifexp c x y)"),
    ("x if a else y if b else z", "(ifexp a x (ifexp b y z))"),
    ("a + 1 if a > b else b", "(ifexp (cmp a > b) (+ a 1) b)"),
    ("a or b if c else d", "(ifexp c (or a b) d)"),
    # calls, attributes, subscripts, slices
    ("f()", "(call f)"),
    ("f(a, b=1, c=x + 1)", "(call f a b=1 c=(+ x 1))"),
    ("f(a,)", "(call f a)"),
    ("T.match_buffer(p, (4, 8), \"float32\", elem_offset=64)",
     "(call T.match_buffer p (tuple 4 8) 'float32' elem_offset=64)"),
    ("A.ptr_to([i, j])", "(call A.ptr_to (list i j))"),
    ("a.b.c", "a.b.c"),
    ("f(x)(y)[z].w", "(sub (call (call f x) y) [z]).w"),
    ("A[i]", "(sub A [i])"),
    ("A[i, j]", "(sub A [i j])"),
    ("A[(i, j)]", "(sub A [(tuple i j)])"),
    ("A[i,]", "(sub A [i])"),
    ("A[:]", "(sub A [(slice _ _ _)])"),
    ("A[1:]", "(sub A [(slice 1 _ _)])"),
    ("A[:n]", "(sub A [(slice _ n _)])"),
    ("A[::2]", "(sub A [(slice _ _ 2)])"),
    ("A[0:n:2]", "(sub A [(slice 0 n 2)])"),
    ("A[m0:m0+BM, 0:BK]", "(sub A [(slice m0 (+ m0 BM) _) (slice 0 BK _)])"),
    ("S[(4, 8):(1, 4)]", "(sub S [(slice (tuple 4 8) (tuple 1 4) _)])"),
    ("S[(32, 8) : (1 @ laneid, 1)]", "(sub S [(slice (tuple 32 8) (tuple (@ 1 laneid) 1) _)])"),
    ("TileLayout(S[(4, 8):(16, 1)])", "(call TileLayout (sub S [(slice (tuple 4 8) (tuple 16 1) _)]))"),
    # displays
    ("()", "(tuple)"),
    ("(1,)", "(tuple 1)"),
    ("1, 2", "(tuple 1 2)"),
    ("(1, 2, 3,)", "(tuple 1 2 3)"),
    ("((1, 2), (3,))", "(tuple (tuple 1 2) (tuple 3))"),
    ("[]", "(list)"),
    ("[1, [2, 3],]", "(list 1 (list 2 3))"),
    ("{}", "(dict)"),
    ("{\"a\": 1, b: c + 1,}", "(dict 'a':1 b:(+ c 1))"),
    # literals
    ("True", "True"),
    ("None", "None"),
    ("0", "0"),
    ("00", "0"),
    ("1_000_000", "1000000"),
    ("0x1F", "31"),
    ("0XFF_FF", "65535"),
    ("0b1010", "10"),
    ("0B1_0", "2"),
    ("0o17", "15"),
    ("1.5", "1.5"),
    ("1.", "1.0"),
    (".5", "0.5"),
    ("1e3", "1000.0"),
    ("2.5E-2", "0.025"),
    ("1_0.2_5e1_0", "102500000000.0"),
    ("'single'", "'single'"),
    ("\"double\"", "'double'"),
    ("'it''s'", "'its'"),
    ("\"a\" 'b' \"c\"", "'abc'"),
    ("r\"\\n\\d\"", "'\\\\n\\\\d'"),
    ("R'\\t'", "'\\\\t'"),
    ("u\"x\"", "'x'"),
    ("\"tab\\there\\n\"", "'tab\\there\\n'"),
    ("'\\x41\\u00e9\\U0001F600\\101\\N{DEGREE SIGN}'", "'Aé😀A°'"),
    ("'quote \\' inside'", "\"quote ' inside\""),
    ("\"\"\"triple\nquoted\"\"\"", "'triple\\nquoted'"),
    ("'''single triple ' '' '''", "\"single triple ' '' \""),
    ("\"\"", "''"),
    ("\"\"\"\"\"\"", "''"),
    ("'a' '''b'''", "'ab'"),
    ("\"\\\\\"", "'\\\\'"),
    ("'\u4e2d\u6587'", "'中文'"),
]


@pytest.mark.parametrize("source, expected", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_expression(source, expected):
    assert expr(source) == expected


def test_implicit_line_joining_inside_brackets():
    text = ("acc = T.decl_buffer((CTA_M, 512), \"float32\", scope=\"tmem\",\n"
            "                    allocated_addr=0,   # a comment inside the call\n"
            "\n"
            "        layout=tmem_layout)\n"
            "y = [1,\n"
            "  2]\n")
    module = parse_ok(text)
    assert len(module.body) == 2
    call = module.body[0].value
    assert [k.name for k in call.keywords] == ["scope", "allocated_addr", "layout"]
    assert (call.span.line, call.span.end_line) == (1, 4)
    assert (module.body[1].span.line, module.body[1].span.end_line) == (5, 6)


def test_backslash_continuation():
    module = parse_ok("x = 1 + \\\n    2\nif a and \\\n        b:\n    pass\n")
    assert sx(module.body[0]) == "(Assign x (+ 1 2))"
    assert sx(module.body[1].test) == "(and a b)"


def test_blank_lines_comments_and_odd_indentation_of_comment_lines():
    module = parse_ok("if a:\n\n    x = 1\n# at column one\n        # deeper\n    y = 2\n\n")
    assert sx(module.body[0]) == "(If a [(Assign x 1) (Assign y 2)] [])"


def test_tabs_used_consistently():
    module = parse_ok("if a:\n\tif b:\n\t\tx = 1\n\ty = 2\n")
    assert sx(module.body[0]) == "(If a [(If b [(Assign x 1)] []) (Assign y 2)] [])"


def test_nested_blocks_dedent_several_levels_at_once():
    module = parse_ok("for i in a:\n    for j in b:\n        if c:\n            x = 1\ny = 2\n")
    assert len(module.body) == 2 and sx(module.body[1]) == "(Assign y 2)"


def test_file_without_final_newline():
    assert stmt("x = 1") == "(Assign x 1)"
    assert stmt("if a:\n    x = 1") == "(If a [(Assign x 1)] [])"
    assert stmt("x = 1  # no newline after me") == "(Assign x 1)"


def test_empty_and_blank_files():
    for text in ("", "\n", "\n\n   \n", "# only a comment", "   # indented comment\n\n"):
        assert parse_ok(text).body == ()


def test_crlf_bom_and_lone_cr_are_normalised():
    module = parse_ok("\ufeffx = 1\r\nif a:\r\n    y = 'z'\rz = 3\r\n")
    assert [sx(s) for s in module.body] == ["(Assign x 1)", "(If a [(Assign y 'z')] [])", "(Assign z 3)"]
    assert (module.body[2].span.line, module.body[2].span.col) == (4, 1)


def test_unicode_identifiers_and_soft_keywords_as_names():
    assert expr("größe + 1") == "(+ größe 1)"
    assert stmt("match = type(case)\n") == "(Assign match (call type case))"


def test_positions_are_one_based_with_exclusive_end():
    module = parse_ok("x = foo(a, b)\n")
    call = module.body[0].value
    assert (call.span.line, call.span.col, call.span.end_line, call.span.end_col) == (1, 5, 1, 14)
    assert (call.args[1].span.col, call.args[1].span.end_col) == (12, 13)


def test_parentheses_widen_the_span_of_what_they_enclose():
    module = parse_ok("x = (a + b)\n")
    value = module.body[0].value
    assert isinstance(value, ast.BinOp) and (value.span.col, value.span.end_col) == (5, 12)


def test_strings_across_lines():
    # A backslash-newline inside a one-line string joins the lines (and is dropped).
    assert expr('"abc\\\ndef"') == "'abcdef'"
    # Adjacent strings on continued lines are one constant.
    assert expr('("first "\n     "second")') == "'first second'"
    module = parse_ok('x = "a" \\\n    "b"\n')
    assert sx(module.body[0].value) == "'ab'"
    # A triple-quoted string may hold anything but its own closing quotes.
    assert expr('"""a "quoted" \'\'\' word\n# not a comment\n"""') == "'a \"quoted\" \\'\\'\\' word\\n# not a comment\\n'"


def test_keywords_are_reserved_but_names_may_contain_them():
    assert expr("iff + format + classic + None_ + _") == "(+ (+ (+ (+ iff format) classic) None_) _)"
    assert expr("1if a else 2") == "(ifexp a 1 2)"  # Python reads `1if` as `1 if`
