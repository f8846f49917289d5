"""Loop ranges: `range(...)`, `T.serial`, `T.unroll` and `T.grid` as checked values, the limits of
unrolling, and what makes a C `for` loop mean what the source's range means.

Python evaluates a range's bounds once, before the first iteration; C re-reads the condition's
stop and the increment's step at every iteration. A stop or step that is not invariant (it reads
memory or a mutable scalar, or calls something) is therefore bound to a fresh local before the
loop (`evaluate_once`); invariant ones (constants, parameters, lets, ids) are printed as they are.

A step other than 1 can carry an `int` loop variable past INT_MAX, which is undefined behaviour
in C and, in practice, a loop that never ends (`for i in range(0, n, 1 << 30)` with n near
2^31). `needs_wide` tells when, for a constant step, the checker cannot prove from the bounds of
the stop that this never happens; such a loop counts in a 64-bit variable, and the source's variable is a
32-bit local set from it at the top of the body (`wide_loop`).
"""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.target.arch import MAX_GRID, MAX_THREADS_PER_BLOCK
from transpiler.target.dtypes import INT32, INT64, UINT32, int_range
from transpiler.sema.expressions import effects, expr
from transpiler.sema import state
from transpiler.sema.kernel import unrolled_constants
from transpiler.evaluator.values import LoopRange, POISON, PyConst
from transpiler.sema.registry import handler, is_default


# The implicit bounds of a loop (`range(n)` starts at 0 and steps by 1): shared, as IR
# expressions are immutable and compare by value.
_ZERO, _ONE = ir.IntImm(INT32, 0), ir.IntImm(INT32, 1)


UNROLL_COPIES = 4096  # nested `T.unroll` loops: copies of the innermost body


UNROLL_STATEMENTS = 32768  # and statements after unrolling (copies times the body's statements)


def _statement_count(stmts) -> int:
    """Statements in a block, nested blocks included."""
    count, stack = 0, list(stmts)
    while stack:
        node = stack.pop()
        count += 1
        for name in ("body", "orelse"):
            stack.extend(getattr(node, name, None) or ())
    return count


def unroll_copies(st, stmt: ast.For, rng: LoopRange) -> int | None:
    """How many copies of its body an unrolled loop makes; None (with an error) when the
    copies of all enclosing `T.unroll` loops together would pass the limits: nested
    unrolls multiply, and 20 nested `T.unroll(2)` would otherwise be a million copies."""
    trips = unroll_trips(st, rng)
    total = st.unrolled * trips
    statements = total * _statement_count(stmt.body)
    if total > UNROLL_COPIES or statements > UNROLL_STATEMENTS:
        what = (f"{total} copies of this body" if total > UNROLL_COPIES
                else f"{statements} statements")
        limit = (f"{UNROLL_COPIES} copies" if total > UNROLL_COPIES else f"{UNROLL_STATEMENTS} statements")
        st.diags.error("E0305", f"unrolling makes {what} (with the enclosing `T.unroll` loops); the limit "
                                  f"is {limit}", stmt.iter.span,
                         help="use `T.serial(n, unroll=True)` for some of the loops and let the compiler "
                              "unroll")
        return None
    return trips


