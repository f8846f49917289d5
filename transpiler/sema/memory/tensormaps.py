"""TMA tensor maps, written as TIRx writes them (docs/design.md, decision 24): before
`T.device_entry()`,

    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "bfloat16", 2, A.data,
                  K, M, K * 2, 64, 128, 1, 1, 0, 3, 2, 0)

and in the kernel `T.address_of(A_map)`, the generic address of the map (a uint64) that the
`cp.async.bulk.tensor` instructions take. The map becomes a `__grid_constant__` parameter that
the launchers encode before each launch from the array the buffer is bound to."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.diag.diagnostics import Note
from transpiler.target import tma
from transpiler.target.dtypes import HANDLE, INT32, UINT64
from transpiler.sema.expressions import expr
from transpiler.sema import state
from transpiler.sema.registry import handler
from transpiler.evaluator.values import POISON, PyConst, Void
from transpiler.sema.values import Pointer

ENCODE = "runtime.cuTensorMapEncodeTiled"


@dataclass(eq=False)
class TensorMapSlot:
    """A tensor map of the kernel: allocated by `T.tvm_stack_alloca("tensormap", 1)`, filled in by
    the encode call (`spec`), and a kernel parameter named `c_name` from then on."""
    name: str
    c_name: str
    span: object
    spec: ir.TensorMapSpec | None = None
    encoded_at: object = None
    buffer: ir.Buffer | None = None  # what `T.address_of` points at: the parameter itself
    caller: bool = False  # a `T.TensorMap()` parameter: the caller encodes it


@dataclass(frozen=True, eq=False, repr=False)
class _Allocation:
    """The value of `T.tvm_stack_alloca("tensormap", 1)` until a name is bound to it."""
    span: object


@dataclass(frozen=True, eq=False, repr=False)
class _TensorMapType:
    """The annotation `T.TensorMap()`: a parameter the caller passes encoded."""


TENSOR_MAP_TYPE = _TensorMapType()


@handler("TensorMap")
def _tensor_map_type(st, node, a):
    return TENSOR_MAP_TYPE


def parameter(st, name: str, span) -> TensorMapSlot:
    """`tmap: T.TensorMap()`: a map the caller encodes, passed where the source declares it."""
    slot = _slot(st, name, span)
    slot.caller = True
    return slot


def _slot(st, name: str, span) -> TensorMapSlot:
    slot = TensorMapSlot(name, state.fresh(st, name), span)
    storage = ir.Storage(slot.c_name, UINT64, "global", "tensormap", tma.BYTES // 8, tma.ALIGN)
    slot.buffer = ir.Buffer(name, (ir.IntImm(INT32, tma.BYTES // 8),), UINT64, "global", storage, span=span)
    st.tensor_maps.append(slot)
    return slot


@handler("tvm_stack_alloca", "dtype", "count")
def _stack_alloca(st, node, a):
    kind = expr.const_str(st, a["dtype"], "the first argument of `T.tvm_stack_alloca`")
    count = expr.const_int(st, a["count"], "the count of `T.tvm_stack_alloca`")
    if kind is None or count is None:
        return POISON
    if kind != "tensormap":
        st.diags.error("E0518", f"`T.tvm_stack_alloca(\"{kind}\", ...)` is not supported yet", node.span,
                       help="tirxc allocates tensor maps this way (`\"tensormap\"`); other host-side stack "
                            "objects have no use in the generated CUDA")
        return POISON
    if count != 1:
        st.diags.error("E0526", f"`T.tvm_stack_alloca(\"tensormap\", {count})`: allocate one tensor map per name",
                       a["count"].span)
        return POISON
    if st.device:
        st.diags.error("E0401", "a tensor map is made before `T.device_entry()`", node.span,
                       help="allocate and encode it with the parameter bindings, at the top of the kernel")
        return POISON
    return _Allocation(node.span)


def bind(st, name: str, value, span) -> TensorMapSlot | None:
    """`A_map = T.tvm_stack_alloca("tensormap", 1)` in the host region: the kernel's new tensor map."""
    if not isinstance(value, _Allocation):
        return None
    return _slot(st, name, span)


@handler("call_packed", "name", "*args")
def _call_packed(st, node, a):
    name = expr.const_str(st, a["name"], "the function `T.call_packed` calls")
    if name is None:
        return POISON
    if name != ENCODE:
        st.diags.error("E0518", f"`T.call_packed(\"{name}\", ...)` is not supported yet", a["name"].span,
                       help=f"tirxc knows the packed function \"{ENCODE}\" (TMA tensor maps)")
        return POISON
    if st.device:
        st.diags.error("E0401", "a tensor map is encoded before `T.device_entry()`", node.span,
                       help="encode it with the parameter bindings, at the top of the kernel")
        return POISON
    spec = encode(st, node, a["args"])
    return Void(ir.Seq(())) if spec is not None else POISON


