"""Every runnable sample through its C++ entry point on a real GPU (marker `gpu`), against the
same CPU references as the CuPy launcher's GPU tests (tests/gpu/cases.py, NumPy): one reference
per kernel, whichever host side launches it.

Per sample, tirxc writes the .cu (kernels and entry points) and the header; nvcc builds them
with tests/cpp/runner_prelude.h and a main generated here (`runner KERNEL ARGS_FILE`: a branch
per kernel that calls `tirxc::<sample>::<kernel>(...)` with typed arguments, the workspace from
`<kernel>_workspace_bytes`, then copies every array back). Python writes each case's arrays
(the whole allocation, the argument pointing at the view a case's `views` give), runs the
program, reads the arrays back and runs the case's check. No CuPy: only nvcc and a GPU.
"""
from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.cpp.common import generate
from tests.gpu.cases import PARAMS, make_args
from transpiler.codegen.host_cpp import host_data, module_name
from transpiler.target.dtypes import c_type
from transpiler.ir.launch import ParamKind

HERE = Path(__file__).parent


def _gpu_arch() -> str | None:
    """The GPU's sm_XY, from nvidia-smi; None without a GPU."""
    if shutil.which("nvidia-smi") is None or shutil.which("nvcc") is None:
        return None
    done = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                          text=True)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return "sm_" + done.stdout.split()[0].replace(".", "")


ARCH = _gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(ARCH is None, reason="needs nvcc and an NVIDIA GPU")]


def _scalar_expr(dtype, index: int) -> str:
    if dtype.is_bool:
        return f"runner::integer(args, {index}) != 0"
    if dtype.is_int:
        reader = "unsigned_integer" if not dtype.is_signed else "integer"
        return f"static_cast<{_api(dtype)}>(runner::{reader}(args, {index}))"
    if dtype.name in ("float32", "float64"):
        return f"static_cast<{c_type(dtype)}>(runner::real(args, {index}))"
    return f"static_cast<{c_type(dtype)}>(static_cast<float>(runner::real(args, {index})))"


def _api(dtype) -> str:
    from transpiler.codegen.host_cpp import api_type
    return api_type(dtype)


