"""tcgen05 instruction descriptors (transpiler/sema/calls/tcgen05_desc.py), run on the host with g++: the
constants stored through `desc` for four dense and two block-scaled MMA shapes, each worked out by hand from the PTX ISA's
instruction-descriptor table (see the module's docstring for the bit positions)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import transpile
from tests.emit import hostc

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

KERNEL = Path(__file__).resolve().parent / "kernels" / "instr_desc.tx"


def test_descriptors_hold_the_fields_of_the_ptx_table(tmp_path):
    result = transpile(KERNEL.read_text(), KERNEL.name)
    assert result.ok, [d.message for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [0] * 6}, threads=1, workdir=tmp_path)["O"]
    assert [int(v) for v in out] == [
        # D f32 (1 << 4), A = B = f16 (0), N 256 (32 << 17), M 128 (8 << 24)
        0x08400010,
        # saturate (1 << 3), D s32 (2 << 4), A s8 (1 << 7), B u8 (0), A MN-major (1 << 15), N 24 (3 << 17), M 64
        0x040680A8,
        # D f32, A = B = bf16 (1 << 7, 1 << 10), negate A (1 << 13), B MN-major (1 << 16), N 128, M 256
        0x10212490,
        # D f16 (0), A e4m3 (0), B e5m2 (1 << 10), N 64 (8 << 17), M 128
        0x08100400,
        # block-scaled mxf8f6f4: A e4m3 (0), B e5m2 (1 << 10), N 128 (16 << 17), ue8m0 scales (1 << 23), M 128
        0x08A00400,
        # block-scaled mxf4nvf4: A = B = 1 (1 << 7, 1 << 10), N 256 (32 << 17), e4m3 scales (0), M 128
        0x08400480,
    ]
