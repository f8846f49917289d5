"""The LALR(1) parser: runs the LALR(1) tables of the compiled grammar over the
laid-out tokens, calling the AST builder at each reduction; its error
recovery is in recovery.py."""
from __future__ import annotations

from transpiler.diag.diagnostics import Diagnostics, Note
from transpiler.syntax.builder import Builder
from transpiler.syntax.grammar import LINE_STACK_DEPTH, Grammar
from transpiler.syntax.indentation import Indentation, TokenStream
from transpiler.syntax.lexer import Lexer
from transpiler.syntax.limits import MAX_SYNTAX_ERRORS
from transpiler.syntax.recovery import Recovery
from transpiler.syntax.source import SourceFile
from transpiler.syntax.tokens import BOUNDARY, CLOSE, OPEN, Reject, SyntaxProblem, Token


class LalrParser(Recovery):
    """Feeds tokens to the LALR automaton and recovers from errors (the
    recovery and the wording of errors are its Recovery part).

    At each statement start it saves the parser's stacks (cheap: they are
    short there). On an error it reports one diagnostic, skips the rest of the
    statement (up to its newline, and the indented block after it when the
    broken line was a block header), restores the saved stacks and goes on.
    Errors found while a statement is already broken are not reported: they
    are nearly always consequences of the first.
    """

    def __init__(self, grammar: Grammar, source: SourceFile, text: str, diags: Diagnostics):
        self.source = source
        self.file = source.name
        self.text = text
        self.diags = diags
        self.errors = 0
        self.lexer = Lexer(grammar, text, source.name)
        self.indentation = Indentation(text, source.name, self._report_in_statement, self.lexer.problems)
        self.stream = TokenStream(self.lexer.tokens(self.indentation))
        self.grammar = grammar
        self.actions = grammar.actions
        self.reductions = grammar.reductions
        self.end_state = grammar.end_state
        self.builder = Builder(source.name)
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
        # node per token of its line, so the depth check of parse.py need not
        # run when this is within MAX_EXPR_DEPTH.
        self.line_start = 0
        self.longest_line = 0
        self.boundary_stack: tuple[int, ...] = ()
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
        # place (see rule_builder), so their lengths are part of the state;
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

        def feed(tok: Token, log: list | None = None):
            """One token through the LALR automaton: reduce as the table says, then
            shift (or, for $END, accept and return the module). Raises Reject when
            the token cannot come next; the stacks may then hold reductions made
            for it, which is why errors always restore a saved state. `log`, when
            given, receives the reducer (build.reduce) of each reduction that builds."""
            kind = tok.type
            row = actions[states[-1]]
            while True:
                action = row.get(kind)
                if action is None:
                    raise Reject
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
                if log is not None:
                    log.append(build.reduce)
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
            if kind in BOUNDARY:
                self._boundary(tok)
            else:
                remember(tok)
            return None

        return feed

    def _boundary(self, tok: Token) -> tuple[int, ...]:
        """A newline, indent or dedent was accepted: a new logical line starts,
        and maybe a statement. Returns the state stack there."""
        recent = self.recent
        if len(recent) > 2:
            self.last_line_first = recent[2]
        recent[:] = (recent[-1], tok)
        start = tok.start_pos or 0
        if start - self.line_start > self.longest_line:
            self.longest_line = start - self.line_start
        self.line_start = tok.end_pos if tok.end_pos is not None else start
        # Only where a statement may start: not between a decorator and its `def`.
        key = self.boundary_stack = tuple(self.state_stack)
        starts = self.grammar.statement_starts.get(key)
        if starts is None:
            starts = self.grammar.statement_starts[key] = self._accepts("PASS")
        if starts:
            self._save()
        return key

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
            if tok.type in OPEN:
                depth += 1
            elif tok.type in CLOSE:
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
        """Every token through the automaton, then the end of the input.

        The automaton's moves for a token depend only on the state stack and
        the token kinds before it, so they are remembered per logical line
        (`Grammar.line_steps`: from the state stack at the line's start, one
        step a token kind, each with the reductions that build something and
        the stack after it). A line that retraces a remembered one replays
        those reductions, which make the same nodes in the same order, without
        looking anything up in the tables; the first token off the
        remembered path goes through the tables (`feed`) and extends it.
        """
        stream = self.stream
        back = stream.back
        feed = self._feed
        states, values, where = self.state_stack, self.value_stack, self.where_stack
        builder = self.builder
        remember = self.recent.append
        boundary = self._boundary
        grammar = self.grammar
        start_line = grammar.line_start
        # (next steps by kind, state stack, reductions): where this line stands; None: not followed
        step = start_line(tuple(states))
        replayed = False  # whether `states` lags behind step (replays leave it alone)
        while True:
            # stream.next() without the call, once a token: stop() empties `back` in place and
            # replaces `tokens`, which is why it is looked up every time.
            if back:
                tok = back.pop()
            else:
                try:
                    tok = next(stream.tokens, None)
                except SyntaxProblem as problem:
                    stream.fatal = problem
                    tok = None
            if tok is None:
                break
            kind = tok.type
            if step is not None:
                known = step[0].get(kind)
                if known is not None:
                    if known[2] is not None:
                        known[2].run(builder, values, where)
                    values.append(tok)
                    where.append(tok)
                    if kind in BOUNDARY:
                        states[:] = known[1]
                        step = start_line(boundary(tok))
                        replayed = False
                    else:
                        remember(tok)
                        step = known
                        replayed = True
                    continue
                if replayed:
                    states[:] = step[1]
                    replayed = False
                made: list = []
                try:
                    feed(tok, made)
                except Reject:
                    step = None
                    self._recover(tok)
                    continue
                if kind in BOUNDARY:
                    grammar.line_step(step, kind, self.boundary_stack, made)
                    step = start_line(self.boundary_stack)
                elif grammar.line_steps_left > 0 and len(states) <= LINE_STACK_DEPTH:
                    step = grammar.line_step(step, kind, tuple(states), made)
                else:
                    step = None
                continue
            try:
                feed(tok)
            except Reject:
                self._recover(tok)
                continue
            if kind in BOUNDARY:
                step = start_line(self.boundary_stack)
        if step is not None and replayed:
            states[:] = step[1]
        return self._finish()
