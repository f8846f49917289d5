"""Text to AST: the Lark grammar, the layout pass (indentation and brackets),
a recovering LALR driver, the AST builder, and the plain-words wording of
syntax errors.

The pipeline of this module:

    text -> _Lexer (the tokens of Lark's basic lexer; bad characters and
            malformed numbers become ERROR tokens instead of exceptions)
         -> _Layout (INDENT/DEDENT, newlines inside brackets dropped, bracket
            matching, nesting limits)
         -> _Driver (runs the LALR table Lark computed, token by token; on an
            error it reports one diagnostic, skips the rest of the statement
            and resumes from the state saved at the statement's start, so one
            run reports every broken statement of a file)
         -> _Builder (called at each reduction, makes the AST node of the
            rule, so no parse tree is ever built; rejects constructs outside
            the subset by name, E0109)

Lark only compiles grammar/tirx.lark, into transpiler/parse_tables.py (see
"the compiled grammar" below); a parse imports that module and does not import
Lark. Nothing here recurses on the input's nesting depth, and the parse never
executes or imports anything from the file.
"""
from __future__ import annotations

import gc
import re
import sys
import unicodedata
from functools import lru_cache, partial
from collections.abc import Iterator

from transpiler import data_text
from transpiler.syntax import ast
from transpiler.diag.diagnostics import Diagnostics, Note
from transpiler.syntax.source import SourceFile, Span

# Span(...) without the named tuple's Python-level __new__: one is made for
# every rule the parser reduces.
_new_span = partial(tuple.__new__, Span)

MAX_BLOCK_DEPTH = 100
MAX_BRACKET_DEPTH = 100
MAX_EXPR_DEPTH = 200
MAX_SYNTAX_ERRORS = 100
_MAX_DECIMAL_DIGITS = 4000
TAB_WIDTH = 8

_OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
_CLOSER_OF = {"(": ("RPAR", ")"), "[": ("RSQB", "]"), "{": ("RBRACE", "}")}
_LAYOUT_KINDS = frozenset({"_NEWLINE", *_OPEN, *_CLOSE})  # the tokens the layout pass does more than pass on
_NUMBERS = {"DEC_NUMBER", "HEX_NUMBER", "BIN_NUMBER", "OCT_NUMBER", "FLOAT_NUMBER", "IMAG_NUMBER"}
# Tokens after which the parser may be at the start of a statement.
_BOUNDARY = {"_NEWLINE", "_INDENT", "_DEDENT"}
# Clauses that continue a compound statement; after a broken header they are
# skipped together with it rather than reported as strays.
_CONTINUATIONS = {"ELIF", "ELSE", "EXCEPT", "FINALLY"}
# Keywords that open a block, and how messages name their header.
_HEADER_COLON = {
    "IF": "the `if` condition", "ELIF": "the `elif` condition", "ELSE": "`else`",
    "WHILE": "the `while` condition", "FOR": "the `for` header", "WITH": "the `with` items",
    "DEF": "the function signature", "CLASS": "the class header", "TRY": "`try`",
    "EXCEPT": "the `except` clause", "FINALLY": "`finally`",
}
_HEADER_BLOCK = {
    "IF": "the `if` statement", "ELIF": "`elif`", "ELSE": "`else`", "WHILE": "the `while` statement",
    "FOR": "the `for` statement", "WITH": "the `with` statement", "DEF": "the function definition",
    "CLASS": "the class definition", "TRY": "`try`", "EXCEPT": "`except`", "FINALLY": "`finally`",
}
# Tokens that can end an expression, and tokens that can start one: two in a
# row usually mean a missing operator or comma.
_ENDS_EXPR = _NUMBERS | {"NAME", "STRING", "LONG_STRING", "RPAR", "RSQB", "RBRACE"}
_STARTS_EXPR = _NUMBERS | {"NAME", "STRING", "LONG_STRING", "LPAR", "LSQB", "LBRACE", "NOT", "LAMBDA",
                           "MINUS", "PLUS", "TILDE", "AWAIT"}
# Python's soft keywords: ordinary names to the grammar, but a line that starts
# with one and then fails to parse is almost certainly that statement.
_SOFT_KEYWORD_STATEMENTS = {"match": "`match` statement", "case": "`match` statement",
                            "type": "`type` alias statement"}


class Token(str):
    """A token: its text (the str value) with its kind and position (lines and
    columns from 1, `end_col` one past the last character; the names a Span
    uses, so that either can stand for a position). Two tokens are equal when
    their kinds and texts are."""

    __slots__ = ("type", "start_pos", "value", "line", "col", "end_line", "end_col", "end_pos")

    def __new__(cls, type, value, start_pos=None, line=None, col=None, end_line=None, end_col=None,
                end_pos=None):
        inst = str.__new__(cls, value)
        inst.type = type
        inst.start_pos = start_pos
        inst.value = value
        inst.line = line
        inst.col = col
        inst.end_line = end_line
        inst.end_col = end_col
        inst.end_pos = end_pos
        return inst

    @classmethod
    def new_borrow_pos(cls, type_: str, value, borrow: "Token") -> "Token":
        return cls(type_, value, borrow.start_pos, borrow.line, borrow.col, borrow.end_line, borrow.end_col,
                   borrow.end_pos)

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r})"

    def __reduce__(self):
        return (self.__class__, (self.type, self.value, self.start_pos, self.line, self.col, self.end_line,
                                 self.end_col, self.end_pos))

    def __eq__(self, other):
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__


class SyntaxProblem(Exception):
    """A syntax error: code, message, span, help and notes (as (message, span)
    pairs). The layout pass raises it for fatal problems; elsewhere it is only
    a record until _Driver.report turns it into a diagnostic."""

    def __init__(self, code: str, message: str, span: Span, help: str | None = None, notes=()):
        super().__init__(message)
        self.code, self.message, self.span, self.help, self.notes = code, message, span, help, tuple(notes)


def _token_span(file: str, tok: Token) -> Span:
    end_line = tok.end_line if tok.end_line is not None else tok.line
    end_col = tok.end_col if tok.end_col is not None else tok.col + max(len(tok), 1)
    if end_line == tok.line:
        end_col = max(end_col, tok.col + 1)
    return Span(file, tok.line, tok.col, end_line, end_col)


def _after(file: str, tok: Token) -> Span:
    """The one-column span just after a token: where something is missing."""
    line = tok.end_line if tok.end_line is not None else tok.line
    col = tok.end_col if tok.end_col is not None else tok.col + len(tok)
    return Span(file, line, col, line, col + 1)


def _synthetic(kind: str, value: str, like: Token) -> Token:
    return Token.new_borrow_pos(kind, value, like)


# ---- lexing ------------------------------------------------------------------------

_UNICODE_HINTS = {
    "\u201c": "a curly quote; use a straight `\"`", "\u201d": "a curly quote; use a straight `\"`",
    "\u2018": "a curly quote; use a straight `'`", "\u2019": "a curly quote; use a straight `'`",
    "\u2212": "a Unicode minus sign; use `-`", "\u00d7": "a multiplication sign; use `*`",
}


def _number_help(text: str) -> str | None:
    lower = text.lower()
    if "__" in text or text.endswith("_") or "_." in text or "._" in text:
        return "`_` may only appear between two digits"
    for prefix, digits in (("0x", "hexadecimal digits"), ("0b", "the binary digits 0 and 1"),
                           ("0o", "the octal digits 0-7")):
        if lower.startswith(prefix):
            return f"`{text[:2]}` must be followed by {digits} only"
    if len(text) > 1 and text[0] == "0" and text[1:].isdigit():
        return "a decimal number other than 0 cannot start with 0; write `0o` for octal"
    if lower.rstrip("0123456789").endswith(("e", "e+", "e-")):
        return "an exponent needs digits, as in `1e-3`"
    return None


