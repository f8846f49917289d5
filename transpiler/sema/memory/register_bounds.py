"""Register arrays indexed by run-time values: an index whose range provably leaves the array's
extent is an error (E0528), one whose range only may leave it a warning (W0507).

A register array is private to its thread and has no bounds check on the GPU: an index past its
end reads or writes another variable, or spills it to local memory. The range of an index is
worked out from what bounds it for sure: the loop variables of `for i in range(a, b)` with
constant bounds, the thread ids (`threadIdx` up to the block's extents), the `T.let`s over them,
and the enclosing tests that compare one of them with a constant (`if tx < 8:`, also the
`if tx >= 8: return` before the access). An index built of anything else (a parameter, a value
read from memory, a mutable variable) has no known range and is not checked.

The range is exact when both ends are taken by some thread in some iteration: a sum of monotone
functions (`+ c`, `* c`, `// c`, `% c` over a whole period) of distinct loop variables and thread
ids. Only an exact range that leaves the extent is an error; a range that is only an upper bound
(a product of two variables, a variable used twice, a loop with a step) is a warning."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir

_LEAVING = (ir.Return, ir.Break, ir.Continue, ir.Trap)


@dataclass(frozen=True)
class Values:
    """The values an index takes: within [low, high]; `exact` when both ends are taken, `dense`
    when every value between them is; `leaves` the loop variables and thread ids it depends on."""
    low: int
    high: int
    exact: bool
    leaves: frozenset
    dense: bool = True


def check_register_indices(st, body: ir.Stmt, block: list) -> None:
    """Report the register accesses of a kernel's body whose index leaves the array."""
    if not _indexes_registers(body):
        return
    walker = _Walker(st, block, any(isinstance(s, (ir.Return, ir.Trap)) for s in ir.all_stmts(body)))
    walker.stmt(body)


def _register_array(buf: ir.Buffer) -> bool:
    return buf.scope == "local" and not buf.scalar and all(isinstance(d, ir.IntImm) for d in buf.shape)


def _run_time_index(indices) -> bool:
    return not all(isinstance(i, ir.IntImm) for i in indices)


def _indexes_registers(body) -> bool:
    """Whether any access to a register array has a run-time index (most kernels have none)."""
    for s in ir.all_stmts(body):
        if isinstance(s, ir.BufferStore) and _register_array(s.buffer) and _run_time_index(s.indices):
            return True
        for e in _stmt_exprs(s):
            for x in ir.walk_expr(e):
                if isinstance(x, ir.BufferLoad) and _register_array(x.buffer) and _run_time_index(x.indices):
                    return True
    return False


def _stmt_exprs(s) -> tuple:
    cls = s.__class__
    if cls is ir.BufferStore:
        return tuple(s.indices) + (s.value,)
    if cls in (ir.LetStmt,):
        return (s.value,)
    if cls is ir.Evaluate:
        return (s.value,)
    if cls in (ir.If, ir.While):
        return (s.cond,)
    if cls is ir.For:
        return (s.start, s.stop, s.step)
    return ()


