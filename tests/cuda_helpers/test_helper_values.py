"""The bit layouts of the pure-C helpers of target/cuda_lib.py, run on the host with g++: the
wgmma and tcgen05 shared-memory matrix descriptors against the PTX ISA's field tables (written
out independently here), tensor-memory address arithmetic, and the float2 / bfloat16x2 packing."""
from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

from transpiler.target.cuda_lib import LIBRARY

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

PRELUDE = r"""
#include <cstdio>
#include <cstring>
#include <cstddef>
#define __device__
#define __forceinline__ inline
static inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }
static inline unsigned int __float_as_uint(float x) { unsigned int u; std::memcpy(&u, &x, 4); return u; }
static inline float __uint_as_float(unsigned int u) { float x; std::memcpy(&x, &u, 4); return x; }
"""

HELPERS = ("tirx_cuda_wgmma_make_desc", "tirx_cuda_tcgen05_make_desc", "tirx_cuda_get_tmem_addr",
           "tirx_cuda_make_float2", "tirx_cuda_float2_x", "tirx_cuda_float2_y", "tirx_cuda_bfloat1622float2")


def run(tmp_path, body: str) -> list[str]:
    source = PRELUDE + "\n".join(LIBRARY[h].source for h in HELPERS) + "\nint main() {\n" + body + "\n}\n"
    (tmp_path / "t.cpp").write_text(source)
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-o", str(tmp_path / "t"), str(tmp_path / "t.cpp")],
                   check=True, capture_output=True, text=True)
    return subprocess.run([str(tmp_path / "t")], check=True, capture_output=True, text=True).stdout.split()


# PTX ISA, "Matrix Descriptor Format" (wgmma): start address >> 4 in bits 0-13, leading dimension
# byte offset >> 4 in 16-29, stride dimension byte offset >> 4 in 32-45, base offset in 49-51, swizzle
# in 62-63 (128B = 1, 64B = 2, 32B = 3). TIRx's `ldo` / `sdo` are already in 16-byte units and
# `swizzle` counts as CUtensorMapSwizzle does (0 none, 1 32B, 2 64B, 3 128B).
def wgmma_desc(addr, ldo, sdo, swizzle):
    mode = {0: 0, 1: 3, 2: 2, 3: 1}[swizzle]
    return ((addr >> 4) & 0x3FFF) | (ldo & 0x3FFF) << 16 | (sdo & 0x3FFF) << 32 | mode << 62


# tcgen05 "Shared memory descriptor": the same three fields, the fixed version 1 in bits 46-47,
# base offset 49-51, LBO mode 52, swizzle in 61-63 (none 0, 128B with 32B atoms 1, 128B 2, 64B 4, 32B 6).
def tcgen05_desc(addr, ldo, sdo, swizzle):
    mode = {0: 0, 1: 6, 2: 4, 3: 2, 4: 1}[swizzle]
    return ((addr >> 4) & 0x3FFF) | (ldo & 0x3FFF) << 16 | (sdo & 0x3FFF) << 32 | 1 << 46 | mode << 61


CASES = [(0x400, 1, 64, 3), (0x1230, 8, 32, 0), (0x3FFF0, 0x3FFF, 0x2000, 1), (0x8000, 2, 128, 2), (0x40, 16, 4, 4)]


def test_matrix_descriptors_have_the_ptx_bit_layout(tmp_path):
    lines = []
    for addr, ldo, sdo, swizzle in CASES:
        if swizzle < 4:
            lines.append(f'printf("%llu\\n", tirx_cuda_wgmma_make_desc((const void*){addr:#x}, {ldo}, {sdo}, {swizzle}));')
        lines.append(f'printf("%llu\\n", tirx_cuda_tcgen05_make_desc((const void*){addr:#x}, {ldo}, {sdo}, {swizzle}));')
    got = [int(v) for v in run(tmp_path, "\n".join(lines))]
    want = []
    for addr, ldo, sdo, swizzle in CASES:
        if swizzle < 4:
            want.append(wgmma_desc(addr, ldo, sdo, swizzle))
        want.append(tcgen05_desc(addr, ldo, sdo, swizzle))
    assert got == want


def test_tmem_address_arithmetic_adds_lanes_and_columns_separately(tmp_path):
    rows = [(0x00000000, 32, 16), (0x0020FFFF, 1, 1), (0x00400100, -32, 64), (0x007F0000, 0, 511)]
    got = run(tmp_path, "\n".join(f'printf("%u\\n", tirx_cuda_get_tmem_addr({a}u, {r}, {c}));' for a, r, c in rows))
    want = [((((a >> 16) + r) & 0xFFFF) << 16) | (((a & 0xFFFF) + c) & 0xFFFF) for a, r, c in rows]
    assert [int(v) for v in got] == want


def test_float2_and_bfloat16x2_packing(tmp_path):
    got = run(tmp_path, "\n".join([
        'unsigned long long p = tirx_cuda_make_float2(1.5f, -2.25f);',
        'printf("%llu %g %g\\n", p, tirx_cuda_float2_x(p), tirx_cuda_float2_y(p));',
        'printf("%llu\\n", tirx_cuda_bfloat1622float2(0x4049BF80u));',
    ]))
    bits = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]  # noqa: E731
    assert int(got[0]) == bits(1.5) | bits(-2.25) << 32  # .x in the low word, as CUDA's float2
    assert float(got[1]) == 1.5 and float(got[2]) == -2.25
    # bf16x2 0x4049_BF80: low half 0xBF80 = -1.0, high half 0x4049 = 3.140625
    assert int(got[3]) == bits(-1.0) | bits(3.140625) << 32
