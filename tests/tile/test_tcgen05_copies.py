"""Tensor-memory copies of `copy_async` (transpiler/tile/copy_async_tcgen05*.py): `tcgen05_cp` from
swizzled (32-, 64-, 128-byte) and unswizzled shared layouts with every `tcgen05.cp` shape, and
`tcgen05_ldst` of column slices of `.16x64b` / `.16x128b` / `.16x256b` register fragments (constant
and run-time starts). No sm_100 GPU here: values are checked by running the generated CUDA on the
host (g++) with the tcgen05 instructions emulated from the PTX ISA (the descriptor's fields and
canonical layouts, the swizzle on address bits; the fragments' thread / register mapping as
TIRx's tcgen05_atom_layout documents it): every element must land where the layouts say, over
sweeps of shapes, swizzles, dtypes, offsets and slicings. The CUDA of single copies (descriptors,
shapes, slices), the refusals and nvcc are case files: tests/tile/cases/copy_async/tcgen05_*.tx."""
from __future__ import annotations

import random
import re
import shutil
from math import prod

import pytest

from tests.build_cache import host_program_output
from tests.conftest import transpile
from tests.emit import hostc
from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.ir import layout as layouts
from transpiler.sema.check import check
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.cuda.tile_primitive.tma_utils import SwizzleMode, mma_shared_layout
from tvm.tirx.layout import ComposeLayout, R, S, TCol, TileLayout, TLane, tcgen05_atom_layout, tmem_datapath_layout
'''
CTYPES = {"uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int"}
BITS = {"uint8": 8, "uint16": 16, "uint32": 32, "bfloat16": 16, "float32": 32}
TMEM_BASE = 64  # the allocation's first column in the host runs

# -- tcgen05_cp ---------------------------------------------------------------------------------------

SHAPES = {  # name: (rows, row bits, multicast)
    "128x256b": (128, 256, None), "4x256b": (4, 256, None), "128x128b": (128, 128, None),
    "64x128b.02_13": (64, 128, "warpx2::02_13"), "64x128b.01_23": (64, 128, "warpx2::01_23"),
    "32x128b": (32, 128, "warpx4"),
}


def _tmem_layout(shape: str, cols: int) -> tuple[str, tuple[int, int]]:
    """The tensor-memory layout of one copy's footprint (TIRx's test_tcgen05_cp.py does the same)."""
    rows = SHAPES[shape][0]
    if shape in ("128x256b", "128x128b"):
        return f"TileLayout(S[(128, {cols}) : (1 @ TLane, 1 @ TCol)])", (128, cols)
    if shape == "4x256b":
        return f"TileLayout(S[(4, {cols}) : (32 @ TLane, 1 @ TCol)])", (4, cols)
    if shape == "32x128b":
        return f"TileLayout(S[(32, {cols}) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])", (32, cols)
    if shape == "64x128b.02_13":
        return f"TileLayout(S[(64, {cols}) : (1 @ TLane, 1 @ TCol)] + R[2 : 64 @ TLane])", (rows, cols)
    return f"TileLayout(S[(2, 32, {cols}) : (64 @ TLane, 1 @ TLane, 1 @ TCol)] + R[2 : 32 @ TLane])", (rows, cols)


def cp_kernel(shape: str, sw: int, dtype: str, n_mid: int = 1, s_row_off: int = 0, t_col_off: int = 0,
              host: bool = False, forced: bool = True, s_layout: str | None = None, align: int = 1024,
              extra: str = "", group: int = 1) -> str:
    """One thread copies a (rows, n_mid atoms) region of a shared tile into tensor memory. With
    host=True, the kernel fills shared memory itself (thread 0) and sets the tensor-memory slot
    (no tcgen05.alloc), for the host run; else it allocates tensor memory, for nvcc."""
    rows, row_bits, multicast = SHAPES[shape]
    bits = BITS[dtype]
    epa = row_bits // bits
    cols = epa * n_mid
    s_rows = -(-max(rows + s_row_off, 8) // 8) * 8
    if s_layout is not None:
        s_shape = [s_rows, cols]
    elif sw == 0 and row_bits == 128:
        s_shape, s_layout = [s_rows, epa], f"TileLayout(S[({s_rows}, {epa}) : ({epa}, 1)])"
    elif sw == 0:
        u = 128 // bits
        s_shape = [s_rows, 2 * u]
        s_layout = f"TileLayout(S[({s_rows // 8}, 8, 2, {u}) : ({16 * u}, {u}, {8 * u}, 1)])"
    else:
        s_shape = [s_rows, max(cols, (16 << sw) * 8 // bits)]
        s_layout = f"mma_shared_layout(\"{dtype}\", SwizzleMode({sw}), {s_shape})"
    t_layout, t_shape = _tmem_layout(shape, cols + t_col_off)
    cfg = [f'shape="{shape.split(".")[0]}"'] if forced else []
    if forced and multicast and multicast.startswith("warpx2"):
        cfg.append(f'multicast="{multicast}"')
    cfg.append(f"cta_group={group}")
    setup = f"        tmem_addr[0] = T.uint32({TMEM_BASE})\n" \
            f"        for i, j in T.grid({s_shape[0]}, {s_shape[1]}):\n            A_smem[i, j] = A[i, j]\n" \
        if host else ""
    alloc = "" if host else f'''    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
