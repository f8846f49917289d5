"""Plots of bench/results/transpile.json, drawn with matplotlib in the bench's
own venv (bench/.venv-ref; matplotlib is no dependency of tirxc):

    bench/.venv-ref/bin/python bench/plot.py bench/results/transpile.json docs/img

writes docs/img/transpile_ratio.png (process-to-process time of both tools
and the ratio per sample) and docs/img/transpile_scaling.png (time and peak
memory against kernel size). Given bench/results/gemm_hopper.json (bench/gemm_hopper.py),
it writes docs/img/gemm_hopper.png instead. Given bench/results/attention.json
(bench/attention.py; any <name>.json of its rows) or bench/results/gemm_fp8.json (bench/gemm_fp8.py),
it writes docs/img/<name>_d64.svg and <name>_d128.svg, or docs/img/gemm_fp8.svg; given
bench/results/gemm_bf16_persistent.json, docs/img/gemm_bf16_persistent.svg (gemm_bf16_tma_epilogue.json:
docs/img/gemm_bf16_tma_epilogue.svg); given
bench/results/gemm_bf16_decode.json (bench/gemm_hopper.py --decode), docs/img/gemm_bf16_decode.svg
and gemm_bf16_decode_ratio.svg: those are drawn
as plain SVG text (bench/svg_plot.py), so any Python draws them, matplotlib or not.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt

GOAL_RATIO = 6.0
GOAL_SCALING_S = 2.0


def plot_ratio(results: dict, out: Path) -> None:
    plt = _pyplot()
    rows = [r for r in results["process"] if "tirxc" in r]
    names = [r["sample"] for r in rows]
    med = lambda r, tool, kind: r.get(tool, {}).get(f"{kind}_ms", {}).get("median", 0.0)  # noqa: E731
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x = list(range(len(names)))
    width = 0.2
    ax1.bar([i - 1.5 * width for i in x], [med(r, "tirxc", "wall") for r in rows], width, color="#1f77b4",
            label="tirxc wall")
    ax1.bar([i - 0.5 * width for i in x], [med(r, "tirxc", "cpu") for r in rows], width, color="#aec7e8",
            label="tirxc CPU")
    ax1.bar([i + 0.5 * width for i in x], [med(r, "reference", "wall") for r in rows], width, color="#ff7f0e",
            label="reference wall")
    ax1.bar([i + 1.5 * width for i in x], [med(r, "reference", "cpu") for r in rows], width, color="#ffbb78",
            label="reference CPU")
    meta = results["meta"]
    ax1.set_ylabel("ms per process (median)")
    ax1.set_title(f"Source file to CUDA text, a fresh process per run ({meta.get('runs', '?')} runs each, "
                  f"{meta.get('cpu', '')}, load {meta.get('loadavg_at_start', ['?'])[0]})", fontsize=9)
    ax1.legend(fontsize=8, ncol=2)
    ax1.grid(axis="y", alpha=0.3)
    ratios_cpu = [r.get("ratio_cpu", 0.0) for r in rows]
    ratios_wall = [r.get("ratio_wall", 0.0) for r in rows]
    ax2.bar([i - 0.2 for i in x], ratios_cpu, 0.4, label="reference / tirxc, CPU time",
            color=["#2ca02c" if v >= GOAL_RATIO else "#d62728" for v in ratios_cpu])
    ax2.bar([i + 0.2 for i in x], ratios_wall, 0.4, label="reference / tirxc, wall time", color="#7f7f7f")
    ax2.axhline(GOAL_RATIO, color="black", linestyle="--", linewidth=1, label=f"goal {GOAL_RATIO:g}x")
    ax2.axhline(1.0, color="gray", linestyle=":", linewidth=1)
    ax2.set_ylabel("reference / tirxc")
    ax2.legend(fontsize=8)
    ax2.grid(axis="y", alpha=0.3)
    ax2.set_xticks(x)
    ax2.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_scaling(results: dict, out: Path) -> None:
    plt = _pyplot()
    rows = [r for r in results["scaling"] if "error" not in r["tirxc"]]
    sizes = [r["statements"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    ax1.loglog(sizes, [r["tirxc"]["cuda_ms"] / 1000 for r in rows], "o-", label="tirxc in process, parse..emit (CPU)")
    ax1.loglog(sizes, [r["tirxc"]["process_ms"] / 1000 for r in rows], "s-", label="tirxc process (CPU)")
    ax1.loglog(sizes, [r["tirxc"]["process_wall_ms"] / 1000 for r in rows], "s:", label="tirxc process (wall)")
    ref = [(r["statements"], r["reference"]["process_ms"] / 1000) for r in results["scaling"]
           if "process_ms" in r.get("reference", {})]
    if ref:
        ax1.loglog([s for s, _ in ref], [t for _, t in ref], "^-", label="reference process (CPU)")
    if sizes:
        base_s, base_t = sizes[0], rows[0]["tirxc"]["cuda_ms"] / 1000
        ax1.loglog(sizes, [base_t * s / base_s for s in sizes], ":", color="gray", label="linear from 100")
    ax1.axhline(GOAL_SCALING_S, color="black", linestyle="--", linewidth=1, label=f"goal {GOAL_SCALING_S:g} s")
    ax1.set_xlabel("statements in the kernel")
    ax1.set_ylabel("seconds")
    ax1.set_title("Transpile time against kernel size", fontsize=9)
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3, which="both")
    ax2.loglog(sizes, [r["tirxc"]["tracemalloc_peak_mb"] for r in rows], "o-", label="tirxc tracemalloc peak")
    ax2.loglog(sizes, [r["tirxc"]["process_maxrss_mb"] for r in rows], "s-", label="tirxc process peak RSS")
    ref_mem = [(r["statements"], r["reference"]["process_maxrss_mb"]) for r in results["scaling"]
               if "process_maxrss_mb" in r.get("reference", {})]
    if ref_mem:
        ax2.loglog([s for s, _ in ref_mem], [m for _, m in ref_mem], "^-", label="reference process peak RSS")
    ax2.set_xlabel("statements in the kernel")
    ax2.set_ylabel("MB")
    ax2.set_title("Peak memory against kernel size", fontsize=9)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_gemm(results: dict, out: Path) -> None:
    """TFLOP/s against the problem size: the TIRx GEMM (the kernel the size picks, and both
    kernels) and cuBLAS, from bench/gemm_hopper.py's results."""
    plt = _pyplot()
    rows = results["rows"]
    sizes = [r["size"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(sizes, [r["cublas_tflops"] for r in rows], "o-", color="black", label="cuBLAS (cublasGemmEx, BF16)")
    ax.plot(sizes, [r["tirxc_tflops"] for r in rows], "s-", color="tab:blue", linewidth=2,
            label="gemm_bf16_hopper.tx (kernel picked by size)")
    ax.plot(sizes, [r["wide_tflops"] for r in rows], ":", color="tab:blue", label="128 x 256 tiles")
    ax.plot(sizes, [r["narrow_tflops"] for r in rows], "--", color="tab:cyan", label="128 x 64 tiles")
    ax.plot(sizes, [0.7 * r["cublas_tflops"] for r in rows], color="tab:red", linewidth=0.8, alpha=0.6,
            label="70 % of cuBLAS")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [f"{s}³" for s in sizes])
    ax.set_ylabel("TFLOP/s")
    ax.set_ylim(0, None)
    ax.set_title("BF16 GEMM C = A @ B^T on an H200 (FP32 accumulation)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "gemm_hopper.png", dpi=110)
    plt.close(fig)


def main() -> None:
    results = json.loads(Path(sys.argv[1]).read_text())
    out_dir = Path(sys.argv[2])
    rows = results.get("rows") or [{}]
    if "split1_tflops" in rows[0]:  # bench/gemm_hopper.py --decode
        from bench.svg_plot import plot_bf16_decode
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"[bench] wrote {', '.join(str(w) for w in plot_bf16_decode(results, out_dir))}")
        return
    if "pers_tma" in results:  # bench/results/gemm_bf16_tma_epilogue.json: both epilogues and cuBLAS
        from bench.svg_plot import line_chart
        tma, regs = results["pers_tma"], results["pers_g8"]
        series = [("TMA-store epilogue", [r["tirxc_tflops"] for r in tma], ""),
                  ("register epilogue", [r["tirxc_tflops"] for r in regs], "5,3"),
                  ("cuBLAS BF16", [r["cublas_tflops"] for r in tma], ""),
                  ("90 % of cuBLAS", [0.9 * r["cublas_tflops"] for r in tma], "2,3")]
        path = out_dir / "gemm_bf16_tma_epilogue.svg"
        out_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(line_chart(f"gemm_bf16_hopper_persistent.tx, BF16 ({results['gpu']})",
                                   [f"{r['size']}³" for r in tma], series, note="M = N = K"))
        print(f"[bench] wrote {path}")
        return
    if "persistent_tflops" in rows[0]:  # bench/results/gemm_bf16_persistent.json
        from bench.svg_plot import plot_bf16_persistent
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"[bench] wrote {', '.join(str(w) for w in plot_bf16_persistent(results, out_dir))}")
        return
    if "seq" in rows[0] or "cublaslt_tflops" in rows[0]:  # bench/attention.py's or bench/gemm_fp8.py's
        from bench.svg_plot import plot_attention, plot_fp8
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = Path(sys.argv[1]).stem
        written = plot_attention(results, out_dir, stem) if "seq" in rows[0] else plot_fp8(results, out_dir)
        print(f"[bench] wrote {', '.join(str(w) for w in written)}")
        return
    if "rows" in results:  # bench/gemm_hopper.py's results
        plot_gemm(results, out_dir)
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_ratio(results, out_dir / "transpile_ratio.png")
    plot_scaling(results, out_dir / "transpile_scaling.png")
    print(f"[bench] wrote {out_dir / 'transpile_ratio.png'} and {out_dir / 'transpile_scaling.png'}")


if __name__ == "__main__":
    main()