def unroll_trips(st, rng: LoopRange) -> int:
    """The copies of its body an unrolled loop makes (the most in any copy of the enclosing
    `T.unroll` loops where its bounds are theirs: unrolled_constants.loop_bounds)."""
    start, stop, step = rng.starts[0], rng.stops[0], rng.steps[0]
    if all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
        return max(0, -(-(stop.value - start.value) // step.value))
    return unrolled_constants.loop_bounds(st, start, stop, step)[3]


def unroll_values(st, rng: LoopRange) -> list[int]:
    """The values an unrolled loop's variable takes, over every copy of the enclosing loops."""
    start, stop, step = rng.starts[0], rng.stops[0], rng.steps[0]
    if all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
        return list(range(start.value, stop.value, step.value))
    return unrolled_constants.iteration_values(*unrolled_constants.loop_bounds(st, start, stop, step)[:3])


# -- evaluated once, counted without overflow -----------------------------------------------------------
def evaluate_once(st, rng: LoopRange, names: list[str], span) -> tuple[LoopRange, list[bool]]:
    """The range with every stop or step that is not invariant bound to a fresh local before the
    loop (and its start too then, when that is not invariant, so that the source's order of
    evaluation is kept), and for each loop whether it counts in 64 bits (needs_wide, judged on
    the bounds as written)."""
    starts, stops, steps = list(rng.starts), list(rng.stops), list(rng.steps)
    wide = [needs_wide(st, stop, step) for stop, step in zip(stops, steps)]
    for k, name in enumerate(names):
        hoist_stop, hoist_step = not effects.is_invariant(stops[k]), not effects.is_invariant(steps[k])
        if not (hoist_stop or hoist_step):
            continue
        if not effects.is_invariant(starts[k]):
            starts[k] = effects.bind(st, starts[k], f"{name}_start", span)
        if hoist_stop:
            stops[k] = effects.bind(st, stops[k], f"{name}_stop", span)
        if hoist_step:
            steps[k] = effects.bind(st, steps[k], f"{name}_step", span)
    return LoopRange(rng.kind, tuple(starts), tuple(stops), tuple(steps), rng.unroll_factor), wide


def needs_wide(st, stop: ir.Expr, step: ir.Expr) -> bool:
    """Whether `i += step`, for a step other than 1 and -1, may carry a loop variable below
    stop past the range of its dtype, judged on the bounds known of stop and step (a step
    that is not a constant is taken at its bounds)."""
    dtype = stop.dtype
    if not dtype.is_int or dtype.bits >= 64 or (isinstance(step, ir.IntImm) and step.value in (1, -1)):
        return False
    low, high = int_range(dtype)
    step_low, step_high = bounds(st, step)
    stop_low, stop_high = bounds(st, stop)
    up = step_high <= 0 or stop_high - 1 + step_high <= high  # the last i below stop, plus the step
    down = step_low >= 0 or stop_low + 1 + step_low >= low
    return not (up and down)


def wide_loop(st, var: ir.Var, name: str, start, stop, step, body: ir.Stmt, kind: str, factor: int, span) -> ir.For:
    """`for i in range(...)` counting in a 64-bit variable: `for (long long i_wide = ...; ...)`
    whose body starts with `int i = (int)i_wide;`."""
    counter = ir.Var(INT64, state.fresh(st, f"{name}_wide"), var.span)
    if var.name in st.nonneg:
        st.nonneg.add(counter.name)
    body = ir.seq([ir.LetStmt(var, ir.cast(var.dtype, counter), span), body])
    return ir.For(counter, ir.cast(INT64, start), ir.cast(INT64, stop), ir.cast(INT64, step), body, kind, factor,
                  span)


# The values the CUDA registers ids read from take (blockIdx up to the largest grid).
_REGISTERS = {"threadIdx": (0, MAX_THREADS_PER_BLOCK - 1), "blockIdx": (0, MAX_GRID[0] - 1),
              "blockDim": (1, MAX_THREADS_PER_BLOCK), "gridDim": (1, MAX_GRID[0])}


def bounds(st, e: ir.Expr) -> tuple[int, int]:
    """Least and greatest values an integer expression may take (its dtype's range when nothing
    better is known; arithmetic that may wrap gives the whole range)."""
    dtype = e.dtype
    full = int_range(dtype) if dtype.is_int or dtype.is_bool else (-(1 << 63), (1 << 63) - 1)
    cls = e.__class__
    if cls is ir.IntImm:
        return e.value, e.value
    if cls is ir.Var:
        return (0, full[1]) if e.name in st.nonneg else full
    if cls is ir.Builtin:
        return _REGISTERS.get(e.name.split(".")[0], full)
    if cls is ir.Cast and e.a.dtype.is_int and dtype.is_int:
        low, high = bounds(st, e.a)
        return (low, high) if full[0] <= low and high <= full[1] else full
    if cls is ir.Select:
        (a_low, a_high), (b_low, b_high) = bounds(st, e.a), bounds(st, e.b)
        return min(a_low, b_low), max(a_high, b_high)
    if cls is not ir.BinOp or not dtype.is_int:
        return full
    (a_low, a_high), (b_low, b_high) = bounds(st, e.a), bounds(st, e.b)
    op = e.op
    if op in ("+", "-", "*"):
        if op == "+":
            low, high = a_low + b_low, a_high + b_high
        elif op == "-":
            low, high = a_low - b_high, a_high - b_low
        else:
            corners = (a_low * b_low, a_low * b_high, a_high * b_low, a_high * b_high)
            low, high = min(corners), max(corners)
        return (low, high) if full[0] <= low and high <= full[1] else full
    if op in ("min", "max"):
        pick = min if op == "min" else max
        return pick(a_low, b_low), pick(a_high, b_high)
    if b_low == b_high and b_low > 0:  # by a positive constant
        c = b_low
        if op == "floordiv":
            return a_low // c, a_high // c
        if op == "truncdiv":
            return _truncdiv(a_low, c), _truncdiv(a_high, c)
        if op == "floormod":
            return 0, c - 1
        if op == "truncmod":
            return (0 if a_low >= 0 else 1 - c), c - 1
        if op == ">>" and c < dtype.bits:
            return a_low >> c, a_high >> c
        if op == "&":
            return 0, c
    if op == "&" and a_low == a_high and a_low >= 0:
        return 0, a_low
    return full


def _truncdiv(a: int, c: int) -> int:
    return -(-a // c) if a < 0 else a // c


# -- the range values ------------------------------------------------------------------------------------
def loop_range(st, kind: str, node: ast.Call, args):
    """`range(...)`, `T.serial(...)` or `T.unroll(...)`, its arguments bound (bind_args)."""
    first = expr.int_value(st, args["start"])
    if is_default(args["stop"]):
        start, stop = _ZERO, first
    else:
        start, stop = first, expr.int_value(st, args["stop"])
    step = _ONE if is_default(args["step"]) else expr.int_value(st, args["step"])
    if start is POISON or stop is POISON or step is POISON:
        return POISON
    if start.dtype != stop.dtype:
        start = ir.cast(stop.dtype, start) if isinstance(start, ir.IntImm) else start
        stop = ir.cast(start.dtype, stop) if isinstance(stop, ir.IntImm) else stop
    if start.dtype != stop.dtype:
        st.diags.error("E0303", f"loop bounds have different dtypes: {start.dtype} and {stop.dtype}", node.span)
        return POISON
    if isinstance(step, ir.IntImm) and step.value == 0:
        st.diags.error("E0305", "a loop step cannot be zero", node.span)
        return POISON
    step = ir.cast(start.dtype, step)
    factor = 0
    if kind == "serial" and "unroll" in args and not is_default(args["unroll"]):
        unroll = expr.elab(st, args["unroll"])
        if isinstance(unroll, PyConst) and unroll.value is True:
            factor = -1
        elif isinstance(unroll, PyConst) and isinstance(unroll.value, int) and not isinstance(unroll.value, bool) \
                and unroll.value > 0:
            factor = unroll.value
        elif isinstance(unroll, PyConst) and unroll.value is False:
            factor = -2
        else:
            st.diags.error("E0305", "`unroll=` takes True, False or a positive count", args["unroll"].span)
    if "dtype" in args and not is_default(args["dtype"]):  # TIRx: int32 or uint32; the bounds convert
        dtype = expr.dtype_arg(st, args["dtype"])
        if dtype is None:
            return POISON
        if dtype not in (INT32, UINT32):
            st.diags.error("E0518", f"{dtype} loop variables are not supported yet", args["dtype"].span,
                             help="`dtype=` takes \"int32\" or \"uint32\"; an int64 loop variable comes "
                                  "from int64 bounds (`T.int64(n)`)")
            return POISON
        start, stop, step = (ir.cast(dtype, x) for x in (start, stop, step))
    if kind == "vectorized":  # TIRx vectorizes a loop of constant extent; here: a `#pragma unroll` loop
        if not all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
            st.diags.error("E0202", "`T.vectorized` needs constant bounds", node.span,
                             help="TIRx vectorizes loops of a constant extent only; use `T.serial` here")
            return POISON
        return LoopRange("serial", (start,), (stop,), (step,), -1)
    if kind == "unroll":
        # constant bounds, or bounds constant in each copy of the enclosing `T.unroll` loops
        bounds = None if all(isinstance(x, ir.IntImm) for x in (start, stop, step)) else \
            unrolled_constants.loop_bounds(st, start, stop, step)
        if bounds is None and not all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
            st.diags.error("E0202", "`T.unroll` needs constant bounds", node.span,
                             help="use `T.serial(n, unroll=True)` for a `#pragma unroll` loop")
            return POISON
        trips = unroll_trips(st, LoopRange(kind, (start,), (stop,), (step,), factor))
        if trips > UNROLL_COPIES:
            st.diags.error("E0305", f"`T.unroll` of {trips} iterations; the limit is {UNROLL_COPIES}", node.span,
                             help="use `T.serial(n, unroll=True)` and let the compiler unroll")
            return POISON
    return LoopRange(kind, (start,), (stop,), (step,), factor)


@handler("serial", "start", "stop=None", "step=1", "unroll=None", "dtype='int32'", "annotations=None")
def _serial(st, node, a):
    return loop_range(st, "serial", node, a)


@handler("vectorized", "start", "stop=None", "step=1", "annotations=None", "dtype='int32'")
def _vectorized(st, node, a):
    return loop_range(st, "vectorized", node, a)


@handler("unroll", "start", "stop=None", "step=1")
def _unroll(st, node, a):
    return loop_range(st, "unroll", node, a)


@handler("grid", "*extents")
def _grid(st, node, a):
    stops = [expr.int_value(st, e) for e in a["extents"]]
    if not stops:
        st.diags.error("E0305", "`T.grid` needs at least one extent", node.span)
        return POISON
    if POISON in stops:
        return POISON
    zero = tuple(ir.IntImm(s.dtype, 0) for s in stops)
    one = tuple(ir.IntImm(s.dtype, 1) for s in stops)
    return LoopRange("grid", zero, tuple(stops), one)