'''
    t_region = f"tmem[0:{t_shape[0]}, {t_col_off}:{t_col_off + cols}]"
    s_region = f"A_smem[{s_row_off}:{s_row_off + rows}, 0:{cols}]"
    cluster = "    T.cta_id([2])\n    T.cta_id_in_cluster([2])\n" if group == 2 and not host else ""
    return HEAD + f'''
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, {tuple(s_shape)}, "{dtype}")
    T.device_entry()
{cluster}    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer({tuple(s_shape)}, "{dtype}", scope="shared", layout={s_layout}, align={align})
    tmem_addr = T.alloc_shared([1], "uint32")
{alloc}    tmem = T.decl_buffer({t_shape}, "{dtype}", scope="tmem", allocated_addr=tmem_addr[0], layout={t_layout})
    if tid == 0:
{setup}        Tx.copy_async({t_region}, {s_region}, {", ".join(cfg)}{extra})
'''


def _tile_calls(text: str) -> list[ir.TileCall]:
    source = SourceFile("k.tx", text)
    diags = Diagnostics()
    checked = check(parse(source, diags), source, diags, arch="sm_100a")
    assert not diags.has_errors
    return [s for k in checked.kernels for s in ir.all_stmts(k.body) if isinstance(s, ir.TileCall)]


def _places(region: ir.TileRegion, flat: int) -> tuple[list[int], list[dict]]:
    """The buffer coordinates of the region's flat element and its places (layouts.coordinates)."""
    extents = [e.value for e in region.extents]
    coords, rest = [], flat
    for start, extent in zip(reversed(region.starts), reversed(extents)):
        coords.append(start.value + rest % extent)
        rest //= extent
    coords.reverse()
    buf = region.buffer
    return coords, layouts.coordinates(buf.layout, tuple(coords), buf.const_shape())


CP_EMULATOR = r"""
#include <cstdint>
#define __cluster_dims__(...)
static uintptr_t tirx_emu_last;
static inline unsigned long long __cvta_generic_to_shared(const void* p) {
  tirx_emu_last = (uintptr_t)p;
  return (unsigned long long)((uintptr_t)p & 0x3FFFFu);  // an 18-bit shared window over host memory
}
static unsigned int tirx_emu_tmem[128][512];
static unsigned char* tirx_emu_shared(unsigned a) {
  uintptr_t p = (tirx_emu_last & ~(uintptr_t)0x3FFFF) | a;
  if (p + 0x20000 < tirx_emu_last) p += 0x40000; else if (p > tirx_emu_last + 0x20000) p -= 0x40000;
  return (unsigned char*)p;
}
// tcgen05.cp as the PTX ISA describes it: the matrix descriptor (start address, LBO, SBO in
// 16-byte units; version 1 at bit 46, base offset 0, layout type at bits 61-63) names row r's
// 16-byte units in 8-row groups; a swizzle XORs address bits [4, 4+s) with bits [7, 7+s).
// lanes: 0 row r on lane r, 1 on lane 32 r (4x256b), 2 rows 32-63 on lanes 64-95 (warpx2::01_23).
static void tirx_emu_cp(int rows, int row_bytes, int lanes, int copies, int apart, unsigned taddr,
                        unsigned long long desc) {
  if (((desc >> 46) & 7) != 1 || ((desc >> 49) & 7) != 0 || ((desc >> 52) & 1) != 0) std::abort();
  unsigned start = (unsigned)(desc & 0x3FFF) << 4, lbo = (unsigned)((desc >> 16) & 0x3FFF) << 4;
  unsigned sbo = (unsigned)((desc >> 32) & 0x3FFF) << 4, type = (unsigned)(desc >> 61);
  int s = type == 0 ? 0 : type == 6 ? 1 : type == 4 ? 2 : type == 2 ? 3 : -1;
  if (s < 0) std::abort();
  unsigned lane0 = taddr >> 16, col0 = taddr & 0xFFFF;
  for (int r = 0; r < rows; ++r) {
    int lane = lanes == 0 ? r : lanes == 1 ? 32 * r : (r / 32) * 64 + r % 32;
    for (int b = 0; b < row_bytes; ++b) {
      unsigned a = s == 0 ? start + (r / 8) * sbo + (r % 8) * 16 + (b / 16) * lbo + b % 16
                          : start + (r / 8) * sbo + (r % 8) * (16u << s) + b;
      if (s) a ^= ((a >> 7) & ((1u << s) - 1)) << 4;
      unsigned char v = *tirx_emu_shared(a);
      for (int q = 0; q < copies; ++q) {
        unsigned L = lane0 + lane + q * apart, C = col0 + b / 4;
        if (L >= 128 || C >= 512) std::abort();
        ((unsigned char*)&tirx_emu_tmem[L][C])[b % 4] = v;
      }
    }
  }
}
// cta_group::2: the same copy in each CTA of the pair (its own shared memory into its own tensor
// memory); the host run is one CTA's view of it
#define TIRX_EMU_CP(NAME, ...) \
  static void tirx_emu_cp_cta_group__1_##NAME(unsigned t, unsigned long long d) { tirx_emu_cp(__VA_ARGS__, t, d); } \
  static void tirx_emu_cp_cta_group__2_##NAME(unsigned t, unsigned long long d) { tirx_emu_cp(__VA_ARGS__, t, d); }
TIRX_EMU_CP(128x256b, 128, 32, 0, 1, 0)
TIRX_EMU_CP(4x256b, 4, 32, 1, 1, 0)
TIRX_EMU_CP(128x128b, 128, 16, 0, 1, 0)
TIRX_EMU_CP(64x128b_warpx2__02_13, 64, 16, 0, 2, 64)
TIRX_EMU_CP(64x128b_warpx2__01_23, 64, 16, 2, 2, 32)
TIRX_EMU_CP(32x128b_warpx4, 32, 16, 0, 4, 32)
"""
SENTINEL = 0xA5A5A5A5


def _host_program(cuda: str, prelude: str, main: str) -> str:
    """The generated CUDA as host C++: its tcgen05 instructions call the emulator instead."""
    head, body = cuda.split('extern "C" __global__', 1)
    body = re.sub(r"__shared__ alignas\((\d+)\)", r"alignas(\1) static", body)
    body = body.replace("tirx_ptx_tcgen05_cp_", "tirx_emu_cp_")
    body = re.sub(r"tirx_ptx_tcgen05_(ld|st)_sync_aligned_(\d+x\d+b)_x(\d+)_b32\(", r'tirx_emu_\1("\2", \3, ', body)
    body = body.replace("tirx_ptx_tcgen05_wait__ld_sync_aligned();", "").replace(
        "tirx_ptx_tcgen05_wait__st_sync_aligned();", "")
    return hostc.PRELUDE + prelude + head + 'extern "C" __global__' + body + main


def _build_and_run(source: str, tmp_path=None) -> dict[str, list[int]]:
    stdout = host_program_output(source, ["-std=c++17", "-O0", "-fsanitize=undefined", "-fno-sanitize-recover=all",
                                          f"-I{hostc.CUDA_INCLUDE}", "-w"])
    out: dict[str, list[int]] = {}
    for line in stdout.splitlines():
        name, value = line.split()
        out.setdefault(name, []).append(int(value))
    return out


def run_cp(text: str, tmp_path) -> None:
    """Runs the copy on the host and compares all of tensor memory with the layouts' places:
    the region's element at (tmem coords) is A's element at the src region's same index."""
    result = transpile(text, "k.tx", arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    assert [d.variant for d in result.program.kernels[0].tile_dispatch][-1] == "tcgen05_cp"
    call = _tile_calls(text)[-1]
    dst, src = call.operand("dst"), call.operand("src")
    dtype = src.buffer.dtype
    shape = src.buffer.const_shape()
    rng = random.Random(7)
    values = [rng.randrange(1 << dtype.bits) for _ in range(prod(shape))]
    ctype = CTYPES[dtype.name]
    main = "\n".join([
        "int main() {",
        f"  static {ctype} A[{len(values)}] = {{{', '.join(map(str, values))}}};",
        f"  for (int l = 0; l < 128; ++l) for (int c = 0; c < 512; ++c) tirx_emu_tmem[l][c] = {SENTINEL}u;",
        "  threadIdx.x = 0; blockDim.x = 128; blockDim.y = blockDim.z = gridDim.x = gridDim.y = gridDim.z = 1;",
        "  k_kernel(A);",
        '  for (int l = 0; l < 128; ++l) for (int c = 0; c < 512; ++c) std::printf("T %u\\n", tirx_emu_tmem[l][c]);',
        "  return 0; }"])
    got = _build_and_run(_host_program(result.cuda, CP_EMULATOR, main), tmp_path)["T"]
    want = bytearray(SENTINEL.to_bytes(4, "little") * (128 * 512))
    eb = dtype.nbytes
    for flat in range(prod(e.value for e in dst.extents)):
        s_coords, _ = _places(src, flat)
        value = values[sum(x * prod(shape[d + 1:]) for d, x in enumerate(s_coords))]
        _, t_places = _places(dst, flat)
        for place in t_places:
            byte = (place["TLane"] * 512 + TMEM_BASE) * 4 + place.get("TCol", 0) * eb
            want[byte:byte + eb] = value.to_bytes(eb, "little")
    want_words = [int.from_bytes(want[i:i + 4], "little") for i in range(0, len(want), 4)]
    bad = [(i // 512, i % 512, hex(g), hex(w)) for i, (g, w) in enumerate(zip(got, want_words)) if g != w]
    assert not bad, f"{len(bad)} tensor-memory words differ (lane, column, got, want): {bad[:8]}"


# (shape, swizzle, dtype, atoms, shared row offset, tensor-memory column offset (elements), shape= given,
#  cta_group)
CP_CASES = {
    "128x256b_sw128_u16_4": ("128x256b", 3, "uint16", 4, 0, 0, True, 1),
    "128x256b_sw32_u32_2": ("128x256b", 1, "uint32", 2, 0, 0, False, 1),
    "128x256b_sw64_u32_2_col8": ("128x256b", 2, "uint32", 2, 0, 8, True, 1),
    "128x256b_none_u16_ldo": ("128x256b", 0, "uint16", 1, 0, 0, True, 1),
    "128x128b_sw64_u16_2": ("128x128b", 2, "uint16", 2, 0, 0, True, 1),
    "4x256b_sw64_u16": ("4x256b", 2, "uint16", 1, 0, 0, True, 1),
    "64x128b_02_13_sw128_u32_2": ("64x128b.02_13", 3, "uint32", 2, 0, 0, True, 1),
    "64x128b_01_23_sw32_u16_col8": ("64x128b.01_23", 1, "uint16", 1, 0, 8, True, 1),
    "32x128b_sw128_u16_row8": ("32x128b", 3, "uint16", 1, 8, 0, True, 1),
    "32x128b_sw32_u8_2_inferred": ("32x128b", 1, "uint8", 2, 0, 0, False, 1),
    "32x128b_sw32_u16_row8": ("32x128b", 1, "uint16", 1, 8, 0, True, 1),
    "128x128b_sw64_u32_row8_col4": ("128x128b", 2, "uint32", 2, 8, 4, True, 1),
    "128x256b_sw32_u16_pair": ("128x256b", 1, "uint16", 1, 0, 0, True, 2),
}


@needs_gxx
@pytest.mark.parametrize("name", CP_CASES)
def test_property_cp_puts_each_element_where_the_layouts_say(name, tmp_path):
    shape, sw, dtype, n_mid, row_off, col_off, forced, group = CP_CASES[name]
    run_cp(cp_kernel(shape, sw, dtype, n_mid, row_off, col_off, host=True, forced=forced, group=group), tmp_path)


# -- tcgen05_ldst: column slices of a .16x*b fragment ----------------------------------------------------

LDST_EMULATOR = r"""
#include <cstdint>
#include <cstring>
static unsigned int tirx_emu_tmem[128][512];
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static int tirx_emu_regs(const char* shape) {
  return shape[0] == '3' || shape[3] == '6' ? 1 : shape[3] == '1' ? 2 : 4;
}
// The (row of the warp's 16 lanes, column) register q of repetition j of lane l holds (PTX ISA,
// as TIRx's tcgen05_atom_layout writes it): .16x64b row (l&1)*8 + l/4, column 2j + (l>>1)&1;
// .16x128b row 8q + l/4, column 4j + l%4; .16x256b row 8(q>>1) + l/4, column 8j + 2(l%4) + q%2;
// .32x32b (32 lanes) row l, column j.
static void tirx_emu_place(const char* shape, int j, int q, int l, int* row, int* col) {
  int regs = tirx_emu_regs(shape);
  if (shape[0] == '3') { *row = l; *col = j; }
  else if (regs == 1) { *row = (l & 1) * 8 + (l >> 2); *col = 2 * j + ((l >> 1) & 1); }
  else if (regs == 2) { *row = 8 * q + (l >> 2); *col = 4 * j + (l & 3); }
  else { *row = 8 * (q >> 1) + (l >> 2); *col = 8 * j + 2 * (l & 3) + (q & 1); }
}
// each warp moves 16 lanes of its own 32-lane slab: lane 32 w + (taddr's lane) + row
static unsigned* tirx_emu_cell(unsigned taddr, int row, int col) {
  unsigned lane = 32 * (threadIdx.x / 32) + (taddr >> 16) + row, column = (taddr & 0xFFFF) + col;
  if (lane >= 128 || column >= 512 || (taddr >> 16) % 16) std::abort();
  return &tirx_emu_tmem[lane][column];
}
template <class... A> static void tirx_emu_ld(const char* shape, int num, A&&... a) {
  void* p[] = {(void*)&a...};
  const int n = (int)sizeof...(A) - 1, regs = tirx_emu_regs(shape);
  if (n != num * regs) std::abort();
  unsigned taddr = *(const unsigned*)p[n];
  for (int j = 0; j < num; ++j) for (int q = 0; q < regs; ++q) {
    int row, col; tirx_emu_place(shape, j, q, threadIdx.x % 32, &row, &col);
    std::memcpy(p[j * regs + q], tirx_emu_cell(taddr, row, col), 4);
  }
}
template <class... A> static void tirx_emu_st(const char* shape, int num, unsigned taddr, A&&... a) {
  unsigned v[] = {(unsigned)a...};
  const int regs = tirx_emu_regs(shape);
  if ((int)sizeof...(A) != num * regs) std::abort();
  for (int j = 0; j < num; ++j) for (int q = 0; q < regs; ++q) {
    int row, col; tirx_emu_place(shape, j, q, threadIdx.x % 32, &row, &col);
    *tirx_emu_cell(taddr, row, col) = v[j * regs + q];
  }
}
"""
LD_REGS = {"16x64b": 1, "16x128b": 2, "16x256b": 4}
LD_PER_REP = {"16x64b": 2, "16x128b": 4, "16x256b": 8}


def ld_kernel(shape: str, rows: int, cols: int, slices: str, t0: int = 0, host: bool = True) -> str:
    """The warpgroup loads a (rows, cols) `shape` fragment whole (B) and in column slices (C,
    `slices` the statements; `tmem` starts at column t0 of the buffer) from datapath D (128 rows)
    or F (64 rows)."""
    regs = rows * cols // 128
    tcols = t0 + cols + 64
    layout = f"TileLayout(S[(128, {tcols}) : (1 @ TLane, 1 @ TCol)])" if rows == 128 else \
        f'tmem_datapath_layout("F", 64, {tcols})'
    frag = f'tcgen05_atom_layout("{shape}", ({rows}, {cols}), "float32")'
    slot = f"    tmem_addr[0] = T.uint32({TMEM_BASE})\n" if host else ""
    return HEAD + f'''
