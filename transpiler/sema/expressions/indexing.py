"""Indexing a buffer: `A[i, j]` (a load), `A[m0:m0 + 64, :]` and `A[i]` of a 2-D `A` (a region),
`A[i, T.ramp(base, 1, lanes)]` (a vector access), and the checks every vector access makes
(inside the innermost dimension, contiguous, aligned), shared by loads, stores and `vload` /
`vstore`."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.ir.analysis import base_alignment, modular
from transpiler.syntax import ast
from transpiler.target.dtypes import DType, INT32, has_c_vector
from transpiler.sema.expressions import effects, scalars
from transpiler.sema.expressions.expr import elab, int_value, is_dialect_call
from transpiler.evaluator.values import POISON
from transpiler.sema.values import Region


def index_nodes(node: ast.Subscript):
    """The index expressions of a subscript (`A[(i, j)]` is `A[i, j]`), and whether one is a slice."""
    indices = node.indices
    if len(indices) == 1 and isinstance(indices[0], ast.Tuple):
        indices = indices[0].elts
    for index in indices:
        if isinstance(index, ast.Slice):
            return indices, True
    return indices, False


def is_sequence_call(node) -> bool:
    """`tuple(...)` / `list(...)` as a subscript's index (a compile-time sequence of indices)."""
    return node.__class__ is ast.Call and isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list")


def subscript_buffer(st, buf: ir.Buffer, node: ast.Subscript):
    indices, sliced = index_nodes(node)
    if sliced or len(indices) < len(buf.shape):
        return region(st, buf, indices, node, None if sliced else len(indices))
    vector = ramp_access(st, buf, indices, node.span)
    if vector is not None:
        if vector is POISON or not scalars.direct_access_ok(st, buf, node.span, "read"):
            return POISON
        return ir.BufferVecLoad(vector[0], buf, vector[1], node.span)
    if len(indices) != len(buf.shape):
        wrong_index_count(st, buf, len(indices), node.span)
        return POISON
    vals = index_values(st, buf, indices)
    if vals is POISON:
        return POISON
    return scalars.load(st, buf, vals, node.span)


wrong_index_count = scalars.wrong_index_count


def index_values(st, buf: ir.Buffer, nodes):
    vals = []
    for dim, index in enumerate(nodes):
        v = int_value(st, index)
        if v is POISON:
            return POISON
        extent = buf.shape[dim]
        if isinstance(v, ir.IntImm) and isinstance(extent, ir.IntImm) and not 0 <= v.value < extent.value:
            # only a run-time condition reaches it: TIRx compiles it (through a pointer: a C array's constant
            # out-of-range subscript is an error of nvcc's with -Werror, so it stays one here)
            storage = buf.storage
            if getattr(st, "guards", None) and storage is not None and storage.kind in ("param", "workspace"):
                st.diags.warning("W0508", f"index {v.value} is out of bounds for dimension {dim} of "
                                          f"`{buf.name}` (extent {extent.value}), in a branch taken only at "
                                          f"run time", index.span,
                                 help="the access is compiled as written; make sure the condition never holds")
            else:
                st.diags.error("E0507", f"index {v.value} is out of bounds for dimension {dim} of "
                                          f"`{buf.name}` (extent {extent.value})", index.span)
                return POISON
        vals.append(v)
    if buf.layout is not None and not all(map(effects.is_pure, vals)):
        # a layout may use a coordinate more than once (`i // 8`, `i % 8`; a swizzle): evaluated once
        vals = effects.share(st, vals, range(len(vals)), "an index with side effects", nodes[0].span, "idx")
        if vals is None:
            return POISON
    return tuple(vals)


def region(st, buf: ir.Buffer, indices, node, count=None):
    starts, extents = [], []
    for dim in range(buf.ndim):
        if dim >= len(indices):
            starts.append(ir.IntImm(INT32, 0))
            extents.append(buf.shape[dim])
            continue
        index = indices[dim]
        if isinstance(index, ast.Slice):
            if index.step is not None:
                st.diags.error("E0518", "strided slices (vector access by slice) are not supported",
                                 index.span, help="use `vload` / `vstore`")
                return POISON
            start = int_value(st, index.lower) if index.lower is not None else ir.IntImm(INT32, 0)
            stop = int_value(st, index.upper) if index.upper is not None else buf.shape[dim]
            if POISON in (start, stop):
                return POISON
            bounds = effects.share(st, [start, stop], (0,), "a slice bound with side effects", index.span, "idx")
            if bounds is None:  # the start is in the extent too: evaluated once
                return POISON
            start, stop = bounds
            starts.append(start)
            extents.append(ir.difference(stop, start))  # `A[m0:m0 + 64]` spans 64 (tile primitives need it)
        else:
            v = int_value(st, index)
            if v is POISON:
                return POISON
            starts.append(v)
            extents.append(ir.IntImm(INT32, 1))
    if not all(map(effects.is_pure, starts)):  # a tensor-memory address uses a start twice (lane, column)
        starts = effects.share(st, starts, range(len(starts)), "a region index with side effects", node.span, "idx")
        if starts is None:
            return POISON
    return Region(buf, tuple(starts), tuple(extents), count)