class _Lexer:
    """The basic lexer of the grammar (Lark's `lexer="basic"`: one regular
    expression of all terminals in priority order, keywords recognised as
    names and then retyped, ignored terminals skipped), run by hand so that a
    bad character does not end the token stream: it becomes an ERROR token
    that carries its diagnostic, and lexing resumes after it."""

    def __init__(self, grammar: "_Grammar", text: str, file: str):
        self.text = text
        self.file = file
        self.grammar = grammar
        # Where the lexer is, as Lark's LineCounter keeps it: the column of
        # `pos` is pos - line_start + 1. raw_tokens keeps them in locals and
        # writes them back only around a bad character and at its end.
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.problems: dict[int, SyntaxProblem] = {}  # ERROR token start_pos -> its problem

    def tokens(self) -> Iterator[Token]:
        """Every token of the text, in order. A number glued to a name or
        another number is one ERROR token, and so is the rest of the text
        after a triple quote that is never closed."""
        held = None  # a number, until the next token shows whether something is glued to it
        last = None  # the last token glued to it
        for tok in self.raw_tokens():
            if held is not None:
                if tok.start_pos == last.end_pos and (tok.type in _NUMBERS or tok.type == "NAME"):
                    last = tok
                    continue
                yield self._join_number(held, last)
                held = None
            kind = tok.type
            if kind in _NUMBERS:
                held = last = tok
                continue
            if kind == "STRING" and tok.value[-2:] in ('""', "''") and len(_strip_prefix(tok.value)[1]) == 2 \
                    and self.text.startswith(tok.value[-1], tok.end_pos):
                # `"""abc` with no closing quotes lexes as an empty string and a stray quote.
                yield self._unterminated_triple(tok)
                return
            yield tok
        if held is not None:
            yield self._join_number(held, last)

    def raw_tokens(self) -> Iterator[Token]:
        """The tokens as Lark's basic lexer reads them, bad characters as ERROR tokens."""
        text = self.text
        end = len(text)
        grammar = self.grammar
        dispatch = grammar.dispatch
        pos, line, line_start = self.pos, self.line, self.line_start
        new_token = str.__new__
        while pos < end:
            char = text[pos]
            if char == " ":
                # Most spaces are single, between two tokens: skip them
                # without the matcher (a run of blanks takes the matcher).
                pos += 1
                if pos == end:
                    break
                char = text[pos]
                if char in " \t\f":
                    pos -= 1
                    char = " "
            for literal, match, kind, newline, ignored, keywords in dispatch.get(char) or grammar.candidates(char):
                if literal is None:
                    m = match(text, pos)
                    if m is not None:
                        value = m.group()
                        break
                elif text.startswith(literal, pos):
                    value = literal
                    break
            else:
                self.pos, self.line, self.line_start = pos, line, line_start
                yield self._bad_character(pos, line, pos - line_start + 1)
                pos, line, line_start = self.pos, self.line, self.line_start
                continue
            start = pos
            pos += len(value)
            if not ignored:
                tok = new_token(Token, value)  # Token(...) without the call
                tok.type = kind if keywords is None else keywords.get(value, kind)
                tok.start_pos = start
                tok.value = value
                tok.line = line
                tok.col = start - line_start + 1
            if newline and "\n" in value:
                line += value.count("\n")
                line_start = start + value.rindex("\n") + 1
            if not ignored:
                tok.end_line = line
                tok.end_col = pos - line_start + 1
                tok.end_pos = pos
                yield tok
        self.pos, self.line, self.line_start = pos, line, line_start

    def _feed(self, chunk: str) -> None:
        """Move past text that is not a token (as LineCounter.feed)."""
        newlines = chunk.count("\n")
        if newlines:
            self.line += newlines
            self.line_start = self.pos + chunk.rindex("\n") + 1
        self.pos += len(chunk)

    def _error(self, start: int, end: int, line: int, col: int, problem: SyntaxProblem) -> Token:
        """An ERROR token covering text[start:end]; the lexer resumes at end."""
        self._feed(self.text[start:end])
        tok = Token("ERROR", self.text[start:end], start_pos=start, line=line, col=col,
                    end_line=self.line, end_col=self.pos - self.line_start + 1, end_pos=end)
        self.problems[start] = problem
        return tok

    def _bad_character(self, pos: int, line: int, col: int) -> Token:
        text, file = self.text, self.file
        char = text[pos]
        here = Span(file, line, col, line, col + 1)
        if char in "'\"":
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            problem = SyntaxProblem("E0102", "unterminated string literal", here,
                                    "close the string on this line, or use a triple-quoted string for text "
                                    "that spans lines")
            return self._error(pos, end, line, col, problem)
        if char == "\\":
            problem = SyntaxProblem("E0101", "unexpected character after line continuation `\\`", here,
                                    "a `\\` joins lines only as the very last character of a line")
        elif char == "!":
            problem = SyntaxProblem("E0101", "unexpected character '!'", here,
                                    "use `not` for negation and `!=` to compare")
        elif char.isprintable() and not char.isspace():
            name = unicodedata.name(char, "")
            shown = f"'{char}'" if char.isascii() else f"'{char}' (U+{ord(char):04X}{' ' + name if name else ''})"
            problem = SyntaxProblem("E0101", f"unexpected character {shown}", here, _UNICODE_HINTS.get(char))
        else:
            hint = "a Unicode space; use a plain space" if unicodedata.category(char) == "Zs" else None
            problem = SyntaxProblem("E0101", f"unexpected character U+{ord(char):04X}", here, hint)
        return self._error(pos, pos + 1, line, col, problem)

    def _unterminated_triple(self, tok: Token) -> Token:
        """The rest of the file after an unclosed triple quote is one ERROR token."""
        quote = tok.value[-1] * 3
        problem = SyntaxProblem("E0102", "unterminated triple-quoted string literal",
                                Span(self.file, tok.line, tok.col, tok.line, tok.end_col + 1),
                                f"close it with {quote}")
        start = tok.start_pos
        self.pos, self.line, self.line_start = tok.end_pos, tok.end_line, tok.end_pos - tok.end_col + 1
        self._feed(self.text[tok.end_pos:])
        self.problems[start] = problem
        return Token("ERROR", self.text[start:], start_pos=start, line=tok.line, col=tok.col,
                     end_line=self.line, end_col=self.pos - self.line_start + 1, end_pos=len(self.text))

    def _join_number(self, tok: Token, end: Token) -> Token:
        """`0777`, `1__0`, `0x`, `1e` or `1.2.3` lex as a number glued to names
        or other numbers (tok to end): report the whole run as one invalid literal."""
        if end is tok:
            return tok
        text = self.text[tok.start_pos:end.end_pos]
        problem = SyntaxProblem("E0110", f"invalid number literal `{text}`",
                                Span(self.file, tok.line, tok.col, end.end_line, end.end_col),
                                _number_help(text))
        self.problems[tok.start_pos] = problem
        return Token("ERROR", text, start_pos=tok.start_pos, line=tok.line, col=tok.col,
                     end_line=end.end_line, end_col=end.end_col, end_pos=end.end_pos)


# ---- layout: indentation and brackets --------------------------------------------------

