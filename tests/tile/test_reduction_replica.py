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

import functools

import numpy as np
import pytest

from tests.conftest import has_nvcc, transpile
from tests.build_cache import host_program_runs
from tests.emit import hostc
from tests.nvcc_batch import EXTERN_C_KERNEL, compile_many, split_includes, translation_unit

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


HOST_FLAGS = ["-std=c++20", "-O0", "-pthread", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover=all",
              f"-I{hostc.CUDA_INCLUDE}", "-w"]


def warp_program(cuda: str, buffers: dict[str, list], threads: int) -> tuple[tuple[str, ...], str]:
    """hostc.run's job with a real host thread per CUDA thread (a multiple of 32): (the CUDA's
    `#include` lines, the rest with the buffers and a `run()` that starts the threads and prints
    the buffers), to be placed after the preludes in a namespace of its own."""
    match = hostc._SIGNATURE.search(cuda)
    symbol, params = match.group(1), [p.strip() for p in match.group(2).split(",") if p.strip()]
    decls, args, dumps = [], [], []
    for text in params:
        ctype, _, name = hostc._PARAM.match(text).groups()
        source = name[:-len("_ptr")]
        values = buffers[source]
        decls.append(f"static {ctype} {name}[{len(values)}] = {{{', '.join(hostc._literal(ctype, v) for v in values)}}};")
        dumps.append(f'for (int i = 0; i < {len(values)}; ++i) std::printf("{source} %a\\n", (double)(float){name}[i]);')
        args.append(name)
    includes, code = split_includes(cuda)
    run = "\n".join([
        *decls, "static int run() {",
        f"blockDim.x = {threads}; blockDim.y = blockDim.z = gridDim.x = gridDim.y = gridDim.z = 1;",
        f"for (int w = 0; w < {threads // 32}; ++w) tirx_warps.push_back(new std::barrier<>(32));",
        "std::vector<std::thread> pool;",
        f"for (unsigned t = 0; t < {threads}; ++t) pool.emplace_back([t] {{ threadIdx.x = t; {symbol}({', '.join(args)}); }});",
        "for (auto& p : pool) p.join();", *dumps, "return 0; }"])
    return includes, EXTERN_C_KERNEL.sub("", code) + "\n" + run


def run_warps_many(programs: dict[str, tuple[str, dict, int]]) -> dict[str, dict[str, list] | str]:
    """{name: {buffer: values after the run}, or the error} for {name: (cuda, buffers, threads)}:
    the programs with the same `#include` lines built by one g++ run (most of a build is reading
    the headers), each in a namespace of its own and run alone, picked by its number; a build that
    fails is not the answer, its programs are then built alone."""
    prelude = hostc.PRELUDE.replace("static tirx_dim3 threadIdx,", "static thread_local tirx_dim3 threadIdx;\nstatic tirx_dim3")
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for name, (cuda, buffers, threads) in programs.items():
        includes, body = warp_program(cuda, buffers, threads)
        groups.setdefault(includes, []).append((name, body))
    results: dict[str, dict[str, list] | str] = {}

    def build(includes, parts):
        runs = ", ".join(f"tirxc_case_{number}::run" for number in range(len(parts)))
        source = (prelude + WARP_PRELUDE + translation_unit(includes, parts) + f"static int (*const tirxc_runs[])() = {{{runs}}};\n"
                  "int main(int argc, char** argv) { return argc == 2 ? tirxc_runs[std::atoi(argv[1])]() : 2; }\n")
        return host_program_runs(source, HOST_FLAGS, [[str(number)] for number in range(len(parts))],
                                 compiler=hostc.GXX, build_timeout=180, run_timeout=60)

    for includes, parts in groups.items():
        code, errors, runs = build(includes, parts)
        if code != 0 and len(parts) > 1:
            for part in parts:
                results[part[0]] = _outcome(*build(includes, [part]))
            continue
        for number, (name, _) in enumerate(parts):
            results[name] = _outcome(code, errors, runs[number:number + 1])
    return results


def _outcome(code: int, errors: str, runs: list) -> dict[str, list] | str:
    if code != 0:
        return f"g++ failed:\n{errors[-4000:]}"
    (status, stdout, stderr), = runs
    if status != 0:
        return f"the host run failed:\n{stderr[-4000:]}"
    out: dict[str, list] = {}
    for line in stdout.splitlines():
        name, text = line.split(" ", 1)
        out.setdefault(name, []).append(float.fromhex(text))
    return out


