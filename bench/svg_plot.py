"""Line charts as plain SVG text, for bench/plot.py: TFLOP/s of the attention and FP8 GEMM
samples against their anchors over the sizes of a run. No plotting library: the text is
deterministic, reviewable in a diff, and any Python writes it."""
from __future__ import annotations

from pathlib import Path

W, H = 760, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 220, 40, 56
COLORS = ("#1f77b4", "#222222", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def line_chart(title: str, xlabels: list[str], series: list[tuple[str, list[float | None], str]],
               ylabel: str = "TFLOP/s", note: str = "") -> str:
    """One chart: x at evenly spaced categories, each series (name, values, dash) a polyline."""
    values = [v for _, vs, _ in series for v in vs if v is not None]
    top = max(values, default=1.0) * 1.1
    step = next(s for s in (25, 50, 100, 200, 250, 500, 1000, 2000) if top / s <= 8)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    n = len(xlabels)
    px = lambda i: LEFT + (pw * (i + 0.5) / n)  # noqa: E731
    py = lambda v: TOP + ph * (1 - v / top)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2:.0f}" y="20" text-anchor="middle" font-size="13">{title}</text>']
    tick = 0
    while tick <= top:
        y = py(tick)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
        tick += step
    for i, label in enumerate(xlabels):
        out.append(f'<text x="{px(i):.1f}" y="{TOP + ph + 16}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{LEFT + pw / 2:.0f}" y="{H - 12}" text-anchor="middle">{note}</text>')
    out.append(f'<text x="16" y="{TOP + ph / 2:.0f}" transform="rotate(-90 16 {TOP + ph / 2:.0f})" '
               f'text-anchor="middle">{ylabel}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    for k, (name, vs, dash) in enumerate(series):
        color = COLORS[k % len(COLORS)]
        points = [(px(i), py(v)) for i, v in enumerate(vs) if v is not None]
        style = f'stroke="{color}" stroke-width="2" fill="none"' + (f' stroke-dasharray="{dash}"' if dash else "")
        out.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in points)}" {style}/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in points]
        ly = TOP + 14 + 18 * k
        out.append(f'<line x1="{LEFT + pw + 10}" y1="{ly - 4}" x2="{LEFT + pw + 34}" y2="{ly - 4}" {style}/>')
        out.append(f'<text x="{LEFT + pw + 40}" y="{ly}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def plot_attention(results: dict, out_dir: Path, stem: str = "attention") -> list[Path]:
    """One chart per head dimension, `<stem>_d<D>.svg`: the sample and torch's cuDNN and flash
    SDPA backends, causal and not, over the sequence lengths."""
    written = []
    gpu = results.get("gpu", "")
    sample = results.get("sample", "tirxc")
    for d in sorted({r["d"] for r in results["rows"]}):
        rows = [r for r in results["rows"] if r["d"] == d]
        seqs = sorted({r["seq"] for r in rows})
        series = []
        for causal, dash in ((False, ""), (True, "5,3")):
            pick = {r["seq"]: r for r in rows if r["causal"] == causal}
            kind = "causal" if causal else "full"
            for side, name in (("tirxc", "tirxc"), ("cudnn", "SDPA cuDNN"), ("flash", "SDPA flash")):
                series.append((f"{name}, {kind}", [pick[s].get(f"{side}_tflops") if s in pick else None
                                                   for s in seqs], dash))
        order = [0, 3, 1, 4, 2, 5]  # the sample's two lines first, then each anchor's
        full = {r["seq"]: r for r in rows if not r["causal"]}
        goal = ("80 % of the fastest, full", [0.8 * max(full[s].get("cudnn_tflops") or 0, full[s].get("flash_tflops") or 0)
                                              if s in full else None for s in seqs], "2,3")
        svg = line_chart(f"Forward attention, BF16, head dim {d}: {sample} ({gpu})",
                         [f"{s // 1024}k" for s in seqs], [series[i] for i in order] + [goal],
                         note=f"sequence length (batch x sequence = {results.get('tokens', '?')} tokens, "
                              f"heads x D = {results.get('hidden', '?')})")
        path = out_dir / f"{stem}_d{d}.svg"
        path.write_text(svg)
        written.append(path)
    return written


def plot_fp8(results: dict, out_dir: Path) -> list[Path]:
    rows = results["rows"]
    series = [("gemm_fp8_hopper.tx", [r["tirxc_tflops"] for r in rows], ""),
              ("cuBLASLt (torch._scaled_mm)", [r["cublaslt_tflops"] for r in rows], ""),
              ("cuBLASLt, use_fast_accum", [r.get("cublaslt_fast_accum_tflops") for r in rows], "5,3"),
              ("80 % of cuBLASLt", [0.8 * r["cublaslt_tflops"] for r in rows], "2,3")]
    svg = line_chart(f"FP8 e4m3 GEMM, FP32 accumulation, BF16 out ({results.get('gpu', '')})",
                     [f"{r['size']}³" for r in rows], [s for s in series if any(v is not None for v in s[1])],
                     note="M = N = K")
    path = out_dir / "gemm_fp8.svg"
    path.write_text(svg)
    return [path]


def plot_bf16_persistent(results: dict, out_dir: Path) -> list[Path]:
    """bench/results/gemm_bf16_persistent.json: both BF16 samples and cuBLAS over the sizes."""
    rows = results["rows"]
    series = [("gemm_bf16_hopper_persistent.tx", [r["persistent_tflops"] for r in rows], ""),
              ("gemm_bf16_hopper.tx", [r["sample_tflops"] for r in rows], "5,3"),
              ("cuBLAS BF16", [r["cublas_tflops"] for r in rows], ""),
              ("90 % of cuBLAS", [0.9 * r["cublas_tflops"] for r in rows], "2,3")]
    svg = line_chart(f"BF16 GEMM, FP32 accumulation ({results.get('gpu', '')})",
                     [f"{r['size']}³" for r in rows], series, note="M = N = K")
    path = out_dir / "gemm_bf16_persistent.svg"
    path.write_text(svg)
    return [path]


def plot_bf16_decode(results: dict, out_dir: Path) -> list[Path]:
    """bench/gemm_hopper.py --decode: the decode sample and cuBLAS over the weight shapes, one line
    per M (gemm_bf16_decode.svg), and the sample's share of cuBLAS (gemm_bf16_decode_ratio.svg)."""
    rows = results["rows"]
    shapes = list(dict.fromkeys((r["n"], r["k"]) for r in rows))
    ms = sorted({r["m"] for r in rows})
    pick = {(r["m"], r["n"], r["k"]): r for r in rows}
    labels = [f"{n // 1024}k x {k // 1024}k" for n, k in shapes]

    def line(m, key, scale=1.0):
        return [pick[(m, n, k)][key] * scale if (m, n, k) in pick else None for n, k in shapes]
    gpu = results.get("gpu", "")
    tflops = [(f"tirxc, M = {m}", line(m, "tirxc_tflops"), "") for m in ms]
    tflops += [(f"cuBLAS, M = {m}", line(m, "cublas_tflops"), "5,3") for m in ms]
    ratio = [(f"M = {m}", line(m, "ratio", 100.0), "") for m in ms]
    ratio.append(("goal: 80 %", [80.0] * len(shapes), "2,3"))
    written = []
    for name, series, ylabel in (("gemm_bf16_decode", tflops, "TFLOP/s"),
                                 ("gemm_bf16_decode_ratio", ratio, "% of cuBLAS")):
        svg = line_chart(f"BF16 GEMM at decode shapes, M x N x K ({gpu})", labels, series, ylabel=ylabel,
                         note="N x K of the weights B")
        path = out_dir / f"{name}.svg"
        path.write_text(svg)
        written.append(path)
    return written
