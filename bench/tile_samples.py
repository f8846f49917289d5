#!/usr/bin/env python3
"""The samples written with tile primitives (`Tx.*`), measured side by side with what bounds them
in one run: the row softmax and the RMSNorm against the device-to-device copy of the same bytes
(one read and one write of the matrix: the least either can move), and the tile-primitive BF16
GEMM against cuBLAS (through bench/gemm_hopper.py).

Timing as bench/gemm_hopper.py does it: CUDA-graph replay of back-to-back launches, interleaved
rounds, the median. Each kernel's result is checked against NumPy first.

Run on the GPU machine from the repository root (lark from the carried wheel):

    PYTHONPATH=.:/tmp/site python3 bench/tile_samples.py --out bench/results/tile_samples.json

bench/gpu.py runs it as its `tile` part.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gemm_hopper import load_launcher, time_graph  # noqa: E402

ROWS, COLS = 4096, 4096  # the samples' shape: 64 MiB of float32 in and 64 MiB out, beyond the 60 MiB L2


def _softmax(np, x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _rmsnorm(np, x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


# sample -> (kernel, inputs(np, rng, rows, cols) -> launcher arguments, output index, reference)
ROW_SAMPLES = {
    "softmax_tx.tx": ("softmax_tx",
                      lambda np, rng, r, c: [rng.standard_normal((r, c), np.float32), np.zeros((r, c), np.float32)],
                      1, lambda np, args: _softmax(np, args[0])),
    "rmsnorm_tx.tx": ("rmsnorm_tx",
                      lambda np, rng, r, c: [rng.standard_normal((r, c), np.float32),
                                             rng.standard_normal((c,), np.float32), np.zeros((r, c), np.float32)],
                      2, lambda np, args: _rmsnorm(np, args[0], args[1])),
}


def run_rows(rows: int = ROWS, cols: int = COLS, rounds: int = 7, samples=tuple(ROW_SAMPLES)) -> dict:
    import cupy
    import numpy as np
    stream = cupy.cuda.Stream(non_blocking=True)
    rng = np.random.default_rng(0)
    out = []
    for name in samples:
        kernel_name, make, index, reference = ROW_SAMPLES[name]
        row = {"sample": name, "kernel": kernel_name, "rows": rows, "cols": cols}
        try:
            kernel = getattr(load_launcher(ROOT / "samples" / name), kernel_name)
            host = make(np, rng, rows, cols)
            dev = [cupy.asarray(a) for a in host]
            cupy.cuda.Device().synchronize()
            with stream:
                kernel(*dev)
            stream.synchronize()
            want = reference(np, host)
            got = cupy.asnumpy(dev[index])
            error = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
            src, dst = dev[0], cupy.empty_like(dev[0])
            kind = cupy.cuda.runtime.memcpyDeviceToDevice
            copy = lambda: cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes, kind,  # noqa: E731
                                                          stream.ptr)
            moved = 2 * src.nbytes  # what the copy reads and writes; the kernels move at least that
            reps = 20
            k_ms, c_ms = [], []
            for _ in range(2):
                k_ms += time_graph(cupy, stream, lambda: kernel(*dev), reps, rounds)
                c_ms += time_graph(cupy, stream, copy, reps, rounds)
            k, c = statistics.median(k_ms), statistics.median(c_ms)
            row.update(max_rel_error=round(error, 7), ok=error < 1e-4, kernel_ms=round(k, 5), copy_ms=round(c, 5),
                       kernel_gbps=round(moved / k / 1e6, 1), copy_gbps=round(moved / c / 1e6, 1),
                       ratio=round(c / k, 3))
            print(f"{name}: {row['kernel_gbps']} GB/s, device-to-device copy {row['copy_gbps']} GB/s, "
                  f"{100 * row['ratio']:.1f} %, max rel error {error:.1e}", flush=True)
        except Exception as err:  # one sample's failure leaves the others measured
            row.update(ok=False, error=f"{type(err).__name__}: {err}")
            print(f"{name}: {row['error']}", flush=True)
        out.append(row)
    return {"title": "Row kernels written with tile primitives against the device-to-device copy", "rows": out}


def run(rounds: int = 7, gemm_sizes=(1024, 2048, 4096, 8192)) -> dict:
    from bench.gemm_hopper import run as run_gemm
    result = {"rows": run_rows(rounds=rounds)}
    try:
        result["gemm"] = run_gemm(gemm_sizes, rounds=5, sample=ROOT / "samples" / "gemm_tx_hopper.tx",
                                  wide="gemm_bf16_hopper", narrow="gemm_bf16_hopper_narrow")
    except Exception as err:
        result["gemm"] = {"error": f"{type(err).__name__}: {err}"}
        print(f"gemm_tx_hopper: {result['gemm']['error']}", flush=True)
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="JSON results path")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    result = run(args.rounds)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