class _Walker:
    def __init__(self, st, block: list, leaves_early: bool):
        self.st = st
        self.lets: dict[str, ir.Expr] = {}
        self.ranges: dict[object, Values] = {}  # a loop variable's name or a threadIdx axis -> its values
        self.unknown: set = set()  # leaves an enclosing test narrows in a way not worked out
        self.leaves_early = leaves_early  # a `return` / trap somewhere: no end is sure to be taken
        self.reported: set = set()
        for axis, extent in zip("xyz", block or ()):
            if isinstance(extent, ir.IntImm):
                key = f"threadIdx.{axis}"
                self.ranges[key] = Values(0, extent.value - 1, True, frozenset((key,)))

    # -- statements ---------------------------------------------------------------------------------
    def stmt(self, s) -> None:
        cls = s.__class__
        if cls is ir.Seq:
            saved = None
            for item in s.body:
                self.stmt(item)
                if item.__class__ is ir.If and item.orelse is None and \
                        any(isinstance(x, _LEAVING) for x in ir.all_stmts(item.then)):
                    saved = saved or self._save()
                    self.guard(item.cond, False)  # the rest runs where the test failed
            if saved is not None:
                self._restore(saved)
            return
        if cls is ir.Block:
            self.stmt(s.body)
            return
        if cls is ir.LetStmt:
            self.exprs(s.value)
            self.lets[s.var.name] = s.value
            return
        if cls is ir.BufferStore:
            for e in s.indices + (s.value,):
                self.exprs(e)
            self.access(s.buffer, s.indices, s.span)
            return
        if cls is ir.Evaluate:
            self.exprs(s.value)
            return
        if cls is ir.If:
            self.exprs(s.cond)
            for branch, truth in ((s.then, True), (s.orelse, False)):
                if branch is not None:
                    saved = self._save()
                    self.guard(s.cond, truth)
                    self.stmt(branch)
                    self._restore(saved)
            return
        if cls is ir.For:
            self.loop(s)
            return
        if cls is ir.While:
            self.exprs(s.cond)
            self.stmt(s.body)
            return

    def loop(self, s: ir.For) -> None:
        for e in (s.start, s.stop, s.step):
            self.exprs(e)
        start, stop, step = (self.value(e) for e in (s.start, s.stop, s.step))
        saved = self._save()
        key = s.var.name
        if start and stop and step and step.low == step.high and step.low > 0 and start.high < stop.low:
            exact = start.exact and stop.exact and not start.leaves and not stop.leaves and step.low == 1 \
                and not any(isinstance(x, _LEAVING) for x in ir.all_stmts(s.body))
            self.ranges[key] = Values(start.low, stop.high - 1, exact, frozenset((key,)), step.low == 1)
        else:
            self.ranges.pop(key, None)
            self.unknown.add(key)
        self.stmt(s.body)
        self._restore(saved)

    def _save(self):
        return dict(self.ranges), set(self.unknown)

    def _restore(self, saved) -> None:
        self.ranges, self.unknown = dict(saved[0]), set(saved[1])

    # -- tests that narrow a leaf -----------------------------------------------------------------------
    def guard(self, cond: ir.Expr, truth: bool) -> None:
        if isinstance(cond, ir.BinOp) and cond.op in ("&&", "||") and (cond.op == "&&") == truth:
            self.guard(cond.a, truth)
            self.guard(cond.b, truth)
            return
        if isinstance(cond, ir.UnaryOp) and cond.op == "!":
            self.guard(cond.a, not truth)
            return
        if isinstance(cond, ir.BinOp) and cond.op in ("<", "<=", ">", ">=", "==", "!="):
            a, b, op = cond.a, cond.b, cond.op
            if isinstance(a, ir.IntImm):
                a, b, op = b, a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            key = self.leaf(a)
            if key is not None and isinstance(b, ir.IntImm):
                if not truth:
                    op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[op]
                self.narrow(key, op, b.value)
                return
        for e in ir.walk_expr(cond):  # a test not worked out: what it tests is no longer known
            key = self.leaf(e)
            if key is not None:
                self.unknown.add(key)

    def narrow(self, key, op: str, c: int) -> None:
        have = self.ranges.get(key)
        if have is None:
            return
        low, high = have.low, have.high
        if op == "<":
            high = min(high, c - 1)
        elif op == "<=":
            high = min(high, c)
        elif op == ">":
            low = max(low, c + 1)
        elif op == ">=":
            low = max(low, c)
        elif op == "==":
            low, high = max(low, c), min(high, c)
        elif c == low:  # `!=`: an end taken out; a value out of the middle changes nothing
            low += 1
        elif c == high:
            high -= 1
        self.ranges[key] = Values(low, high, have.exact and have.dense, have.leaves, have.dense)

    def leaf(self, e):
        """The loop variable or thread axis an expression is, through `T.let`s and casts."""
        while True:
            if isinstance(e, ir.Cast) and e.a.dtype.is_int:
                e = e.a
            elif isinstance(e, ir.Var) and e.name in self.lets:
                e = self.lets[e.name]
            else:
                break
        if isinstance(e, ir.Var):
            return e.name
        if isinstance(e, ir.Builtin) and e.name.startswith("threadIdx."):
            return e.name
        return None

    # -- ranges -------------------------------------------------------------------------------------
    def exprs(self, e) -> None:
        """Check the register loads inside e, except the arms of a `?:` and the right side of
        `&&` / `||`, which may run only when a test keeps them in bounds."""
        cls = e.__class__
        if cls is ir.BufferLoad:
            for i in e.indices:
                self.exprs(i)
            self.access(e.buffer, e.indices, e.span)
            return
        if cls is ir.Select:
            self.exprs(e.cond)
            return
        if cls is ir.BinOp:
            self.exprs(e.a)
            if e.op not in ("&&", "||"):
                self.exprs(e.b)
            return
        for child in _children(e):
            self.exprs(child)

    def value(self, e, depth: int = 0) -> Values | None:
        if depth > 64:
            return None
        cls = e.__class__
        if cls is ir.IntImm:
            return Values(e.value, e.value, True, frozenset())
        if cls is ir.Cast and e.a.dtype.is_int and e.dtype.is_int:
            inner = self.value(e.a, depth + 1)
            if inner is None or not (-(1 << (e.dtype.bits - 1)) <= inner.low and inner.high < 1 << (e.dtype.bits - 1)):
                return None
            return inner
        key = self.leaf(e) if cls in (ir.Var, ir.Builtin) else None
        if key is not None and key not in self.unknown and key in self.ranges:
            return self.ranges[key]
        if cls is ir.Var and e.name in self.lets:
            return self.value(self.lets[e.name], depth + 1)
        if cls is not ir.BinOp or not e.dtype.is_int:
            return None
        a, b = self.value(e.a, depth + 1), self.value(e.b, depth + 1)
        if a is None or b is None:
            return None
        return _combine(e.op, a, b)

    def access(self, buf: ir.Buffer, indices, span) -> None:
        if not _register_array(buf) or span in self.reported:
            return
        for dim, (index, extent) in enumerate(zip(indices, buf.shape)):
            if isinstance(index, ir.IntImm):
                continue
            got = self.value(index)
            if got is None or got.low > got.high:
                continue
            if 0 <= got.low and got.high < extent.value:
                continue
            self.reported.add(span)
            bad = got.high if got.high >= extent.value else got.low
            shown = f"{bad} (its values lie between {got.low} and {got.high})"
            where = f"dimension {dim} of `{buf.name}` (extent {extent.value})"
            fix = ("keep the index inside the extent (a `%` or a test), or make the array larger; "
                   "registers have no bounds check on the GPU")
            if got.exact and not self.leaves_early:
                self.st.diags.error("E0528", f"the index takes the value {shown}, outside {where}",
                                    span, help=fix)
            else:
                self.st.diags.warning("W0507", f"the index may take the value {shown}, outside {where}", span, help=fix)
            return


