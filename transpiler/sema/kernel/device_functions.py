"""Device functions: a `@T.prim_func` that returns a value (`-> T.int32`, `return x`) is not a
kernel but a `__device__` function its callers' threads run, as TIRx's CUDA code generator makes
of a function with the default calling convention (`extern "C" __device__ int f(int x)`).

Its parameters are scalars (dtype annotations) and global buffers of a constant shape
(`A: T.Buffer((64,), "float32")`, a `float* A_ptr` parameter: TIRx passes a buffer argument as its
data pointer), its body device code that reaches a `return value` on every path; a kernel (or a
later device function) calls it by name, with its scalar arguments converted to the parameters'
dtypes as a store converts (stores.py) and its buffer arguments passed by address (a buffer of
the parameter's dtype, with at least its elements). It has no launch:
no `T.device_entry()`, no thread ids, no tile primitives, and the launcher and the C++ header do
not list it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.ir.launch import ParamKind
from transpiler.ir.program import DeviceFunction
from transpiler.syntax import ast
from transpiler.syntax.source import Span
from transpiler.target.cnames import c_name
from transpiler.target.dtypes import DType, HANDLE, INT32, parse_dtype
from transpiler.evaluator.values import Binding, DTypeVal, POISON, Poison, PyConst
from transpiler.sema import registry, state
from transpiler.sema.expressions import expr, stores
from transpiler.sema.expressions.expr import kind_of
from transpiler.sema.kernel import attrs, statements
from transpiler.sema.memory import buffers
from transpiler.sema.state import KernelState
from transpiler.sema.values import Handle, Pointer

# The options of `@T.prim_func(...)` that mean nothing for the CUDA of a device function
_OPTIONS = ("private", "check_well_formed")


@dataclass(frozen=True)
class DeviceFunc:
    """A device function as a value of the file: what a call of it checks against."""
    name: str  # the source's
    c_name: str
    params: tuple[tuple[str, DType | ir.Buffer], ...]  # a scalar's dtype, a buffer parameter's buffer
    returns: DType
    span: Span  # its name on the `def` line
    grid_sync: Span | None = None  # where it, or a device function it calls, first synchronizes the grid


def returns_value(fdef: ast.FunctionDef) -> bool:
    """Whether a `@T.prim_func` is a device function: its return annotation names a dtype
    (`-> T.int32`, `-> "float32"`); any other is a kernel's error (check.py)."""
    returns = fdef.returns
    if isinstance(returns, ast.Attribute):
        named = parse_dtype(returns.attr) is not None
    else:
        named = isinstance(returns, ast.Constant) and isinstance(returns.value, str) \
            and parse_dtype(returns.value) is not None
    # a body with `T.device_entry()` is a kernel's, whose annotation is the error
    return named and not any(isinstance(s, ast.ExprStmt) and isinstance(s.value, ast.Call)
                             and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "device_entry"
                             for s in fdef.body)


