"""`T.alloc_tcgen05_ldst_frag(instr_shape, tensor_shape, dtype)`: the register fragment of a
warpgroup's tcgen05.ld / tcgen05.st (docs/design.md, decision 15; /tmp/notes/ptx2.md).

As in TIRx, the result is a local buffer of the logical `tensor_shape` (rows, cols) whose
layout distributes the rows and columns over the warpgroup's 128 threads (`tid_in_wg`, or
`wid_in_wg` and `laneid`) and each thread's registers (`m`) the way one `.xN` repetition of
the atom `instr_shape` lays a tensor-memory tile into registers: `.32x32b` gives each thread
one row (128 rows, or the 64-row image of a two-CTA "datapath B" accumulator, fp32 only),
`.16x64b` / `.16x128b` / `.16x256b` a 64-row fragment (128 rows: the atom issued twice).
16-bit data is packed two to a 32-bit register. `N` (the `.xN`) follows from the columns."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import INT32
from transpiler.target.ptx.tcgen05 import LD_SHAPES
from transpiler.sema.expressions import expr
from transpiler.sema import registry
from transpiler.sema.memory import views
from transpiler.sema.registry import handler
from transpiler.evaluator.values import POISON
from transpiler.sema.values import LayoutVal

_FP32_COLUMNS = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8}  # fp32 columns of a warp per repetition


def fragment_iters(shape: str, rows: int, cols: int, bits: int) -> list[tuple[int, int, str]] | str:
    """The layout's shard, outermost first, as (extent, stride, axis); or why the fragment
    does not exist."""
    if shape not in _FP32_COLUMNS:
        return f"`{shape}` is not a tcgen05.ld / st shape here; the shapes are " + \
            ", ".join(f'"{s}"' for s in _FP32_COLUMNS)
    if bits not in (16, 32):
        return "the fragment holds 32- or 16-bit data (float32, float16, bfloat16)"
    if rows not in (64, 128):
        return f"a `{shape}` fragment has 64 or 128 rows, not {rows}"
    most = LD_SHAPES[shape][1]
    if shape == "32x32b" and rows == 64:  # the 64-row image of a CTA pair's accumulator
        if bits != 32:
            return "the 64-row `32x32b` fragment (a CTA pair's accumulator) is float32 only"
        half = cols // 2
        if cols % 2 or half not in _reps(most):
            return f"the 64-row `32x32b` fragment takes N = 2 x a power of two up to {2 * most}, not {cols}"
        return [(64, 1, "tid_in_wg"), (2, 64, "tid_in_wg"), (half, 1, "m")]
    pack = 32 // bits
    per_rep = _FP32_COLUMNS[shape] * pack
    if cols % per_rep or cols // per_rep not in _reps(most):
        return f"a `{shape}` fragment of {bits}-bit data has {per_rep} x (a power of two up to {most}) " \
               f"columns, not {cols}"
    n = cols // per_rep
    if shape == "32x32b":
        return [(rows, 1, "tid_in_wg"), (cols, 1, "m")]
    # one warp's 16-row slab, in 32-bit register units: (rows, cols) iters and the registers per rep
    row, col, regs = {
        "16x64b": ([(4, 1, "wid_in_wg"), (2, 1, "laneid"), (8, 4, "laneid")], [(n, 1, "m"), (2, 2, "laneid")], n),
        "16x128b": ([(4, 1, "wid_in_wg"), (2, 1, "m"), (8, 4, "laneid")], [(n, 2, "m"), (4, 1, "laneid")], 2 * n),
        "16x256b": ([(4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid")],
                    [(n, 4, "m"), (4, 1, "laneid"), (2, 1, "m")], 4 * n),
    }[shape]
    if rows == 128:  # the second 16-row slab of each warp's 32 lanes: the atom issued again
        row = row[:1] + [(2, regs, "m")] + row[1:]
    scale = lambda iters: [(e, s * pack if a == "m" else s, a) for e, s, a in iters]  # noqa: E731
    return scale(row) + scale(col) + ([(pack, 1, "m")] if pack > 1 else [])


def _reps(most: int) -> tuple[int, ...]:
    return tuple(1 << k for k in range(most.bit_length()) if 1 << k <= most)


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