@T.prim_func
def k(B_ptr: T.handle, C_ptr: T.handle):
    B = T.match_buffer(B_ptr, (128, {regs}), "float32")
    C = T.match_buffer(C_ptr, (128, {regs}), "float32")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
{slot}    tmem = T.decl_buffer(({rows}, {tcols}), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout={layout})
    full = T.alloc_local(({regs},), "float32")
    fl = full.view({rows}, {cols}, layout={frag})
    Tx.wg.copy_async(fl[:, :], tmem[:, {t0}:{t0 + cols}])
    part = T.alloc_local(({regs},), "float32")
    pl = part.view({rows}, {cols}, layout={frag})
{slices}
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for i in range({regs}):
        B[tid, i] = full[i]
        C[tid, i] = part[i]
'''


def _run_threads(outputs: dict[str, int], fill: str) -> str:
    """A host main: `fill`, then the kernel for threads 0..127 in order over the buffers
    `outputs` (name: words), each of which it prints as `name word` lines."""
    decls = [f"  static unsigned int {name}[{size}];" for name, size in outputs.items()]
    args = ", ".join(f"(float*){name}" for name in outputs)
    dumps = [f'  for (int i = 0; i < {size}; ++i) std::printf("{name} %u\\n", {name}[i]);'
             for name, size in outputs.items()]
    main = "\n".join(["int main() {", *decls, fill,
                      "  blockDim.x = 128; blockDim.y = blockDim.z = gridDim.x = gridDim.y = gridDim.z = 1;",
                      f"  for (unsigned t = 0; t < 128; ++t) {{ threadIdx.x = t; k_kernel({args}); }}",
                      *dumps, "  return 0; }"])
    return main


TMEM_PATTERN = "  for (int l = 0; l < 128; ++l) for (int c = 0; c < 512; ++c) tirx_emu_tmem[l][c] = (l << 16) | c;"


def _run_ld(text: str, tmp_path) -> tuple[list[int], list[int]]:
    result = transpile(text, "k.tx", arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    assert {d.variant for d in result.program.kernels[0].tile_dispatch} == {"tcgen05_ldst"}
    regs = int(re.search(r"B = T.match_buffer\(B_ptr, \(128, (\d+)\)", text).group(1))
    main = _run_threads({"B": 128 * regs, "C": 128 * regs}, TMEM_PATTERN)
    source = _host_program(result.cuda, LDST_EMULATOR, main)
    cpp_out = _build_and_run(source, tmp_path)
    return cpp_out["B"], cpp_out["C"]


def _full_load_expected(text: str) -> list[int]:
    """Thread t's register i of the whole fragment: the word at the tensor-memory place (by the
    tensor-memory layout) of the fragment element (by the register layout) it holds."""
    call = _tile_calls(text)[0]
    frag, tmem = call.operand("dst"), call.operand("src")
    rows, cols = frag.buffer.const_shape()
    regs = rows * cols // 128
    want = [None] * (128 * regs)
    for r in range(rows):
        for c in range(cols):
            held, = layouts.coordinates(frag.buffer.layout, (r, c), (rows, cols))
            thread = held.get("tid_in_wg", 0) + 32 * held.get("wid_in_wg", 0) + held.get("laneid", 0)
            t_coords = (tmem.starts[0].value + r, tmem.starts[1].value + c)
            place, = layouts.coordinates(tmem.buffer.layout, t_coords, tmem.buffer.const_shape())
            want[thread * regs + held["m"]] = (place["TLane"] << 16) | (TMEM_BASE + place["TCol"])
    return want


def _runtime_slices(chunk: int, count: int, t0: int = 0) -> str:
    return f'''    for ck in range({count}):
        lo = T.meta_var(ck * {chunk})
        Tx.wg.copy_async(pl[:, lo:lo + {chunk}], tmem[:, {t0} + lo:{t0} + lo + {chunk}])'''


def _constant_slices(bounds: list[int], t0: int = 0) -> str:
    return "\n".join(f"    Tx.wg.copy_async(pl[:, {a}:{b}], tmem[:, {t0 + a}:{t0 + b}])"
                     for a, b in zip(bounds, bounds[1:]))


# name: (shape, rows, cols, slices, tmem column start)
LD_CASES = {
    "16x256b_128_runtime_8": ("16x256b", 128, 64, _runtime_slices(8, 8), 0),
    "16x256b_128_runtime_16_at_32": ("16x256b", 128, 64, _runtime_slices(16, 4, 32), 32),
    "16x128b_64_constant_uneven": ("16x128b", 64, 64, _constant_slices([0, 12, 16, 64]), 0),
    "16x64b_128_runtime": ("16x64b", 128, 32, _runtime_slices(4, 8), 0),
    "16x64b_64_constant": ("16x64b", 64, 64, _constant_slices([0, 6, 32, 64], 8), 8),
    "32x32b_128_runtime": ("32x32b", 128, 64, _runtime_slices(16, 4, 8), 8),
}


@needs_gxx
@pytest.mark.parametrize("name", LD_CASES)
def test_property_sliced_loads_give_the_registers_of_the_whole_load(name, tmp_path):
    shape, rows, cols, slices, t0 = LD_CASES[name]
    text = ld_kernel(shape, rows, cols, slices, t0)
    full, sliced = _run_ld(text, tmp_path)
    assert full == _full_load_expected(text)
    assert sliced == full


def st_kernel(shape: str, rows: int, cols: int, chunk: int) -> str:
    """The warpgroup stores its (rows, cols) fragment (read from A) into tensor memory in
    run-time column slices of `chunk` columns."""
    regs = rows * cols // 128
    layout = f"TileLayout(S[(128, {cols}) : (1 @ TLane, 1 @ TCol)])" if rows == 128 else \
        f'tmem_datapath_layout("F", 64, {cols})'
    return HEAD + f'''
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, {regs}), "float32")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem_addr[0] = T.uint32({TMEM_BASE})
    tmem = T.decl_buffer(({rows}, {cols}), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout={layout})
    frag = T.alloc_local(({regs},), "float32")
    fl = frag.view({rows}, {cols}, layout=tcgen05_atom_layout("{shape}", ({rows}, {cols}), "float32"))
    for i in range({regs}):
        frag[i] = A[tid, i]
    for ck in range({cols // chunk}):
        lo = T.meta_var(ck * {chunk})
        Tx.wg.copy_async(tmem[:, lo:lo + {chunk}], fl[:, lo:lo + {chunk}])
    T.ptx.tcgen05.wait__st.sync.aligned()
'''


@needs_gxx
@pytest.mark.parametrize("shape,rows,cols,chunk", [("16x256b", 128, 32, 16), ("16x128b", 64, 64, 8)])
def test_property_sliced_stores_put_each_register_where_the_layouts_say(shape, rows, cols, chunk, tmp_path):
    text = st_kernel(shape, rows, cols, chunk)
    result = transpile(text, "k.tx", arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    regs = rows * cols // 128
    fill = "\n".join([f"  for (int t = 0; t < 128; ++t) for (int i = 0; i < {regs}; ++i) A[t * {regs} + i] = "
                      "(t << 16) | i;", "  for (int l = 0; l < 128; ++l) for (int c = 0; c < 512; ++c) "
                      "tirx_emu_tmem[l][c] = 0xFFFFFFFFu;"])
    main = _run_threads({"A": 128 * regs}, fill).replace(
        "  return 0; }", '  for (int l = 0; l < 128; ++l) for (int c = 0; c < 512; ++c) '
                         'std::printf("T %u\\n", tirx_emu_tmem[l][c]);\n  return 0; }')
    got = _build_and_run(_host_program(result.cuda, LDST_EMULATOR, main), tmp_path)["T"]
    call = _tile_calls(text)[0]
    tmem, frag = call.operand("dst"), call.operand("src")
    want = [0xFFFFFFFF] * (128 * 512)
    for r in range(rows):
        for c in range(cols):
            held, = layouts.coordinates(frag.buffer.layout, (r, c), (rows, cols))
            thread = held.get("tid_in_wg", 0) + 32 * held.get("wid_in_wg", 0) + held.get("laneid", 0)
            place, = layouts.coordinates(tmem.buffer.layout, (r, c), (rows, cols))
            want[place["TLane"] * 512 + TMEM_BASE + place["TCol"]] = (thread << 16) | held["m"]
    assert got == want
