"""The C++ host interface: a header (`tirxc k.tx --header k.h`) and host code appended to the
`.cu`, with one typed entry point per kernel (docs/cpp.md; the design in docs/design.md).

Per kernel `k` of module `m` (the header's file stem), in namespace `tirxc::m`:

    cudaError_t k_launch_config(args..., extents..., tirxc::launch_config* config);  // header, inline
    size_t k_workspace_bytes(args..., extents...);         // header, inline; kernels with workspaces
    cudaError_t k(args..., extents..., [void* workspace, size_t workspace_bytes,] cudaStream_t stream = 0);

The arguments are the kernel's in the .tx file's order (a buffer as a pointer to its element
(0, ..., 0), a scalar by value), then its symbolic extents in the order of the kernel's C
parameters. Everything the CuPy launcher computes before a launch comes from the same
LaunchSpec, through the same host expressions (codegen/cpp_expr.py mirrors py_expr), and is
checked in the same order with the same words (transpiler/runtime/launch.py): extents, each
buffer's shape, index limit, NULL pointer and alignment, workspace sizes, the grid. The entry
point adds what needs the device or the pointers together: overlap of written buffers, the
architecture and shared memory of the current device (once per device), the workspace, the
launch (cudaLaunchKernel; a kernel launched in clusters has them as `__cluster_dims__`).
"""
from __future__ import annotations

import re

from transpiler import __version__
from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.codegen.cpp_expr import cpp_expr, value_type, variables
from transpiler.codegen.host_cpp_checks import c_text as _c_text, render
from transpiler.codegen.cuda import c_comment, c_string
from transpiler.codegen.jinja import environment
from transpiler.codegen.launcher import HostExprError
from transpiler.ir.launch import UNSUPPORTED_STRIDES
from transpiler.ir.program import Program
from transpiler.target import cnames, tma
from transpiler.target.arch import STATIC_SHARED_LIMIT
from transpiler.target.dtypes import FIXED_WIDTH_CPP, c_type, header as dtype_header

HOST_KINDS = (ParamKind.BUFFER, ParamKind.SCALAR, ParamKind.EXTENT, ParamKind.WORKSPACE,
              ParamKind.TENSOR_MAP)  # the parameter kinds served
WORKSPACE_ALIGN = 256  # each workspace's offset in the caller's allocation (cudaMalloc's alignment)
# Names the generated functions use inside the module's namespace: a parameter must not hide them
# (the parameters of the entry points and of `detail::<kernel>_prepare`, the namespaces named
# unqualified). The generated code's own locals start with `tirx_`, which no source name keeps.
_INSIDE = frozenset({"detail", "tirxc", "std", "config", "plan", "stream", "workspace", "workspace_bytes",
                     "last_error", "extents",
                     # the lower-case macros of the headers the host code includes beyond the .cu's
                     "va_start", "va_end", "va_arg", "va_copy", "getc", "putc", "getchar", "putchar"})
# What the `tirxc` namespace itself declares, which a module's namespace must not be named
_TIRXC_NAMES = frozenset({"launch_config"})


class UnsupportedHost(ValueError):
    """A kernel the C++ host interface cannot serve yet (E0800), located at `span`."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span


def module_name(stem: str) -> str:
    """The C++ namespace (inside `tirxc`) of a module: its file stem as a safe identifier."""
    name = re.sub(r"\W", "_", cnames.ascii_name(stem)) or "kernels"
    if name[0].isdigit():
        name = "m" + name
    return cnames.c_name(name, _INSIDE | _TIRXC_NAMES)


def header_guard(module: str) -> str:
    """The include guard of a module's header, one per module name: `TIRXC_SAXPY_H_` for
    `saxpy`; a name with a capital keeps its case and ends `_h_` (a lowercase letter no guard of
    the first form has), so `Saxpy` and `SAXPY` get guards of their own."""
    if module == module.lower():
        return f"TIRXC_{module.upper()}_H_"
    return f"TIRXC_{module}_h_"


def api_type(dtype) -> str:
    """The C++ type of a scalar argument or an extent in the interface: <cstdint>'s fixed-width
    names for integers, else the kernel's C type (float, double, half ...)."""
    fixed = FIXED_WIDTH_CPP.get(dtype.name)
    return f"::std::{fixed}" if fixed else c_type(dtype)


class _Names:
    """Unique C++ names in one scope: source names made safe (cnames), `_`-suffixed on clashes."""

    def __init__(self, taken=()):
        self.taken = set(taken)

    def fresh(self, name: str) -> str:
        out = cnames.c_name(name, _INSIDE | self.taken)
        while out in self.taken:
            out += "_"
        self.taken.add(out)
        return out


