"""The launch description of a lowered kernel (transpiler/ir/launch.py): its parameters as a host
sees them, decided here once for every host interface."""
from __future__ import annotations

import dataclasses
import math

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.ir.launch import (UNSUPPORTED_STRIDES, ElementType, KernelLaunch, LaunchParam, ParamKind,
                                  TensorMapLaunch)
from transpiler.lower.checks import launch_checks
from transpiler.lower.facts import Facts
from transpiler.lower.tma_writes import written_by_ptx
from transpiler.target import tma
from transpiler.target.dtypes import HOST_ARRAYS


def element_type(dtype) -> ElementType:
    """How a host passes elements of `dtype` (target/dtypes.py HOST_ARRAYS)."""
    typestr, scalar, refused = HOST_ARRAYS[dtype.name]
    return ElementType(dtype.name, dtype.nbytes, typestr, scalar, refused)


def describe(spec: ir.LaunchSpec) -> KernelLaunch:
    """The launch description of one lowered kernel."""
    params = tuple(_param(p) for p in spec.params)
    cluster = None
    if spec.cluster:
        cluster = tuple(c.value if isinstance(c, ir.IntImm) else c for c in spec.cluster)
    # scalars that the grid, a workspace size, an argument array's expected shape or strides or
    # a tensor map's reach depend on
    host_exprs = list(spec.grid) + [e for ws in spec.workspaces for e in ws.shape]
    for p in spec.params:
        if p.kind is ParamKind.BUFFER:
            host_exprs += p.buffer.shape
            if p.buffer.layout is not None:
                host_exprs += [it.stride for it in p.buffer.layout.shard]
    for p in spec.params:
        if p.kind is ParamKind.TENSOR_MAP and p.tensor_map is not None:
            host_exprs += list(p.tensor_map.dims) + list(p.tensor_map.strides)
    host_vars = {node.name for e in host_exprs for node in ir.walk_expr(e) if isinstance(node, ir.Var)}
    by_c = {p.c_name: p for p in params}
    keyed = tuple(name for name in spec.arg_order if by_c[name].kind is ParamKind.SCALAR and name in host_vars)
    buffers = [p for p in params if p.kind is ParamKind.BUFFER]
    overlaps = tuple((a.c_name, b.c_name) for j, b in enumerate(buffers) for a in buffers[:j]
                     if not (a.readonly and b.readonly))
    launch = KernelLaunch(
        name=spec.name, symbol=spec.symbol, params=params, args=tuple(spec.arg_order), keyed=keyed,
        overlaps=overlaps, grid=tuple(spec.grid), block=tuple(e.value for e in spec.block), cluster=cluster,
        static_shared_bytes=spec.static_shared_bytes, dynamic_shared_bytes=spec.dynamic_shared_bytes,
        min_arch=spec.min_arch, arch_suffix=spec.arch_suffix, span=spec.span, cooperative=spec.cooperative)
    return dataclasses.replace(launch, checks=launch_checks(launch))


def _param(p: ir.Param) -> LaunchParam:
    if p.kind is ParamKind.BUFFER:
        buf = p.buffer
        return LaunchParam(buf.name, p.name, p.kind, element_type(buf.dtype), tuple(buf.shape), array_strides(buf),
                           base_offset(buf), buf.align, buf.storage.readonly, span=buf.span)
    if p.kind is ParamKind.WORKSPACE:
        buf = p.buffer
        return LaunchParam(buf.name, p.name, p.kind, element_type(buf.dtype), tuple(buf.shape), align=buf.align,
                           span=buf.span)
    tm = p.tensor_map
    if p.kind is ParamKind.TENSOR_MAP and tm is not None:
        encoded = TensorMapLaunch(tm.buffer.name, tm.data_type, tuple(tm.dims), tuple(tm.strides), tuple(tm.box),
                                  tuple(tm.element_strides), tm.interleave, tm.swizzle, tm.l2_promotion, tm.oob_fill,
                                  tm.span, tma.DATA_TYPE_BITS[tm.data_type])
        return LaunchParam(p.name, p.name, p.kind, element_type(p.dtype), tensor_map=encoded, span=p.span)
    return LaunchParam(p.name, p.name, p.kind, element_type(p.dtype), span=p.span)


