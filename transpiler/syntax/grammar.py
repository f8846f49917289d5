"""The compiled grammar as the parser uses it: the tables of tables.py
(rebuilt with Lark by tables_gen.py when they are stale or missing) as
lexer terminals, LALR actions, and a reduction callback per rule that shapes
the rule's children and hands them to the AST builder."""
from __future__ import annotations

import re
from functools import lru_cache

from transpiler import data_text
from transpiler.syntax.builder import Builder
from transpiler.syntax.replay import Replay
from transpiler.syntax.source import Span, new_span
from transpiler.syntax.tables_gen import TABLES_FORMAT, build_tables
from transpiler.syntax.tokens import token_role

# Bounds of the parser's memory of lines (Grammar.line_step): how many steps in
# all, and how deep a state stack may be to be remembered.
LINE_STEPS = 20_000
LINE_STACK_DEPTH = 64


# ---- rules ---------------------------------------------------------------------------

class Symbol:
    """A symbol of a rule: a rule name, or a terminal (filtered out of the
    children when it is anonymous punctuation)."""

    __slots__ = ("name", "is_term", "filter_out")

    def __init__(self, name: str, kind: int):
        self.name, self.is_term, self.filter_out = name, kind != 0, kind == 2

    def __repr__(self):
        return self.name


class RuleOptions:
    """The `?rule` and `!rule` marks of a rule, and where its missing
    `[optional]` parts stand (a None child each)."""

    __slots__ = ("expand1", "keep_all_tokens", "empty_indices")

    def __init__(self, expand1: bool, keep_all_tokens: bool, empty_indices: tuple):
        self.expand1, self.keep_all_tokens, self.empty_indices = expand1, keep_all_tokens, empty_indices


class Rule:
    """A grammar rule, with the attributes of Lark's Rule that rule_builder reads."""

    __slots__ = ("origin", "expansion", "alias", "options")

    def __init__(self, origin: str, alias: str | None, expansion, expand1: bool, keep_all: bool, empty):
        self.origin = Symbol(origin, 0)
        self.alias = alias
        self.expansion = [Symbol(name, kind) for name, kind in expansion]
        self.options = RuleOptions(expand1, keep_all, tuple(empty))

    def __repr__(self):
        return f"<{self.origin.name} : {' '.join(s.name for s in self.expansion)}>"


def rule_builder(rule: Rule, nullable: frozenset[str]):
    """The reduction callback of one grammar rule: `build(builder, values,
    where)` takes the values and positions (a Token or Span, None for a rule
    that matched no token) of the rule's symbols and returns the rule's value
    and position.

    It shapes the children as Lark's tree builder does (anonymous tokens
    dropped unless the rule is `!`, `_rule` children spliced in, `None` for a
    missing `[optional]`, `?rule` with one child replaced by the child) and
    hands them straight to the Builder method of the rule, so that no parse
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

        pass_through.reduce = _stack_reducer(pass_through, len(expansion)) if only is None else \
            _pass_through_reducer(only - len(expansion), len(expansion))
        return pass_through
    method = getattr(Builder, name) if not name.startswith("_") else None  # an inlined rule's value is its list

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
                    # LalrParser._rollback undoes such appends.
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
            span = new_span((builder.file, first.line, first.col, last.end_line, last.end_col))
            kept = values if plain else _shape(values)
            return (method(builder, span, kept) if method else kept), span

        build_spanned.reduce = _spanned_reducer(len(expansion), method, None if plain else
                                                _shape_on_stack(include, trailing, len(expansion), _shape))
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
        span = new_span((builder.file, first.line, first.col, last.end_line, last.end_col))
        kept = values if plain else _shape(values)
        return (method(builder, span, kept) if method else kept), span

    build.reduce = _stack_reducer(build, len(expansion))
    return build


# Reducers: a reduction done on the parser's stacks in one call,
# `reduce(builder, values, where)`: the rule's symbols, the last `size`
# entries, are replaced by its value and position, as LalrParser's feed does
# with `build`; the replay of remembered lines (LalrParser.run) calls these.

def _stack_reducer(build, size: int):
    """build's reduction on the stacks, for the rare rules without a faster form."""
    if not size:
        def reduce_empty(builder, values, where):
            value, span = build(builder, [], ())
            values.append(value)
            where.append(span)

        return reduce_empty

    def reduce(builder, values, where):
        value, span = build(builder, values[-size:], where[-size:])
        del values[-size:]
        del where[-size:]
        values.append(value)
        where.append(span)

    return reduce