def runner_source(stem: str, program) -> str:
    """The main of one sample's test program."""
    module = module_name(stem)
    lines = ['#include "runner_prelude.h"', f'#include "{stem}.h"', "",
             "int main(int argc, char** argv) {",
             '  if (argc != 3) runner::die("usage", "runner KERNEL ARGS_FILE");',
             "  runner::Args args = runner::read_args(argv[2]);",
             "  const std::string kernel = argv[1];",
             "  cudaError_t status = cudaErrorInvalidValue;",
             '  const char* message = "unknown kernel";']
    for k in host_data(program):
        values = []
        for i, a in enumerate(k["args"]):
            p = a["param"]
            if p.kind is ParamKind.BUFFER:
                ctype = ("const " if p.buffer.storage.readonly else "") + c_type(p.buffer.dtype)
                values.append(f"runner::pointer<{ctype}>(args, {i})")
            else:
                values.append(_scalar_expr(p.dtype, i))
        call = ", ".join(values)
        lines.append(f'  if (kernel == "{k["name"]}") {{')
        if k["workspaces"]:
            lines.append(f"    const std::size_t bytes = tirxc::{module}::{k['entry']}_workspace_bytes({call});")
            lines.append("    void* workspace = runner::workspace(bytes);")
            call += ", workspace, bytes"
        lines.append(f"    status = tirxc::{module}::{k['entry']}({call});")
        lines.append(f"    message = tirxc::{module}::last_error();")
        lines.append("  }")
    lines += ['  if (status != cudaSuccess) runner::die("launch", message);',
              "  runner::write_back(args);", "  return 0;", "}", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def runners(tmp_path_factory):
    """{sample: (program, path of its test program)}, built once, in parallel."""
    folder = tmp_path_factory.mktemp("cpp_gpu")
    shutil.copy(HERE / "runner_prelude.h", folder / "runner_prelude.h")
    built, commands = {}, {}
    for stem in sorted({case["sample"] for _, case, _ in PARAMS}):
        result = generate(stem, folder)
        if result is None:
            continue
        program = result.program
        arch = f"sm_{program.min_arch}{program.arch_suffix}" if program.arch_suffix else ARCH
        if int(arch[3:].rstrip("a")) > int(ARCH[3:]):
            continue  # needs a newer GPU than this one
        (folder / f"{stem}_runner.cu").write_text(runner_source(stem, program))
        commands[stem] = ["nvcc", "-std=c++17", "-O2", f"-arch={arch}", f"-I{folder}", str(folder / f"{stem}.cu"),
                          str(folder / f"{stem}_runner.cu"), "-o", str(folder / f"{stem}_runner")]
        built[stem] = (program, folder / f"{stem}_runner")

    def build(command):
        done = subprocess.run(command, capture_output=True, text=True)
        return done.returncode, done.stderr

    with ThreadPoolExecutor(8) as pool:
        outcomes = dict(zip(commands, pool.map(build, commands.values())))
    return built, outcomes


def _memory_order(base: np.ndarray) -> str:
    return "F" if base.flags.f_contiguous and not base.flags.c_contiguous else "C"


@pytest.mark.parametrize("case_id, case, size", PARAMS, ids=[p[0] for p in PARAMS])
def test_sample_through_the_cpp_entry_point(case_id, case, size, runners, tmp_path):
    built, outcomes = runners
    if case["sample"] not in built:
        pytest.skip(f"{case['sample']} needs a newer GPU or has no C++ interface")
    code, errors = outcomes[case["sample"]]
    assert code == 0, errors[-3000:]
    program, runner = built[case["sample"]]
    kernel = next(k for k in host_data(program) if k["name"] == case["kernel"])
    spec = next(lk.spec for lk in program.kernels if lk.spec.name == case["kernel"])
    declared = [p for name in spec.arg_order for p in spec.params if p.name == name]
    position = {(p.buffer.name if p.kind is ParamKind.BUFFER else p.name): i for i, p in enumerate(declared)}
    args = make_args(case, size)
    views = {i: (case.get("views", {}).get(i) or (lambda a: a))(arg) for i, arg in enumerate(args)
             if isinstance(arg, np.ndarray)}
    extents = {}
    for i, p in enumerate(declared):
        if p.kind is ParamKind.BUFFER:
            for dim, size_ in zip(p.buffer.shape, views[i].shape):
                if dim.__class__.__name__ == "Var":
                    extents[dim.name] = size_
    lines, files = [], {}
    for a in kernel["args"]:
        p = a["param"]
        if p.kind is ParamKind.BUFFER:
            i = position[a["source"]]
            base = np.asarray(args[i])
            path = tmp_path / f"arg{i}.bin"
            path.write_bytes(base.tobytes(order=_memory_order(base)))
            offset = views[i].__array_interface__["data"][0] - base.__array_interface__["data"][0]
            lines.append(f"buffer {path} {offset}")
            files[i] = path
        elif p.kind is ParamKind.EXTENT:
            lines.append(f"scalar {extents[p.name]}")
        else:
            value = args[position[a["source"]]]
            text = float(value).hex() if p.dtype.is_float else str(int(value))
            lines.append(f"scalar {text}")
    (tmp_path / "args.txt").write_text("\n".join(lines) + "\n")
    done = subprocess.run([str(runner), case["kernel"], str(tmp_path / "args.txt")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    after = list(args)
    for i, path in files.items():
        base = np.asarray(args[i])
        data = np.frombuffer(Path(f"{path}.out").read_bytes(), dtype=base.dtype)
        after[i] = data.reshape(base.shape, order=_memory_order(base)).copy()
    case["check"](args, after)
