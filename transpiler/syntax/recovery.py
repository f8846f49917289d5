"""Statement-level error recovery and the wording of syntax errors: the half
of the LALR parser (lalr.py) that deals with a token the LALR automaton
rejects."""
from __future__ import annotations

from transpiler.syntax.tokens import (BOUNDARY, CLOSER_OF, NUMBERS, Reject, SyntaxProblem, Token, span_after,
                                      synthetic, token_span)

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
_ENDS_EXPR = NUMBERS | {"NAME", "STRING", "LONG_STRING", "RPAR", "RSQB", "RBRACE"}
_STARTS_EXPR = NUMBERS | {"NAME", "STRING", "LONG_STRING", "LPAR", "LSQB", "LBRACE", "NOT", "LAMBDA",
                           "MINUS", "PLUS", "TILDE", "AWAIT"}
# Python's soft keywords: ordinary names to the grammar, but a line that starts
# with one and then fails to parse is almost certainly that statement.
_SOFT_KEYWORD_STATEMENTS = {"match": "`match` statement", "case": "`match` statement",
                            "type": "`type` alias statement"}


def _describe(tok: Token) -> str:
    """A token as messages name it: `unexpected name `x``, `unexpected end of line`."""
    kind = tok.type
    if kind == "NAME":
        return f"name `{tok.value}`"
    if kind in NUMBERS:
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


class Recovery:
    """LalrParser's error handling, kept apart from its token-by-token hot path.

    A mixin of LalrParser: it works on the driver's state (`stream`, `indentation`,
    `lexer`, the stacks) through the methods LalrParser defines (`_feed`,
    `_accepts`, `_expected`, `_snapshot`, `_rollback`, `_restore`, `report`)
    and the recent tokens it keeps (`prev`, `prev2`, `line_first`,
    `line_kinds`, `last_line_first`).
    """

    # -- recovery ------------------------------------------------------------------
    def _finish(self):
        """The end of the input: report a fatal layout problem or a bracket left
        open, close the open blocks and accept. Returns the module, or None
        when what was read cannot be completed into one."""
        if self.stream.fatal is not None:
            self.report(self.stream.fatal)
            self.statement_broken = True
            self._restore()
        elif self.indentation.brackets and not self.statement_broken:
            self.report(self._never_closed(self.indentation.brackets[-1]))
            self.statement_broken = True
            self._restore()
        end = synthetic("$END", "", self.prev) if self.prev is not None else Token("$END", "", 0, 1, 1)
        restored = False
        while True:
            if self._accepts("$END"):
                try:
                    return self._feed(end)
                except Reject:  # a spurious LALR lookahead; give up on the module
                    return None
            if self._accepts("_DEDENT"):
                self._feed(synthetic("_DEDENT", "", end))
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
                self._feed(synthetic("PASS", "pass", like))
                self._feed(synthetic("_NEWLINE", "\n", like))
            except Reject:
                pass
        self.statement_broken = False

    def _recover(self, tok: Token) -> None:
        missing_block = "_INDENT" in self._expected()
        problem = None if self.statement_broken else self._problem(tok)
        if problem is not None and problem.code == "E0107" and self._insert_colon(tok):
            self.report(problem)
            return
        opener = self.indentation.brackets[-1] if self.indentation.brackets else None
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
            if self.stream.peek() is None and any(b is opener for b in self.indentation.brackets):
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
            self._feed(synthetic("COLON", ":", newline))
            self._feed(newline)
            return True
        except Reject:
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
        return SyntaxProblem("E0103", f"'{opener.value}' was never closed", token_span(self.file, opener),
                             f"add the matching '{CLOSER_OF[opener.value][1]}'")

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
            span = span_after(file, self.prev)
        else:
            span = token_span(file, tok)
        prev = self.prev if self.prev is not None and self.prev.type not in BOUNDARY else None
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
                                 "kernel file", token_span(file, first),
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
                and not self.indentation.brackets:
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
            if self.indentation.brackets and "COMMA" in expected:
                help = "is a ',' missing before it?"
            else:
                help = "two expressions in a row: is an operator missing?"
        return SyntaxProblem("E0100", f"unexpected {_describe(tok)}", span, help)
