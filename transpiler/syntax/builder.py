"""Grammar rules to AST nodes: the builder the LALR parser (lalr.py) calls at each
reduction (no parse tree is ever made), which also rejects constructs outside
the kernel subset by name (E0109)."""
from __future__ import annotations

import re
import unicodedata

from transpiler.syntax import ast
from transpiler.syntax.limits import MAX_DECIMAL_DIGITS
from transpiler.syntax.source import Span
from transpiler.syntax.tokens import SyntaxProblem, Token, strip_prefix, token_span

_UNSUPPORTED_HELP = {
    "walrus operator `:=`": "assign on its own line",
    "`yield`": None,
    "`await`": None,
    "`async`": None,
    "`import *`": "import the names you use: `from tvm.tirx.layout import TileLayout, S`",
    "relative import": None,
    "complex number": None,
    "bytes literal": "use a plain string",
    "positional-only marker `/`": None,
    "`match` statement": "use `if`/`elif`",
}


_ESCAPE = re.compile(r"""\\(?:([\\'"abfnrtv\n])|([0-7]{1,3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"""
                     r"|N\{([^}]*)\})")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t", "v": "\v", "\n": ""}


def _escape(match: re.Match) -> str:
    simple, octal, hex2, hex4, hex8, named = match.groups()
    if simple is not None:
        return _SIMPLE_ESCAPES[simple]
    if octal is not None:
        return chr(int(octal, 8))
    if named is not None:
        try:
            return unicodedata.lookup(named)
        except KeyError:
            return match.group(0)
    code = int(hex2 or hex4 or hex8, 16)
    # Python rejects code points past U+10FFFF; keeping the text is the harmless choice.
    return chr(code) if code <= 0x10FFFF else match.group(0)


def _unescape(body: str) -> str:
    """Python's escape sequences, decoded by pattern so that nothing is evaluated.
    Unknown escapes (`\\d`) stay as they are, as in Python."""
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_escape, body)


def _compound(body):
    """Flatten statement children (simple_stmt gives lists) into a tuple."""
    out = []
    for child in body:
        if isinstance(child, list):
            out.extend(child)
        elif child is not None:
            out.append(child)
    return tuple(out)


