"""The C++ entry points' checks: each kind of the launch description's checks
(transpiler/ir/launch_checks.py) rendered here, once, as the statements that refuse a launch with
the check's message as a printf format (codegen/host_cpp.py places them).

`render(check, at)` gives a check's statements; `at` names the C++ values the check reads (the
argument, the computed dimensions and strides, the grid ...), which the caller has computed.
Kinds the entry point's C++ signature makes impossible are rendered as nothing (NOT_RENDERED
says why).
"""
from __future__ import annotations

import string

from transpiler.codegen.cuda import c_string
from transpiler.ir.launch_checks import Check, CheckKind

INVALID = "::cudaErrorInvalidValue"

# Checks that a typed C++ call cannot fail: the compiler counts the arguments and checks their
# types (a buffer is a typed pointer, `const` where the kernel only reads it, a scalar a value of
# its type); an extent is an argument rather than read off an array's shape; a pointer carries
# no shape or strides, so the caller's array is taken to be the one the description says.
NOT_RENDERED = {
    ("arguments", "count"), ("scalar", "kind"), ("scalar", "integer"), ("scalar", "range"), ("dtype", "refused"),
    ("dtype", "typestr"), ("readonly", "written"), ("shape", "rank"), ("shape", "mismatch"), ("extent", "limit"),
    ("extent", "agree"), ("strides", "count"), ("strides", "mismatch"), ("strides", "contiguous"),
}


def c_text(text: str) -> str:
    """A message for a printf format inside a C string literal: `%` doubled, C-escaped."""
    return c_string(text.replace("%", "%%"))[1:-1]


def fail(check: Check, holes: dict | None = None, code: str = INVALID) -> str:
    """`detail::fail(code, "format", args...)` with the check's message: its operands as text,
    each hole the launch fills as holes[name] = (printf conversion, [C++ arguments])."""
    holes = holes or {}
    operands = dict(check.operands)
    text, fmt, args = [], [], []
    for literal, field, spec, conversion in string.Formatter().parse(check.template):
        text.append(literal)
        if field is None:
            continue
        if field in holes:
            fmt.append(c_text("".join(text)))
            text = []
            conversion_text, values = holes[field]
            fmt.append(conversion_text)
            args += values
        else:
            pattern = "{0" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            text.append(pattern.format(operands[field]))
    fmt.append(c_text("".join(text)))
    return f"detail::fail({code}, \"{''.join(fmt)}\"{''.join(', ' + a for a in args)})"


def ints(values: list[str]) -> tuple[str, list[str]]:
    """A hole printed as Python prints a tuple of ints: `(%lld, %lld)`, `(%lld,)`."""
    return "(" + ", ".join(["%lld"] * len(values)) + ("," if len(values) == 1 else "") + ")", \
        [f"detail::wide({v})" for v in values]


def render(check: Check, at: dict) -> list[str]:
    if (check.kind.value, check.case) in NOT_RENDERED:
        return []
    return _RENDERERS[check.kind](check, at)


def _extent(check: Check, at: dict) -> list[str]:  # `range`: an extent argument
    name, dtype = at["name"], at["dtype"]
    limit = check.operand("limit")
    tests = ([f"{name} < 0"] if dtype.is_signed else []) + ([f"{name} > {limit}"] if dtype.int_bounds[1] > limit
                                                             else [])
    if not tests:
        return []
    fmt, cast = ("%lld", "long long") if dtype.is_signed else ("%llu", "unsigned long long")
    return [f"if ({' || '.join(tests)}) return {fail(check, {'value': (fmt, [f'static_cast<{cast}>({name})'])})};"]


def _host_value(check: Check, at: dict) -> list[str]:
    return [f"if (tirx_ar.bad) return {fail(check, {'reason': ('%s', ['tirx_ar.text'])})};"]


def _shape(check: Check, at: dict) -> list[str]:  # `negative`
    dims = at["dims"]
    if not dims:
        return []
    tests = " || ".join(f"detail::less({d}, 0)" for d in dims)
    return [f"if ({tests}) return {fail(check, {'expected': ints(dims)})};"]


def _strides(check: Check, at: dict) -> list[str]:  # `unsupported`
    return [f"return {fail(check)};"]


def _index_limit(check: Check, at: dict) -> list[str]:
    dims, limit = at["dims"], check.operand("limit")
    big = " || ".join([f"tirx_last > {limit}"] + [f"detail::wide({d}) > {limit}" for d in dims])
    return [f"if ({big}) return {fail(check, {'shape': ints(dims), 'last': ('%lld', ['tirx_last'])})};"]


def _null_pointer(check: Check, at: dict) -> list[str]:
    return [f"if ({at['name']} == nullptr) return {fail(check)};"]


def _alignment(check: Check, at: dict) -> list[str]:
    name, back = at["name"], check.operand("offset_bytes")
    address = f"reinterpret_cast<::std::uintptr_t>({name})"
    if back:
        address = f"({address} - {back}u)"
    pointer = {"pointer": ("%p", [f"static_cast<const void*>({name})"])}
    return [f"if ({address} % {check.operand('align')}u != 0) return {fail(check, pointer)};"]


def _overlap(check: Check, at: dict) -> list[str]:
    return [f"if (plan != nullptr && detail::overlaps(plan->extents[{at['first']}], plan->extents[{at['second']}])) "
            f"return {fail(check)};"]


