"""The C++ entry points compute what the CuPy launcher computes (docs/cpp.md): for every sample's
every kernel and a table of argument values (extents and integer scalars at ordinary, empty and
overflowing values; a NULL and a misaligned pointer), `<kernel>_launch_config` of the generated
header, compiled with g++ and run on the CPU, gives the launcher's `launch_config` (grid, block,
dynamic shared bytes) and workspace size, or refuses the same arguments with the same message.

One launch description drives both: the header is generated from the same LaunchSpec, and the
host expressions follow py_expr (codegen/cpp_expr.py). No GPU: neither side launches.
"""
from __future__ import annotations

import shutil
import subprocess

from pathlib import Path

import pytest

from tests.cpp.common import cuda_include, generate, load_launcher, sample_stems
from transpiler.codegen.host_cpp import host_data, module_name
from transpiler.ir.launch import ParamKind

INCLUDE = cuda_include()
pytestmark = pytest.mark.skipif(INCLUDE is None or shutil.which("g++") is None,
                                reason="needs g++ and the CUDA headers (cuda_runtime_api.h)")

EXTENT_VALUES = (1000, 0, 1, 37, 255, 512, 2 ** 31 - 1)
SCALAR_VALUES = (0, 5, -3, 31, 40, 512, 2 ** 31 - 1, -(2 ** 31), 2 ** 32 - 1, 2 ** 62, -(2 ** 63), 2 ** 63 - 1)
HERE = Path(__file__).parent
TYPESTR = {"bool": "b1", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1", "uint16": "u2",
           "uint32": "u4", "uint64": "u8", "float16": "f2", "float32": "f4", "float64": "f8", "bfloat16": "u2",
           "float8_e4m3fn": "u1", "float8_e5m2": "u1", "float8_e8m0fnu": "u1"}
BASE = 0x7F0000000000
# The CuPy launcher's checks of an array's own shape against the other arguments: a C++ pointer
# has no shape, so there the same arguments are refused by the shape the kernel computes.
ARRAY_ONLY = ("from an earlier argument but argument", "an array's extents are non-negative")  # fake device addresses: aligned, far apart


class FakeArray:
    """An object with a __cuda_array_interface__: all the launcher's launch_config reads."""

    def __init__(self, shape, typestr, strides, pointer):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "strides": strides,
                                         "data": (pointer, False), "version": 3}


def _cases(kernel: dict) -> list[dict]:
    """Values of the extents and integer scalars (by C name), and pointer changes."""
    variables = [a for a in kernel["args"] if a["param"].kind is ParamKind.EXTENT
                 or (a["param"].kind is ParamKind.SCALAR and a["param"].dtype.is_int)]
    base = {a["param"].name: (EXTENT_VALUES[0] if a["param"].kind is ParamKind.EXTENT else 7) for a in variables}
    cases = [dict(values=base, pointer=None)]
    for a in variables:
        low, high = a["param"].dtype.int_bounds
        choices = EXTENT_VALUES if a["param"].kind is ParamKind.EXTENT else SCALAR_VALUES
        for value in choices[1:]:
            if low <= value <= high:
                cases.append(dict(values={**base, a["param"].name: value}, pointer=None))
    if any(a["param"].kind is ParamKind.BUFFER for a in kernel["args"]):
        cases += [dict(values=base, pointer="null"), dict(values=base, pointer="misaligned")]
    return cases


