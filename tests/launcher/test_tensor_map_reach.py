"""A TMA tensor map reaches no byte outside the array it is encoded over: its extents and byte
strides for a call's arguments are checked against the array before the map is encoded, by a
call and by `launch_config` alike (which also refuses overlapping arrays as a call does). Without
the check a map built over a larger shape than the buffer passed was encoded, and the kernel's
TMA copies read past the array."""
from __future__ import annotations

import re

import pytest

from tests.conftest import SAMPLES
from tests.hostile._util import load_launcher, ok
from tests.launcher.test_arguments import FakeArray, fake_cupy  # noqa: F401  (a fixture)

# A map over A whose outer extent is the scalar `rows`: 64 rows of 256 bytes is all of A
OVER = '''from tvm.script import tirx as T


@T.prim_func
def over(A_ptr: T.handle, B_ptr: T.handle, rows: T.int32):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    B = T.match_buffer(B_ptr, (32,), "float32")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float32", 2, A.data, 64, rows, 256, 32, 8, 1, 1,
                  0, 0, 0, 0)
    T.device_entry()
    tx = T.thread_id([32])
    B[tx] = T.float32(T.address_of(A_map))
'''


@pytest.fixture
def over(tmp_path):
    return load_launcher(tmp_path, ok(OVER, "over.tx", launcher_name="over").launcher, "over").over


def _args(rows):
    return FakeArray((64, 64), address=1 << 24), FakeArray((32,), address=1 << 28), rows


def test_a_map_within_its_array_is_accepted(over):
    assert over.launch_config(*_args(64)) == ((1, 1, 1), (32, 1, 1), 0)
    assert over.launch_config(*_args(16)) == ((1, 1, 1), (32, 1, 1), 0)


@pytest.mark.parametrize("rows", [65, 128])  # one row past the array; twice its rows
def test_a_map_reaching_past_its_array_is_refused_before_encoding(over, fake_cupy, rows):
    message = (f"over(): tensor map 'A_map' would reach {rows * 256} bytes from the start of argument 'A' for "
               f"these arguments (extents (64, {rows}), byte strides (256,), innermost first), but 'A' holds "
               f"{64 * 256} bytes from there")
    with pytest.raises(ValueError, match=re.escape(message)):
        over.launch_config(*_args(rows))
    with pytest.raises(ValueError, match=re.escape(message)):
        over(*_args(rows))  # the call refuses it before the driver encodes anything


def test_launch_config_refuses_overlapping_arrays_as_a_call_does(tmp_path):
    text = (SAMPLES / "saxpy.tx").read_text()
    saxpy = load_launcher(tmp_path, ok(text, "saxpy.tx", launcher_name="saxpy").launcher, "saxpy").saxpy
    x = FakeArray((300,), address=1 << 20)
    with pytest.raises(ValueError, match="share memory"):
        saxpy.launch_config(2.0, x, x)
