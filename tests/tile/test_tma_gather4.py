"""The tensor maps of `Tx.copy_async` with `gather4=` (TMA `.tile::gather4`, sm_100a) and
`src_selector=` (a map chosen at run time) through the `tma` variant (transpiler/tile/copy_async/
tma_gather.py): one row high, encoded for each candidate's own array (checked by running the
launcher's encoder logic on the host with a fake driver), with the tensor's row stride and the
layout's swizzle. The instruction and its operands, the refusals and nvcc are case files:
tests/tile/cases/copy_async/tma_gather4_*.tx, tma_selector_*.tx. No GPU test: gather4 needs
sm_100 and the GPU tests run on an H200 (sm_90)."""
from __future__ import annotations

import numpy as np

from tests.check.case_files import run
from tests.hostile._util import FakeArray, load_launcher
from tests.tile.case_kernels import kernel_case
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile


def compiled(kernel: str, until: str = "cuda"):
    path = kernel_case("copy_async", kernel)
    text = path.read_text(encoding="utf-8")
    if until != "cuda":
        return compile_source(SourceFile(path.name, text), until=until, arch="sm_100a")
    _, result = run(path, text)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    return result


def tensor_maps(result) -> list:
    return [p.tensor_map for p in result.program.kernels[0].spec.params if p.tensor_map is not None]


class _FakeDriver:
    """cuTensorMapEncodeTiled's stand-in: records what would reach the driver."""

    def __init__(self):
        self.calls = []

    def __call__(self, out, data_type, rank, address, dims, strides, box, element_strides, *enums):
        self.calls.append((data_type, rank, address.value, list(dims), list(strides)[:rank - 1], list(box),
                           list(element_strides), enums))
        return 0


def test_each_map_is_one_row_high_and_encoded_for_its_own_array(tmp_path):
    result = compiled("gather4_upstream", until="launcher")
    assert result.ok
    launcher = load_launcher(tmp_path, result.launcher, "gather4")
    fn = launcher.gather4_upstream
    runtime = launcher.__tirxc_runtime__
    runtime.tensormap._ENCODER[0] = driver = _FakeDriver()  # the encoder the tensormap module looks up
    a = FakeArray((256, 64), "<f2", address=1 << 20)
    b = FakeArray((256, 64), "<f2", address=2 << 20)
    out = FakeArray((4, 64), "<f2", address=3 << 20)
    values, _, _ = fn._bind((a, b, np.int32(1), out))
    maps = {p["name"]: p for p in fn.spec["params"] if p["kind"] == "tensormap"}
    assert sorted(maps) == ["A_tmap", "B_tmap"]
    for name, address in (("A_tmap", 1 << 20), ("B_tmap", 2 << 20)):
        fields = runtime.tensor_map_fields(fn, maps[name], values)
        # float16 (6), rank 2, extents innermost first, a 128-byte row stride, box {64, 1}
        assert fields == (6, 2, (64, 256), (128,), (64, 1), (1, 1), 0, 0, 2, 0)
        runtime.tensormap.encode_tensor_map(fn, maps[name], fields, address)
    assert [call[2] for call in driver.calls] == [1 << 20, 2 << 20]
    assert all(call[5] == [64, 1] for call in driver.calls)


def test_the_map_of_swizzled_rows_carries_the_swizzle():
    assert [(m.box, m.swizzle) for m in tensor_maps(compiled("gather4_swizzled"))] == [((64, 1), 3)]


def test_a_narrower_window_of_a_wider_tensor_keeps_the_tensors_row_stride():
    maps = tensor_maps(compiled("gather4_window"))
    assert [(tuple(d.value for d in m.dims), tuple(s.value for s in m.strides), m.box) for m in maps] == \
        [((96, 256), (192,), (64, 1))]


def test_a_selector_on_a_tile_copy_gives_every_candidate_the_box():
    assert [m.box for m in tensor_maps(compiled("selector_tile"))] == [(64, 4), (64, 4)]
