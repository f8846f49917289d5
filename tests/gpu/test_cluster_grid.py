"""The launcher refuses a grid that the kernel's clusters do not divide (docs/design.md, decision 17),
before the launch, naming the shapes: CUDA would refuse the launch with a bare error code."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu

KERNEL = """from tvm.script import tirx as T


@T.prim_func
def by_fours(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (n,), "int32")
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(n, 128),), block=(128,), cluster=(4,)))
    bx = T.cta_id()
    tx = T.thread_id()
    if bx * 128 + tx < n:
        A[bx * 128 + tx] = bx
"""


def test_a_grid_the_clusters_do_not_divide_is_refused(launcher_for):
    import cupy
    module = launcher_for("cluster_grid", KERNEL)
    a = cupy.zeros(512, cupy.int32)
    module.by_fours(a, 512)  # 4 blocks: one cluster
    assert int(a[-1]) == 3
    with pytest.raises(ValueError, match=r"the grid would be \(3, 1, 1\).*clusters of \(4, 1, 1\) blocks do not divide"):
        module.by_fours(cupy.zeros(384, cupy.int32), 384)
