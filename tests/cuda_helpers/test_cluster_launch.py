"""Thread-block clusters reach the launch: the shape in `LaunchSpec.cluster` (printed as
`__cluster_dims__`), sm_90 as the kernel's minimum architecture, and an older `--arch` refused."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import errors, transpile

KERNELS = Path(__file__).resolve().parent / "kernels"


def test_cluster_shapes_and_architecture_reach_the_launch_spec():
    result = transpile((KERNELS / "clusters.tx").read_text(), "clusters.tx")
    assert result.ok, [d.message for d in result.diagnostics]
    specs = {lk.spec.name: lk.spec for lk in result.program.kernels}
    assert specs["cluster_ids"].cluster == (2, 2, 1)
    assert specs["launch_cluster"].cluster == (4, 1, 1)
    assert all(spec.min_arch == 90 for spec in specs.values())
    plain = transpile("from tvm.script import tirx as T\n\n\n@T.prim_func\ndef k(A: T.Buffer((32,), \"int32\")):\n"
                      "    T.device_entry()\n    tx = T.thread_id([32])\n    A[tx] = tx\n")
    assert plain.program.kernels[0].spec.cluster is None


def test_clusters_need_sm_90():
    text = (KERNELS / "clusters.tx").read_text()
    result = transpile(text, "clusters.tx", arch="sm_80")
    line = text.split("\n").index("    cbx, cby = T.cta_id_in_cluster([2, 2])") + 1
    assert (line, 16, "E0320") in errors(result)
