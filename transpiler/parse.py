"""Text to AST: the Lark grammar, the indentation post-lexer, the tree builder,
and the plain-words wording of syntax errors.

The parse never executes or imports anything from the file.
"""
from __future__ import annotations

import keyword
from functools import lru_cache
from importlib import resources
from typing import Iterator

from lark import Lark, Token, v_args
from lark.visitors import Transformer_NonRecursive
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast
from .diagnostics import Diagnostics
from .source import SourceFile, Span

MAX_BLOCK_DEPTH = 100
MAX_BRACKET_DEPTH = 100
MAX_EXPR_DEPTH = 200
TAB_WIDTH = 8

_OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}


class SyntaxProblem(Exception):
    """A syntax error found by the post-lexer or the builder, with its code and span."""

    def __init__(self, code: str, message: str, span: Span, help: str | None = None, notes=()):
        super().__init__(message)
        self.code, self.message, self.span, self.help, self.notes = code, message, span, help, tuple(notes)


def _token_span(file: str, tok: Token) -> Span:
    end_line = tok.end_line if tok.end_line is not None else tok.line
    end_col = tok.end_column if tok.end_column is not None else tok.column + max(len(tok), 1)
    return Span(file, tok.line, tok.column, end_line, max(end_col, tok.column + 1) if end_line == tok.line else end_col)


