"""The generated CuPy launcher, on the CPU: launch configuration, argument
validation (through small objects exposing __cuda_array_interface__), the
embedded source, and importing with CuPy present but no GPU."""
from __future__ import annotations

import itertools

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import SAMPLES, transpile


_addresses = itertools.count(1)


class FakeArray:
    """Just enough of a GPU array for validation: no device memory behind it; at an address of its
    own unless given one (launch_config refuses arrays that share memory when the kernel writes one)."""

    def __init__(self, shape, typestr="<f4", strides=None, address=None):
        address = (next(_addresses) << 40) + (1 << 20) if address is None else address
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "strides": strides,
                                         "data": (address, False), "version": 3}


def load(tmp_path, text: str, stem: str = "kernel"):
    result = transpile(text, f"{stem}.tx", until="launcher", launcher_name=stem)
    assert result.ok, [d.message for d in result.diagnostics]
    path = tmp_path / f"{stem}.py"
    path.write_text(result.launcher)
    spec = importlib.util.spec_from_file_location(f"launcher_{stem}_{id(tmp_path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, result


SAXPY = (SAMPLES / "saxpy.tx").read_text()
DYN = (SAMPLES / "dyn_smem_large.tx").read_text()
LAYOUTS = (SAMPLES / "layout_views.tx").read_text()
COPY = (SAMPLES / "float4_copy.tx").read_text()


@pytest.fixture
def saxpy(tmp_path):
    return load(tmp_path, SAXPY, "saxpy")[0].saxpy


def test_symbolic_grid_follows_the_arguments(saxpy):
    for n, blocks in ((1, 1), (127, 1), (256, 1), (257, 2), (100003, 391)):
        assert saxpy.launch_config(2.0, FakeArray((n,)), FakeArray((n,))) == ((blocks, 1, 1), (256, 1, 1), 0)


def test_constant_launch_and_dynamic_shared_bytes(tmp_path):
    module, _ = load(tmp_path, DYN, "dyn_smem_large")
    args = [FakeArray((8, 16384)), FakeArray((8, 16384))]
    assert module.dyn_smem_large.launch_config(*args) == ((8, 1, 1), (256, 1, 1), 65536)


def test_embedded_source_is_the_cu_file(tmp_path):
    module, result = load(tmp_path, SAXPY, "saxpy")
    assert module.CUDA_SOURCE == result.cuda
    assert module.SOURCE_FILE == "saxpy.tx"


@pytest.mark.parametrize("args, error, pattern", [
    ((2.0, FakeArray((10,), "<f8"), FakeArray((10,))), TypeError, r"argument 'x' must have dtype float32 .*'<f8'"),
    ((2.0, FakeArray((10,)), FakeArray((9,))), ValueError, r"extent 'n' is 10 from an earlier argument but "
                                                            r"argument 'y' has shape \(9,\)"),
    ((2.0, FakeArray((10, 1)), FakeArray((10,))), ValueError, r"argument 'x' must have 1 dimensions"),
    (("2", FakeArray((10,)), FakeArray((10,))), TypeError, r"argument 'a' must be a float32 scalar"),
    ((2.0, [1.0], FakeArray((1,))), TypeError, r"argument 'x' must be a GPU array exposing __cuda_array_interface__"),
    ((2.0, FakeArray((10,), strides=(8,)), FakeArray((10,))), ValueError,
     r"argument 'x' must be contiguous \(C order\): byte strides \(4,\), got \(8,\)"),
    ((2.0, FakeArray((10,))), TypeError, r"saxpy\(\) takes 3 arguments \(a, x, y\), got 2"),
])
def test_bad_arguments_name_the_parameter(saxpy, args, error, pattern):
    with pytest.raises(error, match=pattern):
        saxpy.launch_config(*args)


def test_alignment_promise_is_checked(tmp_path):
    module, _ = load(tmp_path, COPY, "float4_copy")
    ok = FakeArray((8, 4), address=4096)
    with pytest.raises(ValueError, match=r"argument 'A' must be 16-byte aligned"):
        module.float4_copy.launch_config(FakeArray((8, 4), address=4100), ok)
    assert module.float4_copy.launch_config(ok, FakeArray((8, 4), address=8192))[0] == (1, 1, 1)


def test_integer_scalar_range_is_checked(tmp_path):
    module, _ = load(tmp_path, (SAMPLES / "let_binding.tx").read_text(), "let_binding")
    args = [FakeArray((64,)), FakeArray((64,))]
    with pytest.raises(ValueError, match=r"argument 'm' = 4294967296 does not fit in int32"):
        module.let_runtime.launch_config(*args, 2 ** 32)
    with pytest.raises(TypeError, match=r"argument 'm' must be an integer"):
        module.let_runtime.launch_config(*args, 1.5)


def test_layouts_take_arrays_with_their_strides(tmp_path):
    module, _ = load(tmp_path, LAYOUTS, "layout_views")
    a = FakeArray((4, 8))
    fortran = FakeArray((4, 8), strides=(4, 16))
    assert module.add_one_col_major.launch_config(a, fortran)[1] == (1, 1, 1)
    with pytest.raises(ValueError, match=r"argument 'B' must have byte strides \(4, 16\)"):
        module.add_one_col_major.launch_config(a, FakeArray((4, 8)))
    module.add_one_stride16.launch_config(a, FakeArray((4, 8), strides=(64, 4)))
    with pytest.raises(ValueError, match=r"argument 'B' must be the strides its layout implies"):
        module.add_one_stride16.launch_config(a, FakeArray((4, 8), strides=(32, 4)))


def test_elem_offset_buffers_take_the_view(tmp_path):
    """The documented rule: the caller passes the (4, 8) view; the kernel gets its
    pointer moved back by elem_offset elements."""
    module, _ = load(tmp_path, LAYOUTS, "layout_views")
    spec = {p["name"]: p for p in module.KERNELS["add_one_offset"]["params"]}
    assert spec["B"]["offset"] == 64 and spec["B"]["shape"] == (4, 8)
    module.add_one_offset.launch_config(FakeArray((4, 8)), FakeArray((4, 8)))


def test_launcher_imports_without_a_gpu(tmp_path):
    """Importing the module must not touch the GPU (CuPy is imported lazily)."""
    _, result = load(tmp_path, SAXPY, "saxpy")
    (tmp_path / "standalone.py").write_text(result.launcher)
    code = "import standalone, sys; print(sorted(standalone.KERNELS)); print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['saxpy']", "False"]


def test_launcher_imports_with_cupy_installed(tmp_path):
    pytest.importorskip("cupy")
    _, result = load(tmp_path, SAXPY, "saxpy")
    (tmp_path / "withcupy.py").write_text(result.launcher)
    code = "import cupy, withcupy; print(withcupy.saxpy)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "tirxc kernel saxpy(a, x, y)" in out.stdout
