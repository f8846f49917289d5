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

import itertools
import sys
import types

import numpy
import pytest

from tests.conftest import SAMPLES
from tests.hostile._util import FakeArray as _FakeArray, load_launcher, ok

_addresses = itertools.count(1)


class FakeArray(_FakeArray):
    """tests.hostile's FakeArray, at an address of its own unless given one: the launcher refuses
    arrays that share memory when the kernel writes one of them."""

    def __init__(self, shape, typestr="<f4", strides=None, address=None, readonly=False):
        super().__init__(shape, typestr, strides, next(_addresses) << 40 if address is None else address, readonly)

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
    n = INT_MAX - 255  # the grid is T.ceildiv(n, 256): (n + 255) // 256 in the kernel's int32 arithmetic
    assert saxpy.launch_config(2.0, FakeArray((n,)), FakeArray((n,)))[0] == (2 ** 23 - 1, 1, 1)
    with pytest.raises(ValueError, match=r"saxpy\(\): the grid cannot be computed for these arguments: 2147483648 "
                                         r"does not fit in int32, and int32 arithmetic may not overflow"):
        saxpy.launch_config(2.0, FakeArray((n + 1,)), FakeArray((n + 1,)))


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


class _Memory:
    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class CupyArray:
    """What the launcher reads of a cupy.ndarray; `shape` and `strides` can be set in place,
    as CuPy's can."""

    def __init__(self, shape, dtype="float32", address=None, device=0):
        self.dtype = numpy.dtype(dtype)
        self.shape = tuple(shape)
        self.strides = numpy.empty(shape, self.dtype).strides
        self.data = _Memory(next(_addresses) << 32 if address is None else address, device)

    @property
    def _c_contiguous(self):
        """CuPy's flag: the C strides wherever an extent exceeds 1, or no elements at all."""
        c_strides = numpy.empty(self.shape, self.dtype).strides
        return 0 in self.shape or all(a == e for a, e, n in zip(self.strides, c_strides, self.shape) if n > 1)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "strides": self.strides,
                "data": (self.data.ptr, False), "version": 3}


@pytest.fixture
def fake_cupy(monkeypatch):
    """A `cupy` module with just what the launcher's __call__ touches: `owner` is the device
    every pointer of a non-CuPy array claims to be on, `devices` how many the process sees,
    `current` the current one; `asked` counts the calls to getDevice."""
    stub = types.ModuleType("cupy")
    state = types.SimpleNamespace(owner=0, devices=1, current=0, asked=0)

    def get_device():
        state.asked += 1
        return state.current

    runtime = types.SimpleNamespace(getDevice=get_device, getDeviceCount=lambda: state.devices,
                                    pointerGetAttributes=lambda ptr: types.SimpleNamespace(device=state.owner))
    stub.cuda = types.SimpleNamespace(runtime=runtime, Stream=type("Stream", (), {}))
    stub.ndarray = CupyArray
    monkeypatch.setitem(sys.modules, "cupy", stub)
    return state


def _armed(kernel):
    recorder = _Recorder()
    kernel._functions[0] = recorder
    return recorder


