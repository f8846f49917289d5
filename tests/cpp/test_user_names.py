"""No name of a `.tx` file can collide with a name of the generated C++ header or entry points:
the generated code's locals start with `tirx_` (which no source name keeps), the names it shares a
scope with a user's (its parameters, the namespaces it names) are taken from the user's, and a
module's namespace and include guard are its own. Proven by naming a kernel's parameters, the
kernels of a file and the headers of one translation unit after every identifier the generated
header and host code use (of samples that reach every part of it), and compiling them with g++
(the entry points with nvcc where it is installed)."""
from __future__ import annotations

import keyword
import re
import shutil
import subprocess

import pytest

from tests.conftest import SAMPLES
from tests.cpp.common import cuda_include
from transpiler.codegen.host_cpp import header_guard, module_name
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

INCLUDE = cuda_include()
needs_gxx = pytest.mark.skipif(INCLUDE is None or shutil.which("g++") is None,
                               reason="needs g++ and the CUDA headers (cuda_runtime_api.h)")
# buffers and scalars, a workspace, tensor maps, strided and offset layouts
PROBES = ("saxpy", "global_workspace", "gemm_bf16_hopper", "layout_views")


def _generate(stem: str, text: str):
    result = compile_source(SourceFile(f"{stem}.tx", text), header_module=module_name(stem),
                            header_include=f"{stem}.h")
    assert result.ok and result.header is not None, [d.message for d in result.diagnostics]
    return result


def _identifiers() -> list[str]:
    """Every identifier of the probes' headers and host code, but the ones in tirxc's own space
    (`tirx_`, `TIRXC_`, `__`) and those a `.tx` cannot name (Python's keywords, `T`)."""
    found = set()
    for stem in PROBES:
        result = _generate(stem, (SAMPLES / f"{stem}.tx").read_text())
        host = result.cuda[result.cuda.index(f'#include "{stem}.h"'):]
        text = re.sub(r'//[^\n]*|"(?:\\.|[^"\\\n])*"', " ", result.header + host)
        found |= set(re.findall(r"\b[A-Za-z_]\w*\b", text))
    return sorted(name for name in found if not name.startswith(("tirx_", "TIRXC_", "__"))
                  and not keyword.iskeyword(name) and name != "T")


NAMES = _identifiers()

PARAMS = '''from tvm.script import tirx as T


@T.prim_func
def probe(src_zz_ptr: T.handle, dst_zz_ptr: T.handle, {params}):
    len_zz = T.int32()
    src_zz = T.match_buffer(src_zz_ptr, (len_zz,), "float32")
    dst_zz = T.match_buffer(dst_zz_ptr, (len_zz,), "float32")
    T.device_entry()
    T.cta_id([T.ceildiv(len_zz, 32)])
    lane_zz = T.thread_id([32])
    dst_zz[lane_zz] = src_zz[lane_zz]
'''

KERNEL = '''

@T.prim_func
def {name}(A: T.Buffer((8,), "float32"), {name}_plan: T.int32, plan: T.int32):
    T.device_entry()
    tx = T.thread_id([8])
    A[tx] = T.float32({name}_plan + plan)
'''


def _compile(tmp_path, stems: list[str], texts: dict[str, str], nvcc: bool = False) -> None:
    includes = []
    for stem in stems:
        result = _generate(stem, texts[stem])
        (tmp_path / f"{stem}.h").write_text(result.header)
        (tmp_path / f"{stem}.cu").write_text(result.cuda)
        includes.append(f'#include "{stem}.h"')
    (tmp_path / "all.cpp").write_text("\n".join(includes) + "\nint main() { return 0; }\n")
    build = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                            f"-I{tmp_path}", str(tmp_path / "all.cpp")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    if nvcc:  # the entry points too; as PTX only (no ptxas): the names are the host code's concern
        for stem in stems:
            build = subprocess.run(["nvcc", "-std=c++17", "-c", "-gencode", "arch=compute_90a,code=compute_90a",
                                    f"-I{tmp_path}",
                                    str(tmp_path / f"{stem}.cu"), "-o", str(tmp_path / f"{stem}.o")],
                                   capture_output=True, text=True)
            assert build.returncode == 0, build.stderr[-4000:]


def test_the_probes_reach_the_names_of_every_part_of_the_generated_code():
    for name in ("config", "plan", "stream", "workspace", "workspace_bytes", "detail", "last_error",
                 "launch_config", "extent", "arith", "fail"):
        assert name in NAMES


@needs_gxx
def test_parameters_named_after_every_generated_identifier(tmp_path):
    params = ", ".join(f"{name}: T.int32" for name in NAMES)
    _compile(tmp_path, ["probe"], {"probe": PARAMS.format(params=params)})


@needs_gxx
def test_kernels_named_after_every_generated_identifier(tmp_path):
    _compile(tmp_path, ["kernels"], {"kernels": _kernels()})


def _kernels() -> str:
    return "from tvm.script import tirx as T\n" + "".join(KERNEL.format(name=name) for name in NAMES)


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@needs_gxx
def test_the_entry_points_of_those_names_compile_with_nvcc(tmp_path):
    params = ", ".join(f"{name}: T.int32" for name in NAMES)
    _compile(tmp_path, ["probe", "kernels"], {"probe": PARAMS.format(params=params), "kernels": _kernels()},
             nvcc=True)


def test_every_header_name_gets_a_namespace_and_a_guard_of_its_own():
    stems = NAMES + [name.upper() for name in NAMES] + [name.capitalize() for name in NAMES]
    modules = {module_name(stem) for stem in stems}
    assert "launch_config" not in modules and "tirxc" not in modules and "detail" not in modules
    assert len({header_guard(m) for m in modules}) == len(modules)
    assert header_guard(module_name("Saxpy")) != header_guard(module_name("saxpy"))


@needs_gxx
def test_headers_named_after_generated_identifiers_go_into_one_translation_unit(tmp_path):
    stems = ["launch_config", "tirxc", "detail", "std", "last_error", "extent", "config", "Saxpy", "saxpy",
             "SAXPY", "cudaStream_t", "size_t"]
    text = (SAMPLES / "saxpy.tx").read_text()
    _compile(tmp_path, stems, {stem: text for stem in stems})