class _Layout:
    """Turns newline tokens into INDENT/DEDENT as Python does, drops newlines
    inside brackets and matches brackets.

    Indentation is measured twice, with tabs reaching the next multiple of 8 and
    with tabs as one column; the two must order the lines the same way
    (Python's TabError rule), so a file never means something other than what
    its author saw. Fatal problems (inconsistent indentation, nesting limits)
    raise SyntaxProblem. An unmatched closing bracket becomes an ERROR token (it
    may be the first token of a statement, so the driver must see it in order);
    a mismatched one is reported through `report` and read as the right closer.
    """

    def __init__(self, text: str, file: str, report, problems: dict[int, SyntaxProblem]):
        self.text = text
        self.file = file
        self.report = report
        self.problems = problems
        self.levels: list[tuple[int, int]] = [(0, 0)]
        self.brackets: list[Token] = []

    def process(self, tokens: Iterator[Token]) -> Iterator[Token]:
        """The tokens, laid out."""
        brackets = self.brackets
        first = True
        for tok in tokens:
            kind = tok.type
            if first:
                first = False
                if kind != "_NEWLINE" and tok.col > 1:
                    # The first line is indented: as if a newline came before it.
                    start = tok.start_pos - (tok.col - 1)
                    yield from self._indentation(self.text[start:tok.start_pos], tok)
            if kind not in _LAYOUT_KINDS:
                yield tok
                continue
            if kind == "_NEWLINE":
                if not brackets:
                    yield tok
                    following = self._following(tok)
                    if following is not None:
                        yield from self._indentation(tok.value.rsplit("\n", 1)[1], following)
                continue
            if kind in _OPEN:
                brackets.append(tok)
                if len(brackets) > MAX_BRACKET_DEPTH:
                    raise SyntaxProblem("E0108", f"brackets nested more than {MAX_BRACKET_DEPTH} deep",
                                        _token_span(self.file, tok))
            elif kind in _CLOSE:
                if not brackets:
                    self.problems[tok.start_pos] = SyntaxProblem(
                        "E0104", f"unmatched '{tok.value}'", _token_span(self.file, tok),
                        "remove it, or add the opening bracket it belongs to")
                    yield _synthetic("ERROR", tok.value, tok)
                    continue
                opener = brackets.pop()
                if _OPEN[opener.type] != _CLOSE[kind]:
                    want_type, want = _CLOSER_OF[opener.value]
                    self.report(SyntaxProblem(
                        "E0104", f"closing '{tok.value}' does not match '{opener.value}'",
                        _token_span(self.file, tok), f"write '{want}' here",
                        notes=[(f"'{opener.value}' opened here", _token_span(self.file, opener))]))
                    tok = _synthetic(want_type, want, tok)  # read as the right closer and carry on
            yield tok

    def _following(self, newline: Token) -> Token | None:
        """A stand-in for the first token of the next line (for positions), or None at end of text."""
        if newline.end_pos >= len(self.text):
            return None
        line = newline.end_line
        col = newline.end_col
        return Token("_MARK", "", start_pos=newline.end_pos, line=line, col=col,
                     end_line=line, end_col=col + 1, end_pos=newline.end_pos)

    def _indentation(self, indent: str, at: Token) -> Iterator[Token]:
        col = alt = 0
        for char in indent:
            if char == "\t":
                col = (col // TAB_WIDTH + 1) * TAB_WIDTH
                alt += 1
            elif char == "\f":  # Python resets the count at a form feed
                col = alt = 0
            else:
                col += 1
                alt += 1
        line = at.line
        where = Span(self.file, line, 1, line, max(at.col, 2))  # the indentation itself

        def mark(kind: str) -> Token:
            return Token(kind, indent, start_pos=at.start_pos, line=line, col=1,
                         end_line=line, end_col=max(at.col, 2), end_pos=at.start_pos)

        top, top_alt = self.levels[-1]
        if col == top:
            if alt != top_alt:
                raise self._tab_error(where)
            return
        if col > top:
            if alt <= top_alt:
                raise self._tab_error(where)
            self.levels.append((col, alt))
            if len(self.levels) - 1 > MAX_BLOCK_DEPTH:  # levels[0] is the module level
                raise SyntaxProblem("E0108", f"blocks nested more than {MAX_BLOCK_DEPTH} deep", where)
            yield mark("_INDENT")
            return
        while col < self.levels[-1][0]:
            self.levels.pop()
            yield mark("_DEDENT")
        if col != self.levels[-1][0]:
            raise SyntaxProblem("E0105", "unindent does not match any outer indentation level", where,
                                "indent the line exactly as far as the block it belongs to")
        if alt != self.levels[-1][1]:
            raise self._tab_error(where)

    @staticmethod
    def _tab_error(where: Span) -> SyntaxProblem:
        return SyntaxProblem("E0105", "inconsistent use of tabs and spaces in indentation", where,
                             "indent with spaces only (or tabs only) throughout the file")


# ---- the recovering parser driver -----------------------------------------------------

class _Reject(Exception):
    """The parser cannot take the token it was given."""


class _Stream:
    """Pull tokens one at a time with one token of push-back; a fatal layout
    problem ends the stream and is kept in `fatal`."""

    def __init__(self, tokens: Iterator[Token]):
        self.tokens = tokens
        self.back: list[Token] = []
        self.fatal: SyntaxProblem | None = None
        self.stopped = False

    def next(self) -> Token | None:
        if self.back:
            return self.back.pop()
        try:
            return next(self.tokens, None)  # a generator that raised is exhausted
        except SyntaxProblem as problem:
            self.fatal = problem
            return None

    def peek(self) -> Token | None:
        tok = self.next()
        if tok is not None:
            self.back.append(tok)
        return tok

    def push(self, tok: Token) -> None:
        if not self.stopped:
            self.back.append(tok)

    def stop(self) -> None:
        """End the stream here (too many errors)."""
        self.stopped = True
        self.tokens = iter(())
        self.back.clear()


def _describe(tok: Token) -> str:
    kind = tok.type
    if kind == "NAME":
        return f"name `{tok.value}`"
    if kind in _NUMBERS:
        return f"number `{tok.value}`"
    if kind in ("STRING", "LONG_STRING"):
        return "string"
    if kind == "_NEWLINE":
        return "end of line"
    if kind == "_INDENT":
        return "indentation"
    if kind == "_DEDENT":
        return "end of block"
    if kind == "$END":
        return "end of file"
    if tok.value.isalpha():
        return f"keyword `{tok.value}`"
    return f"'{tok.value}'"


def _quote(tok: Token) -> str:
    return f"`{tok.value}`" if tok.value.isalpha() else f"'{tok.value}'"


class _Driver:
    """Feeds tokens to the LALR automaton and recovers from errors.

    At each statement start it saves the parser's stacks (cheap: they are
    short there). On an error it reports one diagnostic, skips the rest of the
    statement (up to its newline, and the indented block after it when the
    broken line was a block header), restores the saved stacks and goes on.
    Errors found while a statement is already broken are not reported: they
    are nearly always consequences of the first.
    """

    def __init__(self, grammar: "_Grammar", source: SourceFile, text: str, diags: Diagnostics):
        self.source = source
        self.file = source.name
        self.text = text
        self.diags = diags
        self.errors = 0
        self.lexer = _Lexer(grammar, text, source.name)
        self.layout = _Layout(text, source.name, self._report_in_statement, self.lexer.problems)
        self.stream = _Stream(self.layout.process(self.lexer.tokens()))
        self.grammar = grammar
        self.actions = grammar.actions
        self.reductions = grammar.reductions
        self.end_state = grammar.end_state
        self.builder = _Builder(source.name)
        self.state_stack = [grammar.start_state]
        # What each stack entry stands for: its value (a token, or what the
        # builder made of a rule), and where it was written: the token, or
        # the rule's span (None for a rule that matched no token).
        self.value_stack: list = []
        self.where_stack: list = []
        self._save()
        # The tokens the parser accepted on this logical line, after the two
        # accepted before it (None before the first): all the wording of
        # errors needs to know of the past, kept with one append a token.
        self.recent: list[Token | None] = [None, None]
        self.last_line_first: Token | None = None  # first token of the logical line before this one
        # Characters of the longest logical line: an expression has at most one
        # node per token of its line, so _check_depth need not run when this is
        # within MAX_EXPR_DEPTH.
        self.line_start = 0
        self.longest_line = 0
        self._feed = self._feeder()

    # -- reporting ---------------------------------------------------------------
    def report(self, problem: SyntaxProblem) -> None:
        self.errors += 1
        if self.errors > MAX_SYNTAX_ERRORS:
            # A file this broken is not worth reading on (a binary or a wrong
            # file): say so once, where the next error was, and stop parsing.
            if self.errors == MAX_SYNTAX_ERRORS + 1:
                self.diags.error("E0112", f"more than {MAX_SYNTAX_ERRORS} syntax errors; stopping here",
                                 problem.span, help="fix the first errors and run tirxc again")
                self.stream.stop()
            return
        notes = [Note(message, span) for message, span in problem.notes]
        self.diags.error(problem.code, problem.message, problem.span, notes=notes, help=problem.help)

    def _report_in_statement(self, problem: SyntaxProblem) -> None:
        if not self.statement_broken:
            self.report(problem)
            self.statement_broken = True

    # -- parser state ---------------------------------------------------------------
    def _accepts(self, kind: str) -> bool:
        """Whether the parser would take a token of this kind now.

        Looking the kind up in the current state is not enough: LALR merges
        lookaheads, so a state may list a token that fails after the reductions
        it triggers. This runs those reductions on a virtual stack (the real
        one untouched, nothing copied) until the token would be shifted.
        """
        actions = self.actions
        reductions = self.reductions
        real = self.state_stack
        below = len(real)  # real[:below] is still on the virtual stack
        extra: list = []  # virtual entries above it
        while True:
            action = actions[extra[-1] if extra else real[below - 1]].get(kind)
            if action is None:
                return False
            if action >= 0:
                return True
            size, _, origin = reductions[~action] or self.grammar.reduction(~action)
            taken = min(size, len(extra))
            del extra[len(extra) - taken:]
            below -= size - taken
            goto = actions[extra[-1] if extra else real[below - 1]][origin]
            if kind == "$END" and goto == self.end_state:
                return True
            extra.append(goto)

    def _expected(self) -> set[str]:
        return {k for k in self.actions[self.state_stack[-1]] if k.isupper()}

    def _snapshot(self) -> tuple:
        values = self.value_stack
        # Reductions extend the lists of inlined rules still on the stack in
        # place (see _rule_builder), so their lengths are part of the state;
        # so are the builder's problems, which the rolled-back rules reported.
        lengths = [(v, len(v)) for v in values if type(v) is list]
        return (list(self.state_stack), list(values), list(self.where_stack), lengths, len(self.builder.problems))

    def _rollback(self, snapshot: tuple) -> None:
        states, values, where, lengths, problems = snapshot
        self.state_stack[:] = states
        self.value_stack[:] = values
        self.where_stack[:] = where
        for items, length in lengths:
            del items[length:]
        del self.builder.problems[problems:]

    def _save(self) -> None:
        self.saved = self._snapshot()
        self.statement_broken = False

    def _restore(self) -> None:
        self._rollback(self.saved)

    def _feeder(self):
        """_feed, the per-token hot path, with the tables, stacks and builder
        bound once instead of looked up as attributes for every token."""
        actions = self.actions
        states = self.state_stack
        values = self.value_stack
        where = self.where_stack
        reductions = self.reductions
        unit_runs = self.grammar.unit_runs
        gotos = self.grammar.gotos
        builder = self.builder
        remember = self.recent.append
        make_reduction = self.grammar.reduction
        unit_run = self._unit_run
        end_state = self.end_state

        def feed(tok: Token):
            """One token through the LALR automaton: reduce as the table says, then
            shift (or, for $END, accept and return the module). Raises _Reject when
            the token cannot come next; the stacks may then hold reductions made
            for it, which is why errors always restore a saved state."""
            kind = tok.type
            row = actions[states[-1]]
            while True:
                action = row.get(kind)
                if action is None:
                    raise _Reject
                if action >= 0:
                    states.append(action)
                    values.append(tok)
                    where.append(tok)
                    break
                size, build, origin = reductions[~action] or make_reduction(~action)
                if build is None:
                    # `?rule` of one symbol: the value stays, only the state
                    # changes, and so for the whole run of such steps; where the
                    # run ends depends only on the state below, this state and kind.
                    key = (states[-2], states[-1], kind)
                    end = unit_runs.get(key)
                    if end is None:
                        end = unit_runs[key] = unit_run(*key)
                    states[-1] = end
                    row = actions[end]
                    continue
                if size:
                    value, span = build(builder, values[-size:], where[-size:])
                    del states[-size:]
                    del values[-size:]
                    del where[-size:]
                else:
                    value, span = build(builder, [], ())
                values.append(value)
                where.append(span)
                # The goto, and the unit steps the lookahead takes from there, in one lookup.
                below = states[-1]
                goto = gotos.get((below, origin, kind))
                if goto is None:
                    goto = gotos[below, origin, kind] = unit_run(below, actions[below][origin], kind)
                if goto == end_state:  # only $END gets here: the whole file is `start`
                    return values[-1]
                states.append(goto)
                row = actions[goto]
            if kind in _BOUNDARY:
                self._boundary(tok)
            else:
                remember(tok)
            return None

        return feed

    def _boundary(self, tok: Token) -> None:
        """A newline, indent or dedent was accepted: a new logical line starts,
        and maybe a statement."""
        recent = self.recent
        if len(recent) > 2:
            self.last_line_first = recent[2]
        recent[:] = (recent[-1], tok)
        start = tok.start_pos or 0
        if start - self.line_start > self.longest_line:
            self.longest_line = start - self.line_start
        self.line_start = tok.end_pos if tok.end_pos is not None else start
        # Only where a statement may start: not between a decorator and its `def`.
        key = tuple(self.state_stack)
        starts = self.grammar.statement_starts.get(key)
        if starts is None:
            starts = self.grammar.statement_starts[key] = self._accepts("PASS")
        if starts:
            self._save()

    @property
    def prev(self) -> Token | None:
        """The last token the parser accepted."""
        return self.recent[-1]

    @property
    def prev2(self) -> Token | None:
        return self.recent[-2]

    @property
    def line_first(self) -> Token | None:
        """The first token of the current logical line."""
        return self.recent[2] if len(self.recent) > 2 else None

    @property
    def line_kinds(self) -> set[str]:
        """The kinds of the tokens on this logical line outside brackets (a
        newline never comes inside brackets, so the line starts at depth 0)."""
        kinds = set()
        depth = 0
        for tok in self.recent[2:]:
            if tok.type in _OPEN:
                depth += 1
            elif tok.type in _CLOSE:
                depth -= 1
            if not depth:
                kinds.add(tok.type)
        return kinds

    def _unit_run(self, below: int, state: int, kind: str) -> int:
        """The state after the unit reductions that `kind` triggers from `state`
        (with `below` under it), up to the first action of another sort."""
        actions, reductions = self.actions, self.reductions
        while True:
            action = actions[state].get(kind)
            if action is None or action >= 0:
                return state
            size, build, origin = reductions[~action] or self.grammar.reduction(~action)
            if build is not None:
                return state
            state = actions[below][origin]

    # -- the main loop ---------------------------------------------------------------
    def run(self):
        next_token = self.stream.next
        feed = self._feed
        while True:
            tok = next_token()
            if tok is None:
                break
            try:
                feed(tok)
            except _Reject:
                self._recover(tok)
        return self._finish()

    def _finish(self):
        if self.stream.fatal is not None:
            self.report(self.stream.fatal)
            self.statement_broken = True
            self._restore()
        elif self.layout.brackets and not self.statement_broken:
            self.report(self._never_closed(self.layout.brackets[-1]))
            self.statement_broken = True
            self._restore()
        end = _synthetic("$END", "", self.prev) if self.prev is not None else Token("$END", "", 0, 1, 1)
        restored = False
        while True:
            if self._accepts("$END"):
                try:
                    return self._feed(end)
                except _Reject:  # a spurious LALR lookahead; give up on the module
                    return None
            if self._accepts("_DEDENT"):
                self._feed(_synthetic("_DEDENT", "", end))
                continue
            if restored:
                return None
            if not self.statement_broken:
                self.report(self._problem(end))
            self._restore()
            self._fill(end)
            restored = True

    def _fill(self, like: Token) -> None:
        """After a restore: stand in for the dropped statement with `pass` when
        the token that follows could not come next on its own."""
        if not self._accepts(like.type):
            try:
                self._feed(_synthetic("PASS", "pass", like))
                self._feed(_synthetic("_NEWLINE", "\n", like))
            except _Reject:
                pass
        self.statement_broken = False

    def _recover(self, tok: Token) -> None:
        missing_block = "_INDENT" in self._expected()
        problem = None if self.statement_broken else self._problem(tok)
        if problem is not None and problem.code == "E0107" and self._insert_colon(tok):
            self.report(problem)
            return
        opener = self.layout.brackets[-1] if self.layout.brackets else None
        self.statement_broken = True
        if tok.type == "ERROR" or opener is None or problem is None:
            if problem is not None:
                self.report(problem)
            problem = None
        if missing_block and tok.type != "_INDENT":
            # `def f():` with nothing indented after it: the header is what is
            # broken (and is dropped by the restore); tok starts the next statement.
            self.stream.push(tok)
            skipped_header = True
        else:
            skipped_header = self._skip(tok)
        if problem is not None:
            # Brackets were open at the error. If the skip ran to the end of the
            # file without closing the innermost one, it was never closed: that,
            # not the token that tripped the parser, is the user's mistake.
            if self.stream.peek() is None and any(b is opener for b in self.layout.brackets):
                problem = self._never_closed(opener)
            self.report(problem)
        self._restore()
        nxt = self.stream.peek()
        # A broken `if`/`try` header takes its `elif`/`else`/`except` clauses with it.
        while skipped_header and nxt is not None and nxt.type in _CONTINUATIONS and not self._accepts(nxt.type):
            self.stream.next()
            self._skip(nxt)
            nxt = self.stream.peek()
        if nxt is not None:
            self._fill(nxt)
        else:
            self.statement_broken = True  # _finish must not report the end of file again

    def _insert_colon(self, newline: Token) -> bool:
        """The commonest slip, a block header without its ':', is repaired in
        place so that the block after it is still parsed (and its errors
        reported). False when the parser does not take the repair."""
        snapshot = self._snapshot()
        try:
            self._feed(_synthetic("COLON", ":", newline))
            self._feed(newline)
            return True
        except _Reject:
            self._rollback(snapshot)
            return False

    def _skip(self, tok: Token) -> bool:
        """Drop the rest of a broken statement, starting at tok. Returns True
        when an indented block after it was dropped as well."""
        stream = self.stream
        if tok.type == "_DEDENT":
            stream.push(tok)  # belongs to the enclosing block
            return False
        if tok.type == "_INDENT":
            self._skip_block()
            return True
        while tok is not None and tok.type != "_NEWLINE":
            tok = stream.next()
        nxt = stream.peek()
        if nxt is not None and nxt.type == "_INDENT":
            stream.next()
            self._skip_block()
            return True
        return False

    def _skip_block(self) -> None:
        depth = 1
        while depth:
            tok = self.stream.next()
            if tok is None:
                return
            if tok.type == "_INDENT":
                depth += 1
            elif tok.type == "_DEDENT":
                depth -= 1

    def _never_closed(self, opener: Token) -> SyntaxProblem:
        return SyntaxProblem("E0103", f"'{opener.value}' was never closed", _token_span(self.file, opener),
                             f"add the matching '{_CLOSER_OF[opener.value][1]}'")

    # -- wording -----------------------------------------------------------------
    def _problem(self, tok: Token) -> SyntaxProblem:
        """Plain words for the token the parser could not take."""
        file = self.file
        kind = tok.type
        if kind == "ERROR":
            return self.lexer.problems[tok.start_pos]
        expected = self._expected()
        at_end = kind in ("_NEWLINE", "$END", "_DEDENT")
        if kind == "$END":
            span = self.source.end_span()
        elif at_end and self.prev is not None and kind == "_NEWLINE":
            span = _after(file, self.prev)
        else:
            span = _token_span(file, tok)
        prev = self.prev if self.prev is not None and self.prev.type not in _BOUNDARY else None
        first = self.line_first

        if kind == "_INDENT":
            return SyntaxProblem("E0105", "unexpected indentation", span,
                                 "only a line after one ending in ':' may be indented further")
        if "_INDENT" in expected:
            header = self.last_line_first
            what = _HEADER_BLOCK.get(header.type, "the line") if header is not None else "the line"
            line = header.line if header is not None else span.line
            return SyntaxProblem("E0106", f"expected an indented block after {what} on line {line}", span,
                                 "indent the block's statements, or write `pass` for an empty block")
        if first is not None and first.type == "NAME" and first.value in _SOFT_KEYWORD_STATEMENTS and (
                prev is first or (kind == "_NEWLINE" and prev is not None and prev.type == "COLON")):
            return SyntaxProblem("E0109", f"{_SOFT_KEYWORD_STATEMENTS[first.value]} is not supported in a "
                                 "kernel file", _token_span(file, first),
                                 "use `if`/`elif`" if first.value != "type" else None)
        if "AT" in expected and "DEF" in expected and "NAME" not in expected:
            return SyntaxProblem("E0100", "expected a function definition after the decorator", span,
                                 "a decorator line must be followed by `def`")
        if first is not None and first.type in _HEADER_COLON and "COLON" not in self.line_kinds \
                and "COLON" in expected \
                and kind in ("_NEWLINE", "$END"):
            return SyntaxProblem("E0107", f"expected ':' after {_HEADER_COLON[first.type]}", span)
        if kind == "EQUAL":
            return SyntaxProblem("E0100", "unexpected '=': assignment is a statement, not part of an expression",
                                 span, "did you mean `==`?")
        if first is not None and first.type == "FOR" and "IN" in expected and "IN" not in self.line_kinds \
                and not self.layout.brackets:
            return SyntaxProblem("E0100", "expected `in` after the `for` target", span)
        if prev is not None and prev.type == "DEF" and kind != "NAME" and not tok.value.isalpha():
            return SyntaxProblem("E0100", "expected a function name after `def`", span)
        if prev is not None and prev.type == "NAME" and self.prev2 is not None and self.prev2.type == "DEF" \
                and "LPAR" in expected:
            return SyntaxProblem("E0100", "expected '(' after the function name", span)
        names_only = "NAME" in expected and "DEC_NUMBER" not in expected
        if tok.value.isalpha() and kind.isupper() and kind != "NAME" and names_only:
            return SyntaxProblem("E0111", f"`{tok.value}` is a keyword and cannot be used as a name", span)
        if "ELSE" in expected and kind in ("_NEWLINE", "$END", "RPAR", "RSQB", "RBRACE", "COMMA", "COLON"):
            return SyntaxProblem("E0100", "expected `else`: a conditional expression is `a if condition else b`",
                                 span)
        if at_end:
            if prev is not None and "NAME" in expected:
                thing = "a name" if names_only else "an expression"
                return SyntaxProblem("E0100", f"expected {thing} after {_quote(prev)}", span)
            if kind == "$END":
                return SyntaxProblem("E0100", "unexpected end of file", span)
            return SyntaxProblem("E0100", "the statement ends too early", span)
        help = None
        if kind in _STARTS_EXPR and prev is not None and prev.type in _ENDS_EXPR:
            if self.layout.brackets and "COMMA" in expected:
                help = "is a ',' missing before it?"
            else:
                help = "two expressions in a row: is an operator missing?"
        return SyntaxProblem("E0100", f"unexpected {_describe(tok)}", span, help)


# ---- grammar rules to AST ------------------------------------------------------------------

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
    "`*` argument unpacking": "pass the arguments one by one",
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
    "`match` statement": "use `if`/`elif`",
}


