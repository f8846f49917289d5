"""The checks of a launch (transpiler/ir/launch_checks.py), decided once for every host from the
launch description: which checks a kernel's parameters need, in the order a host makes them,
with the operands their messages name."""
from __future__ import annotations

from transpiler.ir.launch import UNSUPPORTED_STRIDES, KernelLaunch, LaunchParam, ParamKind, dim, where
from transpiler.ir.launch_checks import Check, CheckKind
from transpiler.target import tma
from transpiler.target.arch import INDEX_LIMIT, MAX_GRID, STATIC_SHARED_LIMIT, arch_name

K = CheckKind


def launch_checks(launch: KernelLaunch) -> tuple[Check, ...]:
    """Every check of one kernel's launch: the arguments in the order a caller passes them, the
    extents, workspaces, grid, tensor maps, the pairs that must not overlap, the device."""
    kernel = launch.name
    by_c = {p.c_name: p for p in launch.params}
    out = [Check(K.ARGUMENTS, "count", "", (("kernel", kernel), ("count", len(launch.args)),
                                            ("names", ", ".join(by_c[c].name for c in launch.args))))]
    for c_name in launch.args:
        p = by_c[c_name]
        if p.kind is ParamKind.BUFFER:
            out += _buffer(kernel, p)
        elif p.kind is ParamKind.SCALAR:
            out += _scalar(kernel, p)
    for p in launch.of_kind(ParamKind.EXTENT):
        named = (("kernel", kernel), ("extent", p.name), ("limit", INDEX_LIMIT))
        out += [Check(K.EXTENT, case, p.c_name, named) for case in ("range", "limit", "agree")]
    for p in launch.of_kind(ParamKind.WORKSPACE):
        named = (("kernel", kernel), ("arg", p.name))
        out += [_computable(kernel, p.c_name, "shape", f"the shape of workspace '{p.name}'"),
                Check(K.WORKSPACE, "negative", p.c_name, named),
                Check(K.WORKSPACE, "count", p.c_name, named + (("most", INDEX_LIMIT + 1),))]
    out += [_computable(kernel, "", "grid", "the grid"),
            Check(K.GRID, "limits", "", (("kernel", kernel), ("limits", MAX_GRID)))]
    if launch.cluster:
        out.append(Check(K.CLUSTER, "divides", "", (("kernel", kernel), ("cluster", tuple(launch.cluster)))))
    for p in launch.of_kind(ParamKind.TENSOR_MAP):
        if p.tensor_map is not None:
            out += _tensor_map(kernel, p, by_c)
    for first, second in launch.overlaps:
        a, b = by_c[first], by_c[second]
        written = " and ".join(repr(q.name) for q in (a, b) if not q.readonly)
        out.append(Check(K.OVERLAP, "shared", first, (("kernel", kernel), ("other", second), ("first", a.name),
                                                       ("second", b.name), ("written", written))))
    out.append(Check(K.ARCHITECTURE, "device", "", (("kernel", kernel), ("min_arch", launch.min_arch),
                                                     ("arch", arch_name(launch.min_arch, launch.arch_suffix)))))
    total = launch.static_shared_bytes + launch.dynamic_shared_bytes
    if launch.cooperative is not None:
        threads = launch.block[0] * launch.block[1] * launch.block[2]
        out.append(Check(K.COOPERATIVE, "resident", "", (
            ("kernel", kernel), ("where", where(launch.cooperative)), ("threads", threads),
            ("shared", total))))
    if total > STATIC_SHARED_LIMIT:
        out.append(Check(K.SHARED_MEMORY, "optin", "", (
            ("kernel", kernel), ("total", total), ("static", launch.static_shared_bytes),
            ("dynamic", launch.dynamic_shared_bytes))))
    return tuple(out)


def _computable(kernel: str, subject: str, of: str, what: str) -> Check:
    return Check(K.HOST_VALUE, "computable", subject, (("kernel", kernel), ("of", of), ("what", what)))