def encode(st, node, args) -> ir.TensorMapSpec | None:
    """The arguments after the function's name: the map, the dtype, the rank, the data pointer,
    then per dimension (innermost first) the extents, the byte strides of dimensions 1.., the box
    and the element strides, then the interleave, swizzle, L2 promotion and out-of-bounds fill
    enumerations, and optionally a data type forced in place of the dtype's."""
    if len(args) < 4:
        st.diags.error("E0305", f"`{ENCODE}` takes the tensor map, the dtype, the rank and the data pointer, "
                                f"then its fields; got {len(args)} argument{'s' if len(args) != 1 else ''}",
                       node.span)
        return None
    slot = expr.elab(st, args[0])
    if not isinstance(slot, TensorMapSlot):
        if slot is not POISON:
            st.diags.error("E0602", f"the first argument of `{ENCODE}` is a tensor map", args[0].span,
                           help="allocate one first: `A_map = T.tvm_stack_alloca(\"tensormap\", 1)`")
        return None
    if slot.caller:
        st.diags.error("E0526", f"tensor map `{slot.name}` is a parameter: its caller encodes it", args[0].span,
                       notes=[Note("declared here", slot.span)])
        return None
    if slot.spec is not None or slot.encoded_at is not None:
        st.diags.error("E0526", f"tensor map `{slot.name}` is encoded twice", node.span,
                       notes=[Note("first encoded here", slot.encoded_at)])
        return None
    slot.encoded_at = node.span
    dtype = expr.dtype_arg(st, args[1])
    rank = expr.const_int(st, args[2], "the rank of a tensor map")
    if dtype is None or rank is None:
        return None
    if not 1 <= rank <= tma.MAX_RANK:
        st.diags.error("E0526", f"a tensor map has rank 1 to {tma.MAX_RANK}, not {rank}", args[2].span)
        return None
    data_type = tma.DATA_TYPES.get(dtype.name) if dtype.lanes == 1 else None
    if data_type is None:
        st.diags.error("E0526", f"a tensor map of {dtype} elements is not supported", args[1].span,
                       help="TMA moves 8-, 16-, 32- and 64-bit elements: " + ", ".join(sorted(tma.DATA_TYPES)))
        return None
    expected = 4 + 4 * rank + 3
    if len(args) not in (expected, expected + 1):
        st.diags.error("E0305", f"`{ENCODE}` of rank {rank} takes {expected} arguments (or {expected + 1} with a "
                                f"forced data type), got {len(args)}", node.span,
                       help=f"after the data pointer: {rank} extents, {rank - 1} byte stride"
                            f"{'s' if rank != 2 else ''}, {rank} box sizes, {rank} element strides, then the "
                            f"interleave, swizzle, L2 promotion and out-of-bounds fill")
        return None
    pointer = expr.elab(st, args[3])
    if not (isinstance(pointer, Pointer) and pointer.buffer.storage is not None
            and pointer.buffer.storage.kind == "param"):
        if pointer is not POISON:
            st.diags.error("E0602", "a tensor map maps a parameter buffer: pass its `.data`", args[3].span,
                           help="for `A = T.match_buffer(A_ptr, ...)`, pass `A.data`")
        return None
    buf = pointer.buffer
    if buf.dtype.nbytes != dtype.nbytes:
        st.diags.error("E0526", f"a tensor map of {dtype} elements over `{buf.name}`, which holds {buf.dtype}",
                       args[1].span)
        return None
    fields = args[4:]
    dims = [_host_int(st, e, "an extent of a tensor map") for e in fields[:rank]]
    strides = [_host_int(st, e, "a stride of a tensor map") for e in fields[rank:2 * rank - 1]]
    consts = [expr.const_int(st, e, "a tensor map's box size, element stride and enumerations")
              for e in fields[2 * rank - 1:]]
    if any(x is None for x in dims + strides + consts):
        return None
    box, element_strides = consts[:rank], consts[rank:2 * rank]
    interleave, swizzle, l2, oob = consts[2 * rank:2 * rank + 4]
    forced = consts[2 * rank + 4] if len(consts) > 2 * rank + 4 else None
    at = fields[2 * rank - 1:]
    ok = _check_fields(st, dtype, box, element_strides, (interleave, swizzle, l2, oob, forced), at, rank)
    for stride, e in zip(strides, fields[rank:]):
        if isinstance(stride, ir.IntImm) and stride.value % tma.GLOBAL_ALIGN:
            st.diags.error("E0526", f"a tensor map's stride is {stride.value} bytes; strides are multiples of "
                                    f"{tma.GLOBAL_ALIGN}", e.span)
            ok = False
    if not ok:
        return None
    slot.spec = ir.TensorMapSpec(buf, data_type if forced is None or forced < 0 else forced, tuple(dims),
                                 tuple(strides), tuple(box), tuple(element_strides), interleave, swizzle, l2, oob,
                                 node.span)
    return slot.spec