def _strip_prefix(text: str) -> tuple[str, str]:
    index = 0
    while text[index] not in "'\"":
        index += 1
    return text[:index].lower(), text[index:]


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


class _Builder:
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
        return _token_span(self.file, tok)

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
        if len(children) > 2:
            self._problem(SyntaxProblem("E0308", "chained assignment `a = b = c` is not supported", span,
                                        "write two assignments"))
        return ast.Assign(span, children[0], children[-1])

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
        if op == "**=":
            self._reject("`**` (power)", span)
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
        return self._rejected_stmt("`global` statement", span)

    def nonlocal_stmt(self, span, children):
        return self._rejected_stmt("`nonlocal` statement", span)

    def del_stmt(self, span, children):
        return self._rejected_stmt("`del` statement", span)

    def raise_stmt(self, span, children):
        return self._rejected_stmt("`raise` statement", span)

    def yield_stmt(self, span, children):
        return ast.Pass(span)  # yield_expr has reported it

    def yield_expr(self, span, children):
        self._reject("`yield`", span)
        return self._placeholder(span)

    def classdef(self, span, children):
        return self._rejected_stmt("class definition", span, "class")

    def try_stmt(self, span, children):
        return self._rejected_stmt("`try` statement", span, "try")

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
        if orelse is not None:
            self._reject("`else` clause on a loop", self._keyword_span(span, "while"))
        return ast.While(self._block_span(span, body), test, body)

    def for_stmt(self, span, children):
        target, iterable, body, orelse = children
        if orelse is not None:
            self._reject("`else` clause on a loop", self._keyword_span(span, "for"))
        return ast.For(self._block_span(span, body), target, iterable, body)

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
                                   func.body, func.name_span)
        return func

    def funcdef(self, span, children):
        name, params, returns, body = children
        if returns is not None:
            self._reject("`->` return annotation", returns.span)
        return ast.FunctionDef(self._block_span(span, body), self._name(name), tuple(params or ()), (), body,
                               self._tok(name))

    def parameters(self, span, children):
        return [c for c in children if c is not None]

    def param(self, span, children):
        name, annotation, default = children
        if default is not None:
            self._reject("default parameter value", default.span)
        return ast.Param(span, self._name(name), annotation)

    def star_param(self, span, children):
        self._reject("`*args` parameter", span)
        return None

    def kwstar_param(self, span, children):
        self._reject("`**kwargs` parameter", span)
        return None

    def slash_param(self, span, children):
        self._reject("positional-only marker `/`", span)
        return None

    # -- expressions ----------------------------------------------------------------
    def ifexp(self, span, children):
        body, test, orelse = children
        return ast.IfExp(span, test, body, orelse)

    def lambdef(self, span, children):
        self._reject("lambda", span)
        return self._placeholder(span)

    def lambda_params(self, span, children):
        return None

    def lambda_param(self, span, children):
        return None

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
        ops = tuple(children[1::2])
        for op in ops:
            if op in ("in", "not in", "is", "is not"):
                self._reject(f"`{op}` operator", span)
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
        self._reject("`**` (power)", span)
        return children[0]

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
            elif kind == "kw":
                if any(k.name == item.name for k in keywords):
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
        self._reject("generator expression", span)
        return None

    def star_arg(self, span, children):
        self._reject("`*` argument unpacking", span)
        return None

    def kwstar_arg(self, span, children):
        self._reject("`**` argument unpacking", span)
        return None

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
        if base == 10 and len(text) > _MAX_DECIMAL_DIGITS:
            # int() refuses such strings (CVE-2020-10735 limit); no kernel needs one.
            self._problem(SyntaxProblem("E0110", f"integer literal with {len(text)} digits is too large",
                                        span, "no TIRx dtype holds more than 64 bits"))
            return ast.Constant(span, 0)
        return ast.Constant(span, int(text[2:] if base != 10 else text, base))

    def string(self, span, children):
        return children[0]

    def strings(self, span, children):
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

    def ellipsis(self, span, children):
        self._reject("`...` (Ellipsis)", span)
        return self._placeholder(span)

    def star_expr(self, span, children):
        self._reject("starred expression", span)
        return children[0]

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
        return ast.Dict(span, tuple(k for k, _ in items), tuple(v for _, v in items))

    def dict_items(self, span, children):
        return [c for c in children if c is not None]

    def dict_item(self, span, children):
        return (children[0], children[1])

    def dict_unpack(self, span, children):
        self._reject("`**` argument unpacking", span)
        return (children[0], children[0])

    def set(self, span, children):
        self._reject("set literal", span)
        return self._placeholder(span)

    def _comprehension(what):
        def build(self, span, children):
            self._reject(what, span)
            return self._placeholder(span)
        return build

    listcomp = _comprehension("list comprehension")
    genexp = _comprehension("generator expression")
    dictcomp = _comprehension("dict comprehension")
    setcomp = _comprehension("set comprehension")

    def comp_for(self, span, children):
        return None

    def comp_if(self, span, children):
        return None


