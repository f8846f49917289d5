#!/usr/bin/env python3
"""The transpiler on big kernels: CPU time against kernel size, on kernels of
N one-element views of one dynamic shared arena, each with a store (two
statements a view), the input whose transpile used to grow faster than its
size. Per size: the CPU of each stage in process (one run, the cyclic
collector paused as `tirxc` pauses it) and of a fresh `tirxc` process (median
of --runs). bench/transpile.py runs it as part of its scaling section and
writes the rows to bench/results/transpile.json ("views_growth");
docs/benchmarks.md has the numbers. tests/perf/test_growth.py counts the work
per stage on the same kernels, which does not depend on the machine's load.

Usage: python bench/growth.py [--views 1250 2500 ...] [--runs N]
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEWS = (1250, 2500, 5000, 10000, 20000)

sys.path.insert(0, str(ROOT))


def arena_views_source(views: int) -> str:
    lines = ["from tvm.script import tirx as T", "", "@T.prim_func", "def big(A_ptr: T.handle):",
             f"    A = T.match_buffer(A_ptr, ({views},), \"float32\")", "    T.device_entry()",
             "    bx = T.cta_id([1])", "    tx = T.thread_id([32])",
             f"    arena = T.alloc_buffer(({views},), \"float32\", scope=\"shared.dyn\")"]
    for i in range(views):
        lines.append(f"    v{i} = T.decl_buffer((1,), \"float32\", data=arena.data, elem_offset={i}, "
                     "scope=\"shared.dyn\")")
        lines.append(f"    v{i}[0] = A[{i}]")
    return "\n".join(lines) + "\n"


def stage_cpu(text: str) -> dict:
    """CPU milliseconds of each stage, one pipeline run in this process."""
    from transpiler.codegen.cuda import render_cuda
    from transpiler.diag.diagnostics import Diagnostics
    from transpiler.lower.lower import lower
    from transpiler.sema.check import check
    from transpiler.syntax.parse import parse
    from transpiler.syntax.source import SourceFile

    source, diags = SourceFile("views.tx", text), Diagnostics()
    clock = time.process_time
    gc.collect()
    gc.disable()
    try:
        marks = [clock()]
        module = parse(source, diags)
        marks.append(clock())
        checked = check(module, source, diags)
        marks.append(clock())
        program = lower(checked, diags)
        marks.append(clock())
        render_cuda(program)
        marks.append(clock())
    finally:
        gc.enable()
    if diags.has_errors:
        raise RuntimeError("the arena-views kernel did not transpile")
    row = {f"{stage}_ms": round((b - a) * 1000, 1)
           for stage, a, b in zip(("parse", "check", "lower", "emit"), marks, marks[1:])}
    row["cuda_ms"] = round((marks[-1] - marks[0]) * 1000, 1)
    return row


def process_cpu(path: Path, out: Path, env: dict) -> tuple[float, float, float]:
    """(CPU seconds, user + system, of one `tirxc` process, its peak RSS in MiB, its wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "transpiler", str(path), "-o", str(out)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"tirxc failed on {path.name}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall


def measure(sizes, out_dir: Path, runs: int = 3, env: dict | None = None) -> list[dict]:
    rows = []
    for views in sizes:
        text = arena_views_source(views)
        path = out_dir / f"views_{views}.tx"
        path.write_text(text, encoding="utf-8")
        row = {"views": views, "statements": 2 * views, **stage_cpu(text)}
        procs = [process_cpu(path, out_dir / f"views_{views}.cu", env or dict(os.environ)) for _ in range(runs)]
        row["process_ms"] = round(statistics.median(cpu for cpu, _, _ in procs) * 1000, 1)
        row["process_wall_ms"] = round(statistics.median(wall for _, _, wall in procs) * 1000, 1)
        row["process_maxrss_mb"] = round(max(rss for _, rss, _ in procs), 1)
        rows.append(row)
        print(f"  {views:6d} views: in-process {row['cuda_ms']:.0f} ms, process {row['process_ms']:.0f} ms "
              f"(wall {row['process_wall_ms']:.0f} ms)", flush=True)
    return rows


def table(rows: list[dict]) -> str:
    out = ["| views | parse | check | lower | emit | in-process total | process CPU | process wall | "
           "process per view |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        wall = f"{r['process_wall_ms']:.0f}" if "process_wall_ms" in r else "—"
        out.append(f"| {r['views']:,} | {r['parse_ms']:.0f} | {r['check_ms']:.0f} | {r['lower_ms']:.0f} | "
                   f"{r['emit_ms']:.0f} | {r['cuda_ms']:.0f} | {r['process_ms']:.0f} | {wall} | "
                   f"{r['process_ms'] / r['views'] * 1000:.0f} µs |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--views", nargs="*", type=int, default=list(VIEWS), help="arena-view counts")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per size (default 3)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tirxc-growth-") as work:
        rows = measure(args.views, Path(work), args.runs)
    print("\n(CPU ms; a view is 2 statements)\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