def _check_fields(st, dtype, box, element_strides, enums, at, rank) -> bool:
    interleave, swizzle, l2, oob, forced = enums
    ok = True
    for i, size in enumerate(box):
        if not 1 <= size <= tma.MAX_BOX:
            st.diags.error("E0526", f"a tensor map's box is 1 to {tma.MAX_BOX} elements per dimension, not "
                                    f"{size}", at[i].span)
            ok = False
    for i, stride in enumerate(element_strides):
        if not 1 <= stride <= tma.MAX_ELEMENT_STRIDE:
            st.diags.error("E0526", f"a tensor map's element stride is 1 to {tma.MAX_ELEMENT_STRIDE}, not "
                                    f"{stride}", at[rank + i].span)
            ok = False
    names = ("interleave", "swizzle", "L2 promotion", "out-of-bounds fill")
    for value, allowed, name, node in zip((interleave, swizzle, l2, oob),
                                          (tma.INTERLEAVES, tma.SWIZZLE_BYTES, tma.L2_PROMOTIONS, tma.OOB_FILLS),
                                          names, at[2 * rank:]):
        if value not in allowed:
            st.diags.error("E0526", f"a tensor map's {name} is one of {', '.join(map(str, allowed))}, not {value}",
                           node.span)
            ok = False
    if forced is not None and forced != -1 and forced not in tma.FORCED_DATA_TYPES:
        st.diags.error("E0526", f"a forced tensor-map data type is -1 or 0 to 15, not {forced}", at[-1].span)
        ok = False
    if not ok:
        return False
    inner = box[0] * dtype.nbytes
    if interleave == 0 and inner % tma.GLOBAL_ALIGN:
        st.diags.error("E0526", f"a tensor map's inner box is {inner} bytes ({box[0]} elements); without "
                                f"interleave it must be a multiple of {tma.GLOBAL_ALIGN} bytes", at[0].span)
        return False
    span_bytes = tma.SWIZZLE_BYTES[swizzle]
    if span_bytes and interleave == 0 and inner > span_bytes:
        st.diags.error("E0526", f"a tensor map's inner box is {inner} bytes, more than its {span_bytes}-byte "
                                f"swizzle span", at[0].span,
                       help=f"make the inner box {span_bytes // dtype.nbytes} elements or fewer, and load the "
                            f"rest of the tile with more copies")
        return False
    return True


def _host_int(st, node, what: str):
    """An extent or stride: an integer the launcher computes from the arguments."""
    val = expr.elab(st, node)
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
        return ir.IntImm(INT32, val.value) if -(1 << 31) <= val.value < (1 << 31) else \
            ir.IntImm(UINT64, val.value)
    if isinstance(val, ir.Expr) and val.dtype.is_int and val.dtype.lanes == 1:
        return val
    if val is not POISON:
        st.diags.error("E0526", f"{what} is an integer", node.span)
    return None


def address(st, slot: TensorMapSlot, span) -> ir.Expr:
    """`T.address_of(A_map)`: the map's generic address, as the uint64 the TMA instructions take."""
    return ir.Cast(UINT64, ir.BufferAddress(HANDLE, slot.buffer, None, span), span)


def params(st) -> list[ir.Param]:
    """The tensor-map parameters, in the order of their allocations; each must be encoded."""
    out = []
    for slot in st.tensor_maps:
        if slot.caller:
            out.append(ir.Param(slot.c_name, ParamKind.TENSOR_MAP, UINT64, None, slot.span))
            continue
        if slot.spec is None:
            if slot.encoded_at is None:
                st.diags.error("E0526", f"tensor map `{slot.name}` is never encoded", slot.span,
                               help=f"encode it before `T.device_entry()`: `T.call_packed(\"{ENCODE}\", "
                                    f"{slot.name}, dtype, rank, A.data, ...)`")
            continue
        out.append(ir.Param(slot.c_name, ParamKind.TENSOR_MAP, UINT64, None, slot.span, tensor_map=slot.spec))
    return out


def is_allocation(value) -> bool:
    return isinstance(value, _Allocation)


def is_type(value) -> bool:
    return value is TENSOR_MAP_TYPE

