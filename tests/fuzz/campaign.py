"""The long fuzzing campaign (not run by CI; docs/reliability.md has its figures).

    python -m tests.fuzz.campaign --inputs 100000 --jobs 2 --out fuzz-report.json

Input number i of a campaign with seed s is a pure function of (s, i): even
numbers come from the grammar-aware generator (generate.py, driven by
`random.Random(f"{s}:{i}")`), odd numbers from the mutation fuzzer
(mutate.py, the same seeding). Every input goes through
`harness.check_input` in process, with a per-input time bound (SIGALRM) and
an address-space limit per worker; a worker that dies (a segfault, say) is
recorded at the input it was on and replaced. Every `--nvcc-every`-th
accepted input's `.cu` (distinct texts only) is compiled with nvcc; errors that all
lie inside `T.cuda.func_call` sources (pasted unchanged, so a mutant that corrupted
them wrote bad CUDA itself) are counted apart, not as findings.

With `--arith N`, N random integer expressions (tests/fuzz/arith.py, expression i of
seed s from `f"{s}:arith:{i}"`) are also compiled and run on the host by the oracle
of tests/hostrun/ (g++), loaded and folded, and compared with TIRx's semantics; each
disagreement is shrunk and bucketed by the shrunk expression's root (kind "value").

Findings are bucketed by signature (exception type and innermost tirxc frame,
or the broken invariant); the first input of each bucket is minimised (lines,
then tokens) and written to `--crash-dir` together with the original. Turn a
minimised input into a regression test by copying it to tests/fuzz/regressions/.
"""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import os
import random
import re
import resource
import sys
import time
from pathlib import Path

from .generate import random_kernel_file
from .harness import Finding, blames_inline_source, check_input, digest, nvcc_available, nvcc_check, seed_texts
from .mutate import mutant

_SEEDS = None


def make_input(seed: int, index: int) -> tuple[str, str]:
    """(origin, text) of input `index` of campaign `seed`."""
    global _SEEDS
    rng = random.Random(f"{seed}:{index}")
    if index % 2 == 0:
        return "grammar", random_kernel_file(rng)
    if _SEEDS is None:
        _SEEDS = seed_texts()
    name, text = mutant(rng, _SEEDS)
    return f"mutation of {name}", text


def _worker(worker: int, jobs: int, args, start: int, progress, out_path: str) -> None:
    if args.memory_mb:
        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    stats = {"inputs": 0, "accepted": 0, "rejected": 0, "by_origin": collections.Counter(),
             "accepted_by_origin": collections.Counter(), "codes": collections.Counter(), "seconds": 0.0,
             "slowest": [0.0, -1], "nvcc": 0, "nvcc_failed": 0, "nvcc_inline_source": 0, "findings": {}}
    seen_cuda: set[str] = set()
    accepted_count = 0
    deadline = args.deadline
    with open(out_path, "a", encoding="utf-8") as out:
        for index in range(start, args.inputs, jobs):
            if deadline and time.time() > deadline:
                break
            progress[worker] = index
            origin, text = make_input(args.seed, index)
            began = time.perf_counter()
            result = check_input(text, time_limit=args.time_limit)
            spent = time.perf_counter() - began
            stats["inputs"] += 1
            stats["seconds"] += spent
            kind = origin.split(" ")[0]
            stats["by_origin"][kind] += 1
            if spent > stats["slowest"][0]:
                stats["slowest"] = [spent, index]
            if isinstance(result, Finding):
                bucket = stats["findings"].setdefault(result.signature, {
                    "kind": result.kind, "message": result.message[:500], "first": index, "count": 0,
                    "origin": origin, "detail": result.detail[-3000:]})
                bucket["count"] += 1
                continue
            if not result.accepted:
                stats["rejected"] += 1
                for code in set(result.codes):
                    stats["codes"][code] += 1
                continue
            stats["accepted"] += 1
            stats["accepted_by_origin"][kind] += 1
            accepted_count += 1
            if args.nvcc_every and accepted_count % args.nvcc_every == 0:
                key = digest(result.cuda)
                if key not in seen_cuda:
                    seen_cuda.add(key)
                    stats["nvcc"] += 1
                    message = nvcc_check(result.cuda)
                    if message is not None and blames_inline_source(message, result.cuda, result.inline_sources):
                        stats["nvcc_inline_source"] += 1  # a mutant broke the CUDA it pastes in, not tirxc
                    elif message is not None:
                        stats["nvcc_failed"] += 1
                        signature = "nvcc:" + _nvcc_signature(message)
                        bucket = stats["findings"].setdefault(signature, {
                            "kind": "nvcc", "message": message[:1500], "first": index, "count": 0,
                            "origin": origin, "detail": ""})
                        bucket["count"] += 1
        stats["last"] = progress[worker]
        out.write(json.dumps(stats) + "\n")