def _pass_through_reducer(offset: int, size: int):
    """A `?rule` left with one child (at `offset` from the stack's top): the child stays."""
    def reduce_to_child(builder, values, where):
        value = values[offset]
        span = where[offset]
        del values[-size:]
        del where[-size:]
        values.append(value)
        where.append(span)

    reduce_to_child.spec = ("child", offset, size)
    return reduce_to_child


def _shape_on_stack(include: list, trailing: int, size: int, shape):
    """The children a rule keeps, read straight off the value stack (its
    symbols are the last `size` entries): the two common forms without
    slicing, any other through `shape` on the slice."""
    if not trailing and not any(add for _, _, add in include):
        offsets = [index - size for index, _, _ in include]
        if not any(splice for _, splice, _ in include):
            if len(offsets) == 1:
                only = offsets[0]
                pick = lambda values: [values[only]]  # noqa: E731
                pick.spec = ("pick", offsets)
                return pick
            if len(offsets) == 2:
                one, two = offsets
                pick = lambda values: [values[one], values[two]]  # noqa: E731
                pick.spec = ("pick", offsets)
                return pick
        elif len(offsets) == 2 and include[0][1] and not include[1][1]:
            # Left recursion (`stmt*`): extend the child's list in place, as _shape does.
            grown, item = offsets

            def extend(values):
                kept = values[grown]
                kept.append(values[item])
                return kept

            extend.spec = ("extend", grown, item)
            return extend
    sliced = lambda values: shape(values[-size:])  # noqa: E731
    sliced.spec = ("shape", tuple(include), trailing)
    return sliced


def _spanned_reducer(size: int, method, shape_on_stack):
    """build_spanned's reduction on the stacks (see rule_builder)."""
    if size == 1:
        # Half of all reductions: the value and position replace the symbol's in place.
        def reduce_one(builder, values, where):
            only = where[-1]
            span = where[-1] = new_span((builder.file, only.line, only.col, only.end_line, only.end_col))
            kept = values[-1:] if shape_on_stack is None else shape_on_stack(values)
            values[-1] = kept if method is None else method(builder, span, kept)

        reduce_one.spec = ("spanned", 1, method, shape_on_stack)
        return reduce_one

    def reduce_spanned(builder, values, where):
        first = where[-size]
        last = where[-1]
        span = new_span((builder.file, first.line, first.col, last.end_line, last.end_col))
        kept = values[-size:] if shape_on_stack is None else shape_on_stack(values)
        if method is not None:
            kept = method(builder, span, kept)
        del values[-size:]
        del where[-size:]
        values.append(kept)
        where.append(span)

    reduce_spanned.spec = ("spanned", size, method, shape_on_stack)
    return reduce_spanned


# ---- the grammar ------------------------------------------------------------------------

