"""The reductions of a remembered parser step (Grammar.line_step), run as one function.

A step that a file takes again and again (the same kind of token after the same kinds of
tokens on a line: the statements of a long unrolled body) runs its reductions from the
parser's stacks, one reducer call each, every reducer slicing the stacks, popping them and
pushing its value. `Replay` counts the runs of its step, and from the COMPILE_AFTER-th on
runs the reductions as one generated function instead: the values the step makes and uses
again stay in local variables, and the stacks are cut and extended once, at its end. The
generated function makes the same nodes, with the same arguments, in the same order, and
leaves the same stacks, as the reducers would; the few steps a file takes seldom are never
compiled (compiling one costs as much as running it a few hundred times).

Each reducer carries a `spec` (grammar.py, rule_builder) saying what it does: `("child",
offset, size)`: a `?rule` left with its one child; `("spanned", size, method, shape)`: a
rule whose first and last symbols have positions, its children shaped by `shape` (see
_kept) and handed to its Builder method; `("build", build, size)`: any other rule, through
its build function.
"""
from __future__ import annotations

from transpiler.syntax.source import new_span

COMPILE_AFTER = 24  # runs of a step before its reductions are compiled


class Replay:
    """The reductions of one remembered step: `run(builder, values, where)` does them."""

    __slots__ = ("reducers", "runs", "run")

    def __init__(self, reducers: tuple):
        self.reducers = reducers
        self.runs = 0
        self.run = self._counted

    def _counted(self, builder, values, where) -> None:
        for reduce in self.reducers:
            reduce(builder, values, where)
        self.runs += 1
        if self.runs >= COMPILE_AFTER:
            self.run = compiled(self.reducers)


def compiled(reducers: tuple):
    """One function doing what the reducers do one after another, on a simulated stack: its
    entries are the stacks' own (`values[-3]`) until a reduction replaces them by locals."""
    env: dict = {}
    lines: list[str] = []
    top: list[tuple[str, str]] = []  # the entries this function made, as (value, position) expressions
    popped = 0  # entries of the real stacks the reductions took

    def entry(offset: int) -> tuple[str, str]:
        """The stack entry at `offset` (-1: the top)."""
        if -offset <= len(top):
            return top[offset]
        index = offset + len(top) - popped
        return f"values[{index}]", f"where[{index}]"

    def take(size: int) -> None:
        nonlocal popped
        mine = min(size, len(top))
        del top[len(top) - mine:]
        popped += size - mine

    for number, reduce in enumerate(reducers):
        spec = reduce.spec
        if spec[0] == "child":
            _, offset, size = spec
            child = entry(offset)
            take(size)
            top.append(child)
            continue
        value, span = f"v{number}", f"s{number}"
        if spec[0] == "build":
            _, build, size = spec
            env[f"build{number}"] = build
            if size:
                children = [entry(offset) for offset in range(-size, 0)]
                lines.append(f"{value}, {span} = build{number}(builder, [{', '.join(v for v, _ in children)}], "
                             f"[{', '.join(w for _, w in children)}])")
            else:
                lines.append(f"{value}, {span} = build{number}(builder, [], ())")
        else:
            _, size, method, shape = spec
            first, last = entry(-size)[1], entry(-1)[1]
            lines.append(f"{span} = new_span((file, {first}.line, {first}.col, {last}.end_line, {last}.end_col))")
            kept = _kept(shape, size, entry, number, env, lines)
            if method is None:
                lines.append(f"{value} = {kept}")
            else:
                env[f"method{number}"] = method
                lines.append(f"{value} = method{number}(builder, {span}, {kept})")
        take(size)
        top.append((value, span))
    if popped:
        lines.append(f"values[-{popped}:] = ({''.join(v + ', ' for v, _ in top)})")
        lines.append(f"where[-{popped}:] = ({''.join(w + ', ' for _, w in top)})")
    elif top:
        lines.append(f"values.extend(({''.join(v + ', ' for v, _ in top)}))")
        lines.append(f"where.extend(({''.join(w + ', ' for _, w in top)}))")
    env["new_span"] = new_span
    source = "def replay(builder, values, where):\n    file = builder.file\n" + \
        "".join(f"    {line}\n" for line in lines)
    exec(compile(source, "<replayed reductions>", "exec"), env)
    return env["replay"]


def _kept(shape, size: int, entry, number: int, env: dict, lines: list[str]) -> str:
    """The expression of the children a rule keeps (grammar._shape_on_stack's forms: None
    keeps every symbol; ("pick", offsets); ("extend", grown, item): left recursion, the list
    of the symbol at `grown` extended in place by the one at `item`; ("shape", include,
    trailing): grammar's _shape, written out)."""
    if shape is None:
        return "[" + ", ".join(entry(offset)[0] for offset in range(-size, 0)) + "]"
    form = shape.spec
    if form[0] == "pick":
        return "[" + ", ".join(entry(offset)[0] for offset in form[1]) + "]"
    kept = f"kept{number}"
    if form[0] == "extend":
        grown, item = form[1], form[2]
        lines.append(f"{kept} = {entry(grown)[0]}")
        lines.append(f"{kept}.append({entry(item)[0]})")
        return kept
    _, include, trailing = form
    # As _shape runs: `state` is what is known of its list here: "none" before it has one,
    # "items" once it holds something, "maybe" when it may be a spliced child's list, empty.
    state = "none"
    for index, splice, add in list(include) + [(None, False, trailing)]:
        if add:
            lines.append(f"{kept} = [None] * {add}" if state == "none" else f"{kept} += [None] * {add}")
            state = "items"
        if index is None:
            break
        child = entry(index - size)[0]
        if not splice:
            lines.append(f"{kept} = [{child}]" if state == "none" else f"{kept}.append({child})")
            state = "items"
        elif state == "none":
            lines.append(f"{kept} = {child}")  # left recursion: the child's own list, extended in place
            state = "maybe"
        elif state == "items":
            lines.append(f"{kept} += {child}")
        else:
            lines.append(f"if {kept}:\n        {kept} += {child}\n    else:\n        {kept} = {child}")
    if state == "none":
        lines.append(f"{kept} = []")
    return kept