@functools.lru_cache(maxsize=None)
def _compiled(text, arch="sm_90a"):
    result = transpile(text, "k.tx", arch=arch)
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    return result


def _inputs(warps, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (16 * warps, COLS)).astype(dtype), rng.uniform(-1, 1, (16 * warps, 4)).astype(dtype)


# -- the emulated runs: {name: () -> (kernel text, A, B, threads)}, all built before the first test

def _float16_inputs():
    rng = np.random.default_rng(41)
    return rng.uniform(0, 1, (16, COLS)).astype(np.float16), (rng.uniform(0, 1, (16, 4)) * 0.5).astype(np.float16)


def _in_place(call: str) -> str:
    """The kernel without thread_reduce or finish, then `call` on red before B is written."""
    return kernel(thread_reduce=False, finish=False).replace(
        "    for i in T.unroll(2):\n        B[", f"    {call}\n    for i in T.unroll(2):\n        B[")


def _replicated_dst_kernel() -> str:
    # the replicated-over-the-quad dst (kept_axes_dst_replicated_over_the_quad_with_thread_reduce.tx) with `thread_reduce=True`
    return kernel().replace(
        "red = T.alloc_buffer([2]", "red = T.alloc_buffer([8]").replace(
        "one.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (1, 1))", "T.TileLayout(T.S[8:1])").replace(
        "red_warp.tile(T.TileLayout(T.S[(2, 1) : (1, 1)]), (2, 1), (8, 4))",
        "T.TileLayout(T.S[(2, 8, 4) : (4, 4 @ laneid, 1)] + T.R[4 : 1 @ laneid])").replace(
        "= red[i]", "= red[i * 4 + (lane + 1) % 4]")


OPS = ["sum", "max", "min"]
REDUCE_ACCUM = [(True, False), (True, True), (False, False), (False, True)]
GROUPS_WARPS = [(1, 4), (2, 8)]
RUNS = {
    **{f"warp-{op}-{tr}-{acc}": functools.partial(lambda op, tr, acc: (kernel(op, thread_reduce=tr, accum=acc),
                                                                       *_inputs(1), 32), op, tr, acc)
       for op in OPS for tr, acc in REDUCE_ACCUM},
    **{f"warps-{g}-{w}": functools.partial(lambda g, w: (kernel("max", thread_reduce=True, accum=True, groups=g, warps=w),
                                                         *_inputs(w, seed=w), 32 * w), g, w)
       for g, w in GROUPS_WARPS},
    **{f"float16-{op}": functools.partial(lambda op: (kernel(op, "float16", False, True), *_float16_inputs(), 32), op)
       for op in ["sum", "max"]},
    **{f"shares-{acc}": functools.partial(lambda acc: (kernel("sum", thread_reduce=False, accum=acc, finish=False),
                                                       *_inputs(1, seed=3), 32), acc)
       for acc in [False, True]},
    **{f"in-place-{acc}": functools.partial(lambda acc: (_in_place(f"Tx.warp.sum(red_view, red_view, accum={acc})"),
                                                         *_inputs(1, seed=6), 32), acc)
       for acc in [False, True]},
    "in-place-thread-reduce-accum": lambda: (
        _in_place("Tx.warp.sum(red_view, red_view, thread_reduce=True, accum=True)"), *_inputs(1, seed=7), 32),
    "replicated-dst": lambda: (_replicated_dst_kernel(), *_inputs(1, seed=5), 32),
    **{f"warpgroup-{tr}": functools.partial(lambda tr: (warpgroup_kernel(tr), *_inputs(4, seed=9), 128), tr)
       for tr in [True, False]},
}


@pytest.fixture(scope="module")
def emulated():
    """name -> (A, B as given, B after the run), every run of RUNS built at once (run_warps_many)."""
    cases = {name: make() for name, make in RUNS.items()}
    outputs = run_warps_many({name: (_compiled(text).cuda, {"A": list(a.ravel()), "B": list(b.ravel())}, threads)
                              for name, (text, a, b, threads) in cases.items()})

    def get(name):
        out = outputs[name]
        assert not isinstance(out, str), out
        _, a, b, _ = cases[name]
        return a, b, np.array(out["B"]).reshape(b.shape)
    return get