def define(ms, fdef: ast.FunctionDef, prim: list) -> DeviceFunction | None:
    """Check a device function and bind its name in the module; its IR, or None after an error."""
    st = KernelState(ms, fdef)
    st.device = True
    _decorators(st, fdef, prim)
    returns = _return_dtype(st, fdef.returns)
    params = [_parameter(st, p) for p in fdef.params]
    name = _c_name(ms, fdef)
    known = None not in params and returns is not None and name is not None
    value = DeviceFunc(fdef.name, name, tuple((p.source_name, p.buffer or p.dtype) for p in params), returns,
                       fdef.name_span) if known else POISON
    errors = len([d for d in ms.diags.items if d.severity == "error"])
    st.function_returns = POISON if returns is None else returns  # (read by `return`, below)
    body = list(fdef.body)
    if body and isinstance(body[0], ast.ExprStmt) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    stmts = ir.seq(statements.block(st, body, new_scope=False))
    if st.ids or st.entry is not None:
        kind, (_, span) = next(iter(st.ids.items()))
        st.diags.error("E0518", f"`T.{kind}` in a device function is not supported yet", span,
                       help="a device function runs in its caller's threads: pass the ids it needs as parameters")
    if any(isinstance(s, ir.TileCall) for s in ir.all_stmts(stmts)):
        call = next(s for s in ir.all_stmts(stmts) if isinstance(s, ir.TileCall))
        st.diags.error("E0518", "a tile primitive in a device function is not supported yet", call.span,
                       help="call it in the kernel")
    if returns is not None and None not in params and not always_returns(stmts):
        st.diags.error("E0203", f"device function `{fdef.name}` can reach its end without returning a value",
                       fdef.name_span, help=f"end every path with `return <{returns} value>`")
    if value is not POISON and attrs.COOPERATIVE in st.kernel_attrs:  # its callers are launched cooperatively
        value = replace(value, grid_sync=st.kernel_attrs[attrs.COOPERATIVE][0])
    ms.globals[fdef.name] = Binding(value, "const", fdef.name_span)
    if value is POISON or len([d for d in ms.diags.items if d.severity == "error"]) > errors:
        return None
    return DeviceFunction(name, fdef.span, fdef.name_span,
                          [ir.Param(p.name, ParamKind.BUFFER if p.buffer else ParamKind.SCALAR, p.dtype, p.buffer,
                                    p.span) for p in params],
                          returns, stmts, st.nonneg, st.min_arch, st.arch_suffix)


def always_returns(s: ir.Stmt | None) -> bool:
    """Whether every path through `s` ends in a `return value` (C's rule, by the statements' form)."""
    if s is None:
        return False
    if isinstance(s, ir.ReturnValue):
        return True
    if isinstance(s, ir.Seq):
        return any(always_returns(x) for x in s.body)
    if isinstance(s, ir.Block):
        return always_returns(s.body)
    if isinstance(s, ir.If):
        return always_returns(s.then) and always_returns(s.orelse)
    return False


def _decorators(st, fdef: ast.FunctionDef, prim: list) -> None:
    for decorator in fdef.decorators:
        if decorator not in prim:
            st.diags.error("E0203", "a device function takes no decorator besides `@T.prim_func`", decorator.span)
    for extra in prim[1:]:
        st.diags.error("E0203", "`@T.prim_func` is given twice", extra.span)
    if not isinstance(prim[0], ast.Call):
        return
    for arg in prim[0].args:
        st.diags.error("E0203", "`@T.prim_func` takes no positional arguments", arg.span)
    for kw in prim[0].keywords:
        if kw.name not in _OPTIONS:
            st.diags.error("E0311", f"`@T.prim_func` has no parameter `{kw.name}`", kw.span,
                           help=did_you_mean(kw.name, _OPTIONS) or "its options are `private=`, `check_well_formed=`")


def _return_dtype(st, annotation: ast.Expr) -> DType | None:
    kind = expr.elab(st, annotation)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # `-> "float32"`
        kind = DTypeVal(parse_dtype(annotation.value))
    if isinstance(kind, DTypeVal) and kind.dtype.lanes == 1 and kind.dtype.kind != "handle":
        return kind.dtype
    if kind is not POISON:
        st.diags.error("E0203", f"a device function returns a scalar dtype such as `T.int32`, not {kind_of(kind)}",
                       annotation.span, help="returning other values is not supported yet")
    return None


@dataclass(frozen=True)
class _Param:
    source_name: str
    name: str  # its C name
    dtype: DType
    span: Span
    buffer: ir.Buffer | None = None  # a buffer parameter's


