"""Text to tokens: the basic lexer of grammar/tirx.lark, run by hand so that
a bad character or a malformed number becomes an ERROR token that carries its
diagnostic, and lexing goes on after it."""
from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from transpiler.syntax.grammar import Grammar
from transpiler.syntax.source import Span
from transpiler.syntax.limits import MAX_BRACKET_DEPTH
from transpiler.syntax.tokens import CLOSER_KIND, NUMBERS, SyntaxProblem, Token, strip_prefix

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


class Lexer:
    """The basic lexer of the grammar (Lark's `lexer="basic"`: one regular
    expression of all terminals in priority order, keywords recognised as
    names and then retyped, ignored terminals skipped), run by hand so that a
    bad character does not end the token stream: it becomes an ERROR token
    that carries its diagnostic, and lexing resumes after it."""

    def __init__(self, grammar: Grammar, text: str, file: str):
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

    def tokens(self, layout=None) -> Iterator[Token]:
        """Every token of the text, in order, laid out by `layout` when given (an Indentation:
        INDENT and DEDENT, newlines inside brackets dropped, brackets matched). A number glued to
        a name or another number is one ERROR token, and so is the rest of the text after a
        triple quote that is never closed. One loop from characters to laid-out tokens: a token
        passes through no other generator on its way to the parser."""
        return self._scan(True, layout)

    def raw_tokens(self) -> Iterator[Token]:
        """The tokens as Lark's basic lexer reads them, bad characters as ERROR tokens."""
        return self._scan(False, None)

    def _scan(self, cook: bool, layout) -> Iterator[Token]:
        """raw_tokens, and with `cook` what tokens() does beyond it, on the tokens whose terminal
        has a role (tokens.token_role): the common token costs one test more than a raw one."""
        text = self.text
        end = len(text)
        grammar = self.grammar
        ascii_text = text.isascii()  # then no name needs normalising, and names take the common path
        dispatch = grammar.ascii_dispatch if ascii_text else grammar.dispatch
        pos, line, line_start = self.pos, self.line, self.line_start
        new_token = str.__new__
        held = None  # a number, until the next token shows whether something is glued to it
        last = None  # the last token glued to it
        first = layout is not None  # the first token may stand indented
        brackets = None if layout is None else layout.brackets  # open ones, innermost last
        closer_of = CLOSER_KIND
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
            for literal, match, kind, newline, ignored, keywords, role in dispatch.get(char) or \
                    grammar.candidates(char, ascii_text):
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
                tok = self._bad_character(pos, line, pos - line_start + 1)
                pos, line, line_start = self.pos, self.line, self.line_start
                kind, role = "ERROR", None
                if not cook:
                    yield tok
                    continue
                value = None
            if value is not None:
                start = pos
                pos += len(value)
                if not ignored:
                    tok = new_token(Token, value)  # Token(...) without the call
                    tok.type = kind = kind if keywords is None else keywords.get(value, kind)
                    tok.start_pos = start
                    tok.value = value
                    tok.line = line
                    tok.col = start - line_start + 1
                if newline and "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                if ignored:
                    continue
                tok.end_line = line
                tok.end_col = pos - line_start + 1
                tok.end_pos = pos
                if not cook or (role is None and held is None and not first):
                    yield tok
                    continue
            # The rarer paths: a held number, the first token, a token with a role.
            if held is not None:
                if tok.start_pos == last.end_pos and (kind in NUMBERS or kind == "NAME"):
                    last = tok
                    continue
                yield self._join_number(held, last)
                held = None
            if first:
                first = False
                if kind != "_NEWLINE" and tok.col > 1:
                    yield from layout.first(tok)
            if role is None:
                yield tok
            elif role == "number":
                held = last = tok
            elif role == "name":
                if kind == "NAME" and not value.isascii():
                    # Python reads identifiers NFKC-normalised (`ﬁ` is `fi`); keywords are recognised
                    # before, as written. The token keeps the span of the text as written.
                    tok = Token("NAME", unicodedata.normalize("NFKC", tok), tok.start_pos, tok.line, tok.col,
                                tok.end_line, tok.end_col, tok.end_pos)
                yield tok
            elif role == "string":
                if value[-2:] in ('""', "''") and len(strip_prefix(value)[1]) == 2 \
                        and text.startswith(value[-1], pos):
                    # `"""abc` with no closing quotes lexes as an empty string and a stray quote.
                    yield self._unterminated_triple(tok)
                    return
                yield tok
            elif brackets is None:  # no layout
                yield tok
            elif role == "open":
                brackets.append(tok)
                if len(brackets) > MAX_BRACKET_DEPTH:
                    raise layout.too_deep(tok)
                yield tok
            elif role == "close":
                if brackets and closer_of[brackets[-1].type] == kind:
                    brackets.pop()
                    yield tok
                else:
                    yield layout.close(tok)
            elif not brackets:  # a newline, dropped inside brackets
                yield tok
                if value[value.rindex("\n") + 1:] != layout.indent:
                    yield from layout.newline(tok)
        self.pos, self.line, self.line_start = pos, line, line_start
        if held is not None:
            yield self._join_number(held, last)

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
