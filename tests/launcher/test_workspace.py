"""Global workspaces (docs/architecture.md) on the CPU: the hidden pointer parameters in the
.cu and the LaunchSpec, and the launcher that sizes, allocates, zero-fills and
passes them, through a stub `cupy` that records allocations, memsets and launches.

tests/gpu/test_workspace.py runs samples/global_workspace.tx on a GPU.
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
        super().__init__(shape, typestr, strides, next(_addresses) << 32 if address is None else address, readonly)

SAMPLE = (SAMPLES / "global_workspace.tx").read_text()

SHAPES = '''from tvm.script import tirx as T


@T.prim_func
def shapes(A_ptr: T.handle, m: T.int32, scale: T.float32):
    n = T.int32()
    A = T.match_buffer(A_ptr, (n, 4), "float32")
    T.device_entry()
    bx = T.cta_id([n])
    tx = T.thread_id([4])
    rows = T.alloc_buffer((n, m - 10), "float16", scope="global")
    flags = T.alloc_buffer((T.ceildiv(n, 32) * 2,), "uint8", scope="global", align=128)
    unused = T.alloc_buffer((64,), "float32", scope="global")
    rows[bx, tx] = T.float16(A[bx, tx] * scale)
    flags[bx // 32] = T.uint8(1)
'''


def _launcher(tmp_path, text, stem):
    result = ok(text, f"{stem}.tx", until="launcher", launcher_name=stem)
    return result, load_launcher(tmp_path, result.launcher, stem)


# ---- the kernel side ---------------------------------------------------------------------------------

def test_workspaces_are_pointer_parameters_after_the_others():
    result = ok(SAMPLE, "global_workspace.tx")
    assert "global_sum_kernel(const float* __restrict__ A_ptr, float* __restrict__ total_ptr, int n, " \
           "float* __restrict__ partials_ptr, int* __restrict__ tickets_ptr) {" in result.cuda
    assert "partials_ptr[bx] = sm_ptr[0];" in result.cuda


def test_the_launch_spec_describes_each_workspace():
    spec = ok(SHAPES, "shapes.tx").program.kernels[0].spec
    assert [(p.name, p.kind.value) for p in spec.params] == [
        ("A_ptr", "buffer"), ("m", "scalar"), ("scale", "scalar"), ("n", "extent"),
        ("rows_ptr", "workspace"), ("flags_ptr", "workspace")]
    rows, flags = spec.workspaces  # `unused` is never touched: no parameter, no allocation
    assert (rows.name, rows.c_name, rows.dtype.name, rows.align) == ("rows", "rows_ptr", "float16", 64)
    assert (flags.name, flags.c_name, flags.dtype.name, flags.align) == ("flags", "flags_ptr", "uint8", 128)
    assert (rows.span.line, rows.span.col) == (11, 12)
    assert spec.arg_order == ("A_ptr", "m", "scale")  # the caller passes no workspace


def test_a_half_workspace_brings_its_header():
    assert "#include <cuda_fp16.h>" in ok(SHAPES, "shapes.tx").cuda


# ---- sizes ------------------------------------------------------------------------------------------

def test_workspace_sizes_follow_the_arguments(tmp_path):
    _, module = _launcher(tmp_path, SHAPES, "shapes")
    kernel = module.shapes
    assert kernel.spec["args"] == ["A", "m", "scale"]
    # rows: (n, m - 10) halves; flags: ceildiv(n, 32) * 2 bytes
    assert kernel.workspace_bytes(FakeArray((100, 4)), 30, 1.0) == {"rows": 100 * 20 * 2, "flags": 8}
    assert kernel.workspace_bytes(FakeArray((1, 4)), 10, 1.0) == {"rows": 0, "flags": 2}
    assert kernel.launch_config(FakeArray((100, 4)), 30, 1.0) == ((100, 1, 1), (4, 1, 1), 0)


def test_a_negative_workspace_extent_is_refused(tmp_path):
    _, module = _launcher(tmp_path, SHAPES, "shapes")
    with pytest.raises(ValueError, match=r"shapes\(\): workspace 'rows' would have the shape \(100, -5\) for "
                                         r"these arguments: an extent is negative"):
        module.shapes.launch_config(FakeArray((100, 4)), 5, 1.0)


def test_a_workspace_past_the_index_limit_is_refused(tmp_path):
    _, module = _launcher(tmp_path, SHAPES, "shapes")
    module.shapes.launch_config(FakeArray((2 ** 16, 4)), 2 ** 15 + 10, 1.0)  # exactly 2^31 elements
    with pytest.raises(ValueError, match=r"workspace 'rows' of shape \(65536, 32769\) would have 2147549184 "
                                         r"elements, but the kernel indexes with 32-bit ints"):
        module.shapes.launch_config(FakeArray((2 ** 16, 4)), 2 ** 15 + 11, 1.0)


# ---- launching: a stub CuPy ---------------------------------------------------------------------------

class _Stream:
    def __init__(self, stub, ptr):
        self.stub, self.ptr = stub, ptr

    def __enter__(self):
        self.stub.current.append(self)
        return self

    def __exit__(self, *exc):
        self.stub.current.pop()
        return False


class _Memory:
    def __init__(self, ptr):
        self.ptr = ptr


class _DeviceBytes:
    """What cupy.empty(size, uint8) returns: the launcher reads `.data.ptr`."""

    def __init__(self, ptr, size):
        self.data, self.size = _Memory(ptr), size


@pytest.fixture
def stub(monkeypatch):
    """A `cupy` with what the launching path touches; `events` records allocations,
    memsets and launches in order."""
    cupy = types.ModuleType("cupy")
    cupy.events = []
    cupy.current = [_Stream(cupy, 0)]  # the null stream
    cupy.next_ptr = [1 << 30]
    cupy.uint8 = numpy.uint8

    def empty(size, dtype):
        assert dtype is numpy.uint8
        ptr = cupy.next_ptr[0]
        cupy.next_ptr[0] += 1 << 20
        cupy.events.append(("alloc", ptr, size, cupy.current[-1].ptr))
        return _DeviceBytes(ptr, size)

    runtime = types.SimpleNamespace(
        getDevice=lambda: 0, getDeviceCount=lambda: 1,
        pointerGetAttributes=lambda ptr: types.SimpleNamespace(device=0),
        memsetAsync=lambda ptr, value, size, stream: cupy.events.append(("memset", ptr, value, size, stream)))
    cupy.empty = empty
    cupy.ndarray = _DeviceBytes  # the arrays passed here are FakeArrays: the path of other libraries' arrays
    cupy.cuda = types.SimpleNamespace(runtime=runtime, Stream=_Stream,
                                      get_current_stream=lambda: cupy.current[-1],
                                      ExternalStream=lambda handle: _Stream(cupy, handle))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return cupy


def _armed(kernel, stub):
    def launch(grid, block, args, shared_mem=0):
        stub.events.append(("launch", grid, args, stub.current[-1].ptr))
    kernel._functions[0] = launch


def _pointer(value) -> int:
    return value.data.ptr if isinstance(value, _DeviceBytes) else int(value)


def test_a_launch_gets_zeroed_workspaces_it_did_not_ask_for(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    kernel = module.global_sum
    _armed(kernel, stub)
    kernel(FakeArray((1000,), address=1 << 20), FakeArray((1,), address=1 << 21))
    (_, partials, psize, _), (_, tickets, tsize, _) = [e for e in stub.events if e[0] == "alloc"]
    assert (psize, tsize) == (4 * 4, 4)  # ceildiv(1000, 256) floats, one int
    memsets = [e for e in stub.events if e[0] == "memset"]
    assert memsets == [("memset", partials, 0, 16, 0), ("memset", tickets, 0, 4, 0)]
    kind, grid, args, stream = stub.events[-1]
    assert kind == "launch" and grid == (4, 1, 1) and len(args) == 5
    assert [_pointer(a) for a in args[:2]] == [1 << 20, 1 << 21] and int(args[2]) == 1000
    assert [_pointer(a) for a in args[3:]] == [partials, tickets]


def test_workspaces_are_reused_and_zeroed_again_on_the_same_stream(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    kernel = module.global_sum
    _armed(kernel, stub)
    kernel(FakeArray((1000,)), FakeArray((1,)))
    first = stub.events[:]
    stub.events.clear()
    kernel(FakeArray((1000,)), FakeArray((1,)))
    assert [e[0] for e in stub.events] == ["memset", "memset", "launch"]  # no new allocation
    assert stub.events[-1][2][3:] == first[-1][2][3:]


def test_each_stream_and_size_has_its_own_workspace(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    kernel = module.global_sum
    _armed(kernel, stub)
    kernel(FakeArray((1000,)), FakeArray((1,)))
    side = _Stream(stub, 7)
    kernel(FakeArray((1000,)), FakeArray((1,)), stream=side)
    kernel(FakeArray((100000,)), FakeArray((1,)), stream=side)
    allocs = [e for e in stub.events if e[0] == "alloc"]
    # the third launch reuses the stream's 4-byte `tickets` and needs a bigger `partials`
    assert [(size, stream) for _, _, size, stream in allocs] == [(16, 0), (4, 0), (16, 7), (4, 7), (1564, 7)]
    assert len({ptr for _, ptr, _, _ in allocs}) == 5
    launches = [e for e in stub.events if e[0] == "launch"]
    assert [stream for *_, stream in launches] == [0, 7, 7]
    # the memsets run on the stream of the launch they prepare
    assert [e[4] for e in stub.events if e[0] == "memset"] == [0, 0, 7, 7, 7, 7]


def test_a_pytorch_stream_keys_the_cache_by_its_handle(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    kernel = module.global_sum
    _armed(kernel, stub)
    torch_stream = types.SimpleNamespace(cuda_stream=42)
    kernel(FakeArray((1000,)), FakeArray((1,)), stream=torch_stream)
    kernel(FakeArray((1000,)), FakeArray((1,)), stream=torch_stream)
    assert [e[3] for e in stub.events if e[0] == "alloc"] == [42, 42]


def test_the_cache_keeps_the_newest_allocations(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    kernel = module.global_sum
    _armed(kernel, stub)
    for n in range(1, 20):
        kernel(FakeArray((n * 256,)), FakeArray((1,)))
    assert len(kernel._workspace_cache) == module.WORKSPACE_CACHE_SIZE
    newest = {(key[0], key[3]) for key in kernel._workspace_cache}
    assert ("partials_ptr", 19 * 4) in newest and ("partials_ptr", 4) not in newest


def test_an_empty_workspace_is_a_null_pointer(tmp_path, stub):
    _, module = _launcher(tmp_path, SHAPES, "shapes")
    _armed(module.shapes, stub)
    module.shapes(FakeArray((3, 4)), 10, 1.0)  # rows: (3, 0)
    kind, _, args, _ = stub.events[-1]
    assert kind == "launch" and int(args[4]) == 0 and _pointer(args[5]) != 0
    assert [e[2] for e in stub.events if e[0] == "alloc"] == [2]  # flags only


def test_an_empty_grid_allocates_nothing(tmp_path, stub):
    _, module = _launcher(tmp_path, SAMPLE, "global_workspace")
    _armed(module.global_sum, stub)
    module.global_sum(FakeArray((0,)), FakeArray((1,)))
    assert stub.events == []


def test_sizes_that_depend_on_a_scalar_follow_its_value_on_every_call(tmp_path, stub):
    """A launch plan is cached per argument signature; the scalars that the grid or a
    workspace size depends on are part of its key, so a new value is never served a stale
    size (or grid)."""
    _, module = _launcher(tmp_path, SHAPES, "shapes")
    _armed(module.shapes, stub)
    module.shapes(FakeArray((3, 4)), 12, 1.0)
    module.shapes(FakeArray((3, 4)), 20, 2.0)
    module.shapes(FakeArray((3, 4)), 12, 3.0)
    rows = [e[2] for e in stub.events if e[0] == "alloc" and e[2] != 2]
    assert rows == [3 * 2 * 2, 3 * 10 * 2]  # m = 12 again reuses the first allocation


GRID = '''from tvm.script import tirx as T


@T.prim_func
def grid(A: T.Buffer((64,), "float32"), m: T.int32):
    T.device_entry()
    bx = T.cta_id([m])
    tx = T.thread_id([64])
    A[tx] = T.float32(bx)
'''


def test_a_grid_that_depends_on_a_scalar_follows_its_value(tmp_path, stub):
    _, module = _launcher(tmp_path, GRID, "grid")
    _armed(module.grid, stub)
    for m in (2, 5, 2):
        module.grid(FakeArray((64,)), m)
    assert [e[1] for e in stub.events if e[0] == "launch"] == [(2, 1, 1), (5, 1, 1), (2, 1, 1)]