def kernel_host_data(spec: ir.LaunchSpec, launch, entry: str) -> dict:
    """One kernel's entry point as plain data for the templates; each argument's `launch` is its
    parameter in the launch description (ir/launch.py), which says what the host checks."""
    for p in spec.params:
        if p.kind not in HOST_KINDS:
            raise UnsupportedHost(f"the C++ host interface does not support the {p.kind.value} parameter `{p.name}` of "
                                  f"`{spec.name}` yet", p.span if p.span is not ir.NOWHERE else spec.span)
    names = _Names({f"{entry}_plan"})  # the type of `detail::<entry>_prepare`'s last parameter
    by_c = {p.name: p for p in spec.params}
    args = []  # the interface's arguments, in order
    for c_name in spec.arg_order:
        p = by_c[c_name]
        if p.kind is ParamKind.TENSOR_MAP and p.tensor_map is not None:
            continue  # encoded by the entry point from the buffer it maps
        source = p.buffer.name if p.kind is ParamKind.BUFFER else p.name
        args.append({"param": p, "launch": launch.param(c_name), "name": names.fresh(source), "source": source})
    for p in spec.params:
        if p.kind is ParamKind.EXTENT:
            args.append({"param": p, "launch": launch.param(p.name), "name": names.fresh(p.name), "source": p.name})
    for a in args:
        p = a["param"]
        if p.kind is ParamKind.BUFFER:
            const = "const " if a["launch"].readonly else ""
            a["decl"] = f"{const}{c_type(p.buffer.dtype)}* {a['name']}"
        elif p.kind is ParamKind.TENSOR_MAP:  # a map the caller encodes: the address of its 128 bytes
            a["decl"] = f"const void* {a['name']}"
        else:
            a["decl"] = f"{api_type(p.dtype)} {a['name']}"
    cluster = spec.cluster or None
    if cluster is not None:
        cluster = tuple(c.value if isinstance(c, ir.IntImm) else c for c in cluster)
        if not all(isinstance(c, int) and c > 0 for c in cluster):
            raise UnsupportedHost(f"the C++ host interface needs constant cluster dimensions (`{spec.name}`)",
                                  spec.span)
        cluster = tuple(cluster) + (1,) * (3 - len(cluster))
    data = {
        "name": spec.name, "entry": entry, "symbol": spec.symbol, "args": args,
        "workspaces": [p for p in spec.params if p.kind is ParamKind.WORKSPACE],
        "tensor_maps": [p for p in spec.params if p.kind is ParamKind.TENSOR_MAP and p.tensor_map is not None],
        "cluster": cluster, "span": spec.span, "launch": launch,
    }
    data["prepare"] = _prepare_body(spec, launch, args, data["workspaces"], cluster, data["tensor_maps"])
    return data