def _children(e):
    for name in ("a", "b", "cond"):
        child = getattr(e, name, None)
        if isinstance(child, ir.Expr):
            yield child
    for child in getattr(e, "args", ()) or ():
        if isinstance(child, ir.Expr):
            yield child
    for child in getattr(e, "indices", ()) or ():
        if isinstance(child, ir.Expr):
            yield child


def _combine(op: str, a: Values, b: Values) -> Values | None:
    apart = not (a.leaves & b.leaves)
    if op in ("+", "-"):
        if op == "+":
            low, high = a.low + b.low, a.high + b.high
        else:
            low, high = a.low - b.high, a.high - b.low
        return Values(low, high, a.exact and b.exact and apart, a.leaves | b.leaves, a.dense and b.dense)
    if op == "*":
        corners = (a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high)
        one_constant = not a.leaves or not b.leaves
        unit = (a.low == a.high and abs(a.low) == 1 and b.dense) or (b.low == b.high and abs(b.low) == 1 and a.dense)
        return Values(min(corners), max(corners), a.exact and b.exact and one_constant, a.leaves | b.leaves,
                      unit or (not a.leaves and not b.leaves))
    if b.leaves or b.low != b.high or b.low <= 0:
        return None
    c = b.low
    if op == "floordiv" or (op == "truncdiv" and a.low >= 0):
        return Values(a.low // c, a.high // c, a.exact, a.leaves, a.dense)
    if op == ">>" and c < 63:
        return Values(a.low >> c, a.high >> c, a.exact, a.leaves, a.dense)
    if op == "floormod" or (op == "truncmod" and a.low >= 0):
        if a.low >= 0 and a.high < c:
            return a
        whole = a.dense and a.high - a.low + 1 >= c  # a whole period: every remainder is taken
        return Values(0, c - 1, a.exact and whole, a.leaves, whole)
    if op == "&" and c & (c + 1) == 0 and a.low >= 0:  # a mask of low bits is a remainder
        return _combine("floormod", a, Values(c + 1, c + 1, True, frozenset()))
    return None