def test_a_good_call_launches_once(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    saxpy(2.0, FakeArray((300,), address=1 << 20), FakeArray((300,), address=1 << 21))
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


def test_cupy_arrays_are_passed_as_they_are(saxpy, fake_cupy):
    """CuPy's arrays take the launcher's fast path: the kernel gets the array itself, and a
    Python float becomes the kernel's float32."""
    recorder = _armed(saxpy)
    x, y = CupyArray((300,)), CupyArray((300,), address=1 << 21)
    saxpy(2.0, x, y)
    saxpy(2.0, x, y)
    assert len(recorder.calls) == 2
    for grid, _, args, _ in recorder.calls:
        assert grid == (2, 1, 1) and args[0] is x and args[1] is y
        assert type(args[2]) is numpy.float32 and args[2] == 2.0 and type(args[3]) is numpy.int32 and args[3] == 300


def test_the_cached_path_checks_cupy_arrays(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    saxpy(2.0, CupyArray((300,)), CupyArray((300,)))
    with pytest.raises(TypeError, match=r"argument 'y' must have dtype float32 \(typestr '<f4'\), got typestr '<f8'"):
        saxpy(2.0, CupyArray((300,)), CupyArray((300,), "float64"))
    with pytest.raises(ValueError, match=r"argument 'y' must be 64-byte aligned, its data pointer is 0x100010"):
        saxpy(2.0, CupyArray((300,)), CupyArray((300,), address=(1 << 20) + 16))
    assert len(recorder.calls) == 1


def test_a_process_with_one_device_asks_for_the_current_device_once(saxpy, fake_cupy):
    """With a single device visible the current device is always 0: a launch does not ask."""
    recorder = _armed(saxpy)
    for _ in range(3):
        saxpy(2.0, CupyArray((300,)), CupyArray((300,)))
    assert len(recorder.calls) == 3 and fake_cupy.asked == 1


def test_repeated_calls_take_the_common_case_and_anything_unusual_the_full_path(saxpy, fake_cupy, monkeypatch):
    """A call like the latest one, with C-contiguous CuPy arrays, is checked in a few tests per
    array; an unaligned, reshaped or non-contiguous array, or another dtype, goes through the
    full checks, which word the error."""
    recorder = _armed(saxpy)
    full = []
    checked_buffers = type(saxpy)._checked_buffers
    monkeypatch.setattr(type(saxpy), "_checked_buffers",
                        lambda self, args: full.append(1) or checked_buffers(self, args))
    x, y = CupyArray((300,)), CupyArray((300,), address=1 << 21)
    saxpy(2.0, x, y)
    saxpy(3.0, CupyArray((300,), address=1 << 22), y)
    assert len(full) == 1 and len(recorder.calls) == 2
    unaligned = CupyArray((300,), address=(1 << 20) + 4)
    with pytest.raises(ValueError, match=r"argument 'x' must be 64-byte aligned"):
        saxpy(2.0, unaligned, y)
    strided = CupyArray((300,))
    strided.strides = (8,)
    with pytest.raises(ValueError, match=r"argument 'x' must be contiguous"):
        saxpy(2.0, strided, y)
    with pytest.raises(TypeError, match=r"argument 'y' must have dtype float32"):
        saxpy(2.0, x, CupyArray((300,), "int32"))
    assert len(full) == 4 and len(recorder.calls) == 2


def test_with_several_devices_every_launch_asks_and_checks_the_owner(saxpy, fake_cupy):
    fake_cupy.devices = 2
    recorder = _armed(saxpy)
    saxpy(2.0, CupyArray((300,)), CupyArray((300,)))
    fake_cupy.current = 1
    with pytest.raises(ValueError, match=r"argument 'x' is on device 0, but the current device is 1"):
        saxpy(2.0, CupyArray((300,)), CupyArray((300,), device=1))
    saxpy._functions[1] = recorder
    saxpy(2.0, CupyArray((300,), device=1), CupyArray((300,), device=1))
    assert len(recorder.calls) == 2 and fake_cupy.asked == 3


def test_an_array_reshaped_in_place_is_checked_again(saxpy, fake_cupy):
    """The plan cache is keyed by what the arrays are at each call, never by which arrays
    they are: CuPy lets `shape` be set in place."""
    recorder = _armed(saxpy)
    x, y = CupyArray((600,)), CupyArray((600,))
    saxpy(2.0, x, y)
    x.shape, x.strides = (2, 300), (1200, 4)
    with pytest.raises(ValueError, match=r"argument 'x' must have 1 dimensions"):
        saxpy(2.0, x, y)
    x.shape, x.strides = (300,), (4,)
    with pytest.raises(ValueError, match=r"extent 'n' is 300 from an earlier argument but argument 'y'"):
        saxpy(2.0, x, y)
    y.shape = (300,)
    saxpy(2.0, x, y)
    x.strides = (8,)
    with pytest.raises(ValueError, match=r"argument 'x' must be contiguous"):
        saxpy(2.0, x, y)
    assert [call[0] for call in recorder.calls] == [(3, 1, 1), (2, 1, 1)]


def test_alternating_signatures_each_launch_with_their_own_plan(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    small, large, host_view = CupyArray((300,)), CupyArray((600,)), FakeArray((300,))
    outputs = {small: CupyArray((300,)), large: CupyArray((600,)), host_view: FakeArray((300,))}
    for x in (small, large, small, host_view, large, host_view):
        saxpy(2.0, x, outputs[x])
    assert [(call[0], int(call[2][3])) for call in recorder.calls] == \
        [((2, 1, 1), 300), ((3, 1, 1), 600), ((2, 1, 1), 300)] * 2


SHAPED_BY_A_SCALAR = '''from tvm.script import tirx as T


@T.prim_func
def rows(A_ptr: T.handle, m: T.int32):
    A = T.match_buffer(A_ptr, (m, 4), "float32")
    T.device_entry()
    tx = T.thread_id([4])
    A[m - 1, tx] = 1.0
'''


def test_a_scalar_that_a_buffer_shape_names_is_checked_on_every_call(tmp_path, fake_cupy):
    """The shape check compares the array with the scalar: a plan made for one value of it
    must not serve another (the kernel would write past the array)."""
    rows = _module(tmp_path, SHAPED_BY_A_SCALAR, "rows").rows
    recorder = _armed(rows)
    rows(CupyArray((8, 4)), 8)
    with pytest.raises(ValueError, match=r"extent 'm' is 9 from an earlier argument but argument 'A' has shape"):
        rows(CupyArray((8, 4)), 9)
    rows(CupyArray((9, 4)), 9)
    assert [int(call[2][1]) for call in recorder.calls] == [8, 9]


def test_python_scalars_are_range_checked_and_converted_on_the_cached_path(typed, fake_cupy):
    """Python ints, floats and bools take the cached path's cheap conversion; anything else,
    or an int out of range, the full check."""
    recorder = _armed(typed)
    typed(*_typed_args())
    typed(*_typed_args(i=-2 ** 31, u=2 ** 32 - 1, c=numpy.int64(-7), f=0.0, b=False))
    with pytest.raises(ValueError, match=r"argument 'i' = 2147483648 does not fit in int32"):
        typed(*_typed_args(i=2 ** 31))
    with pytest.raises(ValueError, match=r"argument 'u' = -1 does not fit in uint32"):
        typed(*_typed_args(u=-1))
    with pytest.raises(TypeError, match=r"argument 'c' must be an integer"):
        typed(*_typed_args(c=1.0))
    first, second = (call[2][7:12] for call in recorder.calls)
    assert [type(v) for v in second] == [numpy.int32, numpy.uint32, numpy.int8, numpy.float32, numpy.bool_]
    assert [v.item() for v in first] == [1, 2, -3, 1.5, True]
    assert [v.item() for v in second] == [-2 ** 31, 2 ** 32 - 1, -7, 0.0, False]


def test_a_converted_scalar_follows_the_value_not_its_equality(saxpy, fake_cupy):
    """A Python scalar's conversion is reused only for the very same object: 0.0 == -0.0, but
    the kernel must get the sign it was passed."""
    recorder = _armed(saxpy)
    x, y = CupyArray((300,)), CupyArray((300,))
    for a in (2.0, 2.0, 3.0, 0.0, -0.0, float("nan")):
        saxpy(a, x, y)
    values = [call[2][2] for call in recorder.calls]
    assert all(type(v) is numpy.float32 for v in values)
    assert [float(v) for v in values[:4]] == [2.0, 2.0, 3.0, 0.0]
    assert numpy.signbit(values[4]) and not numpy.signbit(values[3]) and numpy.isnan(values[5])


class _Changing(FakeArray):
    """An array whose interface shows another shape from its third read on."""

    def __init__(self, shape):
        super().__init__(shape)
        self.reads = 0

    def __getattribute__(self, name):
        if name == "__cuda_array_interface__":
            self.reads += 1
            if self.reads > 2:
                return dict(object.__getattribute__(self, name), shape=(301,))
        return object.__getattribute__(self, name)


def test_an_array_that_changes_while_it_is_checked_is_refused(saxpy, fake_cupy):
    """The first call reads each array for the plan's key and for its checks, then for the
    launch; an array that is no longer what was checked is refused, not launched."""
    recorder = _armed(saxpy)
    with pytest.raises(ValueError, match=r"saxpy\(\): an argument's shape, strides or dtype changed while the "
                                         r"arguments were checked"):
        saxpy(2.0, _Changing((300,)), FakeArray((300,)))
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


BITS_SCALARS = '''from tvm.script import tirx as T

@T.prim_func
def scale(A_ptr: T.handle, a: T.bfloat16, e: T.float8_e4m3fn):
    A = T.match_buffer(A_ptr, (256,), "bfloat16")
    T.device_entry()
    tx = T.thread_id([256])
    A[tx] = A[tx] * a + T.bfloat16(e)
'''


def test_bfloat16_and_float8_scalars_take_their_bits(tmp_path, fake_cupy):
    """NumPy has neither type: their scalars travel as the unsigned integer of their width,
    as their buffers do, never as a float64 that the kernel would misread."""
    scale = _module(tmp_path, BITS_SCALARS, "bits").scale
    recorder = _armed(scale)
    scale(CupyArray((256,), "uint16"), 0x4000, numpy.uint8(0x38))  # bfloat16 2.0, float8_e4m3fn 1.0
    scale(CupyArray((256,), "uint16"), 0x3F80, 0x40)
    assert [[(type(v), int(v)) for v in call[2][1:]] for call in recorder.calls] == \
        [[(numpy.uint16, 0x4000), (numpy.uint8, 0x38)], [(numpy.uint16, 0x3F80), (numpy.uint8, 0x40)]]
    with pytest.raises(TypeError, match=r"argument 'a' must be the bits of a bfloat16 as an unsigned 16-bit "
                                        r"integer, got 2\.0"):
        scale(CupyArray((256,), "uint16"), 2.0, 0x38)
    with pytest.raises(ValueError, match=r"argument 'e' = 256 does not fit in an unsigned 8-bit integer"):
        scale(CupyArray((256,), "uint16"), 0x4000, 256)
    assert len(recorder.calls) == 2


def test_an_empty_array_takes_any_strides(tmp_path, fake_cupy):
    """No element of an empty array is ever addressed, and CuPy calls it C-contiguous
    whatever its strides: the full check and the cached path agree to accept it."""
    rows = _module(tmp_path, SHAPED_BY_A_SCALAR, "rows").rows
    recorder = _armed(rows)
    odd = CupyArray((0, 4))
    odd.strides = (16, 8)
    rows(odd, 0)
    rows(CupyArray((0, 4)), 0)
    rows._plans.clear()
    rows(CupyArray((0, 4)), 0)
    rows(odd, 0)
    assert len(recorder.calls) == 4


# ---- pointers, extents and strides that an array interface can get wrong ---------------------------------

def test_a_null_data_pointer_with_elements_is_refused(saxpy, fake_cupy):
    with pytest.raises(ValueError, match=r"^saxpy\(\): argument 'x' has a NULL data pointer, but it has elements$"):
        saxpy.launch_config(2.0, FakeArray((10,), address=0), FakeArray((10,)))
    assert saxpy.launch_config(2.0, FakeArray((0,), address=0), FakeArray((0,), address=0))[0] == (0, 1, 1)
    recorder = _armed(saxpy)
    saxpy(2.0, CupyArray((300,)), CupyArray((300,)))  # the plan, and the common case's latest pointers
    for null in (FakeArray((300,), address=0), CupyArray((300,), address=0)):
        with pytest.raises(ValueError, match=r"argument 'x' has a NULL data pointer, but it has elements"):
            saxpy(2.0, null, CupyArray((300,)))
    assert len(recorder.calls) == 1


@pytest.mark.parametrize("shape", [(-1,), (2.5,), ("3",), (None,)])
def test_extents_must_be_non_negative_integers(saxpy, shape):
    with pytest.raises(ValueError, match=r"argument 'x' has the shape .*: an array's extents are non-negative "
                                         r"integers"):
        saxpy.launch_config(2.0, FakeArray(shape), FakeArray((3,)))


def test_numpy_integer_extents_and_strides_are_integers(copy4):
    shape, strides = (numpy.int64(8), numpy.int32(4)), (numpy.int64(16), numpy.int64(4))
    assert copy4.launch_config(FakeArray(shape, strides=strides), FakeArray((8, 4)))[0] == (1, 1, 1)


def test_strides_must_be_one_integer_per_dimension(copy4):
    with pytest.raises(ValueError, match=r"argument 'A' has 1 strides \(16,\) for its 2 dimensions"):
        copy4.launch_config(FakeArray((8, 4), strides=(16,)), FakeArray((8, 4)))
    with pytest.raises(ValueError, match=r"argument 'A' has 3 strides"):
        copy4.launch_config(FakeArray((8, 4), strides=(16, 4, 4)), FakeArray((8, 4)))
    with pytest.raises(TypeError, match=r"argument 'A' has the strides \(16\.0, 4\): byte strides are integers"):
        copy4.launch_config(FakeArray((8, 4), strides=(16.0, 4)), FakeArray((8, 4)))


def test_a_data_pointer_must_be_an_address(saxpy, fake_cupy):
    for pointer in (-16, 2 ** 64, 1.5e6, "1024"):
        with pytest.raises(ValueError, match=r"argument 'x' has the data pointer .* which is not an address"):
            saxpy.launch_config(2.0, FakeArray((10,), address=pointer), FakeArray((10,)))


# ---- arrays that share memory: the kernel's parameters are __restrict__ -----------------------------------

SHARES = r"arguments 'x' and 'y' share memory, but the kernel writes 'y' and takes its buffers as __restrict__"


def test_the_same_array_for_a_read_and_a_written_buffer_is_refused(saxpy, fake_cupy):
    recorder = _armed(saxpy)
    for x in (FakeArray((300,)), CupyArray((300,))):
        with pytest.raises(ValueError, match=rf"^saxpy\(\): {SHARES}"):
            saxpy(2.0, x, x)
    assert recorder.calls == []


@pytest.mark.parametrize("offset, refused", [(0, True), (64, True), (1216, True), (1280, False), (-1216, True),
                                             (-1280, False)])
def test_overlapping_arrays_are_refused_and_adjacent_ones_accepted(saxpy, fake_cupy, offset, refused):
    """x covers bytes [base, base + 1280): y may start at its end or end at its start."""
    recorder = _armed(saxpy)
    base = 1 << 24
    for kind in (FakeArray, CupyArray):
        if refused:
            with pytest.raises(ValueError, match=SHARES):
                saxpy(2.0, kind((320,), address=base), kind((320,), address=base + offset))
        else:
            saxpy(2.0, kind((320,), address=base), kind((320,), address=base + offset))
    assert len(recorder.calls) == (0 if refused else 2)


def test_the_common_case_checks_overlap_only_when_a_pointer_changes(saxpy, fake_cupy, monkeypatch):
    recorder = _armed(saxpy)
    checks = []
    check_overlap = type(saxpy)._check_overlap
    monkeypatch.setattr(type(saxpy), "_check_overlap", lambda self, plan, pointers: checks.append(1) or
                        check_overlap(self, plan, pointers))
    x, y = CupyArray((300,)), CupyArray((300,))
    for _ in range(5):
        saxpy(2.0, x, y)
    assert len(checks) == 1  # the first call's
    saxpy(2.0, x, CupyArray((300,)))
    assert len(checks) == 2
    with pytest.raises(ValueError, match=SHARES):  # the remembered pointers hide no new overlap
        saxpy(2.0, x, CupyArray((300,), address=x.data.ptr + 64))
    saxpy(2.0, x, y)
    assert len(recorder.calls) == 7


READ_TWICE = '''from tvm.script import tirx as T


@T.prim_func
def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    T.device_entry()
    tx = T.thread_id([64])
    C[tx] = A[tx] + B[tx]
'''


def test_buffers_the_kernel_only_reads_may_share_memory(tmp_path, fake_cupy):
    add = _module(tmp_path, READ_TWICE, "add").add
    recorder = _armed(add)
    a = CupyArray((64,))
    add(a, a, CupyArray((64,)))
    with pytest.raises(ValueError, match=r"arguments 'A' and 'C' share memory, but the kernel writes 'C'"):
        add(a, CupyArray((64,)), a)
    assert len(recorder.calls) == 1


INTERLEAVED = '''from tvm.script import tirx as T
from tvm.tirx.layout import TileLayout, S


@T.prim_func
def odd_even(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32", layout=TileLayout(S[64:2]), align=4)
    B = T.match_buffer(B_ptr, (64,), "float32", layout=TileLayout(S[64:2]), align=4)
    T.device_entry()
    tx = T.thread_id([64])
    B[tx] = A[tx]
'''


def test_interleaved_strided_arrays_do_not_share_memory(tmp_path, fake_cupy):
    """The even and the odd elements of one array: their byte ranges overlap, their elements
    do not (NumPy's exact test decides)."""
    kernel = _module(tmp_path, INTERLEAVED, "odd_even").odd_even
    recorder = _armed(kernel)
    base = 1 << 24
    kernel(FakeArray((64,), strides=(8,), address=base), FakeArray((64,), strides=(8,), address=base + 4))
    with pytest.raises(ValueError, match=r"arguments 'A' and 'B' share memory, but the kernel writes 'B'"):
        kernel(FakeArray((64,), strides=(8,), address=base), FakeArray((64,), strides=(8,), address=base + 8))
    assert len(recorder.calls) == 1
