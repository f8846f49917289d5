"""The kernel of tests/ptx/test_operand_widening.py on the GPU: `st.global.b8` of a uint8 stores
its value, `st.global.s8` of an int8 its two's-complement byte, after `prefetch.tensormap` of the
kernel's tensor map."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ptx.test_operand_widening import KERNEL

pytestmark = pytest.mark.gpu


def test_byte_stores_of_narrower_values(launcher_for):
    import cupy

    module = launcher_for("widen", KERNEL)
    a = cupy.zeros((64, 64), cupy.float16)
    b = cupy.zeros(64, cupy.uint8)
    module.widen(a, b)
    tx = np.arange(64)
    want = np.where(tx % 2 == 0, (tx * 3) % 256, (-tx) % 256).astype(np.uint8)
    assert np.array_equal(b.get(), want)


def test_a_global_element_as_an_output(launcher_for):
    import cupy

    from tests.ptx.test_operand_widening import GLOBAL_OUT

    module = launcher_for("global_out", GLOBAL_OUT)
    a = cupy.asarray(np.array([7, 0, 0, 0], dtype=np.uint64))
    b = cupy.asarray(np.array([0, 0, 42, 0], dtype=np.int32))
    module.global_out(a, b)
    assert a.get().tolist() == [7, 7, 0, 0] and b.get().tolist() == [0, 0, 42, 42]