def check_vector_access(st, buf: ir.Buffer, vec: DType, indices, node, index_node) -> bool:
    """A `vload` / `vstore` of `vec` at `indices`: inside the innermost dimension, over contiguous
    elements, and aligned to the vector's size (as far as the checker can tell)."""
    lanes, nbytes = vec.lanes, vec.nbytes
    base = base_alignment(buf)
    if base < nbytes:
        st.diags.error("E0515", f"{nbytes}-byte vector access to `{buf.name}`, which is only {base}-byte "
                                  f"aligned", node.span,
                         help=f"declare `{buf.name}` with `align={nbytes}`")
        return False
    extent, last = buf.shape[-1], indices[-1]
    if isinstance(extent, ir.IntImm) and lanes > extent.value:
        st.diags.error("E0515", f"a vector of {lanes} elements does not fit in the innermost dimension of "
                                  f"`{buf.name}` (extent {extent.value})", node.span)
        return False
    if isinstance(extent, ir.IntImm) and isinstance(last, ir.IntImm) and last.value + lanes > extent.value:
        st.diags.error("E0507", f"the vector covers elements {last.value}..{last.value + lanes - 1} of "
                                  f"dimension {buf.ndim - 1} of `{buf.name}` (extent {extent.value})",
                         index_node.elts[-1].span)
        return False
    if buf.layout is not None and not vector_contiguous(buf, indices, lanes):
        st.diags.error("E0515", f"the innermost dimension of `{buf.name}` is not contiguous in memory, so "
                                  f"it cannot be accessed as a vector", node.span,
                         help="vector accesses need a layout with stride 1 in the last dimension")
        return False
    offset = layouts.memory_index(buf.layout, indices, buf.shape, buf.elem_offset)
    modulus, residue = modular(offset)
    size = buf.dtype.nbytes
    if (modulus * size) % nbytes == 0 and (residue * size) % nbytes:
        step = nbytes // size
        where = f"starts at element {residue}" if modulus == 0 else \
            f"always starts {residue % step} elements past a multiple of {step}"
        st.diags.error("E0515", f"misaligned vector access to `{buf.name}`: it {where}", index_node.span,
                         help=f"a {nbytes}-byte vector starts at a multiple of {step} elements")
        return False
    return True


def ramp_access(st, buf: ir.Buffer, nodes, span):
    """`A[i, T.ramp(base, 1, lanes)]`, the newer spelling of `A.vload([i, base], dtype=...)` /
    `A.vstore(...)`: (vector dtype, indices) for the same checks and IR; None when no index is a
    ramp, POISON after an error."""
    for node in nodes:
        if isinstance(node, ast.Call):
            break
    else:
        return None  # no index is a call: what nearly all indexing is, decided without building a list
    ramps = [k for k, n in enumerate(nodes) if is_dialect_call(st, n, ("ramp", "Ramp"))]
    if not ramps:
        return None
    if len(nodes) != buf.ndim:
        wrong_index_count(st, buf, len(nodes), span)
        return POISON
    misplaced = next((k for k in ramps if k != len(nodes) - 1), None)
    if misplaced is not None:
        st.diags.error("E0524", "only the last index can be a `T.ramp`", nodes[misplaced].span,
                         help="a vector access covers consecutive elements of the innermost dimension")
        return POISON
    leading = index_values(st, buf, nodes[:-1])
    ramp = elab(st, nodes[-1])
    if leading is POISON or ramp is POISON:
        return POISON
    vec = buf.dtype.with_lanes(ramp.lanes) if buf.dtype.lanes == 1 else None
    if vec is None or not has_c_vector(vec):
        st.diags.error("E0524", f"no CUDA vector type holds {ramp.lanes} {buf.dtype} elements",
                         nodes[-1].span, help=f"use a lane count such as {max(1, 16 // buf.dtype.nbytes)} "
                                              f"(vectors move at most 16 bytes)")
        return POISON
    indices = tuple(leading) + (ramp.base,)
    access, index_list = ast.Tuple(span, tuple(nodes)), ast.Tuple(nodes[-1].span, tuple(nodes))
    if not check_vector_access(st, buf, vec, indices, access, index_list):
        return POISON
    return vec, indices


def vector_contiguous(buf: ir.Buffer, indices, lanes: int) -> bool:
    """Whether `lanes` consecutive elements of the last dimension are consecutive in memory
    (checked at the given indices when they are constant, else at the origin)."""
    if not all(isinstance(i, ir.IntImm) for i in indices) or not buf.const_shape():
        indices = [ir.IntImm(INT32, 0)] * len(indices)
        if not buf.const_shape():
            return True
    first = layouts.memory_index(buf.layout, indices, buf.shape, ir.IntImm(INT32, 0))
    for k in range(1, lanes):
        moved = list(indices[:-1]) + [ir.IntImm(INT32, indices[-1].value + k)]
        at = layouts.memory_index(buf.layout, moved, buf.shape, ir.IntImm(INT32, 0))
        if isinstance(first, ir.IntImm) and isinstance(at, ir.IntImm) and at.value != first.value + k:
            return False
    return True
