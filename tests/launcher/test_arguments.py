"""Every wrongly shaped, typed, strided, sized or misaligned argument is rejected
before launch, on the CPU: arrays are small objects exposing
`__cuda_array_interface__`, and for the launching path (`kernel(...)`, which
caches validation per argument signature) a stub `cupy` module records the
launches that would have happened, so a test can also prove that nothing was
launched.

tests/launcher/test_launcher.py holds the first checks (one of each kind);
tests/gpu/test_validation.py the same with real CuPy arrays on a GPU.
"""
from __future__ import annotations

import sys
import types

import numpy
import pytest

from tests.conftest import SAMPLES
from tests.hostile._util import FakeArray, load_launcher, ok

INT_MAX = 2 ** 31 - 1


def _module(tmp_path, text: str, stem: str):
    return load_launcher(tmp_path, ok(text, f"{stem}.tx", launcher_name=stem).launcher, stem)


@pytest.fixture
def saxpy(tmp_path):
    return _module(tmp_path, (SAMPLES / "saxpy.tx").read_text(), "saxpy").saxpy


@pytest.fixture
def copy4(tmp_path):
    return _module(tmp_path, (SAMPLES / "float4_copy.tx").read_text(), "float4_copy").float4_copy


TYPED = '''from tvm.script import tirx as T


@T.prim_func
def typed(F: T.Buffer((8,), "float32"), H: T.Buffer((8,), "float16"), G: T.Buffer((8,), "bfloat16"),
          I: T.Buffer((8,), "int32"), U: T.Buffer((8,), "uint8"), B: T.Buffer((8,), "bool"),
          L: T.Buffer((8,), "int64"), i: T.int32, u: T.uint32, c: T.int8, f: T.float32, b: T.bool):
    T.device_entry()
    tx = T.thread_id([8])
    F[tx] = T.float32(i) + f
    I[tx] = I[tx] + T.int32(u) + T.int32(c) + T.int32(H[tx]) + T.int32(G[tx]) + T.int32(U[tx]) + T.int32(L[tx])
    if b and B[tx]:
        F[tx] = 0.0
'''

TYPED_OK = {"F": "<f4", "H": "<f2", "G": "<u2", "I": "<i4", "U": "|u1", "B": "|b1", "L": "<i8"}
SCALARS_OK = {"i": 1, "u": 2, "c": -3, "f": 1.5, "b": True}


@pytest.fixture
def typed(tmp_path):
    return _module(tmp_path, TYPED, "typed").typed


def _typed_args(**changes):
    arrays = {name: FakeArray((8,), typestr) for name, typestr in TYPED_OK.items()}
    values = dict(arrays, **SCALARS_OK)
    values.update(changes)
    return [values[n] for n in ("F", "H", "G", "I", "U", "B", "L", "i", "u", "c", "f", "b")]


def test_the_well_typed_call_is_accepted(typed):
    assert typed.launch_config(*_typed_args()) == ((1, 1, 1), (8, 1, 1), 0)


@pytest.mark.parametrize("name, typestr", [
    ("F", "<f8"), ("F", "<f2"), ("F", "<i4"), ("F", ">f4"), ("F", "<c8"), ("F", "|V4"), ("F", "<u4"),
    ("H", "<u2"), ("H", "<f4"), ("G", "<f2"), ("G", "<i2"), ("I", "<u4"), ("I", "<i8"), ("I", ">i4"),
    ("U", "|i1"), ("U", "|b1"), ("B", "|u1"), ("L", "<u8"), ("L", "<M8"),
])
def test_wrong_element_types_are_rejected(typed, name, typestr):
    with pytest.raises(TypeError, match=rf"argument '{name}' must have dtype"):
        typed.launch_config(*_typed_args(**{name: FakeArray((8,), typestr)}))


