"""What the stages of the parser hand each other: tokens, the syntax
problems found on them, and the token kinds that more than one stage looks at.
"""
from __future__ import annotations

from transpiler.syntax.source import Span

# Brackets by the kind of their token, and the closer each opener wants.
OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
CLOSER_OF = {"(": ("RPAR", ")"), "[": ("RSQB", "]"), "{": ("RBRACE", "}")}
CLOSER_KIND = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
NUMBERS = {"DEC_NUMBER", "HEX_NUMBER", "BIN_NUMBER", "OCT_NUMBER", "FLOAT_NUMBER", "IMAG_NUMBER"}
# Tokens after which the parser may be at the start of a statement.
BOUNDARY = {"_NEWLINE", "_INDENT", "_DEDENT"}


def token_role(kind: str) -> str | None:
    """What the lexer does with a token of this terminal beyond passing it on (Lexer.tokens): a
    number waits for what follows it, a name may need normalising, a string may be an unclosed
    triple quote, and newlines and brackets go through the layout (indentation.py). None for the
    rest, most tokens."""
    if kind in NUMBERS:
        return "number"
    if kind in ("NAME", "STRING"):
        return kind.lower()
    if kind in OPEN:
        return "open"
    if kind in CLOSE:
        return "close"
    return "newline" if kind == "_NEWLINE" else None


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
    a record until LalrParser.report turns it into a diagnostic."""

    def __init__(self, code: str, message: str, span: Span, help: str | None = None, notes=()):
        super().__init__(message)
        self.code, self.message, self.span, self.help, self.notes = code, message, span, help, tuple(notes)


class Reject(Exception):
    """The parser cannot take the token it was given."""


def token_span(file: str, tok: Token) -> Span:
    """The span of a token (at least one column wide)."""
    end_line = tok.end_line if tok.end_line is not None else tok.line
    end_col = tok.end_col if tok.end_col is not None else tok.col + max(len(tok), 1)
    if end_line == tok.line:
        end_col = max(end_col, tok.col + 1)
    return Span(file, tok.line, tok.col, end_line, end_col)


def span_after(file: str, tok: Token) -> Span:
    """The one-column span just after a token: where something is missing."""
    line = tok.end_line if tok.end_line is not None else tok.line
    col = tok.end_col if tok.end_col is not None else tok.col + len(tok)
    return Span(file, line, col, line, col + 1)


def synthetic(kind: str, value: str, like: Token) -> Token:
    """A token the parser makes up (a repair, an end marker), placed where `like` is."""
    return Token.new_borrow_pos(kind, value, like)


def strip_prefix(text: str) -> tuple[str, str]:
    """A string literal's prefix (`r`, `b`, `f`, `u`; lowercased) and the rest, quotes and all."""
    index = 0
    while text[index] not in "'\"":
        index += 1
    return text[:index].lower(), text[index:]
