"""`T.launch_thread("blockIdx.x", n)` / `T.launch_thread("threadIdx.x", n)`, the launch as TIRx's
lowering prints it (sema/kernel/legacy_launch.py): a kernel without `T.device_entry()` whose device code
starts at the first launch, run on the host (tests/emit/hostc.py) against the same kernel written
with `T.cta_id` / `T.thread_id`."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

LEGACY = """\
from tvm.script import tirx as T

@T.prim_func
def scale(A_ptr: T.handle, B_ptr: T.handle):
    A_1 = T.match_buffer(A_ptr, (8,), "float32")
    B_1 = T.match_buffer(B_ptr, (8,), "float32")
    with T.launch_thread("blockIdx.x", 1) as blockIdx_x:
        threadIdx_x = T.launch_thread("threadIdx.x", 8)
        B_1[threadIdx_x] = A_1[threadIdx_x] * T.float32(2.0) + T.float32(blockIdx_x)
"""

MODERN = """\
from tvm.script import tirx as T

@T.prim_func
def scale(A_ptr: T.handle, B_ptr: T.handle):
    A_1 = T.match_buffer(A_ptr, (8,), "float32")
    B_1 = T.match_buffer(B_ptr, (8,), "float32")
    T.device_entry()
    blockIdx_x = T.cta_id([1])
    threadIdx_x = T.thread_id([8])
    B_1[threadIdx_x] = A_1[threadIdx_x] * T.float32(2.0) + T.float32(blockIdx_x)
"""


def test_legacy_launch_is_the_launch_it_names():
    legacy, modern = transpile(LEGACY), transpile(MODERN)
    assert legacy.ok, [(d.code, d.message) for d in legacy.diagnostics]
    assert "__launch_bounds__(8)" in legacy.cuda
    assert legacy.cuda == modern.cuda  # the same kernel, byte for byte


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_legacy_launch_runs_like_the_modern_spelling(tmp_path):
    a = [1.5, -2.0, 3.0, 0.25, 8.0, -1.0, 4.0, 2.0]
    outs = []
    for text in (LEGACY, MODERN):
        result = transpile(text)
        assert result.ok, [(d.code, d.message) for d in result.diagnostics]
        outs.append(hostc.run(result.cuda, {"A_1": a, "B_1": [0.0] * 8}, threads=8, workdir=tmp_path)["B_1"])
    assert outs[0] == outs[1] == [v * 2.0 for v in a]


def test_two_axes_in_one_with_and_the_grid_from_a_parameter():
    text = """\
from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4))
    B = T.match_buffer(b, (n, 4))
    with T.launch_thread("blockIdx.x", n) as bx, T.launch_thread("threadIdx.x", 2) as tx:
        with T.launch_thread("threadIdx.y", 2) as ty:
            B[bx, ty * 2 + tx] = A[bx, ty * 2 + tx]
"""
    result = transpile(text)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    assert "__launch_bounds__(4)" in result.cuda
    assert "B_ptr[((bx * 4) + ((ty * 2) + tx))] = A_ptr[((bx * 4) + ((ty * 2) + tx))];" in result.cuda


BINDING = """\
from tvm.script import tirx as T

@T.prim_func
def scale(A_ptr: T.handle, B_ptr: T.handle):
    A_1 = T.match_buffer(A_ptr, (8,), "float32")
    B_1 = T.match_buffer(B_ptr, (8,), "float32")
    for blockIdx_x in T.thread_binding(1, thread="blockIdx.x"):
        for threadIdx_x in T.thread_binding(0, 8, "threadIdx.x"):
            B_1[threadIdx_x] = A_1[threadIdx_x] * T.float32(2.0) + T.float32(blockIdx_x)
"""


def test_a_thread_binding_loop_is_the_launch_it_names():
    binding, modern = transpile(BINDING), transpile(MODERN)
    assert binding.ok, [(d.code, d.message) for d in binding.diagnostics]
    assert binding.cuda == modern.cuda


@pytest.mark.parametrize("loop, expected", [
    ('T.thread_binding(2, 8, "threadIdx.x")', (8, 45, "E0518")),
    ("T.thread_binding(8)", (8, 28, "E0305")),
])
def test_thread_binding_errors(loop, expected):
    result = transpile(BINDING.replace('T.thread_binding(0, 8, "threadIdx.x")', loop))
    assert [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"][:1] == [expected]


def test_thread_binding_outside_a_loop():
    result = transpile(MODERN.replace("threadIdx_x = T.thread_id([8])",
                                      'threadIdx_x = T.thread_id([8])\n    x = T.thread_binding(8, thread="threadIdx.x")'))
    assert [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"] == [(10, 9, "E0306")]
