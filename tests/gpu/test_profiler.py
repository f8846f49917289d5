"""`tvm.tirx.bench.CudaProfiler` in a kernel (the profiling page's kernel, from the docs corpus), on the
GPU: the buffer holds TIRx's record format, decoded here as the page decodes it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

PAGE_KERNEL = Path(__file__).resolve().parent.parent / "conformance" / "native_basics-cuda-profiling__1.tx"
NUM_BLOCKS, BLOCK, PROF_SIZE = 4, 128, 4096


def test_profiled_kernel_writes_decodable_spans(launcher_for):
    import cupy

    module = launcher_for("profiling_page", PAGE_KERNEL.read_text())
    n = NUM_BLOCKS * BLOCK
    inp, out = cupy.ones(n, cupy.float32), cupy.zeros(n, cupy.float32)
    prof = cupy.zeros(PROF_SIZE, cupy.uint64)
    module.profiled_kernel(out, inp, prof)
    cupy.cuda.Device().synchronize()
    words = [int(w) for w in prof.get()]
    assert words[0] == (1 << 32) | NUM_BLOCKS  # (groups << 32) | blocks
    opens, spans, done = {}, {}, set()
    for word in words[1:]:
        if word == 0:
            continue
        ts, tag = word >> 32, word & 0xFFFFFFFF
        block, event, kind = tag >> 12, (tag >> 2) & 0x3FF, tag & 0x3
        if kind == 0:
            opens[(block, event)] = ts
        elif kind == 1:
            spans.setdefault(block, []).append((event, (ts - opens[(block, event)]) % (1 << 32)))
        elif kind == 3:
            done.add(block)
    assert done == set(range(NUM_BLOCKS))
    for block in range(NUM_BLOCKS):
        assert [event for event, _ in spans[block]] == [0, 1, 2]  # load, compute, store, in order
        durations = dict(spans[block])
        assert durations[1] > durations[0] and durations[1] > 1000  # 4000 dependent FMAs take microseconds
    acc = np.float32(0)
    for _ in range(4000):
        acc = acc * np.float32(1.0001) + np.float32(1)
    assert np.allclose(out.get(), acc, rtol=1e-4)
