#!/usr/bin/env python3
"""The Hopper BF16 GEMM written in TIRx (samples/gemm_bf16_hopper.tx) against cuBLAS, side by
side in one run: C = A @ B^T with A (M, K), B (N, K), C (M, N) in bfloat16 and float32
accumulation, at square sizes from 1024 to 8192.

Both are timed the same way: CUDA-graph replay of back-to-back launches (so that neither the
launcher's nor cuBLAS's host time hides in the kernel's), interleaved rounds, the median.
cuBLAS is called through cublasGemmEx with BF16 operands and FP32 compute, by ctypes (CuPy has
no bfloat16 dtype, and its cuBLAS binding refuses calls during a graph capture); the arrays are
uint16 bit patterns, which the tirxc launcher accepts for a bfloat16 buffer. Correctness: tirxc's C against cuBLAS's, and at 1024 against a float32
product of the same bfloat16 inputs.

Run on the GPU machine from the repository root (lark from the carried wheel):

    PYTHONPATH=.:/tmp/site python3 bench/gemm_hopper.py --out gemm.json

bench/gpu.py runs it as its `gemm` part. With --decode it times samples/gemm_bf16_hopper_decode.tx
(swap-AB, split-K in a 4-CTA cluster) at the shapes LLM decoding runs, M = 16-256 rows against
N x K weights, each split of K it takes beside cuBLAS, rotating among copies of B so that the
weights come from device memory, not from L2:

    PYTHONPATH=.:/tmp/site python3 bench/gemm_hopper.py --decode --out decode.json
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(os.environ.get("TIRXC_GEMM_SAMPLE", ROOT / "samples" / "gemm_bf16_hopper.tx"))
SIZES = (1024, 2048, 4096, 6144, 8192)
CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, OP_N, OP_T = 14, 68, -1, 0, 1


def load_launcher(sample: Path = SAMPLE):
    """The generated launcher module of a sample (transpiled here, from the source tree)."""
    sys.path.insert(0, str(ROOT))
    from bench.gpu import use_source_checkout
    use_source_checkout()
    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile
    result = compile_source(SourceFile(sample.name, sample.read_text()), until="launcher",
                            launcher_name=sample.stem)
    if not result.ok:
        raise SystemExit("\n".join(d.message for d in result.diagnostics))
    path = Path(tempfile.mkdtemp()) / f"{sample.stem}_launcher.py"
    path.write_text(result.launcher)
    spec = importlib.util.spec_from_file_location(f"{sample.stem}_launcher", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def to_bf16_bits(np, x):
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(xp, bits):
    return (bits.astype(xp.uint32) << 16).view(xp.float32)


class Cublas:
    """cublasGemmEx through ctypes, on a handle of its own bound to the capturing stream: CuPy's
    binding refuses every cuBLAS call during a stream capture, which the timing needs."""

    def __init__(self, cupy, stream):
        import ctypes
        for name in ("libcublas.so.13", "libcublas.so.12", "libcublas.so"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            raise RuntimeError("libcublas not found")
        self.handle = ctypes.c_void_p()
        assert self.lib.cublasCreate_v2(ctypes.byref(self.handle)) == 0
        assert self.lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(stream.ptr)) == 0
        self.workspace = cupy.empty(64 << 20, cupy.uint8)  # so that no allocation happens while captured
        assert self.lib.cublasSetWorkspace_v2(self.handle, ctypes.c_void_p(self.workspace.data.ptr),
                                              ctypes.c_size_t(self.workspace.nbytes)) == 0
        self.one, self.zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def gemm(self, a, b, c, m, n, k):
        """C (M, N) = A (M, K) @ B (N, K)^T, row-major: column-major C^T = op_T(B') op_N(A')."""
        import ctypes
        p, i = ctypes.c_void_p, ctypes.c_int
        status = self.lib.cublasGemmEx(self.handle, i(OP_T), i(OP_N), i(n), i(m), i(k), ctypes.byref(self.one),
                                       p(b.data.ptr), i(CUDA_R_16BF), i(k), p(a.data.ptr), i(CUDA_R_16BF), i(k),
                                       ctypes.byref(self.zero), p(c.data.ptr), i(CUDA_R_16BF), i(n),
                                       i(CUBLAS_COMPUTE_32F), i(CUBLAS_GEMM_DEFAULT))
        if status != 0:
            raise RuntimeError(f"cublasGemmEx failed: status {status}")


def time_graph(cupy, stream, launch, reps: int, rounds: int) -> list[float]:
    """Milliseconds per launch, per round: `reps` launches captured once in a CUDA graph, replayed."""
    with stream:
        launch()  # first call: compiles, encodes the tensor maps, allocates cuBLAS's workspace
        stream.synchronize()
        stream.begin_capture()
        for _ in range(reps):
            launch()
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        out = []
        for _ in range(rounds):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            graph.launch(stream)
            end.record(stream)
            end.synchronize()
            out.append(cupy.cuda.get_elapsed_time(start, end) / reps)
    return out


def wide_enough(m: int, n: int, sms: int) -> bool:
    """Whether the 128 x 256 tiles keep most multiprocessors busy (else the 128 x 64 kernel runs)."""
    return (m // 128) * (n // 256) >= sms // 2


def run(sizes=SIZES, rounds: int = 7, sample: Path = SAMPLE, wide: str = "gemm_bf16_hopper",
        narrow: str | None = "gemm_bf16_hopper_narrow") -> dict:
    """The sample's kernels (`wide`, and `narrow` for sizes too small for the wide tiles) against
    cuBLAS at each size."""
    import cupy
    import numpy as np
    launcher = load_launcher(sample)
    module = argparse.Namespace(gemm_bf16_hopper=getattr(launcher, wide),
                                gemm_bf16_hopper_narrow=getattr(launcher, narrow or wide))
    stream = cupy.cuda.Stream(non_blocking=True)
    cublas = Cublas(cupy, stream)
    rng = np.random.default_rng(0)
    rows = []
    for size in sizes:
        m = n = k = size
        a = cupy.asarray(to_bf16_bits(np, rng.standard_normal((m, k), np.float32)))
        b = cupy.asarray(to_bf16_bits(np, rng.standard_normal((n, k), np.float32)))
        c_tirxc = cupy.zeros((m, n), cupy.uint16)
        c_cublas = cupy.zeros((m, n), cupy.uint16)
        cupy.cuda.Device().synchronize()  # the copies and fills ran on the legacy stream, which `stream` skips
        sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
        chosen = module.gemm_bf16_hopper if wide_enough(m, n, sms) else module.gemm_bf16_hopper_narrow
        with stream:
            chosen(a, b, c_tirxc)
            cublas.gemm(a, b, c_cublas, m, n, k)
        stream.synchronize()
        got, want = from_bf16_bits(cupy, c_tirxc), from_bf16_bits(cupy, c_cublas)
        scale = float(cupy.abs(want).max())
        error = float(cupy.abs(got - want).max()) / scale
        row = {"size": size, "max_rel_error_vs_cublas": round(error, 6)}
        # the narrow kernel must be right too: it is timed below
        c_other = cupy.zeros((m, n), cupy.uint16)
        cupy.cuda.Device().synchronize()
        other = module.gemm_bf16_hopper_narrow if chosen is module.gemm_bf16_hopper else module.gemm_bf16_hopper
        with stream:
            other(a, b, c_other)
        stream.synchronize()
        error = max(error, float(cupy.abs(from_bf16_bits(cupy, c_other) - want).max()) / scale)
        row["max_rel_error_vs_cublas"] = round(error, 6)
        if size == 1024:
            exact = from_bf16_bits(cupy, a) @ from_bf16_bits(cupy, b).T
            row["max_rel_error_vs_fp32"] = round(float(cupy.abs(got - exact).max()) / float(cupy.abs(exact).max()), 6)
        kernels = {"wide": module.gemm_bf16_hopper, "narrow": module.gemm_bf16_hopper_narrow}
        chosen = "wide" if wide_enough(m, n, sms) else "narrow"
        row["kernel"] = chosen
        reps = max(2, int(2e10 // (2 * size ** 3)) + 2)
        flops = 2.0 * m * n * k
        times = {name: [] for name in kernels}
        c_ms = []
        for _ in range(2):  # interleaved: each side twice, alternating
            for name, kernel in kernels.items():
                times[name] += time_graph(cupy, stream, lambda: kernel(a, b, c_tirxc), reps, rounds)
            c_ms += time_graph(cupy, stream, lambda: cublas.gemm(a, b, c_cublas, m, n, k), reps, rounds)
        c = statistics.median(c_ms)
        for name in kernels:
            row[f"{name}_tflops"] = round(flops / statistics.median(times[name]) / 1e9, 1)
        t = statistics.median(times[chosen])
        row.update(tirxc_ms=round(t, 5), cublas_ms=round(c, 5), tirxc_tflops=round(flops / t / 1e9, 1),
                   cublas_tflops=round(flops / c / 1e9, 1), ratio=round(c / t, 3), ok=error < 2e-2)
        rows.append(row)
        print(f"{size:5d}^3: tirxc {row['tirxc_tflops']:6.1f} TFLOP/s ({chosen}; wide {row['wide_tflops']}, narrow "
              f"{row['narrow_tflops']})  cuBLAS {row['cublas_tflops']:6.1f} TFLOP/s  {100 * row['ratio']:5.1f} %  "
              f"max rel error {error:.2e}", flush=True)
    return {"title": "BF16 GEMM C = A @ B^T (BF16 in and out, FP32 accumulation)", "sample": sample.name,
            "rows": rows}


DECODE_SAMPLE = ROOT / "samples" / "gemm_bf16_hopper_decode.tx"
DECODE_ROWS = (16, 64, 128, 256)
DECODE_WEIGHTS = ((4096, 4096), (8192, 8192), (16384, 16384), (14336, 4096), (4096, 14336))  # (N, K)
SPLITS = (1, 2, 4)
L2_FLUSH_BYTES = 160 << 20  # copies of B rotated through per timing: more than the 50 MB of L2, 3 times


def decode_width(m: int) -> int:
    """The decode kernel whose tile (MT rows of A) fits M: 16, 64, 128 or 256."""
    return 16 if m <= 16 else 64 if m <= 64 else 128 if m <= 128 else 256


# The parts of K per weight shape (N, K) and tile width, measured (H100, 2026-12-07 21:55 UTC, every
# split beside cuBLAS; docs/benchmarks.md). Split 4 loses to split 2 wherever both fill the GPU:
# 128 CTAs in 4-CTA clusters of 192-221 KB each seem not to fit one wave.
DECODE_SPLITS = {(4096, 4096): 2, (8192, 8192): 1, (14336, 4096): 1, (4096, 14336): 2,
                 (16384, 16384): {16: 4, 64: 4, 128: 2, 256: 2}}


def decode_split(m: int, n: int, sms: int, width: int | None = None, k: int | None = None) -> int:
    """The parts of K: the measured choice of DECODE_SPLITS for the shape, else 2 where the tiles
    (N / 128 x M / MT) fill at most a quarter of the multiprocessors, else 1."""
    width = width or decode_width(m)
    choice = DECODE_SPLITS.get((n, k))
    if choice is not None:
        return choice[width] if isinstance(choice, dict) else choice
    return 2 if (n // 128) * -(-m // width) * 4 <= sms else 1


def run_decode(rows=DECODE_ROWS, weights=DECODE_WEIGHTS, rounds: int = 7, sample: Path = DECODE_SAMPLE,
               width: int | None = None, splits=SPLITS) -> dict:
    """The decode kernel at each M x (N, K) (the one `width` names, else the one decode_width picks),
    every split of K, against cuBLAS."""
    import cupy
    import numpy as np
    launcher = load_launcher(sample)
    stream = cupy.cuda.Stream(non_blocking=True)
    cublas = Cublas(cupy, stream)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    rng = np.random.default_rng(0)
    out = []
    for n, k in weights:
        copies = max(1, -(-L2_FLUSH_BYTES // (n * k * 2)))
        bs = [cupy.asarray(to_bf16_bits(np, rng.standard_normal((n, k), np.float32))) for _ in range(copies)]
        for m in rows:
            tile = width or decode_width(m)
            kernel = getattr(launcher, f"gemm_bf16_decode_m{tile}")
            a = cupy.asarray(to_bf16_bits(np, rng.standard_normal((m, k), np.float32)))
            c_tirxc = cupy.zeros((m, n), cupy.uint16)
            c_cublas = cupy.zeros((m, n), cupy.uint16)
            cupy.cuda.Device().synchronize()
            with stream:
                cublas.gemm(a, bs[0], c_cublas, m, n, k)
            stream.synchronize()
            want = from_bf16_bits(cupy, c_cublas)
            scale = float(cupy.abs(want).max())
            row = {"m": m, "n": n, "k": k, "kernel": f"m{tile}", "b_copies": copies}
            errors = []
            for split in splits:
                c_tirxc.fill(0x7FC0)  # NaN until written
                cupy.cuda.Device().synchronize()
                with stream:
                    kernel(a, bs[0], c_tirxc, split)
                stream.synchronize()
                errors.append(float(cupy.nan_to_num(cupy.abs(from_bf16_bits(cupy, c_tirxc) - want), nan=1e30).max()) / scale)
            row["max_rel_error_vs_cublas"] = round(max(errors), 6)
            reps = max(2 * copies, int(1e10 // (2 * m * n * k + 1)) // copies * copies)
            flops = 2.0 * m * n * k
            turn = iter(range(1 << 30))

            def rotating(call):
                return lambda: call(bs[next(turn) % copies])
            times = {split: [] for split in splits}
            c_ms = []
            for _ in range(2):
                for split in splits:
                    times[split] += time_graph(cupy, stream, rotating(lambda b, s=split: kernel(a, b, c_tirxc, s)),
                                               reps, rounds)
                c_ms += time_graph(cupy, stream, rotating(lambda b: cublas.gemm(a, b, c_cublas, m, n, k)), reps, rounds)
            c = statistics.median(c_ms)
            for split in splits:
                row[f"split{split}_tflops"] = round(flops / statistics.median(times[split]) / 1e9, 1)
            chosen = decode_split(m, n, sms, tile, k)
            chosen = chosen if chosen in splits else max(splits)
            t = statistics.median(times[chosen])
            best = max(splits, key=lambda s: row[f"split{s}_tflops"])
            row.update(split=chosen, best_split=best, tirxc_ms=round(t, 5), cublas_ms=round(c, 5),
                       tirxc_tflops=round(flops / t / 1e9, 1), cublas_tflops=round(flops / c / 1e9, 1),
                       ratio=round(c / t, 3), gbps_tirxc=round((m * k + n * k + m * n) * 2 / t / 1e6, 1),
                       ok=max(errors) < 2e-2)
            out.append(row)
            print(f"M {m:4d} N {n:5d} K {k:5d} ({row['kernel']}): tirxc {row['tirxc_tflops']:6.1f} (split "
                  f"{chosen}; {'/'.join(map(str, splits))}: {'/'.join(str(row[f'split{s}_tflops']) for s in splits)})  "
                  f"cuBLAS {row['cublas_tflops']:6.1f}  {100 * row['ratio']:5.1f} %  {row['gbps_tirxc']} GB/s  "
                  f"err {max(errors):.1e}", flush=True)
        del bs
    result = {"title": "BF16 GEMM at decode shapes, C (M x N) = A (M x K) @ B (N x K)^T", "sample": sample.name}
    try:
        import torch
        from bench.attention import machine
        result.update(machine(torch))
    except ImportError:  # no torch: the GPU's name from CuPy
        result["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    result["rows"] = out
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="JSON results path")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sample", type=Path, help="the sample (default: the square one, or with --decode the decode one)")
    ap.add_argument("--wide", default="gemm_bf16_hopper", help="the kernel for sizes with enough wide tiles")
    ap.add_argument("--narrow", default="gemm_bf16_hopper_narrow", help="the kernel for the others ('none': the wide one)")
    ap.add_argument("--decode", action="store_true", help="the decode sample at the decode shapes")
    ap.add_argument("--rows", type=int, nargs="*", default=list(DECODE_ROWS), help="--decode: the values of M")
    ap.add_argument("--width", type=int, choices=(16, 64, 128, 256), help="--decode: this kernel at every M")
    ap.add_argument("--splits", type=int, nargs="*", default=list(SPLITS), help="--decode: the parts of K timed")
    ap.add_argument("--weights", nargs="*", default=[f"{n}x{k}" for n, k in DECODE_WEIGHTS],
                    help="--decode: the shapes N x K of B")
    args = ap.parse_args(argv)
    if args.decode:
        weights = tuple(tuple(int(v) for v in w.split("x")) for w in args.weights)
        result = run_decode(tuple(args.rows), weights, args.rounds, args.sample or DECODE_SAMPLE, args.width,
                            tuple(args.splits))
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
        return 0 if all(r["ok"] for r in result["rows"]) else 1
    result = run(tuple(args.sizes), args.rounds, args.sample or SAMPLE, args.wide, None if args.narrow == "none" else args.narrow)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if all(r["ok"] for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
