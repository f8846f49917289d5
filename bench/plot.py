"""Plots of bench/results/transpile.json, drawn with matplotlib in the bench's
own venv (bench/.venv-ref; matplotlib is no dependency of tirxc):

    bench/.venv-ref/bin/python bench/plot.py bench/results/transpile.json docs/img

writes docs/img/transpile_ratio.png (process-to-process time of both tools
and the ratio per sample) and docs/img/transpile_scaling.png (time and peak
memory against kernel size).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GOAL_RATIO = 6.0
GOAL_SCALING_S = 2.0


def plot_ratio(results: dict, out: Path) -> None:
    rows = [r for r in results["process"] if "tirxc_ms" in r]
    names = [r["sample"] for r in rows]
    ours = [r["tirxc_ms"]["median"] for r in rows]
    theirs = [r.get("reference_ms", {}).get("median", 0.0) for r in rows]
    ratios = [r.get("ratio", 0.0) for r in rows]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x = range(len(names))
    width = 0.4
    ax1.bar([i - width / 2 for i in x], ours, width, label="tirxc (python -m transpiler)", color="#1f77b4")
    ax1.bar([i + width / 2 for i in x], theirs, width, label="reference (apache-tvm-tirx 0.1.0a4)", color="#ff7f0e")
    ax1.set_ylabel("ms per process (median)")
    ax1.set_title(f"Source file to CUDA text, fresh process each run ({results['meta'].get('runs', '?')} runs, "
                  f"{results['meta'].get('cpu', '')})", fontsize=9)
    ax1.legend(fontsize=8)
    ax1.grid(axis="y", alpha=0.3)
    ax2.bar(list(x), ratios, 0.6, color=["#2ca02c" if r >= GOAL_RATIO else "#d62728" for r in ratios])
    ax2.axhline(GOAL_RATIO, color="black", linestyle="--", linewidth=1, label=f"goal {GOAL_RATIO:g}x")
    ax2.set_ylabel("reference / tirxc")
    ax2.legend(fontsize=8)
    ax2.grid(axis="y", alpha=0.3)
    ax2.set_xticks(list(x))
    ax2.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_scaling(results: dict, out: Path) -> None:
    rows = [r for r in results["scaling"] if "error" not in r["tirxc"]]
    sizes = [r["statements"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    ax1.loglog(sizes, [r["tirxc"]["cuda_ms"] / 1000 for r in rows], "o-", label="tirxc in process (parse..emit)")
    ax1.loglog(sizes, [r["tirxc"]["process_ms"] / 1000 for r in rows], "s-", label="tirxc process (CLI)")
    ref = [(r["statements"], r["reference"]["process_ms"] / 1000) for r in results["scaling"]
           if "process_ms" in r.get("reference", {})]
    if ref:
        ax1.loglog([s for s, _ in ref], [t for _, t in ref], "^-", label="reference process")
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


def main() -> None:
    results = json.loads(Path(sys.argv[1]).read_text())
    out_dir = Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_ratio(results, out_dir / "transpile_ratio.png")
    plot_scaling(results, out_dir / "transpile_scaling.png")
    print(f"[bench] wrote {out_dir / 'transpile_ratio.png'} and {out_dir / 'transpile_scaling.png'}")


if __name__ == "__main__":
    main()
