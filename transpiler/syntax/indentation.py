"""The layout the lexer gives tokens on their way to the parser (Lexer.tokens):
INDENT and DEDENT from the indentation of lines, newlines inside brackets
dropped, brackets matched, nesting limits enforced; and the stream the parser
pulls the laid-out tokens from."""
from __future__ import annotations

from collections.abc import Iterator

from transpiler.syntax.limits import MAX_BLOCK_DEPTH, MAX_BRACKET_DEPTH, TAB_WIDTH
from transpiler.syntax.source import Span
from transpiler.syntax.tokens import CLOSE, CLOSER_OF, OPEN, SyntaxProblem, Token, synthetic, token_span


class Indentation:
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
        self.indent = ""  # the indentation of the last line, which made levels[-1]
        self.brackets: list[Token] = []

    # The lexer (Lexer.tokens) hands over the first token and the newlines and brackets, the
    # only tokens this pass does more than pass on.
    def first(self, tok: Token) -> Iterator[Token]:
        """The first line is indented: as if a newline came before it."""
        start = tok.start_pos - (tok.col - 1)
        return self._indentation(self.text[start:tok.start_pos], tok)

    def newline(self, tok: Token) -> Iterator[Token]:
        """The INDENT or DEDENTs after a newline outside brackets whose line is indented
        otherwise than the line before it (`indent` differs: the lexer passes the rest on)."""
        following = self._following(tok)
        if following is not None:
            yield from self._indentation(tok.value.rsplit("\n", 1)[1], following)

    def too_deep(self, tok: Token) -> SyntaxProblem:
        return SyntaxProblem("E0108", f"brackets nested more than {MAX_BRACKET_DEPTH} deep",
                             token_span(self.file, tok))

    def close(self, tok: Token) -> Token:
        """The token to pass on for a closing bracket that closes no bracket or another kind
        (the lexer pops a matching one itself)."""
        kind = tok.type
        brackets = self.brackets
        if not brackets:
            self.problems[tok.start_pos] = SyntaxProblem(
                "E0104", f"unmatched '{tok.value}'", token_span(self.file, tok),
                "remove it, or add the opening bracket it belongs to")
            return synthetic("ERROR", tok.value, tok)
        opener = brackets.pop()
        if OPEN[opener.type] != CLOSE[kind]:
            want_type, want = CLOSER_OF[opener.value]
            self.report(SyntaxProblem(
                "E0104", f"closing '{tok.value}' does not match '{opener.value}'",
                token_span(self.file, tok), f"write '{want}' here",
                notes=[(f"'{opener.value}' opened here", token_span(self.file, opener))]))
            tok = synthetic(want_type, want, tok)  # read as the right closer and carry on
        return tok

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
            self.indent = indent
            return
        if col > top:
            if alt <= top_alt:
                raise self._tab_error(where)
            self.levels.append((col, alt))
            if len(self.levels) - 1 > MAX_BLOCK_DEPTH:  # levels[0] is the module level
                raise SyntaxProblem("E0108", f"blocks nested more than {MAX_BLOCK_DEPTH} deep", where)
            self.indent = indent
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
        self.indent = indent

    @staticmethod
    def _tab_error(where: Span) -> SyntaxProblem:
        return SyntaxProblem("E0105", "inconsistent use of tabs and spaces in indentation", where,
                             "indent with spaces only (or tabs only) throughout the file")


class TokenStream:
    """Pull tokens one at a time with one token of push-back; a fatal layout
    problem ends the stream and is kept in `fatal`."""

    def __init__(self, tokens: Iterator[Token]):
        self.tokens = tokens
        self.back: list[Token] = []
        self.fatal: SyntaxProblem | None = None
        self.stopped = False

    def next(self) -> Token | None:
        # LalrParser.run inlines this for the tokens of its main loop.
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