@needs_gxx
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("thread_reduce, accum", REDUCE_ACCUM)
def test_property_values_on_an_emulated_warp(emulated, op, thread_reduce, accum):
    a, b, got = emulated(f"warp-{op}-{thread_reduce}-{accum}")
    np.testing.assert_allclose(got, reference(op, a, b, thread_reduce, accum), rtol=1e-5, atol=1e-5)


@needs_gxx
@pytest.mark.parametrize("groups, warps", GROUPS_WARPS)
def test_property_values_with_several_warps(emulated, groups, warps):
    a, b, got = emulated(f"warps-{groups}-{warps}")
    np.testing.assert_array_equal(got, reference("max", a, b, True, True))


@needs_gxx
@pytest.mark.parametrize("op", ["sum", "max"])
def test_property_float16_values(emulated, op):
    a, b, got = emulated(f"float16-{op}")
    want = reference(op, a, b, False, True)
    if op == "max":
        np.testing.assert_array_equal(got, want)
    else:  # float16 partial sums: upstream's tolerance
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-1)


@needs_gxx
@pytest.mark.parametrize("accum", [False, True])
def test_property_without_thread_reduce_each_column_is_its_lanes_share(emulated, accum):
    # no finishing call: B's column q is what lane q of each quad folded (the partial results)
    text, *_ = RUNS[f"shares-{accum}"]()
    assert "__shfl_xor_sync" not in _compiled(text).cuda
    a, b, got = emulated(f"shares-{accum}")
    want = reference("sum", a, b, False, accum, finish=False)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert not np.allclose(want[:, 0], want[:, 1])  # the columns differ: no lane combined


@needs_gxx
@pytest.mark.parametrize("accum", [False, True])
def test_property_in_place_without_thread_reduce_changes_nothing(emulated, accum):
    # each element is its own lane's share; with `accum=True` too (TIRx neither folds nor combines then)
    a, b, got = emulated(f"in-place-{accum}")
    np.testing.assert_allclose(got, reference("sum", a, b, False, False, finish=False), rtol=1e-5, atol=1e-5)


@needs_gxx
def test_property_in_place_with_thread_reduce_and_accum_adds_the_old_value_once(emulated):
    # red holds the lanes' shares p; the in-place finish with accum: p_q + (p_0 + p_1 + p_2 + p_3)
    a, b, got = emulated("in-place-thread-reduce-accum")
    share = reference("sum", a, b, False, False, finish=False)
    np.testing.assert_allclose(got, share + share.sum(1, keepdims=True), rtol=1e-5, atol=1e-5)


@needs_gxx
def test_property_replicated_dst_values(emulated):
    # every column is the row sum
    a, b, got = emulated("replicated-dst")
    np.testing.assert_allclose(got, reference("sum", a, b, True, False), rtol=1e-5, atol=1e-5)


NVCC_CASES = [("sum", "float32", True, False), ("max", "float16", False, False), ("min", "float32", True, True)]


@pytest.fixture(scope="module")
def nvcc_results():
    """{case: (return code, nvcc output)}: the cases' CUDA by as few nvcc runs as their includes
    allow (tests/nvcc_batch.py); a case that does not transpile is left out (its test says why)."""
    sources = {}
    for case in NVCC_CASES:
        try:
            sources["_".join(map(str, case))] = _compiled(kernel(*case, groups=2, warps=8)).cuda
        except AssertionError:
            continue
    return compile_many(sources, ("-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror", "all-warnings"))


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("op, dtype, thread_reduce, accum", NVCC_CASES)
def test_property_kernels_compile_warning_free(op, dtype, thread_reduce, accum, nvcc_results):
    _compiled(kernel(op, dtype, thread_reduce, accum, groups=2, warps=8))  # its diagnostics, if any
    code, output = nvcc_results["_".join(map(str, (op, dtype, thread_reduce, accum)))]
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
def test_property_warpgroup_scope_values(emulated, thread_reduce):
    assert {d.variant for d in _compiled(warpgroup_kernel(thread_reduce)).program.kernels[0].tile_dispatch} == {"local"}
    a, b, got = emulated(f"warpgroup-{thread_reduce}")
    np.testing.assert_allclose(got, reference("sum", a, b, True, False), rtol=1e-5, atol=1e-5)