class Builder:
    """Makes AST nodes out of grammar rules, bottom-up, as the parser reduces
    them: one method per rule name (its alias or its name), called as
    `method(span, children)` with the children already built and the span of
    the rule's tokens.

    `problems` only grows while the parse runs, so that error recovery can
    take back what a dropped statement reported by truncating it; `collected`
    applies the once-per-construct-and-line rule afterwards.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[tuple[tuple[str, int] | None, SyntaxProblem]] = []  # (rejected construct, line)

    def collected(self) -> list[SyntaxProblem]:
        out: list[SyntaxProblem] = []
        first_of: dict[tuple[str, int], int] = {}
        for key, problem in self.problems:
            if key is None:
                out.append(problem)
                continue
            # `2 ** 2 ** 2` is one mistake, not two. Inner nodes are built
            # first, so keep the leftmost (outermost) one, in the place of the first.
            index = first_of.get(key)
            if index is None:
                first_of[key] = len(out)
                out.append(problem)
            elif problem.span.col < out[index].span.col:
                out[index] = problem
        return out

    # -- helpers ------------------------------------------------------------------
    def _block_span(self, start: Span, body) -> Span:
        """A compound statement ends with its last statement, not at the dedent after it."""
        return start.to(body[-1].span) if body else start

    def _keyword_span(self, start: Span, keyword: str) -> Span:
        """The span of a statement's leading keyword (for rejecting a whole block by its header)."""
        return Span(self.file, start.line, start.col, start.line, start.col + len(keyword))

    def _tok(self, tok: Token) -> Span:
        return token_span(self.file, tok)

    def _reject(self, what: str, span: Span) -> None:
        problem = SyntaxProblem("E0109", f"{what} is not supported in a kernel file", span,
                                _UNSUPPORTED_HELP.get(what))
        self.problems.append(((what, span.line), problem))

    def _problem(self, problem: SyntaxProblem) -> None:
        self.problems.append((None, problem))

    def _name(self, tok: Token) -> str:
        # Keywords of the grammar never reach here as NAME (the lexer reserves
        # them); these are the three that Python spells like names.
        if tok.value in ("True", "False", "None"):
            self._problem(SyntaxProblem("E0111", f"`{tok.value}` is a keyword and cannot be used as a name",
                                        self._tok(tok)))
        return str(tok.value)

    def _placeholder(self, span: Span) -> ast.Constant:
        return ast.Constant(span, None)

    def _rejected_stmt(self, what: str, span: Span, keyword: str | None = None):
        if keyword:
            span = self._keyword_span(span, keyword)
        self._reject(what, span)
        return ast.Pass(span)

    # -- module and statements ----------------------------------------------------------
    def start(self, span, children):
        body = _compound(children)
        end = body[-1].span if body else Span(self.file, 1, 1, 1, 1)
        return ast.Module(Span(self.file, 1, 1, end.end_line, end.end_col), body)

    def simple_stmt(self, span, children):
        return [c for c in children if c is not None]

    def suite(self, span, children):
        return _compound(children)

    def expr_stmt(self, span, children):
        return ast.ExprStmt(span, children[0])

    def assign(self, span, children):
        # `a = b = c`: Python code (module level, plain helpers) binds both; a kernel body
        # refuses it, as TIRx does (statements.chained), after the parse, so later errors show
        return ast.Assign(span, children[0], children[-1], tuple(children[1:-1]))

    def ann_assign(self, span, children):
        target, annotation, value = children
        if isinstance(target, ast.Tuple):
            self._problem(SyntaxProblem("E0100", "only a single target can be annotated", target.span,
                                        "annotate each name in its own statement"))
        return ast.AnnAssign(span, target, annotation, value)

    def augassign_op(self, span, children):
        return str(children[0].value)

    def aug_assign(self, span, children):
        target, op, value = children
        if isinstance(target, (ast.Tuple, ast.List)):
            self._problem(SyntaxProblem("E0100", f"`{op}` needs a single target, not a tuple", target.span))
        return ast.AugAssign(span, target, op[:-1], value)

    def pass_stmt(self, span, children):
        return ast.Pass(span)

    def break_stmt(self, span, children):
        return ast.Break(span)

    def continue_stmt(self, span, children):
        return ast.Continue(span)

    def return_stmt(self, span, children):
        return ast.Return(span, children[0])

    def assert_stmt(self, span, children):
        return ast.Assert(span, children[0], children[1])

    def global_stmt(self, span, children):
        return ast.Global(span, tuple(self._name(tok) for tok in children))

    def nonlocal_stmt(self, span, children):
        return ast.Nonlocal(span, tuple(self._name(tok) for tok in children))

    def del_stmt(self, span, children):
        target = children[0]  # `del a, b` and `del (a, b)` delete each item in order
        return ast.Delete(span, target.elts if isinstance(target, (ast.Tuple, ast.List)) else (target,))

    def raise_stmt(self, span, children):
        return ast.Raise(span, children[0])  # `from cause` is dropped: the error is reported at compile time

    def yield_stmt(self, span, children):
        return ast.Pass(span)  # yield_expr has reported it

    def yield_expr(self, span, children):
        self._reject("`yield`", span)
        return self._placeholder(span)

    def classdef(self, span, children):
        name, arguments, body = children[0], children[1:-1], children[-1]
        bases = []
        for kind, item in (arguments[0] if arguments and arguments[0] else ()):
            if kind == "pos":
                bases.append(item)
            else:
                self._reject("keyword argument of a class definition", item.span)
        return ast.ClassDef(self._block_span(span, body), self._name(name), tuple(bases), (), body, self._tok(name))

    def try_stmt(self, span, children):
        return ast.Try(self._keyword_span(span, "try"))

    def except_clause(self, span, children):
        return None

    def finally_clause(self, span, children):
        return None

    def async_stmt(self, span, children):
        return self._rejected_stmt("`async`", span, "async")

    def dotted_name(self, span, children):
        return ".".join(self._name(t) for t in children)

    def dotted_as_name(self, span, children):
        name, asname = children
        return ast.ImportAlias(span, name, self._name(asname) if asname is not None else None)

    def import_name(self, span, children):
        return ast.Import(span, tuple(children))

    def import_as_name(self, span, children):
        name, asname = children
        return ast.ImportAlias(span, self._name(name),
                               self._name(asname) if asname is not None else None)

    def import_as_names(self, span, children):
        return tuple(c for c in children if c is not None)

    def import_targets(self, span, children):
        return children[0]

    def import_star(self, span, children):
        self._reject("`import *`", span)
        return ()

    def from_module(self, span, children):
        return children[0]

    def relative_module(self, span, children):
        self._reject("relative import", span)
        return children[0] or ""

    def import_from(self, span, children):
        module, names = children
        return ast.ImportFrom(span, module, tuple(names))

    def if_stmt(self, span, children):
        # children: test, body, one (start span, test, body) per elif, else body or None
        test, body, *clauses, orelse = children
        orelse = orelse or ()
        # `elif` is an `if` nested in the else branch; each one spans from its
        # keyword to the end of everything after it.
        for start, elif_test, elif_body in reversed(clauses):
            orelse = (ast.If(self._block_span(start, orelse or elif_body), elif_test, elif_body, orelse),)
        return ast.If(self._block_span(span, orelse or body), test, body, orelse)

    def elif_clause(self, span, children):
        return (span, children[0], children[1])

    def else_clause(self, span, children):
        return children[0]

    def while_stmt(self, span, children):
        test, body, orelse = children
        return ast.While(self._block_span(span, orelse or body), test, body, orelse or ())

    def for_stmt(self, span, children):
        target, iterable, body, orelse = children
        return ast.For(self._block_span(span, orelse or body), target, iterable, body, orelse or ())

    def with_item(self, span, children):
        return ast.WithItem(span, children[0], children[1])

    def with_stmt(self, span, children):
        *items, body = children
        return ast.With(self._block_span(span, body), tuple(items), body)

    def decorator(self, span, children):
        return children[0]

    def decorated(self, span, children):
        *decorators, func = children
        if isinstance(func, ast.FunctionDef):
            return ast.FunctionDef(self._block_span(span, func.body), func.name, func.params, tuple(decorators),
                                   func.body, func.name_span, func.returns)
        if isinstance(func, ast.ClassDef):
            return ast.ClassDef(self._block_span(span, func.body), func.name, func.bases, tuple(decorators),
                                func.body, func.name_span)
        return func

    def funcdef(self, span, children):
        name, params, returns, body = children  # `-> X` is the checker's to judge
        return ast.FunctionDef(self._block_span(span, body), self._name(name), tuple(params or ()), (), body,
                               self._tok(name), returns)

    def parameters(self, span, children):
        return [c for c in children if c is not None]

    def param(self, span, children):
        name, annotation, default = children
        return ast.Param(span, self._name(name), annotation, default)

    def star_param(self, span, children):  # `*args` (a bare `*`: name "", the keyword-only marker)
        name, annotation = children
        return ast.Param(span, "" if name is None else self._name(name), annotation, None, "*")

    def kwstar_param(self, span, children):
        name, annotation = children
        return ast.Param(span, self._name(name), annotation, None, "**")

    def slash_param(self, span, children):
        self._reject("positional-only marker `/`", span)
        return None

    # -- expressions ----------------------------------------------------------------
    def ifexp(self, span, children):
        body, test, orelse = children
        return ast.IfExp(span, test, body, orelse)

    def lambdef(self, span, children):  # a compile-time function (sema/library/macros.py)
        params, body = children
        return ast.Lambda(span, tuple(params or ()), body)

    def lambda_params(self, span, children):
        return [c for c in children if c is not None]

    def lambda_param(self, span, children):
        name, default = children
        return ast.Param(span, self._name(name), None, default)

    def lambda_star(self, span, children):
        return ast.Param(span, "" if children[0] is None else self._name(children[0]), None, None, "*")

    def lambda_kwstar(self, span, children):
        return ast.Param(span, self._name(children[0]), None, None, "**")

    def walrus(self, span, children):
        self._reject("walrus operator `:=`", span)
        return children[1]

    def or_test(self, span, children):
        return ast.BoolOp(span, "or", tuple(children))

    def and_test(self, span, children):
        return ast.BoolOp(span, "and", tuple(children))

    def not_test(self, span, children):
        return ast.UnaryOp(span, "not", children[0])

    def comp_op(self, span, children):
        return " ".join(str(t.value) for t in children)

    def compare(self, span, children):
        left = children[0]
        ops = tuple(children[1::2])  # `is`, `in`: compile-time identity and membership (sema/)
        return ast.Compare(span, left, ops, tuple(children[2::2]))

    def bitor(self, span, children):
        return ast.BinOp(span, "|", children[0], children[1])

    def bitxor(self, span, children):
        return ast.BinOp(span, "^", children[0], children[1])

    def bitand(self, span, children):
        return ast.BinOp(span, "&", children[0], children[1])

    def binop(self, span, children):
        left, op, right = children
        return ast.BinOp(span, str(op.value), left, right)

    def unary(self, span, children):
        op, operand = children
        return ast.UnaryOp(span, str(op.value), operand)

    def pow(self, span, children):
        return ast.BinOp(span, "**", children[0], children[1])

    def await_(self, span, children):
        self._reject("`await`", span)
        return children[0]

    def call(self, span, children):
        func, arguments = children
        args, keywords = [], []
        for kind, item in arguments or ():
            if kind == "pos":
                if keywords:
                    self._problem(SyntaxProblem("E0100", "positional argument follows keyword argument",
                                                item.span, "move it before the keyword arguments"))
                args.append(item)
            elif kind == "kwstar":
                keywords.append(item)
            elif kind == "kw":
                if any(isinstance(k, ast.Keyword) and k.name == item.name for k in keywords):
                    self._problem(SyntaxProblem("E0100", f"keyword argument `{item.name}` repeated",
                                                item.span))
                keywords.append(item)
        return ast.Call(span, func, tuple(args), tuple(keywords))

    def arguments(self, span, children):
        return [c for c in children if c is not None]

    def positional(self, span, children):
        return ("pos", children[0])

    def keyword(self, span, children):
        name, value = children
        if not isinstance(name, ast.Name):
            self._problem(SyntaxProblem("E0100", "a keyword argument needs a plain name before `=`",
                                        name.span, "did you mean `==`?"))
            return ("pos", value)
        return ("kw", ast.Keyword(span, name.id, value))

    def genexp_arg(self, span, children):
        return ("pos", self.genexp(span, children))

    def star_arg(self, span, children):
        return ("pos", ast.Starred(span, children[0]))

    def kwstar_arg(self, span, children):
        return ("kwstar", ast.DoubleStarred(span, children[0]))

    def subscript(self, span, children):
        value, indices = children
        return ast.Subscript(span, value, indices)

    def subscriptlist(self, span, children):
        return tuple(c for c in children if c is not None)

    def slice(self, span, children):
        lower, upper = children
        return ast.Slice(span, lower, upper, None)

    def slice_step(self, span, children):
        lower, upper, step = children
        return ast.Slice(span, lower, upper, step)

    def attribute(self, span, children):
        value, name = children
        return ast.Attribute(span, value, self._name(name))

    def name(self, span, children):
        tok = children[0]
        if tok.value in ("True", "False", "None"):
            return ast.Constant(span, {"True": True, "False": False, "None": None}[tok.value])
        return ast.Name(span, str(tok.value))

    def number(self, span, children):
        tok = children[0]
        text = tok.value.replace("_", "")
        if tok.type == "IMAG_NUMBER":
            self._reject("complex number", span)
            return ast.Constant(span, 0)
        if tok.type == "FLOAT_NUMBER":
            return ast.Constant(span, float(text))
        base = {"HEX_NUMBER": 16, "BIN_NUMBER": 2, "OCT_NUMBER": 8}.get(tok.type, 10)
        if base == 10 and len(text) > MAX_DECIMAL_DIGITS:
            # int() refuses such strings (CVE-2020-10735 limit); no kernel needs one.
            self._problem(SyntaxProblem("E0110", f"integer literal with {len(text)} digits is too large",
                                        span, "no TIRx dtype holds more than 64 bits"))
            return ast.Constant(span, 0)
        return ast.Constant(span, int(text[2:] if base != 10 else text, base))

    def string(self, span, children):
        return children[0]

    def strings(self, span, children):
        parts = []
        formatted = False
        for tok in children:
            prefix, body = strip_prefix(tok.value)
            quote = 3 if tok.type == "LONG_STRING" else 1
            inner = body[quote:-quote]
            if "b" in prefix:
                self._reject("bytes literal", self._tok(tok))
            if "f" in prefix:
                formatted = True
                parts.extend(self._fstring(tok, inner, "r" in prefix, tok.col + len(prefix) + quote))
            else:
                parts.append(inner if "r" in prefix else _unescape(inner))
        if formatted:
            return ast.FString(span, tuple(parts))
        return ast.Constant(span, "".join(parts))

    def _fstring(self, tok, inner: str, raw: bool, col: int, lo: int = 0, hi: int | None = None,
                 in_spec: bool = False) -> list:
        """The parts of one f-string's body (from line tok.line, column col), or of the format spec
        inner[lo:hi] of one of its fields: literal text, with `{{` and `}}` as braces, and fields
        `{expression!conversion:spec}` kept as text (a spec holding fields as its own parts)."""
        parts, text, line, i = [], [], tok.line, lo
        hi = len(inner) if hi is None else hi

        def literal():
            if text:
                joined = "".join(text)
                parts.append(joined if raw else _unescape(joined))
                text.clear()

        def where(k):  # the line and column of inner[k]
            before = inner[:k]
            newlines = before.count("\n")
            return (line + newlines, (col + k) if not newlines else k - before.rindex("\n"))

        while i < hi:
            char = inner[i]
            if char in "{}" and inner[i + 1:i + 2] == char and i + 1 < hi:
                text.append(char)
                i += 2
            elif char == "}":
                at = where(i)
                self._problem(SyntaxProblem("E0100", "f-string: single `}` is not allowed",
                                            Span(self.file, at[0], at[1], at[0], at[1] + 1), "write `}}`"))
                i += 1
            elif char == "{":
                literal()
                end = _field_end(inner, i + 1)
                at = where(i)
                if end is None or end >= hi:
                    self._problem(SyntaxProblem("E0100", "f-string: `{` is never closed",
                                                Span(self.file, at[0], at[1], at[0], at[1] + 1), "write `{{`"))
                    break
                expr, conversion, spec = _split_field(inner[i + 1:end])
                start = where(i + 1)
                if not expr.strip() or in_spec and "{" in spec:
                    # (CPython 3.11 allows one level of fields inside a spec)
                    what = "an empty `{}` field is not supported" if not expr.strip() else \
                        "expressions nested too deeply"
                    self._problem(SyntaxProblem("E0100", f"f-string: {what}",
                                                Span(self.file, at[0], at[1], at[0], at[1] + 1)))
                else:
                    if "{" in spec:  # `{x:>{width}}`: the spec's own fields, evaluated before x is formatted
                        spec = tuple(self._fstring(tok, inner, raw, col, end - len(spec), end, True))
                    parts.append((expr, start[0], start[1], conversion, spec))
                i = end + 1
            else:
                text.append(char)
                i += 1
        literal()
        return parts

    def ellipsis(self, span, children):
        return ast.Constant(span, Ellipsis)

    def star_expr(self, span, children):
        return ast.Starred(span, children[0])

    def empty_tuple(self, span, children):
        return ast.Tuple(span, ())

    def paren(self, span, children):
        # Parentheses do not make a node, but the span of the expression grows to
        # cover them so that carets underline what the user wrote.
        inner = children[0]
        return type(inner)(span, *[getattr(inner, f) for f in inner.__dataclass_fields__
                                                if f not in ("span", "name_span")])

    def paren_yield(self, span, children):
        return children[0]

    def tuple_items(self, span, children):
        return [c for c in children if c is not None]

    def tuple(self, span, children):
        return ast.Tuple(span, tuple(children[0]))

    def test_tuple(self, span, children):
        return ast.Tuple(span, tuple(c for c in children if c is not None))

    expr_tuple = test_tuple

    def list(self, span, children):
        items = children[0] if children else None
        return ast.List(span, tuple(items or ()))

    def list_items(self, span, children):
        return [c for c in children if c is not None]

    def dict(self, span, children):
        items = (children[0] if children else None) or []
        return ast.Dict(span, tuple(k for k, _ in items), tuple(v for _, v in items))  # key None: `**v`

    def dict_items(self, span, children):
        return [c for c in children if c is not None]

    def dict_item(self, span, children):
        return (children[0], children[1])

    def dict_unpack(self, span, children):
        return (None, ast.DoubleStarred(span, children[0]))

    def set(self, span, children):
        return ast.Set(span, tuple(children[0]))

    # Comprehensions are evaluated at compile time (evaluator/core.py). `comp_for` and `comp_if`
    # give the clauses in order, a `for` as a Comprehension and an `if` as its condition; the
    # comprehension attaches each condition to the `for` before it.
    def listcomp(self, span, children):
        return ast.ListComp(span, children[0], _clauses(children[1]), "list")

    def genexp(self, span, children):
        return ast.ListComp(span, children[0], _clauses(children[1]), "generator")

    def dictcomp(self, span, children):
        return ast.ListComp(span, children[1], _clauses(children[2]), "dict", children[0])

    def setcomp(self, span, children):
        return ast.ListComp(span, children[0], _clauses(children[1]), "set")

    def comp_for(self, span, children):
        target, iterable, rest = children
        return [ast.Comprehension(span, target, iterable, ())] + (rest or [])

    def comp_if(self, span, children):
        test, rest = children
        return [test] + (rest or [])