@pytest.mark.parametrize("name, value, error", [
    ("i", 1.5, TypeError), ("i", "1", TypeError), ("i", b"1", TypeError), ("i", None, TypeError),
    ("i", numpy.float32(1), TypeError), ("i", FakeArray(()), TypeError), ("i", numpy.zeros(2), TypeError),
    ("i", 2 ** 31, ValueError), ("i", -2 ** 31 - 1, ValueError), ("u", -1, ValueError), ("u", 2 ** 32, ValueError),
    ("c", 128, ValueError), ("c", -129, ValueError), ("c", numpy.int64(200), ValueError),
    ("f", "1.5", TypeError), ("f", FakeArray((1,)), TypeError), ("f", numpy.ones(3, numpy.float32), TypeError),
    ("f", 1j, TypeError), ("f", 10 ** 400, OverflowError), ("b", "yes", TypeError),
])
def test_wrong_scalars_are_rejected(typed, name, value, error):
    with pytest.raises(error):
        typed.launch_config(*_typed_args(**{name: value}))


@pytest.mark.parametrize("name, value", [("i", numpy.int16(-5)), ("i", True), ("u", numpy.uint32(7)), ("c", -128),
                                         ("f", 3), ("f", numpy.float64(0.25)), ("b", numpy.bool_(False)), ("b", 0)])
def test_scalars_of_compatible_types_are_accepted(typed, name, value):
    typed.launch_config(*_typed_args(**{name: value}))


@pytest.mark.parametrize("value", [numpy.zeros(8, numpy.float32), [0.0] * 8, None, 3.0, object()],
                         ids=["numpy", "list", "None", "float", "object"])
def test_non_gpu_arrays_are_rejected(typed, value):
    with pytest.raises(TypeError, match=r"argument 'F' must be a GPU array exposing __cuda_array_interface__"):
        typed.launch_config(*_typed_args(F=value))


@pytest.mark.parametrize("shape, pattern", [
    ((8, 1), r"argument 'F' must have 1 dimensions"), ((), r"argument 'F' must have 1 dimensions"),
    ((7,), r"argument 'F' must have shape \(8,\), got \(7,\)"), ((9,), r"must have shape \(8,\)"),
    ((0,), r"must have shape \(8,\), got \(0,\)"),
])
def test_wrong_shapes_are_rejected(typed, shape, pattern):
    with pytest.raises(ValueError, match=pattern):
        typed.launch_config(*_typed_args(F=FakeArray(shape)))


@pytest.mark.parametrize("count", [0, 11, 13])
def test_wrong_argument_counts_are_rejected(typed, count):
    args = (_typed_args() + [1, 2])[:count]
    with pytest.raises(TypeError, match=r"typed\(\) takes 12 arguments"):
        typed.launch_config(*args)


def test_keyword_arguments_are_not_parameters(saxpy):
    with pytest.raises(TypeError):
        saxpy(2.0, FakeArray((8,)), y=FakeArray((8,)))


@pytest.mark.parametrize("strides, ok_", [
    (None, True), ((4,), True), ((8,), False), ((-4,), False), ((0,), False), ((2,), False),
])
def test_strides_of_a_dense_buffer(saxpy, strides, ok_):
    x = FakeArray((10,), strides=strides)
    if ok_:
        saxpy.launch_config(2.0, x, FakeArray((10,)))
    else:
        with pytest.raises(ValueError, match=r"argument 'x' must be contiguous \(C order\)"):
            saxpy.launch_config(2.0, x, FakeArray((10,)))


def test_strides_of_size_one_dimensions_do_not_matter(copy4):
    a = FakeArray((1, 4), strides=(12345, 4), address=1 << 20)
    copy4.launch_config(a, FakeArray((1, 4)))
    with pytest.raises(ValueError, match=r"argument 'A' must be contiguous"):
        copy4.launch_config(FakeArray((2, 4), strides=(4, 8)), FakeArray((2, 4)))  # Fortran order


def test_symbolic_extents_must_agree(copy4):
    with pytest.raises(ValueError, match=r"extent 'n' is 8 from an earlier argument but argument 'B' has shape"):
        copy4.launch_config(FakeArray((8, 4)), FakeArray((9, 4)))
    with pytest.raises(ValueError, match=r"argument 'B' must have shape \(8, 4\), got \(8, 3\)"):
        copy4.launch_config(FakeArray((8, 4)), FakeArray((8, 3)))


@pytest.mark.parametrize("address", [(1 << 20) + 4, (1 << 20) + 8, (1 << 20) + 1])
def test_misaligned_pointers_are_rejected(copy4, address):
    with pytest.raises(ValueError, match=r"argument 'A' must be 16-byte aligned"):
        copy4.launch_config(FakeArray((8, 4), address=address), FakeArray((8, 4)))


