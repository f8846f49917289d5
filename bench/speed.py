#!/usr/bin/env python3
"""The transpiler on big kernels, in one run (docs/benchmarks.md, section 1): every sample's time
per `tirxc` process, interpreter start and imports included (`tirxc samples/X.tx -o X.cu`: wall,
median of --runs fresh processes after one warm-up, with its CPU), and the growth curve on arena
views (bench/growth.py) at 5,000, 10,000 and 20,000 views. The goals: every sample under 300 ms
of wall time per process, 20,000 views under 3 s. Wall time counts only on an idle machine: the
load average is printed before and after.

`python bench/transpile.py --speed` runs it (the editable tree, bytecode cached as an install
caches it); so does `python bench/speed.py [--runs N] [--views ...] [--samples ...]`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_SAMPLE_MS = 300
GOAL_VIEWS = (20000, 3000)  # views, milliseconds
VIEWS = (5000, 10000, 20000)

sys.path.insert(0, str(Path(__file__).resolve().parent))


def sample_names() -> list[str]:
    return sorted(p.stem for p in (ROOT / "samples").glob("*.tx"))


def child_env(pycache: Path) -> dict:
    """The environment of the timed processes: this tree first on the path, and bytecode cached
    in a private folder (as an installed tirxc has its .pyc files), whatever the caller's
    PYTHONDONTWRITEBYTECODE says."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def one_process(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {' '.join(cmd)}")
    return wall, usage.ru_utime + usage.ru_stime


def per_sample(samples: list[str], runs: int, work: Path, env: dict) -> list[dict]:
    rows = []
    for name in samples:
        cmd = [sys.executable, "-m", "transpiler", str(ROOT / "samples" / f"{name}.tx"), "-o", str(work / "out.cu")]
        one_process(cmd, env)  # warm-up: page cache and bytecode
        times = [one_process(cmd, env) for _ in range(runs)]
        row = {"sample": name, "wall_ms": round(statistics.median(w for w, _ in times) * 1000, 1),
               "cpu_ms": round(statistics.median(c for _, c in times) * 1000, 1),
               "min_wall_ms": round(min(w for w, _ in times) * 1000, 1)}
        rows.append(row)
        print(f"  {name:30s} wall {row['wall_ms']:6.0f} ms (min {row['min_wall_ms']:.0f}), CPU {row['cpu_ms']:6.0f} ms",
              flush=True)
    return rows


def startup(runs: int, env: dict) -> dict:
    """The floor under every sample: the interpreter alone, and the import of the command line."""
    floor = {}
    for key, code in (("python_ms", "pass"), ("import_cli_ms", "import transpiler.cli.main")):
        cmd = [sys.executable, "-c", code]
        one_process(cmd, env)
        floor[key] = round(statistics.median(one_process(cmd, env)[0] for _ in range(runs)) * 1000, 1)
    return floor


def measure(samples: list[str], runs: int = 5, views=VIEWS) -> dict:
    import growth

    with tempfile.TemporaryDirectory(prefix="tirxc-speed-") as tmp:
        work = Path(tmp)
        env = child_env(work / "pycache")
        result = {"loadavg_before": [round(x, 2) for x in os.getloadavg()], "runs": runs}
        result["startup"] = startup(runs, env)
        print(f"[speed] per process, median of {runs} (wall ms)", flush=True)
        result["samples"] = per_sample(samples, runs, work, env)
        print("[speed] growth on arena views", flush=True)
        result["views"] = growth.measure(views, work, min(runs, 3), env)
        result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def table(result: dict) -> str:
    rows = result["samples"]
    out = [f"python alone {result['startup']['python_ms']:.0f} ms, `import transpiler.cli.main` "
           f"{result['startup']['import_cli_ms']:.0f} ms (wall, per process); load average "
           f"{result['loadavg_before'][0]} before, {result['loadavg_after'][0]} after", "",
           "| sample | wall per process (median) | min | CPU | < 300 ms |", "|---|---:|---:|---:|:---:|"]
    for r in sorted(rows, key=lambda r: -r["wall_ms"]):
        out.append(f"| {r['sample']} | {r['wall_ms']:.0f} | {r['min_wall_ms']:.0f} | {r['cpu_ms']:.0f} | "
                   f"{'yes' if r['wall_ms'] < GOAL_SAMPLE_MS else '**no**'} |")
    import growth

    out += ["", growth.table(result["views"])]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per sample (default 5)")
    ap.add_argument("--views", nargs="*", type=int, default=list(VIEWS), help="arena-view counts")
    ap.add_argument("--samples", nargs="*", help="only these samples (default: all of samples/)")
    args = ap.parse_args(argv)
    result = measure(args.samples or sample_names(), args.runs, args.views)
    print("\n" + table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
