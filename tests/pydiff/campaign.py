"""The differential campaign of the evaluator against CPython (docs/reliability.md has its figures).

    python -m tests.pydiff.campaign --programs 3000 --seed 1 [--jobs 1] [--json out.json]

Program i of seed s is a pure function of (s, i) (program.random_scenes). Each goes through
harness.check; the campaign prints the programs' outcomes (agree, differ, crash, wrong-error,
refused), then every failure signature (outcome and construct) with the number of programs it
was found in, then for each signature its first example minimised (harness.minimise: the
scene alone, statements removed while the signature stays) with what tirxc and CPython said."""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import sys
import time

from . import harness, program
from .scenes import Scene


def run_one(task: tuple[int, int]) -> dict:
    seed, index = task
    scenes = program.random_scenes(seed, index)
    try:
        verdict = harness.check(scenes)
    except Exception as err:  # the harness's own failure (a probe CPython cannot evaluate): not tirxc's
        return {"index": index, "outcome": "invalid", "findings": [], "error": f"{type(err).__name__}: {err}"}
    by_number = {s.number: s for s in scenes}
    findings = []
    for f in verdict.findings:
        scene = by_number.get(f.scene)
        findings.append({"signature": f.signature, "outcome": f.outcome, "detail": f.detail,
                         "scene": None if scene is None else [scene.number, scene.tag, list(scene.statements),
                                                               list(scene.results)]})
    return {"index": index, "outcome": verdict.outcome, "findings": findings, "probes": verdict.probes,
            "hidden": verdict.hidden_differences}


def campaign(programs: int, seed: int, jobs: int = 1, start: int = 0):
    """(outcome counts, {signature: [programs, first finding]}, programs with differences behind an error, probes)."""
    outcomes = collections.Counter()
    signatures: dict[str, list] = {}
    hidden = probes = 0
    tasks = [(seed, i) for i in range(start, start + programs)]
    pool = mp.Pool(jobs) if jobs > 1 else None
    results = pool.imap(run_one, tasks, chunksize=8) if pool else map(run_one, tasks)
    for done, record in enumerate(results, 1):
        outcomes[record["outcome"]] += 1
        hidden += bool(record.get("hidden"))
        probes += record.get("probes", 0)
        for signature in dict.fromkeys(f["signature"] for f in record["findings"]):
            first = next(f for f in record["findings"] if f["signature"] == signature)
            entry = signatures.setdefault(signature, [0, dict(first, index=record["index"])])
            entry[0] += 1
        if done % 500 == 0:
            print(f"  ... {done} programs", file=sys.stderr, flush=True)
    if pool:
        pool.close()
    return outcomes, signatures, hidden, probes


def minimised_example(first: dict) -> tuple[str, str]:
    """(the minimised scene's text, what tirxc and CPython said on it)."""
    if first["scene"] is None:
        return "(no scene: the program's frame)", first["detail"]
    number, tag, statements, results = first["scene"]
    scene = Scene(number, tag, tuple(statements), tuple(results))
    small = harness.minimise(scene, first["signature"])
    verdict = harness.check([small])
    detail = next((f.detail for f in verdict.findings if f.signature == first["signature"]), first["detail"])
    return small.text, detail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="index of the first program")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="write the figures and examples as JSON here")
    parser.add_argument("--no-examples", action="store_true", help="skip the minimised examples")
    args = parser.parse_args(argv)
    began = time.time()
    outcomes, signatures, hidden, probes = campaign(args.programs, args.seed, args.jobs, args.start)
    spent = time.time() - began
    total = sum(outcomes.values())
    print(f"pydiff: {total} programs (seed {args.seed}, from {args.start}), {probes} probes, {spent:.0f} s")
    for outcome in harness.OUTCOMES + ("invalid",):
        if outcomes[outcome] or outcome != "invalid":
            print(f"  {outcome:12} {outcomes[outcome]:6}  {100 * outcomes[outcome] / max(total, 1):5.1f} %")
    print(f"  differences found behind an error (scenes with errors dropped): {hidden} programs")
    ordered = sorted(signatures.items(), key=lambda kv: (harness.OUTCOMES.index(kv[0].split(" ")[0]), -kv[1][0], kv[0]))
    print(f"\n{len(ordered)} signatures (programs: signature):")
    for signature, (count, _) in ordered:
        print(f"  {count:6}: {signature}")
    examples = {}
    if not args.no_examples:
        print("\nminimised examples:")
        for signature, (count, first) in ordered:
            if signature.startswith("refused"):
                continue
            text, detail = minimised_example(first)
            examples[signature] = {"programs": count, "example": text, "detail": detail, "index": first["index"]}
            print(f"\n== {signature}  ({count} programs; first: program {first['index']})")
            print("   " + text.rstrip().replace("\n", "\n   "))
            print(f"   -> {detail}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"programs": total, "seed": args.seed, "start": args.start, "seconds": round(spent),
                       "probes": probes, "outcomes": dict(outcomes), "hidden": hidden,
                       "signatures": {s: c for s, (c, _) in ordered}, "examples": examples}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