# ---- entry point ----------------------------------------------------------------------

def _rule_builder(rule: "_Rule", nullable: frozenset[str]):
    """The reduction callback of one grammar rule: `build(builder, values,
    where)` takes the values and positions (a Token or Span, None for a rule
    that matched no token) of the rule's symbols and returns the rule's value
    and position.

    It shapes the children as Lark's tree builder does (anonymous tokens
    dropped unless the rule is `!`, `_rule` children spliced in, `None` for a
    missing `[optional]`, `?rule` with one child replaced by the child) and
    hands them straight to the _Builder method of the rule, so that no parse
    tree is ever made. A rule's position runs from the first to the last of
    its symbols that has one, as Lark's `propagate_positions` has it: only a
    `nullable` symbol (one that can match no token) may have none.
    """
    expansion = rule.expansion
    if rule.options.empty_indices:
        bits = "".join(str(int(b)) for b in rule.options.empty_indices)
        nones = [len(run) for run in bits.split("0")]
    else:
        nones = [0] * (len(expansion) + 1)
    keep_all = rule.options.keep_all_tokens
    include = []  # (index into the symbols, splice its list?, Nones to insert before it)
    pending = 0
    for index, sym in enumerate(expansion):
        pending += nones[index]
        if keep_all or not (sym.is_term and sym.filter_out):
            include.append((index, not sym.is_term and sym.name.startswith("_"), pending))
            pending = 0
    trailing = pending + nones[len(expansion)]
    name = rule.alias or rule.origin.name
    plain = len(include) == len(expansion) and not trailing and not any(s or n for _, s, n in include)
    # A `?rule` left with one child is that child, position and all. Such
    # rules splice nothing, so how many children they keep is fixed.
    if rule.options.expand1 and not rule.alias and \
            len(include) + sum(n for _, _, n in include) + trailing == 1:
        assert not any(s for _, s, _ in include), rule
        only = include[0][0] if include and not include[0][2] else None  # None: the child is a missing [optional]

        def pass_through(builder, values, where):
            return (values[only], where[only]) if only is not None else (None, None)

        return pass_through
    method = getattr(_Builder, name) if not name.startswith("_") else None  # an inlined rule's value is its list

    def _shape(values):
        kept = []
        for index, splice, add in include:
            if add:
                kept += [None] * add
            if splice:
                if kept:
                    kept += values[index]
                else:
                    # Left recursion (`stmt*`): extend the child's list in
                    # place, or long lists would cost quadratic time.
                    # _Driver._rollback undoes such appends.
                    kept = values[index]
            else:
                kept.append(values[index])
        if trailing:
            kept += [None] * trailing
        return kept

    if expansion and expansion[0].name not in nullable and expansion[-1].name not in nullable:
        # Nearly every rule: its first and last symbols have positions.
        def build_spanned(builder, values, where):
            first, last = where[0], where[-1]
            span = _new_span((builder.file, first.line, first.col, last.end_line, last.end_col))
            kept = values if plain else _shape(values)
            return (method(builder, span, kept) if method else kept), span

        return build_spanned

    def build(builder, values, where):
        for first in where:
            if first is not None:
                break
        else:
            kept = values if plain else _shape(values)
            return (method(builder, Span(builder.file, 1, 1, 1, 1), kept) if method else kept), None
        for last in reversed(where):
            if last is not None:
                break
        span = _new_span((builder.file, first.line, first.col, last.end_line, last.end_col))
        kept = values if plain else _shape(values)
        return (method(builder, span, kept) if method else kept), span

    return build