def _prepare_body(spec, launch, args, workspaces, cluster, tensor_maps) -> list[str]:
    """The statements of `detail::<entry>_prepare`: the launch description's checks that need
    no device, in its order, and the launch configuration."""
    k = spec.name
    out = []
    vars_needed = {}
    host_exprs = list(spec.grid) + [e for ws in workspaces for e in ws.buffer.shape]
    host_exprs += [e for p in tensor_maps for e in p.tensor_map.dims + p.tensor_map.strides]
    for a in args:
        p = a["param"]
        if p.kind is ParamKind.BUFFER:
            host_exprs += list(p.buffer.shape)
            if p.buffer.layout is not None:
                host_exprs += [it.stride for it in p.buffer.layout.shard]
    by_c = {a["param"].name: a for a in args}
    local = {}
    for var in variables(host_exprs):
        a = by_c.get(var.name)
        if a is None:
            raise UnsupportedHost(f"the C++ host interface cannot compute `{var.name}` before launching `{k}`",
                                  spec.span)
        local[var.name] = f"tirx_v_{a['name']}"
        vars_needed[var.name] = (a, var.dtype)
    used = set(local)
    for a in args:
        p = a["param"]
        if p.kind is not ParamKind.BUFFER and p.name not in used:
            out.append(f"static_cast<void>({a['name']});")
    out.append("if (config == nullptr) return detail::fail(::cudaErrorInvalidValue, "
               f"\"{_c_text(k)}(): the launch configuration's pointer is NULL\");")
    out.append("detail::arith tirx_ar;")
    # extents: what the launcher infers from array shapes is never negative nor above the index limit
    for a in args:
        p = a["param"]
        if p.kind is ParamKind.EXTENT:
            out += render(launch.check("extent.range", p.name), {"name": a["name"], "dtype": p.dtype})
    for name, (a, dtype) in vars_needed.items():
        out.append(f"const {value_type(dtype)} {local[name]} = static_cast<{value_type(dtype)}>({a['name']});")
    buffers = [a for a in args if a["param"].kind is ParamKind.BUFFER]
    mapped = {p.tensor_map.buffer.name for p in tensor_maps}
    held = {}  # the bytes each mapped array holds from its buffer's start (a tensor map's reach is checked against)
    start = {}  # and where its buffer starts, the address the map is encoded for
    for index, a in enumerate(buffers):
        if a["param"].buffer.name in mapped:
            held[a["param"].buffer.name] = f"tirx_held{index}"
            back = a["launch"].offset * a["launch"].element.itemsize
            start[a["param"].buffer.name] = a["name"] if not back else \
                f"(reinterpret_cast<const char*>({a['name']}) - {back})"
            out.append(f"long long tirx_held{index} = 0;")
        out += _buffer_checks(launch, a, index, local, held.get(a["param"].buffer.name))
    # workspaces
    sizes = []
    for index, p in enumerate(workspaces):
        out += _workspace_checks(launch, p, index, local)
        sizes.append(f"tirx_w{index}")
    # the grid
    grid = []
    for axis, e in enumerate(spec.grid):
        text = _host(e, local, f"the grid of `{k}`", spec.span)
        out.append(f"const {value_type(e.dtype)} tirx_g{axis} = {text};")
        grid.append(f"tirx_g{axis}")
    out += render(launch.check("host_value.computable", "", "grid"), {})
    out += render(launch.check("grid.limits"), {"grid": grid})
    if cluster is not None:
        out += render(launch.check("cluster.divides"), {"grid": grid})
    for axis, g in enumerate(grid):
        out.append(f"config->grid[{axis}] = static_cast<unsigned int>({g});")
    for axis, e in enumerate(spec.block):
        out.append(f"config->block[{axis}] = {e.value}u;")
    for axis, c in enumerate(cluster or (1, 1, 1)):
        out.append(f"config->cluster[{axis}] = {c}u;")
    for index, p in enumerate(tensor_maps):  # for a launch and launch_config, as the CuPy launcher checks them
        out += _tensor_map_checks(launch, p, index, local, held[p.tensor_map.buffer.name],
                                  start[p.tensor_map.buffer.name])
    # the buffers that must not overlap (the launch description's pairs), in the launcher's slot order
    slot = {a["param"].name: i for i, a in enumerate(buffers)}
    for first, second in launch.overlaps:
        check = next(c for c in launch.checks if c.key == "overlap.shared" and c.subject == first
                     and c.operand("other") == second)
        out += render(check, {"first": slot[first], "second": slot[second]})
    out.append(f"config->shared_bytes = {spec.dynamic_shared_bytes}u;")
    total = " + ".join(f"detail::round_up({s})" for s in sizes) if sizes else "0u"
    out.append(f"config->workspace_bytes = {total};")
    out.append("return ::cudaSuccess;")
    return out


def _host(e: ir.Expr, local: dict, what: str, span) -> str:
    try:
        return cpp_expr(e, local)
    except HostExprError as err:
        raise HostExprError(f"the launcher cannot compute {what} before the launch: {err}", err.span or span) \
            from None


def _dims(exprs, prefix: str, local: dict, what: str, span) -> tuple[list[str], list[str]]:
    """Statements computing each of `exprs` into `<prefix><i>`, and those names."""
    out, names = [], []
    for i, e in enumerate(exprs):
        name = f"{prefix}{i}"
        out.append(f"const {value_type(e.dtype)} {name} = {_host(e, local, what, span)};")
        names.append(name)
    return out, names


