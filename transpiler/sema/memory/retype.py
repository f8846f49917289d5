"""The same bytes read as another element type: `buf.view("float32")` (TIRx's `Buffer.view`
with a dtype: the last extent scales by the ratio of the element sizes, the offset too)."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.target.dtypes import HANDLE, INT32
from transpiler.sema.expressions import expr
from transpiler.sema import registry
from transpiler.sema.memory import typed_pointers, views
from transpiler.evaluator.values import DTypeVal, POISON, PyConst
from transpiler.sema.values import Pointer


def view_dtype(st, buf: ir.Buffer, dtype_node: ast.Expr, span):
    """`buf.view(dtype)`: a view of buf's bytes with dtype elements (row-major buffers, or any
    layout when the element size stays)."""
    dtype = expr.dtype_arg(st, dtype_node)
    if dtype is None:
        return POISON
    old = buf.dtype
    if dtype == old:
        return buf
    if dtype.lanes != 1 or old.lanes != 1 or dtype.bits < 8 or old.bits < 8:
        st.diags.error("E0518", f"`view` from {old} to {dtype} is not supported yet", dtype_node.span,
                       help="tirxc reinterprets scalar element types of 8 bits or more")
        return POISON
    if buf.layout is not None and dtype.bits == old.bits:  # same-size elements: the same layout places them
        offset = ir.IntImm(INT32, 0) if buf.elem_offset is None else buf.elem_offset
        return views.new_view(st, buf, tuple(buf.shape), dtype, buf.scope, buf.layout, offset, buf.align, span)
    if buf.layout is not None:
        st.diags.error("E0518", "`view(dtype)` of a buffer with a layout to a different element size is not "
                                "supported yet", span,
                       help="declare the other-typed view with `T.decl_buffer(shape, dtype, data=buf.data)`")
        return POISON
    if not buf.shape:
        return POISON
    last = buf.shape[-1]
    if dtype.bits > old.bits:  # widening: `ratio` elements become one
        ratio = dtype.bits // old.bits
        if isinstance(last, ir.IntImm) and last.value % ratio:
            st.diags.error("E0514", f"cannot view the last extent {last.value} of `{buf.name}` ({old}) as "
                                    f"{dtype}: it is not a multiple of {ratio}", span,
                           help=f"{ratio} {old} elements make one {dtype}")
            return POISON
        offset = buf.elem_offset
        if isinstance(offset, ir.IntImm) and offset.value % ratio:
            st.diags.error("E0513", f"`{buf.name}` starts at element {offset.value}, which is not a whole "
                                    f"{dtype} ({ratio} elements)", span)
            return POISON
        new_last = ir.binop("floordiv", last, ir.IntImm(last.dtype, ratio))
        offset = None if offset is None else ir.binop("floordiv", offset, ir.IntImm(offset.dtype, ratio))
    else:  # narrowing: one element becomes `ratio`
        ratio = old.bits // dtype.bits
        new_last = ir.binop("*", last, ir.IntImm(last.dtype, ratio))
        offset = None if buf.elem_offset is None else ir.binop("*", buf.elem_offset,
                                                                ir.IntImm(buf.elem_offset.dtype, ratio))
    shape = tuple(buf.shape[:-1]) + (new_last,)
    offset = ir.IntImm(INT32, 0) if offset is None else offset
    view = views.new_view(st, buf, shape, dtype, buf.scope, None, offset, buf.align, span)
    if view is POISON:
        return POISON
    return view


def reinterpret_pointer(st, node, target, source, a):
    """`T.reinterpret("uint64", ptr)` of a pointer (`B.data`, `B.ptr_to([i])`, `T.address_of(B[i])`):
    its generic address as a 64-bit integer (`(unsigned long long)&B_ptr[i]`), as TIRx reinterprets
    a handle. The way back, `T.reinterpret("handle", u64)`, is the integer as a generic address
    (typed_pointers.from_integer); a pointer reinterpreted as a handle is itself."""
    to_pointer = (isinstance(target, PyConst) and target.value == "handle") or \
        (isinstance(target, DTypeVal) and target.dtype.kind == "handle")
    if to_pointer and isinstance(source, Pointer):
        return ir.BufferAddress(HANDLE, source.buffer, None, a["x"].span)
    if to_pointer and (isinstance(source, ir.BufferAddress) or typed_pointers.is_address(source)):
        return source
    if to_pointer and isinstance(source, typed_pointers.TypedPointer):
        return typed_pointers.address_of(source, node.span)
    if to_pointer:
        return typed_pointers.from_integer(st, node, source, a["x"].span)
    if isinstance(source, typed_pointers.TypedPointer):  # `T.reinterpret("uint64", typed)`
        source = typed_pointers.address_of(source, a["x"].span)
    if typed_pointers.is_address(source):
        source = source.a if isinstance(source, ir.Cast) and source.a.dtype.bits == 64 else source
    if not isinstance(source, (Pointer, ir.BufferAddress)) and not (isinstance(source, ir.Expr)
                                                                   and source.dtype.bits == 64):
        return registry.unsupported(st, node, "`T.reinterpret` to a pointer", help=(
            "declare a buffer of another element type over the same bytes with "
            "`buf.view(dtype)` or `T.decl_buffer(shape, dtype, data=buf.data)`"))
    dtype = expr.dtype_arg(st, ast.Value(a["dtype"].span, target))
    if dtype is None:
        return POISON
    if not (dtype.is_int and dtype.bits == 64 and dtype.lanes == 1):
        st.diags.error("E0303", f"a pointer is reinterpreted as a 64-bit integer (uint64 or int64), not {dtype}",
                       a["dtype"].span, help="for a shared-memory offset, use `T.cuda.cvta_generic_to_shared(ptr)`")
        return POISON
    if isinstance(source, Pointer):
        source = ir.BufferAddress(HANDLE, source.buffer, None, a["x"].span)
    return ir.cast(dtype, source, node.span)