def test_default_alignment_of_a_parameter_buffer_is_checked(saxpy):
    """Parameter buffers promise 64-byte alignment unless they say `align=`."""
    with pytest.raises(ValueError, match=r"argument 'y' must be 64-byte aligned"):
        saxpy.launch_config(2.0, FakeArray((10,)), FakeArray((10,), address=(1 << 20) + 32))


def test_empty_arrays_skip_the_alignment_check(copy4):
    assert copy4.launch_config(FakeArray((0, 4), address=3), FakeArray((0, 4), address=5))[0] == (0, 1, 1)


# ---- the 32-bit index limit ----------------------------------------------------------------------------

def test_arrays_reaching_past_int_max_are_rejected(copy4, saxpy):
    """Element indices are C ints (docs/reliability.md): (n, 4) reaches element 4n - 1."""
    n = (INT_MAX + 1) // 4
    copy4.launch_config(FakeArray((n, 4)), FakeArray((n, 4)))  # last element 2^31 - 1: fine
    with pytest.raises(ValueError, match=r"argument 'A' of shape \(536870913, 4\) reaches element 2147483651"):
        copy4.launch_config(FakeArray((n + 1, 4)), FakeArray((n + 1, 4)))
    with pytest.raises(ValueError, match=r"32-bit ints"):
        saxpy.launch_config(2.0, FakeArray((INT_MAX + 1,)), FakeArray((INT_MAX + 1,)))
    saxpy.launch_config(2.0, FakeArray((INT_MAX,)), FakeArray((INT_MAX,)))


def test_the_index_limit_counts_layout_strides_and_offsets(tmp_path):
    text = '''from tvm.script import tirx as T
from tvm.tirx.layout import TileLayout, S


@T.prim_func
def strided(A_ptr: T.handle):
    n = T.int32()
    A = T.match_buffer(A_ptr, (n, 4), "float32", layout=TileLayout(S[(n, 4):(64, 1)]), elem_offset=16)
    T.device_entry()
    tx = T.thread_id([4])
    A[0, tx] = 1.0
'''
    kernel = _module(tmp_path, text, "strided").strided
    last_ok = (INT_MAX - 16 - 3) // 64 + 1  # rows such that 16 + (rows - 1) * 64 + 3 <= INT_MAX
    kernel.launch_config(FakeArray((last_ok, 4), strides=(256, 4), address=(1 << 20) + 64))
    with pytest.raises(ValueError, match=r"32-bit ints"):
        kernel.launch_config(FakeArray((last_ok + 1, 4), strides=(256, 4), address=(1 << 20) + 64))


# ---- the launching path: a stub CuPy records launches ----------------------------------------------------

class _Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((grid, block, args, shared_mem))


@pytest.fixture
def fake_cupy(monkeypatch):
    """A `cupy` module with just what the launcher's __call__ touches; `owner` is the device
    every pointer claims to be on."""
    stub = types.ModuleType("cupy")
    state = types.SimpleNamespace(owner=0)
    runtime = types.SimpleNamespace(getDevice=lambda: 0,
                                    pointerGetAttributes=lambda ptr: types.SimpleNamespace(device=state.owner))
    stub.cuda = types.SimpleNamespace(runtime=runtime, Stream=type("Stream", (), {}))
    monkeypatch.setitem(sys.modules, "cupy", stub)
    return state


def _armed(kernel):
    recorder = _Recorder()
    kernel._functions[0] = recorder
    return recorder