def _grid(check: Check, at: dict) -> list[str]:  # `limits`
    grid = at["grid"]
    tests = " || ".join(f"detail::less({g}, 0) || detail::less({limit}LL, {g})"
                        for g, limit in zip(grid, check.operand("limits")))
    return [f"if ({tests}) return {fail(check, {'grid': ints(grid)})};"]


def _cluster(check: Check, at: dict) -> list[str]:  # `divides`
    grid = at["grid"]
    tests = " || ".join(f"detail::wide({g}) % {c} != 0" for g, c in zip(grid, check.operand("cluster")) if c != 1)
    return [f"if ({tests or 'false'}) return {fail(check, {'grid': ints(grid)})};"]


def _workspace(check: Check, at: dict) -> list[str]:
    dims = at["dims"]
    if check.case == "negative":
        if not dims:
            return []
        tests = " || ".join(f"detail::less({d}, 0)" for d in dims)
        return [f"if ({tests}) return {fail(check, {'shape': ints(dims)})};"]
    holes = {"shape": ints(dims), "count": ("%lld", ["tirx_count"])}
    return [f"if (tirx_count - 1 > {check.operand('most') - 1}) return {fail(check, holes)};"]


def _tensor_map(check: Check, at: dict) -> list[str]:
    if check.case == "extent":
        return [f"if (detail::less({d}, 1) || detail::less({check.operand('max_dim')}LL, {d})) return "
                f"{fail(check, {'extent': ('%lld', [f'detail::wide({d})']), 'dim': (str(i), [])})};"
                for i, d in enumerate(at["dims"])]
    if check.case == "stride":
        align, most = check.operand("align"), check.operand("max_stride")
        return [f"if (detail::wide({t}) % {align} != 0 || detail::less({t}, 0) || !detail::less({t}, {most}LL)) "
                f"return {fail(check, {'stride': ('%lld', [f'detail::wide({t})']), 'dim': (str(i + 1), [])})};"
                for i, t in enumerate(at["strides"])]
    address = at["address"]  # `align`
    return [f"if (reinterpret_cast<::std::uintptr_t>({address}) % {check.operand('align')}u != 0) return "
            f"{fail(check, {'pointer': ('%p', [f'static_cast<const void*>({address})'])})};"]


def _tensor_map_reach(check: Check, at: dict) -> list[str]:  # `array`
    """The bytes the map reaches from its array's start (saturating: its extents are at most 2^32
    and its strides below 2^40, so an outer extent times its stride can pass 2^63), against
    at["held"], what the array holds from there."""
    dims, strides, bits = at["dims"], at["strides"], check.operand("bits")
    out = [f"long long tirx_reach = (detail::wide({dims[0]}) * {bits} + 7) / 8;"]
    out += [f"tirx_reach = detail::index_step(tirx_reach, detail::wide({d}) - 1, detail::wide({t}));"
            for d, t in zip(dims[1:], strides)]
    holes = {"reach": ("%lld", ["tirx_reach"]), "holds": ("%lld", [at["held"]]), "extents": ints(dims),
             "strides": ints(strides)}
    return out + [f"if (tirx_reach > {at['held']}) return {fail(check, holes)};"]


def _architecture(check: Check, at: dict) -> list[str]:
    holes = {"device": ("%d", ["device"]), "device_arch": ("sm_%d%d", ["major", "minor"])}
    return [f"if (major * 10 + minor < {check.operand('min_arch')}) return "
            f"{fail(check, holes, '::cudaErrorNoKernelImageForDevice')};"]


def _shared_memory(check: Check, at: dict) -> list[str]:
    holes = {"device": ("%d", ["device"]), "optin": ("%d", ["optin"])}
    return [f"if (optin < {check.operand('total')}) return {fail(check, holes)};"]


def _cooperative(check: Check, at: dict) -> list[str]:  # `resident`: the caller has queried the device
    holes = {"blocks": ("%lld", ["tirx_blocks"]), "device": ("%d", ["tirx_device"]), "most": ("%lld", ["tirx_most"]),
             "per_sm": ("%d", ["tirx_per_sm"]), "sms": ("%d", ["tirx_sms"])}
    return [f"if (tirx_blocks > tirx_most) return {fail(check, holes, '::cudaErrorCooperativeLaunchTooLarge')};"]


def _none(check: Check, at: dict) -> list[str]:
    return []


_RENDERERS = {
    CheckKind.ARGUMENTS: _none, CheckKind.SCALAR: _none, CheckKind.DTYPE: _none, CheckKind.READONLY: _none,
    CheckKind.SHAPE: _shape, CheckKind.EXTENT: _extent, CheckKind.HOST_VALUE: _host_value,
    CheckKind.STRIDES: _strides, CheckKind.INDEX_LIMIT: _index_limit, CheckKind.NULL_POINTER: _null_pointer,
    CheckKind.ALIGNMENT: _alignment, CheckKind.OVERLAP: _overlap, CheckKind.GRID: _grid,
    CheckKind.CLUSTER: _cluster, CheckKind.WORKSPACE: _workspace, CheckKind.TENSOR_MAP: _tensor_map,
    CheckKind.TENSOR_MAP_REACH: _tensor_map_reach,
    CheckKind.ARCHITECTURE: _architecture, CheckKind.SHARED_MEMORY: _shared_memory,
    CheckKind.COOPERATIVE: _cooperative,
}