def _field_end(body: str, start: int) -> int | None:
    """The index of the `}` closing an f-string field that starts at body[start], or None."""
    depth, quote, k = 0, None, start
    while k < len(body):
        char = body[k]
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "}":
            if depth == 0:
                return k
            depth -= 1
        k += 1
    return None


def _split_field(field: str) -> tuple[str, str, str]:
    """`expression!conversion:spec` split at the first `!` (not `!=`) and `:` outside brackets."""
    depth, quote, expr_end, conversion, spec = 0, None, None, "", ""
    for k, char in enumerate(field):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and char == "!" and field[k + 1:k + 2] != "=" and expr_end is None:
            expr_end = k
            rest = field[k + 1:]
            conversion, _, spec = rest.partition(":")
            return field[:k], conversion, spec
        elif depth == 0 and char == ":":
            return field[:k], conversion, field[k + 1:]
    return field, conversion, spec


def _clauses(items) -> tuple:
    """The clauses of a comprehension, each `if` condition attached to the `for` before it."""
    out: list[ast.Comprehension] = []
    for item in items:
        if isinstance(item, ast.Comprehension):
            out.append(item)
        else:
            last = out[-1]
            out[-1] = ast.Comprehension(last.span, last.target, last.iter, last.ifs + (item,))
    return tuple(out)
