"""The launcher's runtime (the package transpiler/runtime/, a fresh copy per test as each
launcher loads its own), without a GPU and without tirxc:
kernel tables written by hand, arrays that are small objects exposing
`__cuda_array_interface__`. Each test gets a fresh copy of the module, as each generated
launcher runs its own."""
from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import subprocess
import sys
import types
from pathlib import Path

import numpy
import pytest

from transpiler.codegen.launcher import RUNTIME_MODULES
from transpiler.ir.launch_checks import MESSAGES
from transpiler.runtime import launch, nvrtc
from transpiler.target import tma
from transpiler.target.arch import INDEX_LIMIT, MAX_GRID, STATIC_SHARED_LIMIT
from transpiler.target.dtypes import HOST_ARRAYS

ROOT = Path(__file__).resolve().parent.parent.parent
RUNTIME = ROOT / "transpiler" / "runtime"
_copies = itertools.count()


_addresses = itertools.count(1)


class FakeArray:
    """At an address of its own unless given one (launch_config refuses arrays that share memory
    when the kernel writes one)."""

    def __init__(self, shape, typestr="<f4", strides=None, address=None, readonly=False):
        address = (next(_addresses) << 40) + (1 << 20) if address is None else address
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "strides": strides,
                                         "data": (address, readonly), "version": 3}


def buffer(name, shape, dtype="float32", itemsize=4, strides=None, offset=0, align=16, readonly=False):
    """A buffer parameter as tirxc's launcher table has it (codegen/launcher.py param_data)."""
    typestr, _, refused = HOST_ARRAYS[dtype]
    out = {"name": name, "c_name": f"{name}_ptr", "kind": "buffer", "dtype": dtype, "shape": shape,
           "strides": strides, "offset": offset, "align": align, "itemsize": itemsize, "readonly": readonly,
           "typestr": typestr}
    if refused:
        out["refused"] = dict(refused)
    return out


def scalar(name, dtype):
    typestr, numpy_scalar, _ = HOST_ARRAYS[dtype]
    return {"name": name, "c_name": name, "kind": "scalar", "dtype": dtype, "typestr": typestr,
            "scalar": numpy_scalar}


def extent(name):
    return {"name": name, "c_name": name, "kind": "extent", "dtype": "int32"}


def workspace(name, shape, dtype="float32", itemsize=4):
    return {"name": name, "c_name": f"{name}_ptr", "kind": "workspace", "dtype": dtype, "shape": shape,
            "itemsize": itemsize}


def spec(params, args, keyed=(), grid=lambda v: (1, 1, 1), block=(128, 1, 1), dynamic_shared=0):
    return {"symbol": "k_kernel", "args": list(args), "keyed": list(keyed), "params": params, "grid": grid,
            "block": block, "static_shared": 0, "dynamic_shared": dynamic_shared, "overlaps": overlaps(params)}


def overlaps(params):
    """The slots of the buffer pairs that must not share memory, as the launch description decides
    them (lower/signature.py): both buffers, one of them written."""
    slots = [i for i, p in enumerate(params) if p["kind"] == "buffer"]
    return [(i, j) for n, j in enumerate(slots) for i in slots[:n]
            if not (params[i]["readonly"] and params[j]["readonly"])]


