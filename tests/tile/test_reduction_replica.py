"""TIRx's register reduction whose dst keeps the reduced axes over the threads (transpiler/tile/
reduction_keep.py, tried by `local` when dst's size is not src's reduced over `axes=`): the upstream
case of a wgmma-like (16, 128) accumulator per warp, each row spread over the four lanes of a quad,
reduced into a (16, 4) with `thread_reduce=True`, or with `thread_reduce=False` then finished in
place by `Tx.warp.<op>(red, red, thread_reduce=True)`. Properties: the values over operations,
dtypes, `thread_reduce`, `accum` and warp counts against a numpy reference, by a host run that
emulates the warps (one host thread per CUDA thread, `__shfl_xor_sync` through a barrier per warp),
and nvcc over the same sweep. The CUDA of single cases and the E0904 reasons are case files:
tests/tile/cases/reduction/kept_axes_*.tx. The same kernels on the GPU:
tests/gpu/test_tile_reduction_replica.py."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import has_nvcc, transpile
from tests.build_cache import compile_cuda, host_program_output
from tests.emit import hostc

needs_gxx = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")

COLS = 128


def kernel(op="sum", dtype="float32", thread_reduce=True, accum=False, groups=1, warps=1, finish=None,
           red_layout="red_warp.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (8, 4))") -> str:
    """Each warp w reduces rows 16w .. 16w + 15 of A (16 w, 128) into B (16 w, 4); `finish` (default:
    when not `thread_reduce`) adds the in-place `thread_reduce=True` call."""
    finish = (not thread_reduce) if finish is None else finish
    load_b = f"""    if {accum}:
        for i in T.unroll(2):
            red[i] = B[row0 + i * 8 + lane // 4, lane % 4]
"""
    done = f"    Tx.warp.{op}(red_view, red_view, thread_reduce=True)\n" if finish else ""
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TileLayout, laneid


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle) -> None:
    A = T.match_buffer(A_ptr, (16 * {warps}, {COLS}), "{dtype}")
    B = T.match_buffer(B_ptr, (16 * {warps}, 4), "{dtype}")
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([{groups}])
    warp = T.warp_id_in_wg([{warps // groups}])
    lane = T.lane_id([32])
    row0 = wg * 64 + warp * 16
    quad = T.TileLayout(T.S[(8, 4) : (4 @ laneid, 1 @ laneid)])
    pair = T.TileLayout(T.S[(1, 2) : (2, 1)])
    cols = T.TileLayout(T.S[(2, {COLS // 8}) : (1, 2)])
    acc = T.alloc_buffer([2, {COLS // 4}], dtype="{dtype}", scope="local", layout=pair.tile(cols, (2, {COLS // 8}), (1, 2)))
    one = T.TileLayout(T.S[(1, 1) : (1, 1)])
    red_warp = one.tile(quad, (8, 4), (1, 1))
    red = T.alloc_buffer([2], dtype="{dtype}", scope="local", layout=one.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (1, 1)))
    for i in T.serial({COLS // 8}):
        for j in T.unroll(2):
            for v in T.vectorized(2):
                acc[j, i * 2 + v] = A[row0 + j * 8 + lane // 4, i * 8 + lane % 4 * 2 + v]
{load_b}    acc_view = acc.view(16, {COLS}, layout=pair.tile(quad, (8, 4), (1, 2)).tile(cols, (2, {COLS // 8}), (8, 8)))
    red_view = red.view(16, 4, layout={red_layout})
    Tx.warp.{op}(red_view, acc_view, thread_reduce={thread_reduce}, accum={accum})
{done}    for i in T.unroll(2):
        B[row0 + i * 8 + lane // 4, lane % 4] = red[i]
'''


NUMPY = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def reference(op, a, b, thread_reduce, accum, finish=None):
    """What B holds afterwards (float64): each (16 w, 4) row's column q first takes the reduction of
    A's row over the columns lane q of the quad holds (c % 8 in 2q, 2q + 1), combined with B's old
    value if `accum`; `thread_reduce` (or the in-place finish) then combines the four columns."""
    finish = (not thread_reduce) if finish is None else finish
    fold = NUMPY[op].reduce
    a = a.astype(np.float64).reshape(a.shape[0], COLS // 8, 4, 2)
    share = fold(fold(a, axis=3), axis=1)  # (rows, 4): lane q's part
    if thread_reduce:
        share = np.repeat(fold(share, axis=1, keepdims=True), 4, axis=1)
    if accum:
        share = NUMPY[op](share, b.astype(np.float64))
    if finish:
        share = np.repeat(fold(share, axis=1, keepdims=True), 4, axis=1)
    return share


# -- a host run with the warps emulated --------------------------------------------------------

WARP_PRELUDE = r"""
#include <barrier>
#include <thread>
#include <vector>
static std::vector<std::barrier<>*> tirx_warps;
static unsigned long long tirx_slots[1024];
static inline unsigned __activemask() { return 0xffffffffu; }
template <typename T> static T tirx_exchange(T v, unsigned partner) {
  unsigned t = threadIdx.x, lane = t % 32;
  std::memcpy(&tirx_slots[t], &v, sizeof(T));
  tirx_warps[t / 32]->arrive_and_wait();
  T got;
  std::memcpy(&got, &tirx_slots[t - lane + partner], sizeof(T));
  tirx_warps[t / 32]->arrive_and_wait();
  return got;
}
template <typename T> static T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
  unsigned lane = threadIdx.x % 32, partner = lane ^ (unsigned)mask;
  return tirx_exchange(v, partner / width == lane / width ? partner : lane);
}
template <typename T> static T __shfl_sync(unsigned, T v, int src, int width = 32) {
  unsigned lane = threadIdx.x % 32;
  return tirx_exchange(v, lane / width * width + (unsigned)src % width);
}
"""


def run_warps(cuda: str, buffers: dict[str, list], threads: int) -> dict[str, list]:
    """hostc.run's job with a real host thread per CUDA thread (a multiple of 32)."""
    match = hostc._SIGNATURE.search(cuda)
    symbol, params = match.group(1), [p.strip() for p in match.group(2).split(",") if p.strip()]
    decls, args, dumps, kinds = [], [], [], {}
    for text in params:
        ctype, _, name = hostc._PARAM.match(text).groups()
        source = name[:-len("_ptr")]
        kinds[source] = ctype
        values = buffers[source]
        decls.append(f"static {ctype} {name}[{len(values)}] = {{{', '.join(hostc._literal(ctype, v) for v in values)}}};")
        dumps.append(f'for (int i = 0; i < {len(values)}; ++i) std::printf("{source} %a\\n", (double)(float){name}[i]);')
        args.append(name)
    prelude = hostc.PRELUDE.replace("static tirx_dim3 threadIdx,", "static thread_local tirx_dim3 threadIdx;\nstatic tirx_dim3")
    main = "\n".join([
        *decls, "int main() {",
        f"blockDim.x = {threads}; blockDim.y = blockDim.z = gridDim.x = gridDim.y = gridDim.z = 1;",
        f"for (int w = 0; w < {threads // 32}; ++w) tirx_warps.push_back(new std::barrier<>(32));",
        "std::vector<std::thread> pool;",
        f"for (unsigned t = 0; t < {threads}; ++t) pool.emplace_back([t] {{ threadIdx.x = t; {symbol}({', '.join(args)}); }});",
        "for (auto& p : pool) p.join();", *dumps, "return 0; }"])
    stdout = host_program_output(prelude + WARP_PRELUDE + cuda + "\n" + main + "\n",
                                 ["-std=c++20", "-O0", "-pthread", "-ffp-contract=off", "-fsanitize=undefined",
                                  "-fno-sanitize-recover=all", f"-I{hostc.CUDA_INCLUDE}", "-w"],
                                 compiler=hostc.GXX, build_timeout=180, run_timeout=60)
    out: dict[str, list] = {name: [] for name in kinds}
    for line in stdout.splitlines():
        name, text = line.split(" ", 1)
        out[name].append(float.fromhex(text))
    return out


