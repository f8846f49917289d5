"""Statements TIRx spells as calls or `with` scopes: `T.evaluate(expr)` (the expression as a
statement; `T.evaluate(0)` is the empty statement) and `T.hint(...)` (a directive for tools,
bare or as `with T.hint(...):`, which means nothing to CUDA: the body runs as written); and TIR's
node constructors kernels call directly (`T.And`, `T.Or`, `T.Not`, `T.IntImm`, `T.FloatImm`)."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.kernel import legacy_launch
from transpiler.sema import state
from transpiler.sema.registry import HANDLERS, handler
from transpiler.evaluator.core import kind_of
from transpiler.evaluator.values import Binding, POISON, Poison, PyConst, Void
from transpiler.sema.values import Namespace


@handler("evaluate", "value")
def _evaluate(st, node, a):
    val = expr.elab(st, a["value"])
    if isinstance(val, Void):
        return val
    if isinstance(val, ir.Call) and not val.func.startswith("math:"):
        return Void(ir.Evaluate(val, node.span))  # a call with effects, as an expression statement
    # (a buffer evaluates to its data pointer in TIRx, which has no effect either)
    if not isinstance(val, (ir.Expr, PyConst, Poison, ir.Buffer)):
        st.diags.error("E0306", f"`T.evaluate` takes an expression, not {kind_of(val)}", a["value"].span)
    return Void(ir.Seq(()))  # a value without effects: nothing to run


def _hint_attrs(st, node: ast.Call):
    """`T.hint(message="", **attrs)`: a string message and any keyword attributes, checked and
    dropped."""
    if len(node.args) > 1:
        st.diags.error("E0305", f"`T.hint` takes one positional argument (the message), got {len(node.args)}",
                       node.args[1].span)
    for arg in node.args[:1]:
        expr.const_str(st, arg, "the hint's message")
    for kw in node.keywords:
        if kw.name == "message":
            expr.const_str(st, kw.value, "the hint's message")
        else:
            expr.elab(st, kw.value)


def _hint(st, node, a):
    _hint_attrs(st, node)
    return Void(ir.Seq(()))


HANDLERS["hint"] = (_hint, None)  # any keyword attributes: the arguments are read here


def _hint_call(st, context, name: str = "hint") -> bool:
    """Whether a `with` item is a call of `T.hint` (or of `T.<name>`)."""
    if not (isinstance(context, ast.Call) and isinstance(context.func, ast.Attribute)
            and context.func.attr == name):
        return False
    base = context.func.value
    bound = state.binding(st, base.id) or st.module.globals.get(base.id) if isinstance(base, ast.Name) else None
    return bound is not None and isinstance(bound.value, Namespace) and bound.value.path == ("T",)


def with_statement(st, stmt: ast.With, block):
    """`with T.hint(...):` runs its body in a scope of its own; any other `with` is not supported
    yet, and its body is still checked (names bound by `as` are unknown values there)."""
    if legacy_launch.starts_device_code(st, stmt):  # `with T.launch_thread("threadIdx.x", n):`
        return legacy_launch.with_launch(st, stmt, block)
    hints = [_hint_call(st, item.context) and item.target is None for item in stmt.items]
    if all(hints):
        for item in stmt.items:
            _hint_attrs(st, item.context)
        return block(st, stmt.body)
    if len(stmt.items) == 1 and _hint_call(st, stmt.items[0].context, "attr") and stmt.items[0].target is None:
        # `with T.attr({...}):` sets the kernel attributes, as the statement does; its body runs as written
        done = expr.elab(st, stmt.items[0].context)
        body = block(st, stmt.body)
        return body if isinstance(done, Void) else None
    bad = stmt.items[hints.index(False)]
    st.diags.error("E0518", "this `with` scope is not supported yet", bad.context.span,
                   help="tirxc accepts `with T.hint(...):`, `with T.attr({...}):` and `with T.launch_thread(...):`; "
                        "other scopes are not implemented")
    state.push(st)
    for item in stmt.items:
        if isinstance(item.target, ast.Name):
            state.bind(st, item.target.id, Binding(POISON, "other", item.target.span))
    block(st, stmt.body, new_scope=False)
    state.pop(st)
    return None


# -- TIR's node constructors, as kernels write them (`T.And(a, b)`, `T.FloatImm(dtype, 1.5)`) ------------
def _logic(op: str):
    def fn(st, node, a):
        a_val, b_val = (scalars.condition(st, expr.elab(st, a[k]), a[k].span) for k in ("a", "b"))
        if POISON in (a_val, b_val):
            return POISON
        return ir.binop(op, a_val, b_val, node.span)
    return fn


HANDLERS["And"] = (_logic("&&"), ("a", "b"))
HANDLERS["Or"] = (_logic("||"), ("a", "b"))


@handler("Not", "a")
def _not(st, node, a):
    val = scalars.condition(st, expr.elab(st, a["a"]), a["a"].span)
    return POISON if val is POISON else ir.unary("!", val, node.span)


def _immediate(kind: str):
    def fn(st, node, a):
        dtype = expr.dtype_arg(st, a["dtype"])
        value = expr.elab(st, a["value"])
        if dtype is None or isinstance(value, Poison):
            return POISON
        if not isinstance(value, PyConst) or isinstance(value.value, (str, bool)) or not isinstance(value.value, (int, float)):
            st.diags.error("E0305", f"`T.{kind}` takes a dtype and a compile-time number", a["value"].span)
            return POISON
        if (kind == "IntImm") != (dtype.is_int or dtype.is_bool):
            st.diags.error("E0303", f"`T.{kind}` of {dtype}", a["dtype"].span,
                           help="`T.IntImm` takes an integer dtype, `T.FloatImm` a float dtype")
            return POISON
        return scalars.literal(st, value.value, dtype, node.span)
    return fn


HANDLERS["IntImm"] = (_immediate("IntImm"), ("dtype", "value"))
HANDLERS["FloatImm"] = (_immediate("FloatImm"), ("dtype", "value"))