def _nvcc_signature(message: str) -> str:
    match = re.search(r"error[^:]*: (.*)", message)
    text = match.group(1) if match else message.splitlines()[0] if message else "?"
    return re.sub(r"\"[^\"]*\"|\d+", "_", text)[:120]


def run(args) -> dict:
    folder = Path(args.work)
    folder.mkdir(parents=True, exist_ok=True)
    progress = mp.Array("q", [-1] * args.jobs)
    outputs = [str(folder / f"worker{w}.jsonl") for w in range(args.jobs)]
    for path in outputs:
        Path(path).unlink(missing_ok=True)
    began = time.time()
    args.deadline = began + args.minutes * 60 if args.minutes else 0
    deaths = []
    procs = {}
    for w in range(args.jobs):
        procs[w] = mp.Process(target=_worker, args=(w, args.jobs, args, w, progress, outputs[w]), daemon=True)
        procs[w].start()
    while procs:
        for w, proc in list(procs.items()):
            proc.join(timeout=0.5)
            if proc.is_alive():
                continue
            del procs[w]
            if proc.exitcode != 0:  # died on input progress[w]: record it, go on after it
                index = progress[w]
                deaths.append({"index": index, "exitcode": proc.exitcode})
                if index + args.jobs < args.inputs:
                    restart = mp.Process(target=_worker, args=(w, args.jobs, args, index + args.jobs, progress,
                                                                outputs[w]), daemon=True)
                    procs[w] = restart
                    restart.start()
        if args.verbose:
            done = sum(max(0, p) for p in progress)
            print(f"\r{time.time() - began:7.0f} s  around input {done // max(1, args.jobs)}", end="",
                  file=sys.stderr)
    wall = time.time() - began
    total = {"inputs": 0, "accepted": 0, "rejected": 0, "seconds": 0.0, "nvcc": 0, "nvcc_failed": 0,
             "nvcc_inline_source": 0,
             "by_origin": collections.Counter(), "accepted_by_origin": collections.Counter(),
             "codes": collections.Counter(), "slowest": [0.0, -1], "findings": {}}
    for path in outputs:
        if not Path(path).exists():
            continue
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            part = json.loads(line)
            for key in ("inputs", "accepted", "rejected", "seconds", "nvcc", "nvcc_failed", "nvcc_inline_source"):
                total[key] += part[key]
            for key in ("by_origin", "accepted_by_origin", "codes"):
                total[key].update(part[key])
            if part["slowest"][0] > total["slowest"][0]:
                total["slowest"] = part["slowest"]
            for sig, bucket in part["findings"].items():
                mine = total["findings"].setdefault(sig, dict(bucket, count=0))
                mine["count"] += bucket["count"]
                mine["first"] = min(mine["first"], bucket["first"])
    for death in deaths:
        sig = f"process-death:{death['exitcode']}"
        bucket = total["findings"].setdefault(sig, {"kind": "death", "message": f"worker exited with "
                                                    f"{death['exitcode']}", "first": death["index"], "count": 0,
                                                    "origin": make_input(args.seed, death["index"])[0],
                                                    "detail": ""})
        bucket["count"] += 1
    report = {
        "seed": args.seed, "jobs": args.jobs, "requested": args.inputs, "wall_seconds": round(wall, 1),
        "inputs": total["inputs"] + len(deaths), "accepted": total["accepted"], "rejected": total["rejected"],
        "mean_ms_per_input": round(1000 * total["seconds"] / max(1, total["inputs"]), 2),
        "slowest_input": {"seconds": round(total["slowest"][0], 3), "index": total["slowest"][1]},
        "time_limit_s": args.time_limit,
        "by_origin": dict(total["by_origin"]), "accepted_by_origin": dict(total["accepted_by_origin"]),
        "nvcc_compiled": total["nvcc"], "nvcc_failed": total["nvcc_failed"],
        "nvcc_failed_in_inline_cuda": total["nvcc_inline_source"],
        "top_error_codes": dict(total["codes"].most_common(30)),
        "findings": total["findings"],
    }
    if args.arith:
        arith_findings(args, total["findings"])
        report["arith_expressions"] = args.arith
    if args.crash_dir and total["findings"]:
        crash_dir = Path(args.crash_dir)
        crash_dir.mkdir(parents=True, exist_ok=True)
        for n, (sig, bucket) in enumerate(sorted(total["findings"].items())):
            if bucket["kind"] == "value":
                (crash_dir / f"finding{n:02d}-value.txt").write_text(bucket["detail"], encoding="utf-8")
                continue
            origin, text = make_input(args.seed, bucket["first"])
            (crash_dir / f"finding{n:02d}-input{bucket['first']}.tx").write_text(text, encoding="utf-8",
                                                                                    errors="surrogatepass")
            if bucket["kind"] in ("crash", "hang", "location", "output", "render"):
                small = minimise(text, sig, args.time_limit)
                (crash_dir / f"finding{n:02d}-min.tx").write_text(small, encoding="utf-8", errors="surrogatepass")
                bucket["minimised"] = small if len(small) < 4000 else small[:4000] + "..."
    return report


