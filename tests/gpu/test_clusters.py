"""Thread-block clusters on the GPU: the kernels of tests/cuda_helpers/kernels/clusters.tx and
dsmem.tx, launched as the launcher launches any kernel (their shape is `__cluster_dims__`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNELS = Path(__file__).resolve().parent.parent / "cuda_helpers" / "kernels"


def _load(launcher_for, stem):
    return launcher_for(stem, (KERNELS / f"{stem}.tx").read_text())


def test_cluster_ids_of_a_2x2_cluster(launcher_for):
    import cupy

    module = _load(launcher_for, "clusters")
    A = cupy.full((16, 64), -1, cupy.int32)
    module.cluster_ids(A)
    cupy.cuda.Device().synchronize()
    a = A.get()
    for by in range(4):
        for bx in range(4):
            cbx, cby = bx % 2, by % 2
            want = cbx + 10 * cby + 100 * (bx // 2) + 1000 * (by // 2) + 10000 * ((cbx + 2 * cby) % 2)
            assert (a[by * 4 + bx] == want).all(), (bx, by, a[by * 4 + bx][:4])


def test_cluster_from_the_launch_configuration(launcher_for):
    import cupy

    module = _load(launcher_for, "clusters")
    A = cupy.full(1000, -1, cupy.int32)
    module.launch_cluster(A, 1000)
    cupy.cuda.Device().synchronize()
    assert np.array_equal(A.get(), (np.arange(1000) // 128) % 4)


def test_distributed_shared_memory_reads_the_neighbours_buffer(launcher_for):
    import cupy

    module = _load(launcher_for, "dsmem")
    A = cupy.zeros((8, 32), cupy.uint32)
    module.dsmem(A)
    cupy.cuda.Device().synchronize()
    bx = np.arange(8)[:, None]
    neighbour = bx - bx % 4 + (bx % 4 + 1) % 4
    assert np.array_equal(A.get(), neighbour * 100 + np.arange(32)[None, :])
