#!/usr/bin/env python3
"""Every GPU-test kernel under `tirxc sim`, at its test size: how long each launch takes on
this machine (docs/sim.md, "Timings"; the issue's bound is 10 s a kernel).

The GPU tests that run under sim (tests/sim/gpu, tests/sim/test_samples_match_numpy.py) are run
once with every simulated launch recorded (tests/sim/mutants/corpus.py): the build is done (and
cached) before each launch is timed, so a time is the launch alone -- the argument image, the
simulator's process, every block -- as wall time and as the simulator's CPU time (all its
threads), which other load on the machine inflates less. Per kernel: its slowest launch. The
machine's load average before and after is written beside the figures: a figure taken under load
says so.

Usage: python bench/sim_times.py [--json bench/results/sim_times.json] [--markdown]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BOUND = 10.0  # seconds a kernel (the bound)


def measure() -> dict:
    from tests.sim.mutants import corpus

    corpus.quiet_env()
    load_before = os.getloadavg()
    started = time.time()
    sources, outcomes = corpus.record(extra_args=["-x"] if os.environ.get("SIM_TIMES_STOP") else [])
    rows = []
    for source in sources:
        by_kernel = {}
        for launch in source.launches:
            best = by_kernel.get(launch.kernel)
            if best is None or launch.seconds > best["wall_s"]:
                by_kernel[launch.kernel] = {"source": source.name, "kernel": launch.kernel, "test": launch.test,
                                            "wall_s": round(launch.seconds, 4), "cpu_s": round(launch.cpu_seconds, 4),
                                            "launches": 0}
            by_kernel[launch.kernel]["launches"] += 1
        rows += by_kernel.values()
    rows.sort(key=lambda r: -r["wall_s"])
    return {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "loadavg_before": [round(x, 2) for x in load_before],
                    "loadavg_after": [round(x, 2) for x in os.getloadavg()]},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "bound_s": BOUND,
        "tests": {k: sum(1 for v in outcomes.values() if v == k) for k in ("passed", "skipped", "failed")},
        "kernels": rows,
        "over_bound": [r for r in rows if r["wall_s"] >= BOUND],
    }


def markdown(result: dict) -> str:
    lines = ["| kernel | source | launches | slowest launch, wall (s) | its CPU (s) |", "|---|---|---:|---:|---:|"]
    for r in result["kernels"]:
        lines.append(f"| `{r['kernel']}` | {r['source']} | {r['launches']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=str(ROOT / "bench" / "results" / "sim_times.json"))
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    options = parser.parse_args()
    result = measure()
    Path(options.json).parent.mkdir(parents=True, exist_ok=True)
    Path(options.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    total = sum(r["wall_s"] for r in result["kernels"])
    print(f"{len(result['kernels'])} kernels, slowest {result['kernels'][0]['wall_s']:.2f} s"
          if result["kernels"] else "no kernel ran", f"(sum {total:.1f} s); load average "
          f"{result['machine']['loadavg_before']} -> {result['machine']['loadavg_after']}; "
          f"{len(result['over_bound'])} over {BOUND:g} s")
    if options.markdown:
        print(markdown(result))
    return 0 if not result["over_bound"] else 1


if __name__ == "__main__":
    sys.exit(main())