def _scalar(kernel: str, p: LaunchParam) -> list[Check]:
    element = p.element
    named = (("kernel", kernel), ("arg", p.name), ("dtype", element.dtype))
    out = [Check(K.SCALAR, "kind", p.c_name, named)]
    if p.kind is ParamKind.SCALAR and element.typestr[0] in "iu":
        if element.scalar:
            wanted, room = f"an integer ({element.dtype})", element.dtype
        else:
            room = f"an unsigned {int(element.typestr[1:]) * 8}-bit integer"
            wanted = f"the bits of a {element.dtype} as {room}"
        out += [Check(K.SCALAR, "integer", p.c_name, named + (("wanted", wanted),)),
                Check(K.SCALAR, "range", p.c_name, named + (("room", room),))]
    return out


def _buffer(kernel: str, p: LaunchParam) -> list[Check]:
    element, name = p.element, p.name
    named = (("kernel", kernel), ("arg", name))
    out = []
    if element.refused:
        out.append(Check(K.DTYPE, "refused", p.c_name, named + (("dtype", element.dtype),)))
    if not p.readonly:
        out.append(Check(K.READONLY, "written", p.c_name, named))
    declared = [entry if isinstance(entry, (int, str)) else "expr" for entry in map(dim, p.shape)]
    declared = "(" + ", ".join(map(str, declared)) + ("," if len(declared) == 1 else "") + ")"
    out += [Check(K.SHAPE, "rank", p.c_name, named + (("rank", len(p.shape)), ("declared", declared))),
            _computable(kernel, p.c_name, "shape", f"the shape of argument '{name}'"),
            Check(K.SHAPE, "negative", p.c_name, named),
            Check(K.SHAPE, "mismatch", p.c_name, named),
            Check(K.DTYPE, "typestr", p.c_name, named + (("dtype", element.dtype), ("typestr", element.typestr)))]
    if p.strides == UNSUPPORTED_STRIDES:
        return out + [Check(K.STRIDES, "unsupported", p.c_name, named)]
    if p.strides is not None:
        out.append(_computable(kernel, p.c_name, "strides", f"the strides of argument '{name}'"))
    layout = "contiguous (C order)" if p.strides is None else "the strides its layout implies"
    out += [Check(K.STRIDES, "count", p.c_name, named),
            Check(K.STRIDES, "mismatch", p.c_name, named + (("layout", layout),))]
    if p.strides is not None:
        out.append(Check(K.STRIDES, "contiguous", p.c_name, named))
    out += [Check(K.INDEX_LIMIT, "reach", p.c_name, named + (("limit", INDEX_LIMIT), ("offset", p.offset))),
            Check(K.NULL_POINTER, "elements", p.c_name, named),
            Check(K.ALIGNMENT, "pointer", p.c_name, named + (("align", p.align),
                                                            ("offset_bytes", p.offset * element.itemsize)))]
    return out


def _tensor_map(kernel: str, p: LaunchParam, by_c: dict) -> list[Check]:
    tm = p.tensor_map
    named = (("kernel", kernel), ("map", p.name))
    return [_computable(kernel, p.c_name, "extents", f"the extents of tensor map '{p.name}'"),
            _computable(kernel, p.c_name, "strides", f"the strides of tensor map '{p.name}'"),
            Check(K.TENSOR_MAP, "extent", p.c_name, named + (("max_dim", tma.MAX_DIM),)),
            Check(K.TENSOR_MAP, "stride", p.c_name, named + (("align", tma.GLOBAL_ALIGN),
                                                             ("max_stride", tma.MAX_STRIDE))),
            Check(K.TENSOR_MAP_REACH, "array", p.c_name, named + (("arg", tm.buffer), ("bits", tm.element_bits))),
            Check(K.TENSOR_MAP, "align", p.c_name, named + (("arg", tm.buffer), ("align", tma.GLOBAL_ALIGN)))]