def _parameter(st, param: ast.Param) -> _Param | None:
    if param.star or param.annotation is None:
        what = f"`{param.star}{param.name}`" if param.star else f"parameter `{param.name}` without a dtype"
        st.diags.error("E0310", f"a device function takes scalar parameters with a dtype, not {what}", param.span,
                       help="annotate it, e.g. `x: T.int32`")
        state.bind(st, param.name, Binding(POISON, "param", param.span))
        return None
    if not statements.is_new_name(st, param):
        return None
    annotation = param.annotation
    if isinstance(annotation, ast.Call) and isinstance(annotation.func, ast.Attribute) \
            and annotation.func.attr in ("Buffer", "Tensor"):
        return _buffer_parameter(st, param, annotation)
    kind = expr.elab(st, annotation)
    if isinstance(kind, DTypeVal) and kind.dtype.lanes == 1 and kind.dtype.kind != "handle":
        var = ir.Var(kind.dtype, state.fresh(st, param.name), param.span)
        state.bind(st, param.name, Binding(var, "param", param.span))
        return _Param(param.name, var.name, kind.dtype, param.span)
    if kind is not POISON:
        st.diags.error("E0310", f"a device function's parameter `{param.name}` of {kind_of(kind)} is not "
                                f"supported yet", param.annotation.span,
                       help="device functions take scalars (`x: T.int32`); pass a buffer's elements as values")
    state.bind(st, param.name, Binding(POISON, "param", param.span))
    return None


def _buffer_parameter(st, param: ast.Param, annotation: ast.Call) -> _Param | None:
    """`A: T.Buffer((64,), "float32")`: a global buffer of a constant shape, passed as its pointer."""
    if annotation.func.attr == "Tensor":
        args = buffers.tensor_type_args(st, annotation)
    else:
        args = registry.bind_args(st, annotation, ("shape", "dtype='float32'", "data=None", "strides=None",
                                                   "elem_offset=None", "scope='global'", "align=-1",
                                                   "offset_factor=0", "layout='default'"), "T.Buffer")
    buf = POISON
    if args is not None:
        shape = expr.elab(st, args["shape"])
        constant = isinstance(shape, PyConst) and (isinstance(shape.value, int) or all(
            isinstance(v, int) for v in shape.value)) if isinstance(shape, PyConst) else \
            isinstance(shape, tuple) and all(isinstance(v, (ir.IntImm, PyConst)) for v in shape)
        if not constant and shape is not POISON:
            registry.unsupported(st, args["shape"], "a device function's buffer parameter of a symbolic shape",
                                 help="give the buffer a constant shape")
        else:
            buf = buffers.param_buffer(st, Handle(param.name, param.span), annotation, args)
    if not isinstance(buf, ir.Buffer):
        state.bind(st, param.name, Binding(POISON, "param", param.span))
        return None
    storage = ir.Storage(state.fresh(st, param.name + "_ptr"), buf.dtype, "global", "param", None, buf.align)
    buf = replace(buf, name=param.name, storage=storage)
    state.bind(st, param.name, Binding(buf, "buffer", param.span))
    return _Param(param.name, storage.name, buf.dtype, param.span, buf)


def _buffer_argument(st, func: DeviceFunc, name: str, param: ir.Buffer, arg: ast.Expr):
    """A buffer argument of a device function: a buffer (or a buffer's `.data`) of the parameter's
    dtype with at least its elements, passed as the address of its first element."""
    value = expr.elab(st, arg)
    if isinstance(value, Pointer):
        value = value.buffer
    if not isinstance(value, ir.Buffer):
        if not isinstance(value, Poison):
            st.diags.error("E0306", f"`{func.name}` takes a buffer for `{name}`, not {kind_of(value)}", arg.span)
        return POISON
    if value.dtype != param.dtype:
        st.diags.error("E0306", f"`{func.name}` takes a buffer of {param.dtype} for `{name}`, but `{value.name}` "
                                f"holds {value.dtype}", arg.span)
        return POISON
    if value.scope != param.scope or value.scope == "tmem" or value.layout is not None:
        where = "a layout" if value.layout is not None else f"{value.scope} memory"
        return registry.unsupported(st, arg, f"a device function's buffer argument with {where}",
                                    help=f"pass a {param.scope} buffer of row-major elements")
    have, need = value.const_shape(), param.const_shape()
    if have is not None and prod(have) < prod(need):
        st.diags.error("E0306", f"`{func.name}` reads up to {prod(need)} elements of `{name}`, but `{value.name}` "
                                f"has {prod(have)}", arg.span)
        return POISON
    if ir.is_const(value.elem_offset, 0):
        return ir.BufferAddress(HANDLE, value, None, arg.span)  # its pointer, `A_ptr`
    return ir.BufferAddress(HANDLE, value, tuple(ir.IntImm(INT32, 0) for _ in value.shape), arg.span)