# ---- the compiled grammar ---------------------------------------------------------------
#
# Lark compiles grammar/tirx.lark into an LALR table and a lexer, which takes
# most of a second. The result ships as the Python module parse_tables.py
# (written by `python -m transpiler.syntax.parse --write-tables`), so a run only
# imports it: from its cached bytecode that is a fraction of the time that
# reading the same tables as JSON takes, and the json module is not needed.
# The module holds a copy of the grammar it was made from (comparing the text
# is cheaper than importing hashlib, and exact); stale or missing tables are
# rebuilt in memory with Lark (tests/perf checks that the shipped ones are
# current). The text is canonical: states are numbered in breadth-first order
# from the start state, rules are sorted, so the same grammar always gives the
# same bytes whatever Python's hash seed.

TABLES_MODULE = "tables.py"
_TABLES_FORMAT = 3


def build_tables(text: str) -> dict:
    """Compile the grammar text with Lark into the canonical tables (see above)."""
    from lark import Lark
    from lark.lexer import PatternStr, UnlessCallback
    from lark.parsers.lalr_analysis import Shift

    lark = Lark(text, parser="lalr", lexer="basic", maybe_placeholders=True, start="start")
    table = lark.parser.parser.parser.parse_table
    lexer = lark.parser.lexer  # the frontend's BasicLexer (lexer="basic", no post-lexer)
    scanner = lexer.scanner

    keywords: dict[str, dict[str, str]] = {}
    for kind, callback in lexer.callback.items():
        assert type(callback) is UnlessCallback, (kind, callback)
        words = {}
        for term in callback.scanner.terminals:
            assert type(term.pattern) is PatternStr and not term.pattern.flags, term
            assert term.pattern.value not in words, term
            words[term.pattern.value] = term.name
        keywords[kind] = dict(sorted(words.items()))

    def rule_key(rule):
        return (str(rule.origin.name), [[str(s.name), 0 if not s.is_term else (2 if s.filter_out else 1)]
                                        for s in rule.expansion],
                str(rule.alias) if rule.alias else "", bool(rule.options.expand1),
                bool(rule.options.keep_all_tokens), [bool(b) for b in rule.options.empty_indices or ()])

    rules = sorted(lark.rules, key=rule_key)
    keys = [rule_key(r) for r in rules]
    assert all(a != b for a, b in zip(keys, keys[1:])), "two rules with the same shape"
    rule_index = {id(r): i for i, r in enumerate(rules)}

    start = table.start_states["start"]
    order = {start: 0}  # Lark's state -> ours, breadth first with the symbols in sorted order
    queue = [start]
    for state in queue:
        row = table.states[state]
        for key in sorted(row, key=str):
            action, arg = row[key]
            if action is Shift and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    assert len(order) == len(table.states), "unreachable LALR states"
    # A state's reductions are stored as (rule, lookahead set) pairs: LALR
    # states share a few dozen lookahead sets between them.
    shifts, reductions = [], []
    for state in queue:
        row = table.states[state]
        ours: dict[str, int] = {}
        lookaheads: dict[int, list[str]] = {}
        for key in sorted(row, key=str):
            action, arg = row[key]
            if action is Shift:
                ours[str(key)] = order[arg]
            else:
                lookaheads.setdefault(rule_index[id(arg)], []).append(str(key))
        shifts.append(ours)
        reductions.append(sorted((rule, tuple(keys)) for rule, keys in lookaheads.items()))
    token_sets = sorted({keys for row in reductions for _, keys in row})
    set_index = {keys: i for i, keys in enumerate(token_sets)}
    states = [[ours, [x for rule, keys in row for x in (rule, set_index[keys])]]
              for ours, row in zip(shifts, reductions)]
    # name, pattern, and the text itself for a plain string (matched without re)
    terminals = [[t.name, t.pattern.to_regexp(),
                  t.pattern.value if type(t.pattern) is PatternStr and not t.pattern.flags
                  and not lexer.g_regex_flags else None] for t in scanner.terminals]
    assert [m.pattern for m in scanner._mres] == [_union(terminals)], "Lark split its lexer pattern"
    first = [[i for i, (_, regexp, _) in enumerate(terminals) if code in _first_chars(regexp, lexer.g_regex_flags)]
             for code in range(128)]
    _check_first(terminals, first, lexer.g_regex_flags)
    return {
        "format": _TABLES_FORMAT,
        "grammar": text,
        "lexer": {
            "terminals": terminals,
            "first": first,
            "flags": lexer.g_regex_flags,
            "ignore": sorted(lexer.ignore_types),
            "newline": sorted(lexer.newline_types),
            "keywords": dict(sorted(keywords.items())),
        },
        "rules": [[origin, alias or None, expansion, expand1, keep_all, empty]
                  for origin, expansion, alias, expand1, keep_all, empty in keys],
        "start": 0,
        "end": order[table.end_states["start"]],
        "token_sets": [list(keys) for keys in token_sets],
        "states": states,
    }