# a, x, y -> y = a * x + y over n elements (as tirxc writes saxpy's entry)
SAXPY = spec([buffer("x", ("n",), readonly=True), buffer("y", ("n",)), scalar("a", "float32"), extent("n")],
             ["a", "x", "y"], grid=lambda v: ((v["n"] + 127) // 128, 1, 1))


@pytest.fixture
def runtime():
    return fresh_runtime()


# what every launcher's program passes to `load` besides its own kernels
LIMITS = {"static_shared_limit": STATIC_SHARED_LIMIT, "index_limit": INDEX_LIMIT, "grid_limits": MAX_GRID,
          "tensor_map_limits": tma.limits(), "messages": MESSAGES}


def fresh_runtime():
    """A fresh copy of the runtime package (its caches and program are per launcher), its
    `launch` module loaded with the target's limits and the checks' messages."""
    name = f"tirxc_runtime_{next(_copies)}"
    spec = importlib.util.spec_from_file_location(name, RUNTIME / "__init__.py",
                                                  submodule_search_locations=[str(RUNTIME)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    module = importlib.import_module(f"{name}.launch")
    load = module.load
    module.load = lambda *args, **kwargs: load(*args, **{**LIMITS, **kwargs})
    return Runtime([module] + [importlib.import_module(f"{name}.{m}") for m in RUNTIME_MODULES if m != "launch"])


class Runtime:
    """The runtime's modules seen as one namespace, as the launcher module shows them: a name is
    read from (and set in) the first module that has it, `launch` first."""

    def __init__(self, modules):
        object.__setattr__(self, "_modules", modules)

    def __getattr__(self, name):
        for module in self._modules:
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(name)

    def __setattr__(self, name, value):
        owner = next((m for m in self._modules if hasattr(m, name)), self._modules[0])
        setattr(owner, name, value)


def kernel_of(runtime, entry, name="k"):
    return runtime.load("k.tx", 75, "", "// the CUDA\n", {name: entry})[name]


# ---- the module itself ------------------------------------------------------------------------------------

def test_the_runtime_imports_only_the_standard_library_cupy_and_numpy():
    allowed = {"__future__", "ctypes", "os", "re", "tempfile", "threading", "cupy", "cupy_backends", "numpy"}
    for path in RUNTIME.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                assert {alias.name.split(".")[0] for alias in node.names} <= allowed, (path.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):  # or one of the runtime's own modules
                assert (node.level == 1 and (node.module or "") in ("", *RUNTIME_MODULES)) or \
                    (node.level == 0 and node.module.split(".")[0] in allowed), (path.name, node.lineno)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec", "compile", "__import__"), (path.name, node.lineno)


def test_importing_the_runtime_loads_no_other_tirxc_module():
    code = ("import sys, transpiler.runtime.launch\n"
            "print(sorted(m for m in sys.modules if m.startswith('transpiler')), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == str(sorted(["transpiler", "transpiler.runtime"] + [
        f"transpiler.runtime.{name}" for name in RUNTIME_MODULES])) + " False"


def test_load_sets_the_program_and_makes_the_callables(runtime):
    kernels = runtime.load("s.tx", 90, "a", "// cuda\n", {"saxpy": SAXPY, "other": SAXPY})
    assert kernels is runtime.CALLABLES and list(kernels) == ["saxpy", "other"]
    assert (runtime.SOURCE_FILE, runtime.MIN_ARCH, runtime.ARCH_SUFFIX, runtime.CUDA_SOURCE) == \
        ("s.tx", 90, "a", "// cuda\n")
    assert runtime.KERNELS["saxpy"] is SAXPY and kernels["saxpy"].spec is SAXPY
    assert repr(kernels["saxpy"]) == "<tirxc kernel saxpy(a, x, y) from s.tx>"
    assert kernels["saxpy"].__name__ == "saxpy"


def test_module_getattr_reads_the_runtimes_names(runtime):
    runtime.load("s.tx", 75, "", "", {"saxpy": SAXPY})
    assert runtime.module_getattr("KERNELS") is runtime.KERNELS is runtime.program.KERNELS
    assert runtime.module_getattr("compile_error") is runtime.compile_error
    for name in ("missing", "__path__", "__name__"):
        with pytest.raises(AttributeError, match=rf"^module '{runtime.__name__}' has no attribute '{name}'$"):
            runtime.module_getattr(name)


# ---- arguments ----------------------------------------------------------------------------------------

def test_a_good_call_binds_extents_and_scalars(runtime):
    saxpy = kernel_of(runtime, SAXPY, "saxpy")
    values, arrays, scalars = saxpy._bind((2.0, FakeArray((300,)), FakeArray((300,))))
    assert values == {"n": 300, "a": None} and list(arrays) == ["x", "y"]
    assert type(scalars["a"]) is numpy.float32 and scalars["a"] == 2.0
    assert saxpy.launch_config(2.0, FakeArray((300,)), FakeArray((300,))) == ((3, 1, 1), (128, 1, 1), 0)


@pytest.mark.parametrize("args, error, message", [
    ((2.0, FakeArray((3,))), TypeError, "saxpy() takes 3 arguments (a, x, y), got 2"),
    ((2.0, [1.0], FakeArray((1,))), TypeError, "saxpy(): argument 'x' must be a GPU array exposing "
                                               "__cuda_array_interface__ (CuPy, PyTorch, Numba), got builtins.list"),
    ((2.0, FakeArray((3,)), FakeArray((3,), readonly=True)), ValueError,
     "saxpy(): argument 'y' is read-only, but the kernel writes 'y': pass a writable array"),
    ((2.0, FakeArray((3, 1)), FakeArray((3,))), ValueError,
     "saxpy(): argument 'x' must have 1 dimensions (n,), got shape (3, 1)"),
    ((2.0, FakeArray((3,)), FakeArray((4,))), ValueError,
     "saxpy(): extent 'n' is 3 from an earlier argument but argument 'y' has shape (4,)"),
    ((2.0, FakeArray((3,), "<f8"), FakeArray((3,))), TypeError,
     "saxpy(): argument 'x' must have dtype float32 (typestr '<f4'), got typestr '<f8'"),
    ((2.0, FakeArray((3,), ">f4"), FakeArray((3,))), TypeError,
     "saxpy(): argument 'x' must have dtype float32 (typestr '<f4'), got typestr '>f4'"),
    ((2.0, FakeArray((3,), strides=(8,)), FakeArray((3,))), ValueError,
     "saxpy(): argument 'x' must be contiguous (C order): byte strides (4,), got (8,)"),
    ((2.0, FakeArray((3,), address=(1 << 20) + 4), FakeArray((3,))), ValueError,
     "saxpy(): argument 'x' must be 16-byte aligned, its data pointer is 0x100004"),
    (("2", FakeArray((3,)), FakeArray((3,))), TypeError, "saxpy(): argument 'a' must be a float32 scalar, "
                                                         "got builtins.str"),
])
def test_bad_arguments_are_worded(runtime, args, error, message):
    saxpy = kernel_of(runtime, SAXPY, "saxpy")
    with pytest.raises(error) as caught:
        saxpy.launch_config(*args)
    assert str(caught.value) == message


def test_a_masked_array_is_refused_and_a_mask_of_none_is_none(runtime):
    saxpy = kernel_of(runtime, SAXPY, "saxpy")
    x = FakeArray((3,))
    x.__cuda_array_interface__["mask"] = None
    saxpy.launch_config(2.0, x, FakeArray((3,)))
    x.__cuda_array_interface__["mask"] = FakeArray((3,), "|b1")
    with pytest.raises(TypeError, match=r"^saxpy\(\): argument 'x' is a masked array"):
        saxpy.launch_config(2.0, x, FakeArray((3,)))


@pytest.mark.parametrize("dtype, value, error, message", [
    ("int32", 2 ** 31, ValueError, "k(): argument 's' = 2147483648 does not fit in int32"),
    ("uint8", -1, ValueError, "k(): argument 's' = -1 does not fit in uint8"),
    ("int32", 1.5, TypeError, "k(): argument 's' must be an integer (int32), got 1.5"),
    ("int32", numpy.float32(1), TypeError, f"k(): argument 's' must be an integer (int32), got {numpy.float32(1)!r}"),
    ("bfloat16", 2.0, TypeError, "k(): argument 's' must be the bits of a bfloat16 as an unsigned 16-bit integer, "
                                 "got 2.0"),
    ("float8_e4m3fn", 256, ValueError, "k(): argument 's' = 256 does not fit in an unsigned 8-bit integer"),
    ("float32", b"1", TypeError, "k(): argument 's' must be a float32 scalar, got builtins.bytes"),
    ("float32", numpy.zeros(2), TypeError, "k(): argument 's' must be a float32 scalar, got numpy.ndarray"),
])
def test_bad_scalars_are_worded(runtime, dtype, value, error, message):
    kernel = kernel_of(runtime, spec([scalar("s", dtype)], ["s"]))
    with pytest.raises(error) as caught:
        kernel.launch_config(value)
    assert str(caught.value) == message


@pytest.mark.parametrize("dtype, value, expected", [
    ("int8", True, numpy.int8(1)), ("uint32", numpy.uint32(7), numpy.uint32(7)), ("bool", 0, numpy.bool_(False)),
    ("float32", 3, numpy.float32(3.0)), ("bfloat16", 0x3F80, numpy.uint16(0x3F80)),
])
def test_scalars_become_the_kernels_numpy_type(runtime, dtype, value, expected):
    kernel = kernel_of(runtime, spec([scalar("s", dtype)], ["s"]))
    converted = kernel._bind((value,))[2]["s"]
    assert type(converted) is type(expected) and converted == expected


# ---- strides and contiguity --------------------------------------------------------------------------

def test_c_strides():
    assert launch._Kernel._c_strides((2, 3, 4), 4) == (48, 16, 4)
    assert launch._Kernel._c_strides((), 2) == ()


MATRIX = spec([buffer("A", (4, 8))], ["A"])
COLUMN_MAJOR = spec([buffer("A", (4, 8), strides=(1, 4))], ["A"])


@pytest.mark.parametrize("entry, shape, strides", [
    (MATRIX, (4, 8), None), (MATRIX, (4, 8), (32, 4)), (COLUMN_MAJOR, (4, 8), (4, 16)),
])
def test_arrays_with_the_expected_strides_are_accepted(runtime, entry, shape, strides):
    kernel_of(runtime, entry).launch_config(FakeArray(shape, strides=strides))


def test_strides_of_extents_of_one_and_of_empty_arrays_do_not_matter(runtime):
    row = kernel_of(runtime, spec([buffer("A", (1, 8))], ["A"]))
    row.launch_config(FakeArray((1, 8), strides=(999, 4)))
    with pytest.raises(ValueError, match=r"must be contiguous \(C order\): byte strides \(32, 4\), got \(999, 8\)"):
        row.launch_config(FakeArray((1, 8), strides=(999, 8)))
    empty = kernel_of(runtime, spec([buffer("A", ("m", 4)), extent("m")], ["A"]))
    empty.launch_config(FakeArray((0, 4), strides=(16, 8)))


def test_a_layout_needs_its_strides(runtime):
    kernel = kernel_of(runtime, COLUMN_MAJOR)
    with pytest.raises(ValueError) as caught:
        kernel.launch_config(FakeArray((4, 8)))
    assert str(caught.value) == "k(): argument 'A' must have byte strides (4, 16) (its layout), got a " \
                                "C-contiguous array"
    with pytest.raises(ValueError) as caught:
        kernel.launch_config(FakeArray((4, 8), strides=(32, 4)))
    assert str(caught.value) == "k(): argument 'A' must be the strides its layout implies: byte strides (4, 16), " \
                                "got (32, 4)"


def test_a_layout_without_strides_is_refused(runtime):
    kernel = kernel_of(runtime, spec([buffer("A", (4, 8), strides="unsupported")], ["A"]))
    with pytest.raises(TypeError, match=r"^k\(\): the layout of 'A' cannot be described by array strides$"):
        kernel.launch_config(FakeArray((4, 8)))


def test_shapes_and_strides_may_be_expressions(runtime):
    entry = spec([buffer("A", ("n", lambda v: v["n"] * 2), strides=(1, "n")), extent("n")], ["A"])
    kernel = kernel_of(runtime, entry)
    kernel.launch_config(FakeArray((3, 6), strides=(4, 12)))
    with pytest.raises(ValueError, match=r"argument 'A' must have shape \(3, 6\), got \(3, 5\)"):
        kernel.launch_config(FakeArray((3, 5), strides=(4, 12)))
    assert kernel._shape_text(entry["params"][0]) == "(n, expr)"


def test_an_element_offset_moves_the_aligned_pointer(runtime):
    kernel = kernel_of(runtime, spec([buffer("A", (4,), offset=4, align=32)], ["A"]))
    kernel.launch_config(FakeArray((4,), address=4096 + 16))  # the buffer starts 4 floats earlier, at 4096
    with pytest.raises(ValueError, match=r"must be 32-byte aligned, its data pointer is 0x1000$"):
        kernel.launch_config(FakeArray((4,), address=4096))


def test_no_element_past_the_32_bit_index(runtime):
    def kernel(offset):
        return kernel_of(runtime, spec([buffer("A", ("n",), "uint8", 1, offset=offset, align=1), extent("n")], ["A"]))
    kernel(0).launch_config(FakeArray((2 ** 31 - 1,), "|u1"))
    kernel(1).launch_config(FakeArray((2 ** 31 - 1,), "|u1"))  # elements 1 .. 2^31 - 1 of the buffer
    with pytest.raises(ValueError) as caught:
        kernel(2).launch_config(FakeArray((2 ** 31 - 1,), "|u1"))
    assert str(caught.value) == "k(): argument 'A' of shape (2147483647,) reaches element 2147483648, but the " \
                                "kernel indexes with 32-bit ints: at most element 2147483647 (2^31 - 1)"
    with pytest.raises(ValueError, match=r"has shape \(2147483648,\), but the kernel indexes with 32-bit ints: "
                                         r"extent 'n' is at most 2147483647"):
        kernel(0).launch_config(FakeArray((2 ** 31,), "|u1"))  # one element too many, counted from 0
    constant = kernel_of(runtime, spec([buffer("A", (2 ** 31,), "uint8", 1, align=1)], ["A"]))
    with pytest.raises(ValueError, match=r"of shape \(2147483648,\) reaches element 2147483647, but"):
        constant.launch_config(FakeArray((2 ** 31,), "|u1"))


# ---- workspaces -----------------------------------------------------------------------------------------

def test_workspace_sizes_follow_the_arguments(runtime):
    entry = spec([buffer("A", ("n",)), scalar("m", "int32"), extent("n"),
                  workspace("partials", (lambda v: (v["n"] + 255) // 256,)), workspace("rows", ("n", "m"), "int16", 2)],
                 ["A", "m"], keyed=["m"])
    kernel = kernel_of(runtime, entry)
    assert kernel.workspace_bytes(FakeArray((1000,)), 3) == {"partials": 16, "rows": 6000}
    with pytest.raises(ValueError) as caught:
        kernel.workspace_bytes(FakeArray((1000,)), -1)
    assert str(caught.value) == "k(): workspace 'rows' would have the shape (1000, -1) for these arguments: an " \
                                "extent is negative"
    with pytest.raises(ValueError, match=r"workspace 'rows' of shape \(1000, 3000000\) would have 3000000000 elements"):
        kernel.workspace_bytes(FakeArray((1000,)), 3_000_000)


# ---- the plan cache -------------------------------------------------------------------------------------

def test_signatures_tell_apart_what_the_checks_depend_on(runtime):
    signature = runtime._signature
    assert signature((FakeArray((3,)), 2.0)) == signature((FakeArray((3,), address=64), 5.0))
    base = signature((FakeArray((3,)),))
    for other in (FakeArray((4,)), FakeArray((3,), "<f8"), FakeArray((3,), strides=(4,)),
                  FakeArray((3,), readonly=True)):
        assert signature((other,)) != base
    masked = FakeArray((3,))
    masked.__cuda_array_interface__["mask"] = FakeArray((3,), "|b1")
    assert signature((masked,)) != base
    assert signature((2.0,)) != signature((2,)) != signature((numpy.int32(2),))


def test_plans_are_keyed_by_signature_and_by_the_keyed_scalars(runtime):
    entry = spec([buffer("A", ("m", 4)), scalar("m", "int32")], ["A", "m"], keyed=["m"],
                 grid=lambda v: (v["m"], 1, 1))
    kernel = kernel_of(runtime, entry)
    args = (FakeArray((8, 4)), 8)
    assert kernel._key(args) == (runtime._signature(args), (8,))
    assert kernel._key((FakeArray((8, 4)), numpy.int64(8)))[1] == (repr(numpy.int64(8)),)
    plan = kernel._lookup(args)
    assert kernel._lookup((FakeArray((8, 4), address=1 << 24), 8)) is plan and kernel._last is plan
    assert (plan.grid, plan.block, plan.shared, plan.empty, plan.keyed) == ((8, 1, 1), (128, 1, 1), 0, False, (8,))
    assert plan.fast is None  # the common case is CuPy's C-contiguous arrays only
    other = kernel._lookup((FakeArray((9, 4)), 9))
    assert other is not plan and other.grid == (9, 1, 1) and len(kernel._plans) == 2
    with pytest.raises(ValueError, match=r"extent 'm' is 9 from an earlier argument"):
        kernel._lookup((FakeArray((8, 4)), 9))


def test_the_plan_cache_is_emptied_when_full(runtime):
    kernel = kernel_of(runtime, SAXPY, "saxpy")
    for n in range(1, 65):
        kernel._lookup((2.0, FakeArray((n,)), FakeArray((n,))))
    assert len(kernel._plans) == 64
    kernel._lookup((2.0, FakeArray((65,)), FakeArray((65,))))
    assert len(kernel._plans) == 1


def test_an_empty_grid_makes_an_empty_plan(runtime):
    kernel = kernel_of(runtime, SAXPY, "saxpy")
    assert kernel._lookup((2.0, FakeArray((0,)), FakeArray((0,)))).empty


# ---- NVRTC's log as CompileError ---------------------------------------------------------------------------

CUDA = '#line 1 "kernels/k.tx"\n__device__ float f(float x) {\n#line 12 "we\\"ird\\303\\251.tx"\n  return y;\n}\n'


def test_mapped_errors_name_the_tx_line_and_quote_it(runtime, tmp_path, monkeypatch):
    runtime.load("k.tx", 75, "", CUDA, {}, line_file="kernels/k.tx")
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.tx").write_text("\ufefffirst\nsecond line\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    log = ('kernels/k.tx(2): error: identifier "y" is undefined\n'
           'kernels/k.tx(1): warning #177-D: variable "z" was declared but never referenced\n'
           'we"ird\u00e9.tx(12): catastrophic error: cannot open source file\n'
           '\n2 errors detected in the compilation of "k.tx.cu".\n')
    error = runtime.compile_error(log)
    assert isinstance(error, runtime.CompileError) and isinstance(error, RuntimeError) and error.log == log
    assert error.errors == [("kernels/k.tx", 2, 'identifier "y" is undefined'),
                            ('we"ird\u00e9.tx', 12, "cannot open source file")]
    assert str(error).split("\n") == [
        'kernels/k.tx:2: error: identifier "y" is undefined',
        "  2 | second line",
        'we"ird\u00e9.tx:12: catastrophic error: cannot open source file',
        "k.tx: NVRTC rejected the generated CUDA (2 errors; NVRTC's log is the `log` attribute)",
    ]


def test_only_the_launchers_own_tx_file_is_ever_quoted(runtime, tmp_path, monkeypatch):
    """A `#line` in inline CUDA can name any file: CompileError reports its errors by that name
    and line, but reads nothing but the .tx file at the path tirxc's own directives give."""
    secret = tmp_path / "secret.txt"
    secret.write_text("password = hunter2\n")
    (tmp_path / "k.tx").write_text("first\n")
    monkeypatch.chdir(tmp_path)
    cuda = f'#line 1 "k.tx"\nint a;\n#line 1 "{secret}"\nint b = c;\n#line 1 "other/k.tx"\nint d = e;\n'
    log = (f'{secret}(1): error: identifier "c" is undefined\n'
           'other/k.tx(1): error: identifier "e" is undefined\n'
           'k.tx(1): error: something\n')
    for line_file in ("k.tx", ""):
        runtime.load("k.tx", 75, "", cuda, {}, line_file=line_file)
        text = str(runtime.compile_error(log))
        assert "hunter2" not in text and f'{secret}:1: error: identifier "c" is undefined' in text
        assert 'other/k.tx:1: error: identifier "e" is undefined\nk.tx:1: error: something\n' in text
        assert ("  1 | first" in text) == (line_file == "k.tx")
    runtime.load("other.tx", 75, "", cuda, {}, line_file=str(secret))  # a line file not named SOURCE_FILE
    assert "hunter2" not in str(runtime.compile_error(log))


def test_a_tx_file_that_is_not_a_regular_file_is_not_read(runtime, tmp_path, monkeypatch):
    """SOURCE_FILE may have been a FIFO or a device (`tirxc /dev/stdin`): reading it could block."""
    import os
    fifo = tmp_path / "k.tx"
    os.mkfifo(fifo)
    monkeypatch.chdir(tmp_path)
    runtime.load("k.tx", 75, "", '#line 1 "k.tx"\nint b = c;\n', {}, line_file="k.tx")
    assert str(runtime.compile_error('k.tx(1): error: identifier "c" is undefined\n')).split("\n")[:1] == \
        ['k.tx:1: error: identifier "c" is undefined']


def test_unmapped_errors_quote_the_generated_cuda(runtime):
    runtime.load("k.tx", 75, "", "int a;\nint b = c;\n", {})
    error = runtime.compile_error('k.tx.cu(2): error: identifier "c" is undefined\nk.tx.cu(9): error: past the end\n')
    assert error.errors == [(None, 2, 'identifier "c" is undefined'), (None, 9, "past the end")]
    assert str(error).split("\n") == [
        'k.tx (generated CUDA, line 2): error: identifier "c" is undefined',
        "  2 | int b = c;",
        "k.tx (generated CUDA, line 9): error: past the end",
        "k.tx: NVRTC rejected the generated CUDA (2 errors; NVRTC's log is the `log` attribute)",
    ]


def test_a_log_without_errors_is_passed_on_whole(runtime):
    runtime.load("k.tx", 75, "", "", {})
    error = runtime.compile_error("nvrtc: something else\n")
    assert str(error) == "k.tx: NVRTC rejected the generated CUDA:\nnvrtc: something else\n" and error.errors == []


@pytest.mark.parametrize("literal, name", [
    ("plain.tx", "plain.tx"), ('q\\"uote', 'q"uote'), ("back\\\\slash", "back\\slash"), ("tab\\tnl\\n", "tab\tnl\n"),
    ("\\303\\251t\\303\\251", "\u00e9t\u00e9"), ("\\1\\0012", "\x01\x012"), ("bad\\377", "bad\ufffd"),
])
def test_line_directive_names_are_c_unescaped(literal, name):
    assert nvrtc._c_unescape(literal) == name


def test_an_unreadable_file_quotes_nothing(tmp_path):
    assert nvrtc._file_line(str(tmp_path / "missing.tx"), 1) is None
    (tmp_path / "a.tx").write_text("one\ntwo\n", encoding="utf-8")
    assert nvrtc._file_line(str(tmp_path / "a.tx"), 2) == "two\n"
    assert nvrtc._file_line(str(tmp_path / "a.tx"), 3) is None


# ---- small helpers ------------------------------------------------------------------------------------------

def test_scalar_dtypes_and_descriptions():
    assert launch._scalar_dtype(scalar("b", "bfloat16")) == numpy.uint16
    assert launch._scalar_dtype(scalar("b", "bool")) == numpy.bool_
    assert launch._describe([]) == "builtins.list" and launch._describe(numpy.zeros(1)) == "numpy.ndarray"


def test_no_stream_is_a_null_context():
    with launch._as_stream(None) as entered:
        assert entered is None
