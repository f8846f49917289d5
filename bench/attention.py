#!/usr/bin/env python3
"""Forward attention written in TIRx (samples/attention_hopper.tx) against torch's scaled dot
product attention, side by side in one run: O = softmax(Q K^T / sqrt(D)) V, bfloat16 in and
out, head dimensions 64 and 128, causal and not, at sequence lengths from 1k to 16k with
batch x sequence fixed at 16k tokens and heads x D at 2048 (FlashAttention-3's benchmark grid).

torch's cuDNN and flash backends are each timed (`torch.nn.attention.sdpa_kernel`); all three
sides run on one stream and are timed the same way: CUDA events around back-to-back launches,
interleaved rounds, the median. Correctness: each configuration against a float32 reference
(softmax of the float32 product of the same bfloat16 inputs) on the first heads of the batch,
beside that reference's own rounding to bfloat16 (the floor of any bfloat16 output) and SDPA's
error against it, and against torch's SDPA on all of it.

Run on the GPU machine from the repository root (lark from the carried wheel):

    PYTHONPATH=.:/tmp/site python3 bench/attention.py --out attention.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.gemm_hopper import load_launcher  # noqa: E402

SAMPLE = ROOT / "samples" / "attention_hopper.tx"
SEQS = (1024, 2048, 4096, 8192, 16384)
TOKENS = 16384
HIDDEN = 2048


def as_cupy(cupy, tensor):
    """A CuPy uint16 view of a contiguous bfloat16 torch tensor (the launcher takes uint16 bit
    patterns for a bfloat16 buffer; torch's array interface refuses bfloat16)."""
    memory = cupy.cuda.UnownedMemory(tensor.data_ptr(), tensor.numel() * 2, tensor)
    return cupy.ndarray(tuple(tensor.shape), cupy.uint16, cupy.cuda.MemoryPointer(memory, 0))


def machine(torch) -> dict:
    """The GPU, driver, CUDA and torch versions of the run, and its date (UTC)."""
    import datetime
    import subprocess
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip()
    return {"gpu": torch.cuda.get_device_name(), "driver": driver, "cuda": torch.version.cuda,
            "torch": torch.__version__, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def reference(torch, q, k, v, causal: bool):
    """float32 attention of (heads, S, D) bfloat16 inputs."""
    q, k, v = (x.float() for x in (q, k, v))
    s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


def time_events(torch, launch, reps: int, rounds: int) -> list[float]:
    """Milliseconds per launch, per round, over `reps` back-to-back launches."""
    launch()
    torch.cuda.synchronize()
    out = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            launch()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / reps)
    return out


def run(seqs=SEQS, dims=(64, 128), rounds: int = 5, sample: Path = SAMPLE) -> dict:
    import cupy
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F

    launcher = load_launcher(sample)
    stream = torch.cuda.current_stream()
    cupy.cuda.ExternalStream(stream.cuda_stream).use()  # the launcher launches on CuPy's current stream
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
    torch.manual_seed(0)
    rows = []
    for d in dims:
        kernel = getattr(launcher, f"attention_d{d}")
        heads = HIDDEN // d
        for seq in seqs:
            batch = max(1, TOKENS // seq)
            # torch's SDPA takes (batch, heads, S, D); the kernel the same memory as (batch * heads, S, D)
            q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            views = [as_cupy(cupy, x.view(batch * heads, seq, d)) for x in (q, k, v, o)]
            for causal in (False, True):
                launch = lambda: kernel(*views, int(causal))  # noqa: E731
                launch()
                torch.cuda.synchronize()
                row = {"d": d, "seq": seq, "batch": batch, "heads": heads, "causal": causal}
                want = reference(torch, q[0, :4], k[0, :4], v[0, :4], causal)
                row["max_abs_error_vs_fp32"] = round(float((o[0, :4].float() - want).abs().max()), 5)
                # the floor any bfloat16 output has: the reference itself rounded to bfloat16. Causal
                # rows near the start average few values of V, so their outputs are large (|O| ~ 2-4,
                # half an ulp ~ 0.008) where full rows average thousands (|O| ~ 0.05)
                row["bf16_rounding_floor"] = round(float((want.bfloat16().float() - want).abs().max()), 5)
                sdpa = {}
                for name, backend in backends.items():
                    try:
                        with sdpa_kernel([backend]):
                            sdpa[name] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    except RuntimeError as err:
                        row[f"{name}_error"] = str(err).splitlines()[0][:200]
                if sdpa:
                    first = next(iter(sdpa.values()))
                    row["max_abs_error_vs_sdpa"] = round(float((o.float() - first.float()).abs().max()), 5)
                    row["sdpa_max_abs_error_vs_fp32"] = round(
                        float((first[0, :4].float() - want).abs().max()), 5)
                flops = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
                reps = max(3, int(4e12 // flops))
                times = {"tirxc": []} | {name: [] for name in sdpa}
                for _ in range(2):  # interleaved: each side twice, alternating
                    times["tirxc"] += time_events(torch, launch, reps, rounds)
                    for name in sdpa:
                        def call(backend=backends[name]):
                            with sdpa_kernel([backend]):
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        times[name] += time_events(torch, call, reps, rounds)
                for name, t in times.items():
                    row[f"{name}_tflops"] = round(flops / statistics.median(t) / 1e9, 1)
                best = max((row[f"{n}_tflops"] for n in sdpa), default=None)
                row["ratio_vs_best"] = round(row["tirxc_tflops"] / best, 3) if best else None
                row["ok"] = row["max_abs_error_vs_fp32"] < 2e-2
                rows.append(row)
                print(f"d={d:3d} S={seq:5d} B={batch:2d} H={heads:2d} {'causal' if causal else 'full  '}: "
                      f"tirxc {row['tirxc_tflops']:6.1f}  " +
                      "  ".join(f"{n} {row[f'{n}_tflops']:6.1f}" for n in sdpa) +
                      f"  TFLOP/s  ratio {row['ratio_vs_best']}  err fp32 {row['max_abs_error_vs_fp32']}"
                      f" sdpa {row.get('max_abs_error_vs_sdpa')}", flush=True)
            del q, k, v, o, views
    return {"title": "Forward attention, BF16 in and out (FP32 softmax statistics)", "sample": sample.name,
            "tokens": TOKENS, "hidden": HIDDEN, **machine(torch), "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="JSON results path")
    ap.add_argument("--seqs", type=int, nargs="*", default=list(SEQS))
    ap.add_argument("--dims", type=int, nargs="*", default=[64, 128])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sample", type=Path, default=SAMPLE)
    args = ap.parse_args(argv)
    result = run(tuple(args.seqs), tuple(args.dims), args.rounds, args.sample)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if all(r["ok"] for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