def _buffer_checks(launch, a: dict, index: int, local: dict, held: str | None = None) -> list[str]:
    """One buffer argument's checks; with `held`, the variable that gets the bytes the array holds
    from its buffer's start (0 when its elements start after it), for the tensor map over it."""
    p = a["param"]
    buf = p.buffer
    name = a["name"]
    shape_exprs = list(buf.shape)
    rank = len(shape_exprs)
    body, dims = _dims(shape_exprs, "tirx_d", local, f"the shape of `{buf.name}`", buf.span)
    body += render(launch.check("host_value.computable", p.name, "shape"), {})
    body += render(launch.check("shape.negative", p.name), {"dims": dims})
    described = a["launch"]
    strides = described.strides
    if strides == UNSUPPORTED_STRIDES:
        body += render(launch.check("strides.unsupported", p.name), {})
        return ["{"] + ["  " + s for s in body] + ["}"]
    if strides is None:  # row-major: elements
        if rank:
            body.append(f"const long long tirx_s{rank - 1} = 1;")
        for i in range(rank - 2, -1, -1):
            step = f"detail::index_step(0, tirx_s{i + 1}, detail::wide({dims[i + 1]}))"
            body.append(f"const long long tirx_s{i} = {step};")
    else:
        more, snames = _dims(strides, "tirx_t", local, f"the strides of `{buf.name}`", buf.span)
        body += more
        body += render(launch.check("host_value.computable", p.name, "strides"), {})
        for i, s in enumerate(snames):
            body.append(f"const long long tirx_s{i} = detail::wide({s});")
    body = [s for s in body if s]
    offset = described.offset
    itemsize = described.element.itemsize
    nonempty = " && ".join(f"{d} != 0" for d in dims) or "true"
    body.append(f"const bool tirx_nonempty = {nonempty};")
    body.append("if (tirx_nonempty) {")
    inner = [f"long long tirx_last = {offset};"]
    for i, d in enumerate(dims):
        inner.append(f"tirx_last = detail::index_step(tirx_last, detail::wide({d}) - 1, tirx_s{i});")
    for key in ("index_limit.reach", "null_pointer.elements", "alignment.pointer"):
        inner += render(launch.check(key, p.name), {"dims": dims, "name": name})
    low = " + ".join(f"(tirx_s{i} < 0 ? (detail::wide({d}) - 1) * tirx_s{i} : 0)" for i, d in enumerate(dims)) or "0"
    high = " + ".join(f"(tirx_s{i} > 0 ? (detail::wide({d}) - 1) * tirx_s{i} : 0)" for i, d in enumerate(dims)) or "0"
    count = " * ".join(f"detail::wide({d})" for d in dims) or "1"
    bounds = f"const long long tirx_low = ({low}) * {itemsize}, tirx_high = ({high} + 1) * {itemsize};"
    if held is not None:  # the map starts at the buffer's start, `back` bytes before the array's pointer
        back = offset * itemsize
        inner += [bounds, f"{held} = tirx_high;" if not back else
                  f"{held} = tirx_low <= -{back} && -{back} < tirx_high ? tirx_high + {back} : 0;"]
    inner.append("if (plan != nullptr) {")
    inner += ([f"  {bounds}"] if held is None else []) + [
              f"  const ::std::uintptr_t tirx_at = reinterpret_cast<::std::uintptr_t>({name});",
              f"  plan->extents[{index}].low = tirx_at + static_cast<::std::uintptr_t>(tirx_low);",
              f"  plan->extents[{index}].high = tirx_at + static_cast<::std::uintptr_t>(tirx_high);",
              f"  plan->extents[{index}].dense = tirx_high - tirx_low == {count} * {itemsize};",
              "}"]
    body += ["  " + s for s in inner]
    body.append("} else if (plan != nullptr) {")
    body.append(f"  plan->extents[{index}] = detail::extent{{0, 0, true}};")
    body.append("}")
    use = "read" if described.readonly else "written"
    return [f"// argument '{_comment(a['source'])}': {buf.dtype.name}, {use}", "{"] \
        + ["  " + s for s in body] + ["}"]


def _workspace_checks(launch, p, index: int, local: dict) -> list[str]:
    buf = p.buffer
    dims_body, dims = _dims(list(buf.shape), "tirx_d", local, f"the shape of workspace `{buf.name}`", buf.span)
    body = dims_body + render(launch.check("host_value.computable", p.name, "shape"), {})
    body += render(launch.check("workspace.negative", p.name), {"dims": dims})
    count = "1"
    for d in dims:
        count = f"detail::index_step(0, {count}, detail::wide({d}))"
    body.append(f"const long long tirx_count = {count};")
    body += render(launch.check("workspace.count", p.name), {"dims": dims})
    body.append(f"tirx_w{index} = static_cast<::std::size_t>(tirx_count) * {buf.dtype.nbytes}u;")
    body.append(f"if (plan != nullptr) plan->workspaces[{index}] = tirx_w{index};")
    return [f"// workspace '{_comment(buf.name)}': {buf.dtype.name}", f"::std::size_t tirx_w{index} = 0;", "{"] \
        + ["  " + s for s in body] + ["}"]


def _tensor_map_checks(launch, p, index: int, local: dict, held: str, start: str) -> list[str]:
    """The fields of one tensor map for these arguments, checked as the launch description says
    (its reach against `held`, the bytes its array holds; `start`, the address it is encoded for),
    into the plan when there is one."""
    tm = p.tensor_map
    body, dims = _dims(list(tm.dims), "tirx_d", local, f"the extents of tensor map `{p.name}`", tm.span)
    body += render(launch.check("host_value.computable", p.name, "extents"), {})
    more, strides = _dims(list(tm.strides), "tirx_t", local, f"the strides of tensor map `{p.name}`", tm.span)
    body += more
    body += render(launch.check("host_value.computable", p.name, "strides"), {})
    body += render(launch.check("tensor_map.extent", p.name), {"dims": dims})
    body += render(launch.check("tensor_map.stride", p.name), {"strides": strides})
    body += render(launch.check("tensor_map_reach.array", p.name), {"dims": dims, "strides": strides, "held": held})
    body += render(launch.check("tensor_map.align", p.name), {"address": start})
    body.append("if (plan != nullptr) {")
    for i, d in enumerate(dims):
        body.append(f"  plan->map_dims[{index}][{i}] = static_cast<unsigned long long>({d});")
    for i, t in enumerate(strides):
        body.append(f"  plan->map_strides[{index}][{i}] = static_cast<unsigned long long>({t});")
    body.append("}")
    return [f"// tensor map '{_comment(p.name)}' of argument '{_comment(tm.buffer.name)}'", "{"] \
        + ["  " + x for x in body] + ["}"]