def _python_side(launcher, kernel: dict, case: dict):
    """The CuPy launcher's answer: ("OK", grid, block, shared, workspace) or ("ERR", message)."""
    entry = getattr(launcher, kernel["name"])
    spec = entry.spec
    params = {p["name"]: p for p in spec["params"]}
    values = dict(case["values"])
    args, first = [], True
    for index, name in enumerate(spec["args"]):
        p = params[name]
        if p["kind"] != "buffer":
            if p["dtype"].startswith(("int", "uint")):
                args.append(values[p["c_name"]])
            elif p["dtype"] == "bool":
                args.append(True)
            else:
                args.append(1.5)
            continue
        shape = []
        for d in p["shape"]:
            try:
                shape.append(max(entry._eval(d, values), 0))  # an array's extents are never negative
            except (ArithmeticError, KeyError):
                shape.append(0)
        strides = None
        if isinstance(p["strides"], tuple):
            try:
                strides = tuple(entry._eval(s, values) * p["itemsize"] for s in p["strides"])
            except (ArithmeticError, KeyError):
                strides = None
        pointer = BASE + (index << 36) + p["offset"] * p["itemsize"]
        if first and case["pointer"] == "null":
            pointer = 0
        if first and case["pointer"] == "misaligned":
            pointer += p["itemsize"] if p["align"] > p["itemsize"] else 0
        first = False
        kind = TYPESTR[p["dtype"]]
        args.append(FakeArray(shape, "<" + kind, strides, pointer))
    try:
        grid, block, shared = entry.launch_config(*args)
        sizes = entry.workspace_bytes(*args)
    except (ValueError, TypeError) as err:
        return ("ERR", str(err))
    workspace = sum((b + 255) // 256 * 256 for b in sizes.values())
    return ("OK", tuple(grid), tuple(block), shared, workspace)


def _cpp_call(module: str, kernel: dict, case: dict, number: int) -> str:
    """A C++ statement printing the header's answer for one case."""
    values = case["values"]
    args, first, index = [], True, 0
    order = {name: i for i, name in enumerate(kernel["decl_order"])}
    for a in kernel["args"]:
        p = a["param"]
        if p.kind is ParamKind.BUFFER:
            buf = p.buffer
            from transpiler.target.dtypes import c_type
            pointer = BASE + (order[p.name] << 36) + a["launch"].offset * a["launch"].element.itemsize
            if first and case["pointer"] == "null":
                pointer = 0
            if first and case["pointer"] == "misaligned":
                pointer += buf.dtype.nbytes if buf.align > buf.dtype.nbytes else 0
            first = False
            ctype = ("const " if buf.storage.readonly else "") + c_type(buf.dtype) + "*"
            args.append(f"reinterpret_cast<{ctype}>(static_cast<std::uintptr_t>({pointer}ULL))")
        elif p.dtype.is_int:
            value = values[p.name]
            literal = f"{value}ULL" if value >= 2 ** 63 else "(-9223372036854775807LL - 1)" if value == -2 ** 63 \
                else f"{value}LL"
            args.append(f"static_cast<{_api(p.dtype)}>({literal})")
        elif p.dtype.is_bool:
            args.append("true")
        else:
            args.append("1.5f" if p.dtype.name == "float32" else f"static_cast<{_ctype(p.dtype)}>(1.5f)")
        index += 1
    call = f"tirxc::{module}::{kernel['entry']}_launch_config({', '.join(args + ['&c'])})"
    return f"  report({number}, {call}, c, tirxc::{module}::last_error());"


def _api(dtype):
    from transpiler.codegen.host_cpp import api_type
    return api_type(dtype)


def _ctype(dtype):
    from transpiler.target.dtypes import c_type
    return c_type(dtype)


PRELUDE = r"""
#include <cstdio>
static void report(int n, cudaError_t status, const tirxc::launch_config& c, const char* message) {
  if (status != cudaSuccess) { std::printf("%d ERR %s\n", n, message); return; }
  std::printf("%d OK %u %u %u %u %u %u %zu %zu\n", n, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
              c.block[2], c.shared_bytes, c.workspace_bytes);
}
"""


def test_launch_configs_match_the_cupy_launcher(tmp_path):
    includes, calls, expected = [], [], []
    for stem in sample_stems() + ["host_math", "cluster_grid"]:
        text = (HERE / f"{stem}.tx").read_text() if stem in ("host_math", "cluster_grid") else None
        result = generate(stem, tmp_path, text)
        if result is None:
            continue
        launcher = load_launcher(stem, tmp_path)
        module = module_name(stem)
        includes.append(f'#include "{stem}.h"')
        for lk, kernel in zip(result.program.kernels, host_data(result.program)):
            kernel["decl_order"] = list(lk.spec.arg_order)
            for case in _cases(kernel):
                number = len(expected)
                expected.append((stem, kernel["name"], case, _python_side(launcher, kernel, case)))
                calls.append(_cpp_call(module, kernel, case, number))
    source = "\n".join(includes) + PRELUDE + "int main() {\n  tirxc::launch_config c{};\n" + "\n".join(calls) + \
        "\n  return 0;\n}\n"
    (tmp_path / "crosscheck.cpp").write_text(source)
    build = subprocess.run(["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                            f"-I{tmp_path}", str(tmp_path / "crosscheck.cpp"), "-o", str(tmp_path / "crosscheck")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(tmp_path / "crosscheck")], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    assert len(lines) == len(expected)
    mismatches = []
    refused = accepted = 0
    for line, (stem, name, case, want) in zip(lines, expected):
        number, kind, rest = line.split(" ", 2)
        if kind == "OK":
            g0, g1, g2, b0, b1, b2, shared, workspace = (int(x) for x in rest.split())
            got = ("OK", (g0, g1, g2), (b0, b1, b2), shared, workspace)
            accepted += 1
        else:
            got = ("ERR", rest)
            refused += 1
        if got[0] == want[0] == "ERR" and any(words in want[1] for words in ARRAY_ONLY):
            continue  # both refuse; the CuPy launcher's words are about an array C++ does not have
        if got != want:
            mismatches.append(f"{stem}.{name} {case}:\n  C++:  {got}\n  CuPy: {want}")
    assert not mismatches, "\n".join(mismatches[:20])
    (tmp_path / "outcomes.txt").write_text("\n".join(f"{e[0]}.{e[1]} {e[2]} -> {line}" for e, line in zip(expected, lines)))
    assert accepted > 50 and refused > 20  # the table reaches both outcomes
