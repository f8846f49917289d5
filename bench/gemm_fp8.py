#!/usr/bin/env python3
"""The Hopper FP8 GEMM written in TIRx (samples/gemm_fp8_hopper.tx) against cuBLASLt's FP8
GEMM through torch._scaled_mm, side by side in one run: C = (A @ B^T) * scale_a * scale_b with
A (M, K) and B (N, K) in float8 e4m3, per-tensor float32 scales, float32 accumulation and a
bfloat16 C, at square sizes 4096 and 8192 (and 2048 for the curve).

Both sides run on one stream and are timed the same way: CUDA events around back-to-back
launches, interleaved rounds, the median. Correctness: tirxc's C against torch's, and against a
float32 product of the same (dequantized) FP8 inputs.

Run on the GPU machine from the repository root (lark from the carried wheel):

    PYTHONPATH=.:/tmp/site python3 bench/gemm_fp8.py --out gemm_fp8.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.attention import machine, time_events  # noqa: E402
from bench.gemm_hopper import load_launcher  # noqa: E402

SAMPLE = ROOT / "samples" / "gemm_fp8_hopper.tx"
SIZES = (2048, 4096, 8192)


def as_cupy(cupy, tensor, dtype):
    """A CuPy view of a contiguous torch tensor's memory as `dtype` (torch's array interface
    refuses float8 and bfloat16)."""
    nbytes = tensor.numel() * tensor.element_size()
    memory = cupy.cuda.UnownedMemory(tensor.data_ptr(), nbytes, tensor)
    return cupy.ndarray(tuple(tensor.shape), dtype, cupy.cuda.MemoryPointer(memory, 0))


def run(sizes=SIZES, rounds: int = 7, sample: Path = SAMPLE) -> dict:
    import cupy
    import torch

    launcher = load_launcher(sample)
    stream = torch.cuda.current_stream()
    cupy.cuda.ExternalStream(stream.cuda_stream).use()
    torch.manual_seed(0)
    rows = []
    for size in sizes:
        m = n = k = size
        a = (torch.randn(m, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        b = (torch.randn(n, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        sa = torch.tensor([0.5], device="cuda")
        sb = torch.tensor([0.25], device="cuda")
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        args = (as_cupy(cupy, a, cupy.uint8), as_cupy(cupy, b, cupy.uint8), as_cupy(cupy, c, cupy.uint16),
                as_cupy(cupy, sa, cupy.float32), as_cupy(cupy, sb, cupy.float32))
        mine = lambda: launcher.gemm_fp8_hopper(*args)  # noqa: E731
        theirs = lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)  # noqa: E731
        # use_fast_accum: cuBLASLt keeps every product in the wgmma accumulator, as the sample does,
        # instead of promoting partial sums to float32 now and then (torch's default, slower)
        fast = lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,  # noqa: E731
                                        use_fast_accum=True)
        mine()
        want = theirs()
        torch.cuda.synchronize()
        scale = float(want.float().abs().max())
        row = {"size": size, "max_rel_error_vs_cublaslt": round(float((c.float() - want.float()).abs().max()) / scale, 6)}
        exact = (a.float() @ b.float().t()) * 0.125
        row["max_rel_error_vs_fp32"] = round(float((c.float() - exact).abs().max()) / float(exact.abs().max()), 6)
        flops = 2.0 * m * n * k
        reps = max(5, int(2e13 // flops))
        times = {"tirxc": [], "cublaslt": [], "cublaslt_fast_accum": []}
        for _ in range(2):
            times["tirxc"] += time_events(torch, mine, reps, rounds)
            times["cublaslt"] += time_events(torch, theirs, reps, rounds)
            times["cublaslt_fast_accum"] += time_events(torch, fast, reps, rounds)
        for name, t in times.items():
            row[f"{name}_tflops"] = round(flops / statistics.median(t) / 1e9, 1)
        row["ratio"] = round(row["tirxc_tflops"] / row["cublaslt_tflops"], 3)
        row["ratio_vs_fast_accum"] = round(row["tirxc_tflops"] / row["cublaslt_fast_accum_tflops"], 3)
        row["ok"] = row["max_rel_error_vs_fp32"] < 1e-2
        rows.append(row)
        print(f"{size:5d}^3: tirxc {row['tirxc_tflops']:7.1f}  cuBLASLt {row['cublaslt_tflops']:7.1f} TFLOP/s "
              f"{100 * row['ratio']:5.1f} %  fast accum {row['cublaslt_fast_accum_tflops']:7.1f}  rel err vs cuBLASLt {row['max_rel_error_vs_cublaslt']:.2e} "
              f"vs fp32 {row['max_rel_error_vs_fp32']:.2e}", flush=True)
    return {"title": "FP8 GEMM C = (A @ B^T) * sa * sb (e4m3 in, FP32 accumulation, BF16 out)",
            "sample": sample.name, **machine(torch), "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="JSON results path")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sample", type=Path, default=SAMPLE)
    args = ap.parse_args(argv)
    result = run(tuple(args.sizes), args.rounds, args.sample)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if all(r["ok"] for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