def _comment(text: str) -> str:
    return c_comment(text)


def _entry_names(program: Program) -> list[str]:
    """Each kernel's entry-point name, unique with its `_launch_config` and `_workspace_bytes`."""
    taken = {"last_error", "detail"}
    out = []
    for lk in program.kernels:
        name = cnames.c_name(lk.spec.name, _INSIDE | taken)
        while {name, f"{name}_launch_config", f"{name}_workspace_bytes"} & taken:
            name += "_"
        taken |= {name, f"{name}_launch_config", f"{name}_workspace_bytes"}
        out.append(name)
    return out


def host_data(program: Program) -> list[dict]:
    return [kernel_host_data(lk.spec, lk.launch, entry) for lk, entry in zip(program.kernels, _entry_names(program))]


def _api_headers(kernels) -> list[str]:
    out = []
    for k in kernels:
        for a in k["args"]:
            p = a["param"]
            dtype = p.buffer.dtype if p.kind is ParamKind.BUFFER else p.dtype
            h = dtype_header(dtype)
            if h and h not in out:
                out.append(h)
    return out


def render_header(program: Program, module: str) -> str:
    """The header: the launch_config struct, the module's helpers and last_error, each kernel's
    launch_config (and workspace_bytes) defined inline, each entry point declared."""
    kernels = host_data(program)
    parts = []
    for k in kernels:
        parts.append(_kernel_header(k))
    return environment().get_template("host.h.j2").render(
        version=__version__, source=c_comment(program.file_name), guard=header_guard(module), module=module,
        headers=_api_headers(kernels), body="\n".join(parts))


def _signature(k: dict, extra: list[str]) -> str:
    return ", ".join([a["decl"] for a in k["args"]] + extra)


def _call_args(k: dict, extra: list[str]) -> str:
    return ", ".join([a["name"] for a in k["args"]] + extra)


def _kernel_header(k: dict) -> str:
    e = k["entry"]
    lines = ["", f"// ---- {c_comment(k['name'])} " + "-" * max(4, 80 - len(k['name'])), "// Arguments:"]
    for a in k["args"]:
        p = a["param"]
        if p.kind is ParamKind.BUFFER:
            shape = ", ".join(_shape_text(x) for x in p.buffer.shape)
            use = "read" if a["launch"].readonly else "written"
            comma = "," if len(p.buffer.shape) == 1 else ""
            lines.append(f"//   {a['name']}: {p.buffer.dtype.name} buffer of shape ({shape}{comma}), {use}")
        elif p.kind is ParamKind.EXTENT:
            lines.append(f"//   {a['name']}: symbolic extent ({p.dtype.name})")
        else:
            lines.append(f"//   {a['name']}: {p.dtype.name} scalar")
    count = sum(1 for a in k["args"] if a["param"].kind is ParamKind.BUFFER)
    lines.append("namespace detail {")
    members = []
    if count:
        members.append(f"extent extents[{count}];  // each buffer argument's bytes")
    if k["workspaces"]:
        members.append(f"::std::size_t workspaces[{len(k['workspaces'])}];  // each workspace's bytes")
    if k["tensor_maps"]:
        members.append(f"unsigned long long map_dims[{len(k['tensor_maps'])}][5];  // each tensor map's extents")
        members.append(f"unsigned long long map_strides[{len(k['tensor_maps'])}][4];  // and byte strides")
    lines.append(f"// What {e}() needs beyond the launch configuration.")
    lines.append(f"struct {e}_plan {{")
    lines += ["  " + m for m in members or ["char unused;"]]
    lines.append("};")
    lines.append("")
    signature = _signature(k, ["::tirxc::launch_config* config", f"{e}_plan* plan"])
    lines.append(f"inline ::cudaError_t {e}_prepare({signature}) noexcept {{")
    if not members:
        lines.append("  static_cast<void>(plan);")
    lines += ["  " + s for s in k["prepare"]]
    lines += ["}", "}  // namespace detail", ""]
    lines.append("// The grid, block, shared memory and workspace of a launch with these arguments, after the")
    lines.append("// checks the launch makes that need no device; cudaErrorInvalidValue and last_error() if one fails.")
    signature = _signature(k, ["::tirxc::launch_config* config"])
    lines.append(f"inline ::cudaError_t {e}_launch_config({signature}) noexcept {{")
    if k["launch"].overlaps:  # the plan gets the arrays' extents, which the overlap checks compare
        lines.append(f"  detail::{e}_plan tirx_plan;")
        lines.append(f"  return detail::{e}_prepare({_call_args(k, ['config', '&tirx_plan'])});")
    else:
        lines.append(f"  return detail::{e}_prepare({_call_args(k, ['config', 'nullptr'])});")
    lines.append("}")
    extra = ["::cudaStream_t stream = 0"]
    if k["workspaces"]:
        lines.append("")
        lines.append("// The bytes of global workspace a launch with these arguments needs (SIZE_MAX if the")
        lines.append("// arguments are refused: last_error() says why).")
        lines.append(f"inline ::std::size_t {e}_workspace_bytes({_signature(k, [])}) noexcept {{")
        lines.append("  ::tirxc::launch_config config;")
        lines.append(f"  return detail::{e}_prepare({_call_args(k, ['&config', 'nullptr'])}) == ::cudaSuccess "
                     f"? config.workspace_bytes : static_cast<::std::size_t>(-1);")
        lines.append("}")
        extra = ["void* workspace", "::std::size_t workspace_bytes"] + extra
    lines.append("")
    lines.append("// Checks the arguments and launches on `stream`; cudaSuccess, or the error (last_error() says why).")
    lines.append(f"::cudaError_t {e}({_signature(k, extra)}) noexcept;")
    return "\n".join(lines)