def _union(terminals) -> str:
    """The lexer's pattern: the terminals' patterns as named alternatives, in
    priority order (the first alternative that matches wins, as in Lark)."""
    return "|".join(f"(?P<{name}>{regexp})" for name, regexp, *_ in terminals)


def _first_chars(regexp: str, flags: int) -> set[int]:
    """The ASCII characters a match of regexp may start with, or more (never fewer)."""
    try:
        from re import _constants as c, _parser as sre_parse
    except ImportError:  # Python 3.10
        import sre_constants as c
        import sre_parse
    every = set(range(128))
    category_re = {c.CATEGORY_DIGIT: r"\d", c.CATEGORY_NOT_DIGIT: r"\D", c.CATEGORY_SPACE: r"\s",
                   c.CATEGORY_NOT_SPACE: r"\S", c.CATEGORY_WORD: r"\w", c.CATEGORY_NOT_WORD: r"\W"}

    def char_set(items) -> set[int]:
        chars, negate = set(), False
        for op, av in items:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                chars.add(av)
            elif op is c.RANGE:
                chars.update(range(av[0], min(av[1], 127) + 1))
            elif op is c.CATEGORY and av in category_re:
                chars.update(code for code in every if re.fullmatch(category_re[av], chr(code), flags))
            else:
                return every  # not understood: any character
        return every - chars if negate else chars & every

    def sequence(items) -> tuple[set[int], bool]:  # (first characters, may match the empty string)
        out: set[int] = set()
        for op, av in items:
            first, empty = item(op, av)
            out |= first
            if not empty:
                return out, False
        return out, True

    def item(op, av) -> tuple[set[int], bool]:
        if op is c.LITERAL:
            return {av} & every, False
        if op is c.IN:
            return char_set(av), False
        if op is c.BRANCH:
            out, empty = set(), False
            for alternative in av[1]:
                first, alt_empty = sequence(alternative)
                out |= first
                empty = empty or alt_empty
            return out, empty
        if op is c.SUBPATTERN:
            return sequence(av[3])
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
            first, empty = sequence(av[2])
            return first, empty or av[0] == 0
        if op is getattr(c, "ATOMIC_GROUP", None):
            return sequence(av)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return set(), True  # zero width
        return every, True  # not understood: anything

    parsed = sre_parse.parse(regexp, flags)
    if parsed.state.flags & re.IGNORECASE or "(?i" in regexp or "(?-" in regexp:
        return every
    return sequence(list(parsed))[0]


def _check_first(terminals, first, flags: int) -> None:
    """The first-character dispatch (see _Grammar.candidates) must pick the same
    token as the whole pattern; try it on every ASCII character followed by
    some likely continuations."""
    whole = re.compile(_union(terminals), flags)
    tails = ["", "a", "0", "x1", "_", ".", ".5", "5", "e5", "j", '"', "'", '""', "''", "\n", " ", "\t", "=",
             "*", "/", "<", ">", "-", "+", "(", "#", "\\\n", "a'", 'b"x"', "'" * 3, '"' * 3, "0_1", "fr'", "\u00e9"]
    for code in range(128):
        part = re.compile(_union([terminals[i] for i in first[code]]), flags) if first[code] else None
        for tail in tails:
            text = chr(code) + tail
            m = whole.match(text)
            n = part.match(text) if part is not None else None
            assert (m and (m.lastgroup, m.end())) == (n and (n.lastgroup, n.end())), (text, m, n)


def tables_text(tables: dict) -> str:
    """The tables as the text of parse_tables.py: one rule and one state per line."""
    lines = ['"""The compiled tables of grammar/tirx.lark (see "the compiled grammar" in parse.py).',
             "",
             "Written by `python -m transpiler.syntax.parse --write-tables`; do not edit.",
             '"""',
             "TABLES = {"]
    for key in ("format", "grammar", "lexer", "start", "end"):
        lines.append(f"{key!r}: {tables[key]!r},")
    for key in ("rules", "token_sets", "states"):
        lines.append(f"{key!r}: [")
        lines += [f"{item!r}," for item in tables[key]]
        lines.append("],")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _shipped_tables() -> dict | None:
    try:
        from transpiler.syntax.tables import TABLES
    except ImportError:
        return None
    return TABLES