def arith_findings(args, findings: dict, batch: int = 200, shrunk: int = 20) -> None:
    """Run the differential check on `args.arith` random expressions (host g++ needed)."""
    from tests.hostrun import oracle
    if not oracle.available():
        print("g++ is not on PATH: no differential check", file=sys.stderr)
        return
    from tests.hostrun.kernels import check_probes, explain
    from .arith import probe_from_seed
    from .test_differential import shrink
    done = 0
    for start in range(0, args.arith, batch):
        probes = [probe_from_seed(f"{args.seed}:arith:{i}") for i in range(start, min(args.arith, start + batch))]
        for verdict in check_probes(probes):
            if verdict.problem is None:
                continue
            small = verdict
            if done < shrunk:
                _, small = shrink(verdict.probe, verdict)
                done += 1
            root = small.probe.expr
            what = getattr(root, "op", None) or getattr(root, "fn", None) or type(root).__name__
            signature = f"value:{root.dtype}:{type(root).__name__}:{what}:{verdict.variant}"
            bucket = findings.setdefault(signature, {"kind": "value", "message": small.problem[:500],
                                                     "first": verdict.probe.name, "count": 0,
                                                     "origin": "arith", "detail": explain(small)[-3000:]})
            bucket["count"] += 1


def _same(text: str, signature: str, time_limit: float) -> bool:
    result = check_input(text, time_limit=time_limit)
    return isinstance(result, Finding) and result.signature == signature


def minimise(text: str, signature: str, time_limit: float = 10.0, budget_s: float = 120.0) -> str:
    """Delta debugging over lines, then over tokens, keeping the same finding."""
    deadline = time.time() + budget_s
    for split, join in ((lambda t: t.split("\n"), "\n"), (lambda t: re.findall(r"\s+|\w+|[^\w\s]", t), "")):
        parts = split(text)
        chunk = max(1, len(parts) // 2)
        while chunk >= 1 and time.time() < deadline:
            i, changed = 0, False
            while i < len(parts) and time.time() < deadline:
                candidate = parts[:i] + parts[i + chunk:]
                if candidate and _same(join.join(candidate), signature, time_limit):
                    parts, changed = candidate, True
                else:
                    i += chunk
            if not changed:
                chunk //= 2
        text = join.join(parts)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (0: no limit)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per input")
    parser.add_argument("--memory-mb", type=int, default=3072, help="address-space limit per worker")
    parser.add_argument("--nvcc-every", type=int, default=100,
                        help="compile every N-th accepted input's .cu with nvcc (0: never)")
    parser.add_argument("--arith", type=int, default=0,
                        help="also check N random integer expressions against TIRx semantics on the host (g++)")
    parser.add_argument("--work", default="/tmp/tirxc-fuzz", help="folder for the workers' partial results")
    parser.add_argument("--crash-dir", default="/tmp/tirxc-fuzz/findings")
    parser.add_argument("--out", help="write the JSON report here")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.nvcc_every and not nvcc_available():
        print("nvcc is not on PATH: no .cu is compiled", file=sys.stderr)
        args.nvcc_every = 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    report = run(args)
    text = json.dumps(report, indent=2, default=list)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    summary = {k: v for k, v in report.items() if k not in ("findings", "top_error_codes")}
    print(json.dumps(summary, indent=2))
    for sig, bucket in sorted(report["findings"].items()):
        print(f"FINDING {sig}: {bucket['count']} inputs, first {bucket['first']} ({bucket['origin']}): "
              f"{bucket['message'][:300]}")
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