def _shape_text(e) -> str:
    if isinstance(e, ir.IntImm):
        return str(e.value)
    if isinstance(e, ir.Var):
        return e.name
    return "expr"


def render_host(program: Program, module: str, header_include: str, cuda: str,
                cu_name: str | None = None) -> str:
    """The host code appended to the .cu: each entry point, compiled by nvcc with the kernels."""
    kernels = host_data(program)
    parts = [_kernel_entry(k, program) for k in kernels]
    undefine = [name for name in ("int64_t", "uint64_t") if f"#define {name} " in cuda]
    tensor_maps = any(k["tensor_maps"] for k in kernels)
    text = "\n" + environment().get_template("host.cu.j2").render(
        module=module, header=c_string(header_include), body="\n".join(parts), undefine=undefine,
        tensor_maps=tensor_maps, map_bytes=tma.BYTES,
        line="#line @LINE@" if "\n#line " in cuda and cu_name else None)
    if "#line @LINE@" in text:  # back to the .cu's own lines after the kernels' `#line` directives
        after = cuda.count("\n") + text[:text.index("#line @LINE@")].count("\n") + 2
        text = text.replace("#line @LINE@", f"#line {after} {c_string(cu_name)}", 1)
    return text


def _kernel_entry(k: dict, program: Program) -> str:
    e, name = k["entry"], _c_text(k["name"])
    spec = next(lk.spec for lk in program.kernels if lk.spec.name == k["name"])
    launch = k["launch"]
    extra = ["::cudaStream_t stream"]
    if k["workspaces"]:
        extra = ["void* workspace", "::std::size_t workspace_bytes"] + extra
    lines = ["", "namespace detail {",
             f"// Once per device: the architecture, and the shared memory opt-in above {STATIC_SHARED_LIMIT} bytes.",
             f"static ::cudaError_t {e}_setup() noexcept {{",
             "  int device = 0;",
             "  ::cudaError_t status = ::cudaGetDevice(&device);",
             f"  if (status != ::cudaSuccess) return fail(status, \"{name}(): no current CUDA device: %s\", "
             "::cudaGetErrorString(status));",
             "  static ::std::atomic<int> done[max_devices];",
             "  if (device < max_devices && done[device].load(::std::memory_order_acquire)) return ::cudaSuccess;",
             "  int major = 0, minor = 0;",
             "  status = ::cudaDeviceGetAttribute(&major, ::cudaDevAttrComputeCapabilityMajor, device);",
             "  if (status == ::cudaSuccess) status = ::cudaDeviceGetAttribute(&minor, ::cudaDevAttrComputeCapabilityMinor, device);",
             f"  if (status != ::cudaSuccess) return fail(status, \"{name}(): cannot query device %d: %s\", device, "
             "::cudaGetErrorString(status));",
             *["  " + x.replace("detail::fail(", "fail(") for x in render(launch.check("architecture.device"), {})]]
    total = spec.static_shared_bytes + spec.dynamic_shared_bytes
    if total > STATIC_SHARED_LIMIT:
        optin = [x.replace("detail::fail(", "fail(") for x in render(launch.check("shared_memory.optin"), {})]
        lines += [
            "  int optin = 0;",
            "  status = ::cudaDeviceGetAttribute(&optin, ::cudaDevAttrMaxSharedMemoryPerBlockOptin, device);",
            f"  if (status != ::cudaSuccess) return fail(status, \"{name}(): cannot query device %d: %s\", device, "
            "::cudaGetErrorString(status));",
            *["  " + x for x in optin],
            f"  status = ::cudaFuncSetAttribute(reinterpret_cast<const void*>(&::{k['symbol']}), "
            f"::cudaFuncAttributeMaxDynamicSharedMemorySize, {spec.dynamic_shared_bytes});",
            f"  if (status != ::cudaSuccess) return fail(status, \"{name}(): cannot allow {spec.dynamic_shared_bytes} "
            f"bytes of dynamic shared memory: %s\", ::cudaGetErrorString(status));"]
    lines += ["  if (device < max_devices) done[device].store(1, ::std::memory_order_release);",
              "  return ::cudaSuccess;", "}", "}  // namespace detail", ""]
    lines.append(f"::cudaError_t {e}({_signature(k, extra)}) noexcept {{")
    body = ["::tirxc::launch_config tirx_config;"]
    body.append(f"detail::{e}_plan tirx_plan;")
    body.append(f"::cudaError_t tirx_status = detail::{e}_prepare({_call_args(k, ['&tirx_config', '&tirx_plan'])});")
    body.append("if (tirx_status != ::cudaSuccess) return tirx_status;")
    body.append("if (tirx_config.grid[0] == 0 || tirx_config.grid[1] == 0 || tirx_config.grid[2] == 0) "
                "return ::cudaSuccess;  // an empty problem: nothing to launch")
    if k["workspaces"]:
        body += [
            "if (tirx_config.workspace_bytes != 0) {",
            f"  if (workspace == nullptr) return detail::fail(::cudaErrorInvalidValue, \"{name}(): the workspace is "
            "NULL, but the launch needs %zu bytes of it\", tirx_config.workspace_bytes);",
            f"  if (reinterpret_cast<::std::uintptr_t>(workspace) % {WORKSPACE_ALIGN}u != 0) return detail::fail("
            f"::cudaErrorInvalidValue, \"{name}(): the workspace must be {WORKSPACE_ALIGN}-byte aligned, its pointer "
            "is %p\", workspace);",
            f"  if (workspace_bytes < tirx_config.workspace_bytes) return detail::fail(::cudaErrorInvalidValue, "
            f"\"{name}(): the workspace has %zu bytes, but the launch needs %zu ({e}_workspace_bytes)\", "
            "workspace_bytes, tirx_config.workspace_bytes);",
            "}"]
    body.append(f"tirx_status = detail::{e}_setup();")
    body.append("if (tirx_status != ::cudaSuccess) return tirx_status;")
    if k["workspaces"]:
        body += [
            "if (tirx_config.workspace_bytes != 0) {  // every launch starts from zeros, as the CuPy launcher's",
            "  tirx_status = ::cudaMemsetAsync(workspace, 0, tirx_config.workspace_bytes, stream);",
            f"  if (tirx_status != ::cudaSuccess) return detail::fail(tirx_status, \"{name}(): cannot clear the "
            "workspace: %s\", ::cudaGetErrorString(tirx_status));",
            "}"]
    # the kernel's parameters, each in a local of its C type
    args_by_c = {a["param"].name: a for a in k["args"]}
    locals_, maps = [], []
    ws_index = 0
    for i, p in enumerate(spec.params):
        local = f"tirx_p{i}"
        if p.kind is ParamKind.BUFFER:
            a = args_by_c[p.name]
            buf = p.buffer
            described = args_by_c[p.name]["launch"]
            ctype = ("const " if described.readonly else "") + c_type(buf.dtype) + "*"
            back = described.offset * described.element.itemsize
            value = a["name"] if not back else \
                f"reinterpret_cast<{ctype}>(reinterpret_cast<::std::uintptr_t>({a['name']}) - {back}u)"
            body.append(f"{ctype} {local} = {value};")
        elif p.kind is ParamKind.WORKSPACE:
            ctype = c_type(p.buffer.dtype) + "*"
            # an empty workspace is NULL, as the CuPy launcher passes it
            body.append(f"{ctype} {local} = tirx_plan.workspaces[{ws_index}] == 0 ? nullptr : "
                        f"reinterpret_cast<{ctype}>(static_cast<char*>(workspace) + {offset_expr(ws_index)});")
            ws_index += 1
        elif p.kind is ParamKind.TENSOR_MAP and p.tensor_map is None:
            a = args_by_c[p.name]
            body.append(f"if ({a['name']} == nullptr) return detail::fail(::cudaErrorInvalidValue, \"{name}(): argument "
                        f"'{_c_text(a['source'])}' is NULL: pass the address of the {tma.BYTES}-byte CUtensorMap the "
                        f"kernel takes\");")
            body.append(f"::{tma.C_TYPE} {local};")
            body.append(f"::std::memcpy(&{local}, {a['name']}, sizeof {local});")
        elif p.kind is not ParamKind.TENSOR_MAP:
            a = args_by_c[p.name]
            ctype = c_type(p.dtype)
            body.append(f"{ctype} {local} = static_cast<{ctype}>({a['name']});")
        if p.kind is ParamKind.TENSOR_MAP and p.tensor_map is not None:
            maps.append((i, p))
        locals_.append(f"&{local}")
    slot_of = {p.buffer.name: i for i, p in enumerate(spec.params) if p.kind is ParamKind.BUFFER}
    for index, (i, p) in enumerate(maps):
        tm = p.tensor_map
        rank = len(tm.dims)
        body += [f"::{tma.C_TYPE} tirx_p{i};  // tensor map '{_comment(p.name)}', encoded for this launch's address",
                 "{",
                 f"  const unsigned int tirx_box[] = {{{', '.join(f'{b}u' for b in tm.box)}}};",
                 f"  const unsigned int tirx_element_strides[] = {{{', '.join(f'{b}u' for b in tm.element_strides)}}};",
                 f"  tirx_status = detail::encode_tensor_map(&tirx_p{i}, \"{name}(): tensor map '{_c_text(p.name)}'\", "
                 f"{tm.data_type}, {rank}, tirx_p{slot_of[tm.buffer.name]}, "
                 f"tirx_plan.map_dims[{index}], tirx_plan.map_strides[{index}], tirx_box, tirx_element_strides, "
                 f"{tm.interleave}, {tm.swizzle}, {tm.l2_promotion}, {tm.oob_fill});",
                 "  if (tirx_status != ::cudaSuccess) return tirx_status;",
                 "}"]
    if locals_:
        body.append(f"void* tirx_args[] = {{{', '.join(locals_)}}};")
    args = "tirx_args" if locals_ else "nullptr"
    grid = "dim3(tirx_config.grid[0], tirx_config.grid[1], tirx_config.grid[2])"
    block = "dim3(tirx_config.block[0], tirx_config.block[1], tirx_config.block[2])"
    kernel = f"reinterpret_cast<const void*>(&::{k['symbol']})"
    # a kernel launched in clusters has its shape in the .cu (`__cluster_dims__`), so it launches
    # like any other; launch_config reports the shape and refuses grids it does not divide
    launcher = "::cudaLaunchKernel"
    if launch.cooperative is not None:
        body += _cooperative_check(launch, name, kernel)
        launcher = "::cudaLaunchCooperativeKernel"
    body.append(f"tirx_status = {launcher}({kernel}, {grid}, {block}, {args}, tirx_config.shared_bytes, "
                "stream);")
    body.append(f"if (tirx_status != ::cudaSuccess) return detail::fail(tirx_status, \"{name}(): the launch failed: "
                "%s\", ::cudaGetErrorString(tirx_status));")
    body.append("return ::cudaSuccess;")
    lines += ["  " + s for s in body]
    lines.append("}")
    return "\n".join(lines)