class Indenter:
    """Turns newline tokens into INDENT/DEDENT, joins lines inside brackets,
    and tracks open brackets so that errors can name the unclosed one."""

    always_accept = ("_NEWLINE",)

    def __init__(self) -> None:
        self.file = "<input>"
        self.brackets: list[Token] = []
        self.levels = [0]

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.brackets = []
        self.levels = [0]
        last = None
        for tok in stream:
            last = tok
            if tok.type == "_NEWLINE":
                if self.brackets:
                    continue
                yield from self._newline(tok)
                continue
            if tok.type in _OPEN:
                self.brackets.append(tok)
                if len(self.brackets) > MAX_BRACKET_DEPTH:
                    raise SyntaxProblem("E0108", f"brackets nested more than {MAX_BRACKET_DEPTH} deep",
                                        _token_span(self.file, tok))
            elif tok.type in _CLOSE:
                if not self.brackets:
                    raise SyntaxProblem("E0104", f"unmatched '{tok.value}'", _token_span(self.file, tok))
                opener = self.brackets.pop()
                if _OPEN[opener.type] != _CLOSE[tok.type]:
                    raise SyntaxProblem(
                        "E0104", f"closing '{tok.value}' does not match '{opener.value}'",
                        _token_span(self.file, tok),
                        notes=[(f"'{opener.value}' opened here", _token_span(self.file, opener))])
            yield tok
        if self.brackets:
            opener = self.brackets[-1]
            raise SyntaxProblem("E0103", f"'{opener.value}' was never closed", _token_span(self.file, opener))
        while len(self.levels) > 1:
            self.levels.pop()
            if last is not None:
                yield Token.new_borrow_pos("_DEDENT", "", last)

    def _newline(self, tok: Token) -> Iterator[Token]:
        yield tok
        indent_text = tok.value.rsplit("\n", 1)[1]
        width = 0
        for char in indent_text:
            width = (width // TAB_WIDTH + 1) * TAB_WIDTH if char == "\t" else width + 1
        line = tok.end_line if tok.end_line is not None else tok.line
        col = (tok.end_column if tok.end_column is not None else 1)
        here = Span(self.file, line, col, line, col + 1)
        if width > self.levels[-1]:
            self.levels.append(width)
            if len(self.levels) > MAX_BLOCK_DEPTH:
                raise SyntaxProblem("E0108", f"blocks nested more than {MAX_BLOCK_DEPTH} deep", here)
            yield Token("_INDENT", indent_text, start_pos=tok.end_pos, line=line, column=col,
                        end_line=line, end_column=col + 1, end_pos=tok.end_pos)
            return
        while width < self.levels[-1]:
            self.levels.pop()
            yield Token("_DEDENT", indent_text, start_pos=tok.end_pos, line=line, column=col,
                        end_line=line, end_column=col + 1, end_pos=tok.end_pos)
        if width != self.levels[-1]:
            raise SyntaxProblem("E0105", "unindent does not match any outer indentation level", here)


_UNSUPPORTED_HELP = {
    "class definition": "kernel files hold functions only; group constants at module level",
    "lambda": "write the expression inline, or use a `T.let` binding",
    "`**` (power)": "use `T.pow(x, y)`, or multiply out a small constant power",
    "`in` operator": "compare explicitly, for example `a == b or a == c`",
    "`not in` operator": "compare explicitly, for example `a != b and a != c`",
    "`is` operator": "compare with `==`",
    "`is not` operator": "compare with `!=`",
    "f-string": "use a plain string",
    "walrus operator `:=`": "assign on its own line",
    "`global` statement": "kernels see module constants directly; they cannot rebind them",
    "`nonlocal` statement": None,
    "`try` statement": None,
    "`del` statement": None,
    "`raise` statement": "use `assert cond, \"message\"`",
    "`yield`": None,
    "`await`": None,
    "`async`": None,
    "`import *`": "import the names you use: `from tvm.tirx.layout import TileLayout, S`",
    "relative import": None,
    "list comprehension": "write a `for` loop, or `T.grid` for nested loops",
    "generator expression": "write a `for` loop",
    "dict comprehension": None,
    "set comprehension": None,
    "set literal": "use a tuple",
    "starred expression": None,
    "`*args` parameter": None,
    "`**kwargs` parameter": None,
    "`**` argument unpacking": None,
    "`...` (Ellipsis)": "use `pass`, or `:` to take a whole dimension",
    "complex number": None,
    "bytes literal": "use a plain string",
    "`else` clause on a loop": "use a flag variable",
    "`->` return annotation": "kernels return nothing; remove the annotation",
    "default parameter value": "use a module-level constant",
    "positional-only marker `/`": None,
}


def _strip_prefix(text: str) -> tuple[str, str]:
    index = 0
    while text[index] not in "'\"":
        index += 1
    return text[:index].lower(), text[index:]


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v", "\n": ""}


def _unescape(body: str) -> str:
    """Python escape sequences, decoded by hand so nothing is evaluated."""
    out = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "x" and i + 4 <= len(body):
            try:
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
            except ValueError:
                out.append(char)
                i += 1
        elif nxt in "uU":
            width = 4 if nxt == "u" else 8
            try:
                out.append(chr(int(body[i + 2:i + 2 + width], 16)))
                i += 2 + width
            except (ValueError, OverflowError):
                out.append(char)
                i += 1
        else:  # Python keeps unknown escapes as they are
            out.append(char)
            i += 1
    return "".join(out)


@v_args(meta=True)
class _Builder(Transformer_NonRecursive):
    """Builds AST nodes from the parse tree bottom-up, without recursion."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.file = "<input>"
        self.problems: list[SyntaxProblem] = []

    # -- helpers ------------------------------------------------------------------
    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 1, 1, 1, 1)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _block_span(self, meta, body) -> Span:
        """A compound statement ends with its last statement, not at the dedent after it."""
        start = self._span(meta)
        last = body[-1].span if body else start
        return Span(self.file, start.line, start.col, last.end_line, last.end_col)

    def _tok(self, tok: Token) -> Span:
        return _token_span(self.file, tok)

    def _reject(self, what: str, span: Span) -> None:
        self.problems.append(SyntaxProblem("E0109", f"{what} is not supported in a kernel file",
                                           span, _UNSUPPORTED_HELP.get(what)))

    def _name(self, tok: Token) -> str:
        if keyword.iskeyword(tok.value):
            self.problems.append(SyntaxProblem("E0111", f"`{tok.value}` is a keyword and cannot be used as a name",
                                               self._tok(tok)))
        return str(tok.value)

    def _placeholder(self, span: Span) -> ast.Constant:
        return ast.Constant(span, None)

    # -- module and statements ----------------------------------------------------------
    def start(self, meta, children):
        body = []
        for child in children:
            if isinstance(child, list):
                body.extend(child)
            elif child is not None:
                body.append(child)
        return ast.Module(self._span(meta), tuple(body))

    def simple_stmt(self, meta, children):
        return [c for c in children if c is not None]

    def suite(self, meta, children):
        body = []
        for child in children:
            if isinstance(child, list):
                body.extend(child)
            elif child is not None:
                body.append(child)
        return tuple(body)

    def expr_stmt(self, meta, children):
        return ast.ExprStmt(self._span(meta), children[0])

    def assign(self, meta, children):
        span = self._span(meta)
        if len(children) > 2:
            self.problems.append(SyntaxProblem("E0308", "chained assignment `a = b = c` is not supported", span,
                                               "write two assignments"))
        return ast.Assign(span, children[0], children[-1])

    def ann_assign(self, meta, children):
        target, annotation, value = children
        return ast.AnnAssign(self._span(meta), target, annotation, value)

    def augassign_op(self, meta, children):
        return str(children[0].value)

    def aug_assign(self, meta, children):
        target, op, value = children
        if op == "**=":
            self._reject("`**` (power)", self._span(meta))
        return ast.AugAssign(self._span(meta), target, op[:-1], value)

    def pass_stmt(self, meta, children):
        return ast.Pass(self._span(meta))

    def break_stmt(self, meta, children):
        return ast.Break(self._span(meta))

    def continue_stmt(self, meta, children):
        return ast.Continue(self._span(meta))

    def return_stmt(self, meta, children):
        return ast.Return(self._span(meta), children[0])

    def assert_stmt(self, meta, children):
        return ast.Assert(self._span(meta), children[0], children[1])

    def _rejected_stmt(self, what):
        def build(meta, children):
            self._reject(what, self._span(meta))
            return ast.Pass(self._span(meta))
        return build

    def global_stmt(self, meta, children):
        return self._rejected_stmt("`global` statement")(meta, children)

    def nonlocal_stmt(self, meta, children):
        return self._rejected_stmt("`nonlocal` statement")(meta, children)

    def del_stmt(self, meta, children):
        return self._rejected_stmt("`del` statement")(meta, children)

    def raise_stmt(self, meta, children):
        return self._rejected_stmt("`raise` statement")(meta, children)

    def yield_stmt(self, meta, children):
        return ast.Pass(self._span(meta))

    def yield_expr(self, meta, children):
        self._reject("`yield`", self._span(meta))
        return self._placeholder(self._span(meta))

    def classdef(self, meta, children):
        return self._rejected_stmt("class definition")(meta, children)

    def try_stmt(self, meta, children):
        return self._rejected_stmt("`try` statement")(meta, children)

    def async_stmt(self, meta, children):
        return self._rejected_stmt("`async`")(meta, children)

    def dotted_name(self, meta, children):
        return ".".join(self._name(t) for t in children)

    def dotted_as_name(self, meta, children):
        name, asname = children
        return ast.ImportAlias(self._span(meta), name, self._name(asname) if asname is not None else None)

    def import_name(self, meta, children):
        return ast.Import(self._span(meta), tuple(children))

    def import_as_name(self, meta, children):
        name, asname = children
        return ast.ImportAlias(self._span(meta), self._name(name),
                               self._name(asname) if asname is not None else None)

    def import_as_names(self, meta, children):
        return tuple(c for c in children if c is not None)

    def import_targets(self, meta, children):
        return children[0]

    def import_star(self, meta, children):
        self._reject("`import *`", self._span(meta))
        return ()

    def from_module(self, meta, children):
        if any(isinstance(c, Token) and c.type == "DOTS" for c in children):
            self._reject("relative import", self._span(meta))
        return next((c for c in children if isinstance(c, str) and not isinstance(c, Token)), "")

    def import_from(self, meta, children):
        module, names = children
        return ast.ImportFrom(self._span(meta), module, tuple(names))

    def if_stmt(self, meta, children):
        test, body, *rest = children
        orelse = rest[-1] if rest and rest[-1] is not None else ()
        elifs = [c for c in rest[:-1]]
        for elif_span, elif_test, elif_body in reversed(elifs):
            orelse = (ast.If(elif_span, elif_test, elif_body, orelse),)
        return ast.If(self._block_span(meta, orelse or body), test, body, orelse)

    def elif_clause(self, meta, children):
        return (self._block_span(meta, children[1]), children[0], children[1])

    def else_clause(self, meta, children):
        return children[0]

    def while_stmt(self, meta, children):
        test, body, orelse = children
        if orelse is not None:
            self._reject("`else` clause on a loop", self._span(meta))
        return ast.While(self._block_span(meta, body), test, body)

    def for_stmt(self, meta, children):
        target, iterable, body, orelse = children
        if orelse is not None:
            self._reject("`else` clause on a loop", self._span(meta))
        return ast.For(self._block_span(meta, body), target, iterable, body)

    def with_item(self, meta, children):
        return ast.WithItem(self._span(meta), children[0], children[1])

    def with_stmt(self, meta, children):
        *items, body = children
        return ast.With(self._block_span(meta, body), tuple(items), body)

    def decorator(self, meta, children):
        return children[0]

    def decorated(self, meta, children):
        *decorators, func = children
        if isinstance(func, ast.FunctionDef):
            return ast.FunctionDef(self._block_span(meta, func.body), func.name, func.params, tuple(decorators),
                                   func.body, func.name_span)
        return func

    def funcdef(self, meta, children):
        name, params, returns, body = children
        if returns is not None:
            self._reject("`->` return annotation", returns.span)
        return ast.FunctionDef(self._block_span(meta, body), self._name(name), tuple(params or ()), (), body,
                               self._tok(name))

    def parameters(self, meta, children):
        return [c for c in children if c is not None]

    def param(self, meta, children):
        name, annotation, default = children
        if default is not None:
            self._reject("default parameter value", default.span)
        return ast.Param(self._span(meta), self._name(name), annotation)

    def star_param(self, meta, children):
        self._reject("`*args` parameter", self._span(meta))
        return None

    def kwstar_param(self, meta, children):
        self._reject("`**kwargs` parameter", self._span(meta))
        return None

    def slash_param(self, meta, children):
        self._reject("positional-only marker `/`", self._span(meta))
        return None

    # -- expressions ----------------------------------------------------------------
    def ifexp(self, meta, children):
        body, test, orelse = children
        return ast.IfExp(self._span(meta), test, body, orelse)

    def lambdef(self, meta, children):
        self._reject("lambda", self._span(meta))
        return self._placeholder(self._span(meta))

    def walrus(self, meta, children):
        self._reject("walrus operator `:=`", self._span(meta))
        return children[1]

    def or_test(self, meta, children):
        return ast.BoolOp(self._span(meta), "or", tuple(children))

    def and_test(self, meta, children):
        return ast.BoolOp(self._span(meta), "and", tuple(children))

    def not_test(self, meta, children):
        return ast.UnaryOp(self._span(meta), "not", children[0])

    def comp_op(self, meta, children):
        return " ".join(str(t.value) for t in children)

    def compare(self, meta, children):
        left = children[0]
        ops = tuple(children[1::2])
        for op in ops:
            if op in ("in", "not in", "is", "is not"):
                self._reject(f"`{op}` operator", self._span(meta))
        return ast.Compare(self._span(meta), left, ops, tuple(children[2::2]))

    def bitor(self, meta, children):
        return ast.BinOp(self._span(meta), "|", children[0], children[1])

    def bitxor(self, meta, children):
        return ast.BinOp(self._span(meta), "^", children[0], children[1])

    def bitand(self, meta, children):
        return ast.BinOp(self._span(meta), "&", children[0], children[1])

    def binop(self, meta, children):
        left, op, right = children
        return ast.BinOp(self._span(meta), str(op.value), left, right)

    def unary(self, meta, children):
        op, operand = children
        return ast.UnaryOp(self._span(meta), str(op.value), operand)

    def pow(self, meta, children):
        self._reject("`**` (power)", self._span(meta))
        return children[0]

    def await_(self, meta, children):
        self._reject("`await`", self._span(meta))
        return children[0]

    def call(self, meta, children):
        func, arguments = children
        args, keywords = [], []
        for kind, item in arguments or ():
            if kind == "pos":
                if keywords:
                    self.problems.append(SyntaxProblem("E0100", "positional argument follows keyword argument",
                                                       item.span))
                args.append(item)
            elif kind == "kw":
                keywords.append(item)
        return ast.Call(self._span(meta), func, tuple(args), tuple(keywords))

    def arguments(self, meta, children):
        return [c for c in children if c is not None]

    def positional(self, meta, children):
        return ("pos", children[0])

    def keyword(self, meta, children):
        name, value = children
        if not isinstance(name, ast.Name):
            self.problems.append(SyntaxProblem("E0100", "a keyword argument needs a plain name before `=`",
                                               name.span, "did you mean `==`?"))
            return ("pos", value)
        return ("kw", ast.Keyword(self._span(meta), name.id, value))

    def genexp_arg(self, meta, children):
        self._reject("generator expression", self._span(meta))
        return None

    def kwstar_arg(self, meta, children):
        self._reject("`**` argument unpacking", self._span(meta))
        return None

    def subscript(self, meta, children):
        value, indices = children
        return ast.Subscript(self._span(meta), value, indices)

    def subscriptlist(self, meta, children):
        return tuple(c for c in children if c is not None)

    def slice(self, meta, children):
        lower, upper = children
        return ast.Slice(self._span(meta), lower, upper, None)

    def slice_step(self, meta, children):
        lower, upper, step = children
        return ast.Slice(self._span(meta), lower, upper, step)

    def attribute(self, meta, children):
        value, name = children
        return ast.Attribute(self._span(meta), value, self._name(name))

    def name(self, meta, children):
        tok = children[0]
        if tok.value in ("True", "False", "None"):
            return ast.Constant(self._span(meta), {"True": True, "False": False, "None": None}[tok.value])
        return ast.Name(self._span(meta), self._name(tok))

    def number(self, meta, children):
        tok = children[0]
        span = self._span(meta)
        text = tok.value.replace("_", "")
        if tok.type == "IMAG_NUMBER":
            self._reject("complex number", span)
            return ast.Constant(span, 0)
        if tok.type == "FLOAT_NUMBER":
            return ast.Constant(span, float(text))
        base = {"HEX_NUMBER": 16, "BIN_NUMBER": 2, "OCT_NUMBER": 8}.get(tok.type, 10)
        return ast.Constant(span, int(text[2:] if base != 10 else text, base))

    def string(self, meta, children):
        return children[0]

    def strings(self, meta, children):
        span = self._span(meta)
        parts = []
        for tok in children:
            prefix, body = _strip_prefix(tok.value)
            quote = 3 if tok.type == "LONG_STRING" else 1
            inner = body[quote:-quote]
            if "f" in prefix:
                self._reject("f-string", self._tok(tok))
            if "b" in prefix:
                self._reject("bytes literal", self._tok(tok))
            parts.append(inner if "r" in prefix else _unescape(inner))
        return ast.Constant(span, "".join(parts))

    def ellipsis(self, meta, children):
        self._reject("`...` (Ellipsis)", self._span(meta))
        return self._placeholder(self._span(meta))

    def star_expr(self, meta, children):
        self._reject("starred expression", self._span(meta))
        return children[0]

    def empty_tuple(self, meta, children):
        return ast.Tuple(self._span(meta), ())

    def paren(self, meta, children):
        # Parentheses do not make a node, but the span of the expression grows to
        # cover them so that carets underline what the user wrote.
        inner = children[0]
        return type(inner)(self._span(meta), *[getattr(inner, f) for f in inner.__dataclass_fields__ if f not in ("span", "name_span")])

    def paren_yield(self, meta, children):
        return children[0]

    def tuple(self, meta, children):
        return ast.Tuple(self._span(meta), tuple(children))

    def test_tuple(self, meta, children):
        return ast.Tuple(self._span(meta), tuple(c for c in children if c is not None))

    expr_tuple = test_tuple

    def list(self, meta, children):
        items = children[0] if children else None
        return ast.List(self._span(meta), tuple(items or ()))

    def list_items(self, meta, children):
        return [c for c in children if c is not None]

    set_items = list_items

    def dict(self, meta, children):
        items = children[0] if children else None
        items = items or []
        return ast.Dict(self._span(meta), tuple(k for k, _ in items), tuple(v for _, v in items))

    def dict_items(self, meta, children):
        return [c for c in children if c is not None]

    def dict_item(self, meta, children):
        return (children[0], children[1])

    def dict_unpack(self, meta, children):
        self._reject("`**` argument unpacking", self._span(meta))
        return (children[0], children[0])

    def set(self, meta, children):
        self._reject("set literal", self._span(meta))
        return self._placeholder(self._span(meta))

    def _comprehension(what):
        def build(self, meta, children):
            self._reject(what, self._span(meta))
            return self._placeholder(self._span(meta))
        return build

    listcomp = _comprehension("list comprehension")
    genexp = _comprehension("generator expression")
    dictcomp = _comprehension("dict comprehension")
    setcomp = _comprehension("set comprehension")

    def comp_for(self, meta, children):
        return None

    def comp_if(self, meta, children):
        return None

    def lambda_params(self, meta, children):
        return None


@lru_cache(maxsize=1)
def _parser() -> tuple[Lark, _Builder, Indenter]:
    grammar = resources.files("transpiler.grammar").joinpath("tirx.lark").read_text(encoding="utf-8")
    builder = _Builder()
    indenter = Indenter()
    parser = Lark(grammar, parser="lalr", lexer="contextual", postlex=indenter,
                  propagate_positions=True, maybe_placeholders=True, start="start")
    return parser, builder, indenter


# ---- syntax-error wording ------------------------------------------------------------

_TOKEN_WORDS = {
    "_NEWLINE": "end of line", "_INDENT": "indentation", "_DEDENT": "end of block", "$END": "end of file",
    "NAME": "name", "DEC_NUMBER": "number", "HEX_NUMBER": "number", "BIN_NUMBER": "number",
    "OCT_NUMBER": "number", "FLOAT_NUMBER": "number", "IMAG_NUMBER": "number", "STRING": "string",
    "LONG_STRING": "string",
}
_HEADER_KEYWORDS = {"if": "the `if` condition", "elif": "the `elif` condition", "while": "the `while` condition",
                    "for": "the `for` header", "with": "the `with` items", "def": "the function signature",
                    "else": "`else`", "class": "the class header", "try": "`try`"}


def _describe(tok: Token) -> str:
    if tok.type in _TOKEN_WORDS:
        words = _TOKEN_WORDS[tok.type]
        if tok.type in ("NAME",) or tok.type.endswith("NUMBER"):
            return f"{words} `{tok.value}`"
        return words
    return f"'{tok.value}'"


def _line_keyword(source: SourceFile, line: int) -> str | None:
    text = source.line_text(line).strip()
    word = text.split(" ", 1)[0].split("(", 1)[0].rstrip(":")
    return word if word in _HEADER_KEYWORDS else None


def _syntax_problem(err: UnexpectedInput, source: SourceFile, indenter: Indenter) -> SyntaxProblem:
    file = source.name
    if isinstance(err, UnexpectedCharacters):
        char = source.text[err.pos_in_stream] if err.pos_in_stream < len(source.text) else ""
        span = Span(file, err.line, err.column, err.line, err.column + 1)
        if char in "'\"":
            return SyntaxProblem("E0102", "unterminated string literal", span,
                                 "close the string on this line, or use a triple-quoted string")
        if char == "\\":
            return SyntaxProblem("E0101", "unexpected character after line continuation `\\`", span,
                                 "a backslash continues a line only as its last character")
        if char == "!":
            return SyntaxProblem("E0101", "unexpected character '!'", span, "use `not` for negation, `!=` to compare")
        shown = repr(char)[1:-1] if char.isprintable() else f"\\u{ord(char):04x}"
        return SyntaxProblem("E0101", f"unexpected character '{shown}'", span)
    if isinstance(err, UnexpectedEOF):
        return SyntaxProblem("E0100", "unexpected end of file", source.end_span())
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    expected = set(err.expected)
    if tok.type == "$END" or tok.line is None:
        span = source.end_span()
    else:
        span = _token_span(file, tok)
    if tok.type == "_INDENT":
        return SyntaxProblem("E0105", "unexpected indentation", span)
    if "_INDENT" in expected and tok.type in ("_DEDENT", "$END") | {tok.type}:
        if len(expected) == 1 or tok.type in ("_DEDENT", "$END", "NAME") or tok.type.isupper():
            header_line = tok.line - 1 if tok.line else source.line_count
            while header_line > 1 and not source.line_text(header_line).strip():
                header_line -= 1
            word = _line_keyword(source, header_line) or "the statement"
            if expected == {"_INDENT"}:
                what = f"`{word}`" if word != "the statement" else word
                return SyntaxProblem("E0106", f"expected an indented block after {what} on line {header_line}",
                                     span, "indent the block, or write `pass`")
    if "COLON" in expected and tok.type != "COLON":
        word = _line_keyword(source, tok.line) if tok.line else None
        if word is not None:
            return SyntaxProblem("E0107", f"expected ':' after {_HEADER_KEYWORDS[word]}", span)
    if tok.type.endswith("NUMBER") or tok.type == "NAME":
        prev = getattr(err, "token_history", None)
        previous = prev[-1] if prev else None
        if previous is not None and previous.type.endswith("NUMBER") and previous.end_pos == tok.start_pos:
            bad = previous.value + tok.value
            return SyntaxProblem("E0110", f"invalid number literal `{bad}`",
                                 Span(file, previous.line, previous.column, tok.end_line, tok.end_column),
                                 "a decimal number other than 0 cannot start with 0; use 0o for octal"
                                 if bad.startswith("0") else None)
    if tok.type == "EQUAL" and "RPAR" not in expected:
        return SyntaxProblem("E0100", "unexpected '=' (assignment is a statement, not an expression)", span,
                             "did you mean `==`?")
    if tok.type == "$END" or tok.type == "_DEDENT":
        return SyntaxProblem("E0100", "unexpected end of file" if tok.type == "$END" else "statement is incomplete",
                             span)
    if tok.type == "_NEWLINE":
        return SyntaxProblem("E0100", "the statement ends too early", span)
    if {"RPAR", "RSQB", "RBRACE"} & expected and "COMMA" in expected:
        return SyntaxProblem("E0100", f"unexpected {_describe(tok)}", span, "is a ',' or an operator missing?")
    return SyntaxProblem("E0100", f"unexpected {_describe(tok)}", span)


def _check_depth(module: ast.Module, diags: Diagnostics) -> bool:
    """Deeply nested expressions would exhaust later recursive passes: stop them here.

    Returns False when a node is too deep. Iterative, so deep input cannot crash it.
    """
    stack = [(module, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            diags.error("E0108", f"expression nested more than {MAX_EXPR_DEPTH} levels deep", node.span,
                        help="name intermediate values with `T.let`")
            return False
        for child in ast.iter_children(node):
            stack.append((child, depth + 1))
    return True


def parse(source: SourceFile, diags: Diagnostics) -> ast.Module | None:
    """Parse a whole file; syntax problems go to diags. None when the tree is unusable."""
    parser, builder, indenter = _parser()
    builder.file = indenter.file = source.name
    builder.problems = []
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    try:
        tree = parser.parse(text)
    except SyntaxProblem as problem:
        _report(problem, diags)
        return None
    except UnexpectedInput as err:
        inner = err.__context__ if isinstance(err.__context__, SyntaxProblem) else None
        _report(inner or _syntax_problem(err, source, indenter), diags)
        return None
    except Exception as err:  # a problem raised from inside a lexer callback
        inner = err.__context__ if isinstance(err.__context__, SyntaxProblem) else err
        if isinstance(inner, SyntaxProblem):
            _report(inner, diags)
            return None
        raise
    module = builder.transform(tree)
    for problem in builder.problems:
        _report(problem, diags)
    if not _check_depth(module, diags):
        return None
    return module


def _report(problem: SyntaxProblem, diags: Diagnostics) -> None:
    from .diagnostics import Note
    notes = [Note(message, span) for message, span in problem.notes]
    diags.error(problem.code, problem.message, problem.span, notes=notes, help=problem.help)
