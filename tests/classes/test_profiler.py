"""tirxc's `tvm.tirx.bench.CudaProfiler` (sema/library/bench.tx) and the `T.cuda.timer_*` calls it
makes (sema/calls/cuda_helpers.py, target/cuda_lib.py): what is emitted, the errors at their positions,
and an nvcc compile. The records are checked on the GPU (tests/gpu/test_profiler.py)."""
from __future__ import annotations

import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.emit.test_nvcc import nvcc

KERNEL = """\
from enum import Enum
from tvm.script import tirx as T
from tvm.tirx.bench import CudaProfiler


class Ev(Enum):
    Work = 3


@T.prim_func
def k(prof_ptr: T.handle, flag: T.int32):
    prof = T.match_buffer(prof_ptr, (64,), "uint64")
    T.device_entry()
    tx = T.thread_id([32])
    p = CudaProfiler(prof, write_stride=1, num_groups=1, default_leader=(tx == 0), profiler_enabled=%s)
    p.init(0)
    p.start(Ev.Work)
    p.end(Ev.Work, leader=tx == 1)
    p.finalize()
"""


def test_the_calls_and_their_event_values():
    result = transpile(KERNEL % "True", arch="sm_90a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    body = result.cuda[result.cuda.index("k_kernel("):]
    assert "tirx_cuda_timer_init(prof_ptr, p_profiler_tag_ptr, p_profiler_write_offset_ptr, 1, 0);" in body
    assert "tirx_cuda_timer_start(3, prof_ptr, p_profiler_tag_ptr, p_profiler_write_offset_ptr, 1, tx == 0);" in body
    assert "tirx_cuda_timer_end(3, prof_ptr, p_profiler_tag_ptr, p_profiler_write_offset_ptr, 1, tx == 1);" in body


def test_a_disabled_profiler_emits_nothing_and_a_run_time_switch_is_an_if():
    off = transpile(KERNEL % "False", arch="sm_90a")
    assert off.ok and "tirx_cuda_timer" not in off.cuda
    switched = transpile(KERNEL % "flag != 0", arch="sm_90a")
    assert switched.ok and switched.cuda.count("if (flag != 0) {") == 4


@pytest.mark.parametrize("change, expected", [
    (("p.start(Ev.Work)", "p.start(2.5)"), (17, 5, "E0303")),  # (reported at the call of the library)
    (('(64,), "uint64"', '(64,), "uint32"'), (16, 5, "E0721")),
])
def test_errors(change, expected):
    result = transpile((KERNEL % "True").replace(*change), arch="sm_90a")
    assert errors(result)[:1] == [expected], [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]


@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not installed")
def test_compiles_warning_free(tmp_path):
    cu = tmp_path / "prof.cu"
    cu.write_text(transpile(KERNEL % "flag != 0", arch="sm_90a").cuda)
    rc, out = nvcc(cu, "sm_90a", tmp_path)
    assert rc == 0 and "warning" not in out, out