def _c_name(ms, fdef: ast.FunctionDef) -> str | None:
    name = fdef.name
    first = ms.kernel_names.get(name)
    if first is not None:
        ms.diags.error("E0203", f"`{name}` is already defined", fdef.name_span, notes=[Note("first defined here", first)],
                       help="give each kernel and device function its own name")
        return None
    ms.kernel_names[name] = fdef.name_span
    return c_name(name, getattr(ms, "c_reserved", frozenset()))


# -- `return value` ------------------------------------------------------------------------------------
_kernel_return = statements._STMT[ast.Return]


def _stmt_Return(st, stmt: ast.Return):
    returns = getattr(st, "function_returns", None)
    if returns is None:  # a kernel's
        return _kernel_return(st, stmt)
    if returns is POISON:  # (its return dtype had an error)
        return None
    if stmt.value is None:
        st.diags.error("E0306", f"a device function returns a {returns} value; write `return <value>`", stmt.span)
        return None
    value = stores.stored(st, expr.elab(st, stmt.value), stmt.value.span, returns)
    if value is POISON:
        return None
    if value.dtype != returns:
        st.diags.error("E0306", f"this function returns {returns}, not {value.dtype}", stmt.value.span)
        return None
    return ir.ReturnValue(value, stmt.span)


statements._STMT[ast.Return] = _stmt_Return


# -- calls ---------------------------------------------------------------------------------------------
def call(st, func: DeviceFunc, node: ast.Call):
    """`f(a, b)` of a device function: a C call, each argument converted to its parameter's dtype."""
    if st.at_module_level or not st.device:
        st.diags.error("E0139", f"device function `{func.name}` runs on the GPU; call it in a kernel's device code",
                       node.span)
        return POISON
    names = [name for name, _ in func.params]
    given: dict[str, ast.Expr] = {}
    ok = True
    if len(node.args) > len(names):
        st.diags.error("E0138", f"`{func.name}` takes {len(names)} argument{'s' if len(names) != 1 else ''}, "
                                f"got {len(node.args)}", node.args[len(names)].span,
                       notes=[Note("defined here", func.span)])
        ok = False
    given.update(zip(names, node.args))
    for kw in node.keywords:
        if kw.name not in names:
            st.diags.error("E0138", f"`{func.name}` has no parameter `{kw.name}`", kw.span,
                           help=did_you_mean(kw.name, names))
            ok = False
        elif kw.name in given:
            st.diags.error("E0138", f"`{func.name}` got two values for `{kw.name}`", kw.span)
            ok = False
        else:
            given[kw.name] = kw.value
    missing = [name for name in names if name not in given]
    if missing:
        st.diags.error("E0138", f"`{func.name}` is missing its `{missing[0]}` argument", node.span,
                       notes=[Note("defined here", func.span)])
        ok = False
    args = []
    for name, dtype in func.params:
        if name not in given:
            continue
        arg = given[name]
        if isinstance(dtype, ir.Buffer):
            value = _buffer_argument(st, func, name, dtype, arg)
            ok = ok and not isinstance(value, Poison)
            args.append(value)
            continue
        value = stores.stored(st, expr.elab(st, arg), arg.span, dtype)
        if isinstance(value, Poison):
            ok = False
        elif value.dtype != dtype:
            st.diags.error("E0306", f"`{func.name}` takes {dtype} for `{name}`, not {value.dtype}", arg.span)
            ok = False
        args.append(value)
    if not ok:
        return POISON
    if func.grid_sync is not None:  # the grid synchronizes inside: the calling kernel is launched cooperatively
        st.kernel_attrs.setdefault(attrs.COOPERATIVE, (func.grid_sync, node.span))
    return ir.Call(func.returns, func.c_name, tuple(args), node.span)