def _load_tables() -> dict:
    text = data_text("grammar", "tirx.lark")
    tables = _shipped_tables()
    if tables is None or tables.get("format") != _TABLES_FORMAT or tables.get("grammar") != text:
        tables = build_tables(text)  # stale or missing: slow, but right
    return tables


class _Symbol:
    __slots__ = ("name", "is_term", "filter_out")

    def __init__(self, name: str, kind: int):
        self.name, self.is_term, self.filter_out = name, kind != 0, kind == 2

    def __repr__(self):
        return self.name


class _RuleOptions:
    __slots__ = ("expand1", "keep_all_tokens", "empty_indices")

    def __init__(self, expand1: bool, keep_all_tokens: bool, empty_indices: tuple):
        self.expand1, self.keep_all_tokens, self.empty_indices = expand1, keep_all_tokens, empty_indices


class _Rule:
    """A grammar rule, with the attributes of Lark's Rule that _rule_builder reads."""
    __slots__ = ("origin", "expansion", "alias", "options")

    def __init__(self, origin: str, alias: str | None, expansion, expand1: bool, keep_all: bool, empty):
        self.origin = _Symbol(origin, 0)
        self.alias = alias
        self.expansion = [_Symbol(name, kind) for name, kind in expansion]
        self.options = _RuleOptions(expand1, keep_all, tuple(empty))

    def __repr__(self):
        return f"<{self.origin.name} : {' '.join(s.name for s in self.expansion)}>"


class _Grammar:
    """The compiled grammar, ready for _Lexer and _Driver.

    `actions[state][symbol]` is the next state (an int >= 0) for a shift or
    goto, or a reduction `~rule` (< 0) whose `reductions[rule]` is `(size,
    build, rule name)`, or None until reduction(rule) has made it; build is
    None for a unit step up the precedence ladder (atom -> ... -> test),
    which makes nothing. A run of such steps depends only on the state below
    them, the state they start from and the lookahead, so _Driver remembers
    where each run ends (`unit_runs`), and where the goto after a reduction
    and the run after it end (`gotos`: state below, rule name, lookahead).
    `statement_starts` remembers, per state stack, whether a statement may
    start there.
    """

    def __init__(self, tables: dict) -> None:
        lexer = tables["lexer"]
        self.flags = lexer["flags"]
        self.terminals = [tuple(t) for t in lexer["terminals"]]
        self.first = lexer["first"]
        # First character -> the terminals that can start with it (filled in
        # as characters are met; see candidates).
        self.dispatch: dict[str, tuple] = {}
        self._compiled: dict[int, tuple] = {}
        self.ignore_types = frozenset(lexer["ignore"])
        self.newline_types = frozenset(lexer["newline"])
        self.keywords: dict[str, dict[str, str]] = lexer["keywords"]
        self._rules = tables["rules"]
        self._nullable: frozenset[str] | None = None
        self.reductions: list[tuple | None] = [None] * len(self._rules)
        token_sets = tables["token_sets"]
        self.actions: list[dict[str, int]] = []
        for shifts, reductions in tables["states"]:
            row = dict(shifts)
            for i in range(0, len(reductions), 2):
                row.update(dict.fromkeys(token_sets[reductions[i + 1]], ~reductions[i]))
            self.actions.append(row)
        self.start_state = tables["start"]
        self.end_state = tables["end"]
        self.unit_runs: dict[tuple, int] = {}
        self.gotos: dict[tuple, int] = {}
        self.statement_starts: dict[tuple[int, ...], bool] = {}

    @property
    def rules(self) -> list[_Rule]:
        return [_Rule(*r) for r in self._rules]

    def reduction(self, index: int) -> tuple:
        """reductions[index], made on first use (a file needs a fraction of them)."""
        rule = _Rule(*self._rules[index])
        first = rule.expansion[0] if len(rule.expansion) == 1 else None
        unit = first is not None and rule.options.expand1 and not rule.alias \
            and not rule.options.empty_indices \
            and not (first.is_term and first.filter_out) \
            and not (not first.is_term and first.name.startswith("_"))
        made = self.reductions[index] = (len(rule.expansion), None if unit else _rule_builder(rule, self.nullable),
                                         rule.origin.name)
        return made

    @property
    def nullable(self) -> frozenset[str]:
        """The rules that can match no token at all."""
        if self._nullable is None:
            found: set[str] = set()
            grew = True
            while grew:
                grew = False
                for origin, _, expansion, *_ in self._rules:
                    if origin not in found and all(kind == 0 and name in found for name, kind in expansion):
                        found.add(origin)
                        grew = True
            self._nullable = frozenset(found)
        return self._nullable

    def candidates(self, char: str) -> tuple:
        """The terminals that can start with char, in the lexer's priority
        order (see _terminal). The first that matches is the token, as with
        the whole pattern (an alternation takes its first alternative that
        matches), but without trying some ninety others at every position or
        compiling patterns the text never needs."""
        code = ord(char)
        entry = tuple(self._terminal(i) for i in (self.first[code] if code < 128 else range(len(self.terminals))))
        self.dispatch[char] = entry
        return entry

    def _terminal(self, index: int) -> tuple:
        """(text or None, match function or None, name, may hold a newline?, ignored?, keywords or None)"""
        terminal = self._compiled.get(index)
        if terminal is None:
            name, regexp, literal = self.terminals[index]
            match = re.compile(regexp, self.flags).match if literal is None else None
            terminal = self._compiled[index] = (literal, match, name, name in self.newline_types,
                                                name in self.ignore_types, self.keywords.get(name))
        return terminal


@lru_cache(maxsize=1)
def _grammar() -> _Grammar:
    return _Grammar(_load_tables())


# Nodes that make up expressions; statements do not count towards their depth
# (blocks have their own limit, MAX_BLOCK_DEPTH).
_EXPRESSION_NODES = (ast.Name, ast.Constant, ast.Attribute, ast.Keyword, ast.Call, ast.Slice, ast.Subscript,
                     ast.Tuple, ast.List, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)


def _check_depth(module: ast.Module, diags: Diagnostics) -> bool:
    """Deeply nested expressions would exhaust the later, recursive passes:
    stop them here. Returns False when one is too deep.

    Iterative, so deep input cannot crash it. `a + b + ... ` with 200 terms is
    200 levels (left-nested BinOps), so the limit also bounds such chains.
    """
    stack = [(module, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, _EXPRESSION_NODES):
            depth += 1
            if depth > MAX_EXPR_DEPTH:
                diags.error("E0108", f"expression nested more than {MAX_EXPR_DEPTH} levels deep", node.span,
                            help="name intermediate values with `T.let`")
                return False
        for child in ast.iter_children(node):
            stack.append((child, depth))
    return True


def parse(source: SourceFile, diags: Diagnostics) -> ast.Module | None:
    """Parse a whole file; every syntax problem goes to diags. None when there were any."""
    # The parse allocates millions of small objects and creates no reference
    # cycles; left on, the cyclic collector rescans them all again and again
    # and makes a 1 MB file take three times as long.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse(source, diags)
    finally:
        if collecting:
            gc.enable()


def _parse(source: SourceFile, diags: Diagnostics) -> ast.Module | None:
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    driver = _Driver(_grammar(), source, text, diags)
    module = driver.run()
    if module is None:
        return None
    for problem in driver.builder.collected():
        driver.report(problem)
    if driver.errors:
        return None
    if driver.longest_line > MAX_EXPR_DEPTH and not _check_depth(module, diags):
        return None
    return module


def write_tables() -> str:
    """Regenerate tables.py from tirx.lark; returns its path."""
    import os

    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), TABLES_MODULE)
    with open(target, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(tables_text(build_tables(data_text("grammar", "tirx.lark"))))
    return target


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-tables"]:
        sys.exit("usage: python -m transpiler.syntax.parse --write-tables")
    print(write_tables())