def test_a_good_call_launches_once(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    saxpy(2.0, FakeArray((300,)), FakeArray((300,)))
    assert len(recorder.calls) == 1
    grid, block, args, shared = recorder.calls[0]
    assert (grid, block, shared) == ((2, 1, 1), (256, 1, 1), 0)
    assert int(args[0]) == 1 << 20 and numpy.float32(args[2]) == 2.0 and int(args[3]) == 300


@pytest.mark.parametrize("bad", [
    lambda: (2.0, FakeArray((300,), "<f8"), FakeArray((300,))),
    lambda: (2.0, FakeArray((300,)), FakeArray((301,))),
    lambda: (2.0, FakeArray((300,), strides=(8,)), FakeArray((300,))),
    lambda: (2.0, FakeArray((300,), address=(1 << 20) + 4), FakeArray((300,))),
    lambda: ("2.0", FakeArray((300,)), FakeArray((300,))),
    lambda: (2.0, FakeArray((300,))),
    lambda: (2.0, numpy.zeros(300, numpy.float32), FakeArray((300,))),
], ids=["dtype", "extent", "strides", "alignment", "scalar", "count", "host-array"])
def test_bad_calls_never_launch(saxpy, fake_cupy, bad):
    recorder = _armed(saxpy)
    with pytest.raises((TypeError, ValueError)):
        saxpy(*bad())
    assert recorder.calls == []


def test_the_cached_path_still_checks_pointers_and_scalars(saxpy, fake_cupy):
    """A second call with the same signature reuses the first one's checks, but not its
    pointers' alignment, their device, or the scalar values."""
    recorder = _armed(saxpy)
    saxpy(2.0, FakeArray((300,)), FakeArray((300,)))
    with pytest.raises(ValueError, match=r"argument 'x' must be 64-byte aligned"):
        saxpy(2.0, FakeArray((300,), address=(1 << 20) + 4), FakeArray((300,)))
    with pytest.raises(TypeError, match=r"argument 'a' must be a float32 scalar"):
        saxpy("2.0", FakeArray((300,)), FakeArray((300,)))
    fake_cupy.owner = 1
    with pytest.raises(ValueError, match=r"argument 'x' is on device 1, but the current device is 0"):
        saxpy(2.0, FakeArray((300,)), FakeArray((300,)))
    assert len(recorder.calls) == 1


def test_an_empty_problem_launches_nothing(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    assert saxpy(2.0, FakeArray((0,)), FakeArray((0,))) is None
    assert recorder.calls == []


def test_a_stream_must_be_a_stream(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    with pytest.raises(TypeError, match=r"stream must be a CuPy or PyTorch stream"):
        saxpy(2.0, FakeArray((300,)), FakeArray((300,)), stream=object())
    assert recorder.calls == []


# ---- read-only and masked arrays ----------------------------------------------------------------------

def test_a_read_only_array_for_a_written_buffer_is_rejected(saxpy):
    """`data: (ptr, True)` (a read-only PyTorch or Numba view) cannot take the kernel's writes."""
    with pytest.raises(ValueError, match=r"saxpy\(\): argument 'y' is read-only, but the kernel writes 'y'"):
        saxpy.launch_config(2.0, FakeArray((10,)), FakeArray((10,), readonly=True))


def test_a_read_only_array_for_a_buffer_the_kernel_only_reads_is_accepted(saxpy):
    assert saxpy.launch_config(2.0, FakeArray((10,), readonly=True), FakeArray((10,)))[0] == (1, 1, 1)


def test_a_masked_array_is_rejected(saxpy):
    x = FakeArray((10,))
    x.__cuda_array_interface__["mask"] = FakeArray((10,), "|b1")
    with pytest.raises(TypeError, match=r"saxpy\(\): argument 'x' is a masked array"):
        saxpy.launch_config(2.0, x, FakeArray((10,)))


def test_a_mask_of_none_is_no_mask(saxpy):
    x = FakeArray((10,))
    x.__cuda_array_interface__["mask"] = None
    saxpy.launch_config(2.0, x, FakeArray((10,)))


def test_the_cached_path_checks_read_only_and_masked_arrays(saxpy, fake_cupy):
    """A read-only or masked array with the shape, strides and dtype of an accepted one
    does not slip through the per-signature cache."""
    recorder = _armed(saxpy)
    saxpy(2.0, FakeArray((300,)), FakeArray((300,)))
    with pytest.raises(ValueError, match=r"argument 'y' is read-only"):
        saxpy(2.0, FakeArray((300,)), FakeArray((300,), readonly=True))
    masked = FakeArray((300,))
    masked.__cuda_array_interface__["mask"] = FakeArray((300,), "|b1")
    with pytest.raises(TypeError, match=r"argument 'x' is a masked array"):
        saxpy(2.0, masked, FakeArray((300,)))
    assert len(recorder.calls) == 1