def _compiled(text, arch="sm_90a"):
    result = transpile(text, "k.tx", arch=arch)
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    return result


def _inputs(warps, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (16 * warps, COLS)).astype(dtype), rng.uniform(-1, 1, (16 * warps, 4)).astype(dtype)


@needs_gxx
@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("thread_reduce, accum", [(True, False), (True, True), (False, False), (False, True)])
def test_property_values_on_an_emulated_warp(op, thread_reduce, accum):
    a, b = _inputs(1)
    result = _compiled(kernel(op, thread_reduce=thread_reduce, accum=accum))
    out = run_warps(result.cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    got = np.array(out["B"]).reshape(16, 4)
    np.testing.assert_allclose(got, reference(op, a, b, thread_reduce, accum), rtol=1e-5, atol=1e-5)


@needs_gxx
@pytest.mark.parametrize("groups, warps", [(1, 4), (2, 8)])
def test_property_values_with_several_warps(groups, warps):
    a, b = _inputs(warps, seed=warps)
    result = _compiled(kernel("max", thread_reduce=True, accum=True, groups=groups, warps=warps))
    out = run_warps(result.cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32 * warps)
    got = np.array(out["B"]).reshape(16 * warps, 4)
    np.testing.assert_array_equal(got, reference("max", a, b, True, True))


@needs_gxx
@pytest.mark.parametrize("op", ["sum", "max"])
def test_property_float16_values(op):
    rng = np.random.default_rng(41)
    a = rng.uniform(0, 1, (16, COLS)).astype(np.float16)
    b = (rng.uniform(0, 1, (16, 4)) * 0.5).astype(np.float16)
    out = run_warps(_compiled(kernel(op, "float16", False, True)).cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    got, want = np.array(out["B"]).reshape(16, 4), reference(op, a, b, False, True)
    if op == "max":
        np.testing.assert_array_equal(got, want)
    else:  # float16 partial sums: upstream's tolerance
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-1)


@needs_gxx
@pytest.mark.parametrize("accum", [False, True])
def test_property_without_thread_reduce_each_column_is_its_lanes_share(accum):
    # no finishing call: B's column q is what lane q of each quad folded (the partial results)
    a, b = _inputs(1, seed=3)
    result = _compiled(kernel("sum", thread_reduce=False, accum=accum, finish=False))
    assert "__shfl_xor_sync" not in result.cuda
    out = run_warps(result.cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    got = np.array(out["B"]).reshape(16, 4)
    want = reference("sum", a, b, False, accum, finish=False)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert not np.allclose(want[:, 0], want[:, 1])  # the columns differ: no lane combined


@needs_gxx
@pytest.mark.parametrize("accum", [False, True])
def test_property_in_place_without_thread_reduce_changes_nothing(accum):
    # each element is its own lane's share; with `accum=True` too (TIRx neither folds nor combines then)
    text = kernel(thread_reduce=False, finish=False).replace(
        "    for i in T.unroll(2):\n        B[",
        f"    Tx.warp.sum(red_view, red_view, accum={accum})\n    for i in T.unroll(2):\n        B[")
    result = _compiled(text)
    a, b = _inputs(1, seed=6)
    out = run_warps(result.cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    np.testing.assert_allclose(np.array(out["B"]).reshape(16, 4), reference("sum", a, b, False, False, finish=False),
                               rtol=1e-5, atol=1e-5)


@needs_gxx
def test_property_in_place_with_thread_reduce_and_accum_adds_the_old_value_once():
    # red holds the lanes' shares p; the in-place finish with accum: p_q + (p_0 + p_1 + p_2 + p_3)
    text = kernel(thread_reduce=False, finish=False).replace(
        "    for i in T.unroll(2):\n        B[",
        "    Tx.warp.sum(red_view, red_view, thread_reduce=True, accum=True)\n    for i in T.unroll(2):\n        B[")
    a, b = _inputs(1, seed=7)
    out = run_warps(_compiled(text).cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    share = reference("sum", a, b, False, False, finish=False)
    np.testing.assert_allclose(np.array(out["B"]).reshape(16, 4), share + share.sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-5)


@needs_gxx
def test_property_replicated_dst_values():
    # the replicated-over-the-quad dst (kept_axes_dst_replicated_over_the_quad_with_thread_reduce.tx) with `thread_reduce=True`: every column is the row sum
    text = kernel().replace(
        "red = T.alloc_buffer([2]", "red = T.alloc_buffer([8]").replace(
        "one.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (1, 1))", "T.TileLayout(T.S[8:1])").replace(
        "red_warp.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (8, 4))",
        "T.TileLayout(T.S[(2, 8, 4) : (4, 4 @ laneid, 1)] + T.R[4 : 1 @ laneid])").replace(
        "= red[i]", "= red[i * 4 + (lane + 1) % 4]")
    a, b = _inputs(1, seed=5)
    out = run_warps(_compiled(text).cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 32)
    np.testing.assert_allclose(np.array(out["B"]).reshape(16, 4), reference("sum", a, b, True, False),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("op, dtype, thread_reduce, accum", [("sum", "float32", True, False),
                                                             ("max", "float16", False, False),
                                                             ("min", "float32", True, True)])
def test_property_kernels_compile_warning_free(op, dtype, thread_reduce, accum):
    result = _compiled(kernel(op, dtype, thread_reduce, accum, groups=2, warps=8))
    code, output = compile_cuda(result.cuda, ["-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output


def warpgroup_kernel(thread_reduce: bool) -> str:
    """The upstream case at warpgroup scope: a (64, 128) over the four warps (16 rows each, the
    warp's id in the layout) into a (64, 4)."""
    finish = "" if thread_reduce else "    Tx.wg.sum(red_view, red_view, thread_reduce=True)\n"
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TileLayout, laneid, wid_in_wg


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle) -> None:
    A = T.match_buffer(A_ptr, (64, {COLS}), "float32")
    B = T.match_buffer(B_ptr, (64, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    w = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    acc = T.alloc_buffer([64], "float32", scope="local")
    red = T.alloc_buffer([2], "float32", scope="local")
    for t, i, v in T.grid(2, {COLS // 8}, 2):
        acc[t * 32 + i * 2 + v] = A[w * 16 + t * 8 + lane // 4, i * 8 + lane % 4 * 2 + v]
    acc_view = acc.view(64, {COLS}, layout=T.TileLayout(T.S[(4, 2, 8, {COLS // 8}, 4, 2) : (1 @ wid_in_wg, 32, 4 @ laneid, 2, 1 @ laneid, 1)]))
    red_view = red.view(64, 4, layout=T.TileLayout(T.S[(4, 2, 8, 4) : (1 @ wid_in_wg, 1, 4 @ laneid, 1 @ laneid)]))
    Tx.wg.sum(red_view, acc_view, thread_reduce={thread_reduce})
{finish}    for t in T.unroll(2):
        B[w * 16 + t * 8 + lane // 4, lane % 4] = red[t]
'''


@needs_gxx
@pytest.mark.parametrize("thread_reduce", [True, False])
def test_property_warpgroup_scope_values(thread_reduce):
    a, b = _inputs(4, seed=9)
    result = _compiled(warpgroup_kernel(thread_reduce))
    assert {d.variant for d in result.program.kernels[0].tile_dispatch} == {"local"}
    out = run_warps(result.cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, 128)
    np.testing.assert_allclose(np.array(out["B"]).reshape(64, 4), reference("sum", a, b, True, False),
                               rtol=1e-5, atol=1e-5)