class Grammar:
    """The compiled grammar, ready for Lexer and LalrParser.

    `actions[state][symbol]` is the next state (an int >= 0) for a shift or
    goto, or a reduction `~rule` (< 0) whose `reductions[rule]` is `(size,
    build, rule name)`, or None until reduction(rule) has made it; build is
    None for a unit step up the precedence ladder (atom -> ... -> test),
    which makes nothing. A run of such steps depends only on the state below
    them, the state they start from and the lookahead, so LalrParser remembers
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
        # as characters are met; see candidates), for text with characters
        # beyond ASCII and for ASCII text, whose names need no normalising.
        self.dispatch: dict[str, tuple] = {}
        self.ascii_dispatch: dict[str, tuple] = {}
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
        self.line_steps: dict[tuple[int, ...], tuple] = {}
        self.line_steps_left = LINE_STEPS

    def line_start(self, stack: tuple[int, ...]) -> tuple | None:
        """The remembered moves of the lines that start from this state stack
        (see line_step); None when the stack is too deep to remember or the
        memory is full."""
        start = self.line_steps.get(stack)
        if start is None and len(stack) <= LINE_STACK_DEPTH and self.line_steps_left > 0:
            self.line_steps_left -= 1  # a start counts as a step
            start = self.line_steps[stack] = ({}, stack, None)
        return start

    def line_step(self, step: tuple, kind: str, stack: tuple[int, ...], made: list) -> tuple | None:
        """Remember that a token of this kind after `step` ran the reductions
        `made` (the reducer of each, see rule_builder) and left `stack`. A step is (the steps
        after it by kind, the state stack after it, its reductions as a Replay, None when
        there are none); the
        automaton's moves depend on nothing else, so LalrParser.run replays
        them for the next line that comes the same way. None once the memory
        is full (its size is bounded: a step holds a whole state stack)."""
        if self.line_steps_left <= 0 or len(stack) > LINE_STACK_DEPTH:
            return None
        self.line_steps_left -= 1
        known = step[0][kind] = ({}, stack, Replay(tuple(made)) if made else None)
        return known

    @property
    def rules(self) -> list[Rule]:
        """Every rule of the grammar, in the order of the tables."""
        return [Rule(*r) for r in self._rules]

    def reduction(self, index: int) -> tuple:
        """reductions[index], made on first use (a file needs a fraction of them)."""
        rule = Rule(*self._rules[index])
        first = rule.expansion[0] if len(rule.expansion) == 1 else None
        unit = first is not None and rule.options.expand1 and not rule.alias \
            and not rule.options.empty_indices \
            and not (first.is_term and first.filter_out) \
            and not (not first.is_term and first.name.startswith("_"))
        made = self.reductions[index] = (len(rule.expansion), None if unit else rule_builder(rule, self.nullable),
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

    def candidates(self, char: str, ascii_text: bool = False) -> tuple:
        """The terminals that can start with char, in the lexer's priority
        order (see _terminal). The first that matches is the token, as with
        the whole pattern (an alternation takes its first alternative that
        matches), but without trying some ninety others at every position or
        compiling patterns the text never needs."""
        code = ord(char)
        entry = tuple(self._terminal(i) for i in (self.first[code] if code < 128 else range(len(self.terminals))))
        if ascii_text:
            entry = tuple(t[:6] + (None,) if t[6] == "name" else t for t in entry)
            self.ascii_dispatch[char] = entry
        else:
            self.dispatch[char] = entry
        return entry

    def _terminal(self, index: int) -> tuple:
        """(text or None, match function or None, name, may hold a newline?, ignored?, keywords or None,
        role: what the lexer does with the token beyond passing it on, None for most; see token_role)"""
        terminal = self._compiled.get(index)
        if terminal is None:
            name, regexp, literal = self.terminals[index]
            match = re.compile(regexp, self.flags).match if literal is None else None
            terminal = self._compiled[index] = (literal, match, name, name in self.newline_types,
                                                name in self.ignore_types, self.keywords.get(name),
                                                token_role(name))
        return terminal


# ---- loading ----------------------------------------------------------------------------

def shipped_tables() -> dict | None:
    """The tables of tables.py, or None when that module is missing."""
    try:
        from transpiler.syntax.tables import TABLES
    except ImportError:
        return None
    return TABLES


def load_tables() -> dict:
    """The shipped tables when they were made from the grammar as it is now;
    otherwise tables built from it with Lark."""
    text = data_text("grammar", "tirx.lark")
    tables = shipped_tables()
    if tables is None or tables.get("format") != TABLES_FORMAT or tables.get("grammar") != text:
        tables = build_tables(text)  # stale or missing: slow, but right
    return tables


@lru_cache(maxsize=1)
def compiled_grammar() -> Grammar:
    """The grammar of the process, loaded by its first parse."""
    return Grammar(load_tables())