def array_strides(buf: ir.Buffer):
    """Element strides an argument array must have: None when dense row-major, UNSUPPORTED_STRIDES
    when the layout is not a strided array.

    A layout whose shard iters pair one-to-one with the dimensions is a strided array; other
    layouts cannot be described by strides (an error at launch)."""
    if buf.layout is None:
        return None
    shard = buf.layout.shard
    if len(shard) != len(buf.shape) or any(it.axis != "m" for it in shard) or buf.layout.swizzle:
        return UNSUPPORTED_STRIDES
    for it, extent in zip(shard, buf.shape):
        if it.extent != extent:
            return UNSUPPORTED_STRIDES
    strides = tuple(it.stride for it in shard)
    dense = layouts.row_major_strides(buf.shape)
    same = len(strides) == len(dense) and all(map(same_expr, strides, dense))
    return None if same else strides


def same_expr(a: ir.Expr, b: ir.Expr) -> bool:
    """Whether two shape or stride expressions are the same tree: node classes, operators,
    constants and names (and dtypes, but for integer constants and names)."""
    if a is b:
        return True
    cls = a.__class__
    if cls is not b.__class__:
        return False
    if cls is ir.IntImm:  # a constant or a name is the same entry whatever its integer dtype
        return a.value == b.value
    if cls is ir.Var:
        return a.name == b.name
    if a.dtype != b.dtype:
        return False
    if cls is ir.FloatImm:
        return a.value == b.value
    if getattr(a, "op", None) != getattr(b, "op", None) or getattr(a, "func", None) != getattr(b, "func", None):
        return False
    if cls in ir.LEAVES:
        return False  # a builtin or string: compared by identity above
    children_a, children_b = ir.NODE_EXPRS[cls](a), ir.NODE_EXPRS[cls](b)
    return len(children_a) == len(children_b) and all(map(same_expr, children_a, children_b))


def base_offset(buf: ir.Buffer) -> int:
    """Elements between the kernel's pointer and the array's element (0, ..., 0)."""
    offset = buf.elem_offset.value if isinstance(buf.elem_offset, ir.IntImm) else 0
    if buf.layout is not None:
        for axis, value in buf.layout.offset:
            if axis == "m" and isinstance(value, ir.IntImm):
                offset += value.value
    return offset


# ---- the LaunchSpec's parts ------------------------------------------------------------------------

def const_shape(buf: ir.Buffer) -> tuple[int, ...]:
    return tuple(e.value if isinstance(e, ir.IntImm) else 0 for e in buf.shape)


def arena_placement(buf: ir.Buffer) -> ir.Placement:
    """A buffer's bytes in the arena: a typed view pointer starts `byte_offset` in, and the
    buffer's elem_offset counts from there."""
    shape = const_shape(buf)
    if not isinstance(buf.elem_offset, ir.IntImm):
        return ir.Placement(buf.name, -1, -1, buf.dtype, shape, buf.align, buf.span)
    start = buf.elem_offset.value * buf.dtype.nbytes
    if buf.storage is not None and buf.storage.kind == "view_pointer":
        start += buf.storage.byte_offset
    return ir.Placement(buf.name, start, start + math.prod(shape) * buf.dtype.nbytes, buf.dtype, shape,
                        buf.align, buf.span)


def tmem_placement(buf: ir.Buffer) -> ir.Placement:
    """A tensor-memory buffer's columns: from `allocated_addr` over the span of its TCol
    iters, in 32-bit cells."""
    shape = const_shape(buf)
    cells = layouts.tmem_columns(buf.layout)
    if not isinstance(buf.allocated_addr, ir.IntImm) or cells is None:
        return ir.Placement(buf.name, -1, -1, buf.dtype, shape, 0, buf.span)
    start = buf.allocated_addr.value
    return ir.Placement(buf.name, start, start + -(-cells * buf.dtype.bits // 32), buf.dtype, shape, 0, buf.span)


def readonly_params(facts: Facts, params, body: ir.Stmt, instructions) -> set[str]:
    # a pointer may be written through, a store through a view writes its bases, a TMA store its buffer
    written = {s.name for s in facts.stored + facts.addressed for s in (s, s.base, s.base and s.base.base) if s}
    written.update(written_by_ptx(body, params, instructions))
    return {p.name for p in params if p.kind is ParamKind.BUFFER and p.name not in written}