def _cooperative_check(launch, name: str, kernel: str) -> list[str]:
    """A kernel that synchronizes its grid runs only if every block is resident at once: the grid
    against this device's occupancy for the kernel times its SMs (the CuPy launcher's check)."""
    threads = launch.block[0] * launch.block[1] * launch.block[2]
    return [
        "{  // a cooperative launch: every block of the grid resident at once",
        "  int tirx_device = 0, tirx_sms = 0, tirx_per_sm = 0;",
        "  tirx_status = ::cudaGetDevice(&tirx_device);",
        "  if (tirx_status == ::cudaSuccess) tirx_status = ::cudaDeviceGetAttribute(&tirx_sms, "
        "::cudaDevAttrMultiProcessorCount, tirx_device);",
        f"  if (tirx_status == ::cudaSuccess) tirx_status = ::cudaOccupancyMaxActiveBlocksPerMultiprocessor("
        f"&tirx_per_sm, {kernel}, {threads}, tirx_config.shared_bytes);",
        f"  if (tirx_status != ::cudaSuccess) return detail::fail(tirx_status, \"{name}(): cannot query the device's "
        "occupancy for a cooperative launch: %s\", ::cudaGetErrorString(tirx_status));",
        "  const long long tirx_blocks = static_cast<long long>(tirx_config.grid[0]) * tirx_config.grid[1] * "
        "tirx_config.grid[2];",
        "  const long long tirx_most = static_cast<long long>(tirx_per_sm) * tirx_sms;",
        *["  " + x for x in render(launch.check("cooperative.resident"), {})],
        "}"]


def offset_expr(index: int) -> str:
    """The byte offset of workspace `index` in the caller's allocation."""
    if index == 0:
        return "0"
    return " + ".join(f"detail::round_up(tirx_plan.workspaces[{i}])" for i in range(index))
