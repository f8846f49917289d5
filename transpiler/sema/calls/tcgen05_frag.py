"""`T.alloc_tcgen05_ldst_frag(instr_shape, tensor_shape, dtype)`: the register fragment of a
warpgroup's tcgen05.ld / tcgen05.st (docs/design.md, decision 15).

As in TIRx, the result is a local buffer of the logical `tensor_shape` (rows, cols) whose layout
distributes the rows and columns over the warpgroup's 128 threads (`tid_in_wg`, or `wid_in_wg`
and `laneid`) and each thread's registers (`m`) the way one `.xN` repetition of the atom
`instr_shape` lays a tensor-memory tile into registers (target/tcgen05.py fragment_iters).
`N` (the `.xN`) follows from the columns."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import INT32
from transpiler.target.tcgen05 import fragment_iters
from transpiler.sema.expressions import expr
from transpiler.sema import registry
from transpiler.sema.memory import views
from transpiler.sema.registry import handler
from transpiler.evaluator.values import POISON
from transpiler.sema.values import LayoutVal

@handler("alloc_tcgen05_ldst_frag", "instr_shape", "tensor_shape", "dtype")
def _alloc_tcgen05_ldst_frag(st, node, a):
    layout = atom_layout(st, node, a, "T.alloc_tcgen05_ldst_frag")
    if layout is POISON:
        return POISON
    extents = views.shape_arg(st, a["tensor_shape"], symbolic=False)
    return views.new_allocation(st, tuple(extents), expr.dtype_arg(st, a["dtype"]), "local", layout, 0, node.span)


def tcgen05_atom_layout(st, node):
    """`tcgen05_atom_layout(instr_shape, (rows, cols), dtype)` (from tvm.tirx.layout): the layout
    itself, for `A.view(..., layout=...)` and register buffers."""
    a = registry.bind_args(st, node, ("instr_shape", "tensor_shape", "dtype"), "tcgen05_atom_layout")
    if a is None:
        return POISON
    layout = atom_layout(st, node, a, "tcgen05_atom_layout")
    return POISON if layout is POISON else LayoutVal(layout)


def atom_layout(st, node, a, what: str):
    shape = expr.const_str(st, a["instr_shape"], "the tcgen05 shape")
    extents = views.shape_arg(st, a["tensor_shape"], symbolic=False)
    dtype = expr.dtype_arg(st, a["dtype"])
    if shape is None or extents is None or dtype is None:
        return POISON
    if len(extents) != 2:
        st.diags.error("E0607", f"a tcgen05 fragment is 2-D (rows, columns), not {len(extents)}-D",
                       a["tensor_shape"].span)
        return POISON
    rows, cols = (e.value for e in extents)
    iters = fragment_iters(shape, rows, cols, dtype.bits)
    if isinstance(iters, str):
        span = a["instr_shape"].span if iters.startswith("`") and "is not" in iters else \
            a["dtype"].span if "data (" in iters or "only" in iters else a["tensor_shape"].span
        st.diags.error("E0607", f"`{what}`: {iters}", span)
        return POISON
    c = lambda v: ir.IntImm(INT32, v)  # noqa: E731
    return ir.Layout(tuple(layouts.Iter(c(e), c(s), axis) for e, s, axis in iters), (), (), None,
                     f"tcgen05_atom_layout({shape!r}, ({rows}, {cols}), {str(dtype)!r})")




