"""The same bytes read as another element type: `buf.view("float32")` (TIRx's `Buffer.view`
with a dtype: the last extent scales by the ratio of the element sizes, the offset too)."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.target.dtypes import INT32
from transpiler.sema import expr, views
from transpiler.sema.values import POISON


def view_dtype(st, buf: ir.Buffer, dtype_node: ast.Expr, span):
    """`buf.view(dtype)`: a view of buf's bytes with dtype elements (row-major buffers)."""
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
    if buf.layout is not None:
        st.diags.error("E0518", "`view(dtype)` of a buffer with a layout is not supported yet", span,
                       help="declare the other-typed view with `T.decl_buffer(shape, dtype, data=buf.data)`")
        return POISON
    if buf.storage is not None and buf.storage.kind == "param":
        st.diags.error("E0518", f"`view(dtype)` of the parameter buffer `{buf.name}` is not supported yet",
                       span, help="pass the array with the element type the kernel reads")
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
