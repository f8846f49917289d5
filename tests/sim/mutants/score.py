"""The mutation score of `tirxc sim --racecheck --synccheck` (docs/sim.md, "Seeded bugs and the
mutation score").

    python -m tests.sim.mutants.score            # the samples' mutants
    python -m tests.sim.mutants.score --all      # and every kernel the GPU tests run under sim
    python -m tests.sim.mutants.score --clusters # the kernels that launch clusters (samples, GPU tests)
    python -m tests.sim.mutants.score --json F   # the table and every mutant's outcome, as JSON
    python -m tests.sim.mutants.score --list     # the mutants, named, without running them

Each mutant (mutate.py) is transpiled; one tirxc rejects is counted apart (`rejected`), as is
one whose original the simulator refuses (`not simulated`, E0810) or whose kernel no launch runs
(`not run`). The original and the mutant run under `sim` with the checkers on, on the same
launches (corpus.py) at two seeds, and with several schedules where the checkers offer them:

- `killed`: a run of the mutant raised SimFindings (the checkers reported it);
- `MISS`: the result changed (an output, or an error that is not a finding) but nothing was
  reported: a checker bug;
- `survived`: neither. `equivalent` when the removed synchronisation provably orders no
  conflicting accesses of different threads (the reason is recorded: found by mutate.py, or
  written in equivalent.py after reading the kernel), else an unexplained survivor.

Score = killed / (runnable mutants - equivalent ones). Without the checkers (an engine that has
no `racecheck` option or no SimFindings) the mutants still run and are classified `changed` /
`unchanged`, and the score says "checkers not available".
"""
from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass

from tests.sim.mutants import corpus
from tests.sim.mutants.equivalent import EQUIVALENT
from tests.sim.mutants.mutate import KINDS, Mutant, mutants, orders_nothing_after

SEEDS = (0, 1)
SCHEDULES = 3
TIMEOUT = 120.0  # seconds per simulated launch: a mutant that spins forever is stopped by this


STATUSES = ("killed", "MISS", "survived", "equivalent", "changed", "unchanged", "original reported", "rejected",
            "not simulated", "not run")
APART = ("original reported", "rejected", "not simulated", "not run")  # not in the score's denominator


@dataclass
class Outcome:
    ident: str
    source: str
    line: int
    kind: str
    what: str
    status: str  # one of STATUSES
    detail: str = ""  # the finding, the change, the rejection or the equivalence reason


def checkers(grid_limit=None):
    """(Options for a checked run, SimFindings) or None when the engine has no checkers yet;
    `grid_limit` runs only the first blocks of each launch (a cheap slice)."""
    from transpiler import sim

    findings = getattr(sim, "SimFindings", None)
    fields = inspect.signature(sim.Options).parameters
    if findings is None or "racecheck" not in fields or "synccheck" not in fields:
        return None
    extra = {"schedules": SCHEDULES} if "schedules" in fields else {}
    return sim.Options(racecheck=True, synccheck=True, jobs=1, timeout=TIMEOUT, block_limit=grid_limit,
                       **extra), findings


def plain_options(grid_limit=None):
    """Options for a run without checkers (to see whether a mutant changes the result)."""
    from transpiler import sim

    return sim.Options(jobs=1, timeout=TIMEOUT, block_limit=grid_limit)


def _load(name: str, text: str, options):
    """The SimModule of `text`, built in the flavour its runs use (checked or plain: building the
    other would be a host compile for nothing); a build the host compiler refuses raises BuildError."""
    from transpiler import sim
    from transpiler.syntax.source import SourceFile

    module = sim.load_source(SourceFile(name.replace("::", "__").replace("/", "_"), text), options=options)
    module.executable(checked=bool(options.checks))
    return module


def _run(module, launch, seed, findings):
    """('findings', diagnostics) | ('error', message) | ('build', message: the checked build the
    first checked call makes failed) | ('values', bytes of every array after)."""
    from transpiler import sim
    from transpiler.sim.build import BuildError

    args = launch.arguments(seed)
    try:
        module.kernels[launch.kernel](*args)
    except Exception as err:  # noqa: BLE001 (a finding, a run error, a build failure)
        if isinstance(err, BuildError):
            return "build", str(err).splitlines()[0]
        if findings is not None and isinstance(err, findings):
            return "findings", list(err.diagnostics)
        if isinstance(err, sim.SimError) or isinstance(err, (RuntimeError, OSError)):
            return "error", str(err).splitlines()[0] if str(err) else type(err).__name__
        raise
    return "values", b"".join(a.tobytes() for a in args if hasattr(a, "tobytes"))


def _where(diagnostics) -> str:
    spans = []
    for d in diagnostics:
        lines = [f"{d.span.line}:{d.span.col}"] + [f"{n.span.line}" for n in getattr(d, "notes", ()) if
                                                    getattr(n, "span", None) is not None]
        spans.append(f"{d.code} at {', '.join(lines)}")
    return "; ".join(spans)


def _kernel_of(text: str, line: int):
    """The name of the prim_func holding `line`, or None (an inlined helper, module level)."""
    import ast

    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= node.end_lineno:
            if any("prim_func" in ast.unparse(d) for d in node.decorator_list):
                return node.name
    return None


def score_source(source: corpus.Source, checked, select=None, seeds=SEEDS, plain=None) -> list[Outcome]:
    """Every mutant of one source (those `select` keeps), run and classified: `checked` from
    checkers(), or None to run with `plain` options (default plain_options())."""
    from transpiler import sim
    from transpiler.sim.build import BuildError

    options, findings = checked if checked else (plain or plain_options(), None)
    found = [m for m in mutants(source.name, source.text) if select is None or select(m)]
    if not found:
        return []

    def outcome(m: Mutant, status: str, detail: str = "") -> Outcome:
        return Outcome(m.ident, m.source, m.line, m.kind, m.what, status, detail)

    try:
        original = _load(source.name, source.text, options)
    except BuildError as err:
        return [outcome(m, "rejected", f"the original does not build: {str(err).splitlines()[0]}") for m in found]
    except sim.SimLoadError as err:
        codes = sorted({d.code for d in err.result.diagnostics if d.severity == "error"})
        first = str(err).splitlines()[0] if str(err) else ""
        status = "not simulated" if codes == ["E0810"] else "rejected"
        return [outcome(m, status, f"the original: {first}") for m in found]
    launches = source.launches or ([] if source.recorded else
                                   corpus.sample_launches(original, sizes=corpus.SIZE_FOR.get(source.name,
                                                                                              corpus.SAMPLE_SIZES)))
    if source.recorded and source.name in corpus.ALSO_WITH_RECORDED:  # (the tests' launches, cut, do not)
        launches = launches + corpus.sample_launches(original, sizes=corpus.SIZE_FOR[source.name])
    runs = [(launch, seed) for launch in launches for seed in seeds]
    expected = [_run(original, launch, seed, findings) for launch, seed in runs]
    unbuilt = [r[1] for r in expected if r[0] == "build"]
    if unbuilt:
        return [outcome(m, "rejected", f"the original does not build: {unbuilt[0]}") for m in found]
    original_findings = [_where(r[1]) for r in expected if r[0] == "findings"]
    launched = {launch.kernel for launch in launches}
    out = []
    if original_findings:  # zero findings on every original is the claim: a report here is a checker's error
        return [outcome(m, "original reported", original_findings[0]) for m in found]
    for m in found:
        kernel = _kernel_of(source.text, m.line)
        if not runs or (kernel is not None and kernel not in launched):
            out.append(outcome(m, "not run", f"no launch runs {kernel or 'this file'}"))
            continue
        try:
            module = _load(source.name, m.text, options)
        except BuildError as err:
            out.append(outcome(m, "rejected", f"does not build: {str(err).splitlines()[0]}"))
            continue
        except sim.SimLoadError as err:
            codes = sorted({d.code for d in err.result.diagnostics if d.severity == "error"})
            out.append(outcome(m, "rejected", ", ".join(codes)))
            continue
        got = [_run(module, launch, seed, findings) for launch, seed in runs]
        if any(g[0] == "build" for g in got):
            out.append(outcome(m, "rejected", next(g[1] for g in got if g[0] == "build")))
            continue
        out.append(outcome(m, *_classify(m, source, got, expected, findings is not None)))
    return out


def _classify(m: Mutant, source, got, expected, checked: bool) -> tuple[str, str]:
    reported = [r for r in got if r[0] == "findings"]
    if reported and checked:
        return "killed", _where(reported[0][1])
    changed = [(g, e) for g, e in zip(got, expected) if g != e]
    if changed:
        g, _ = changed[0]
        what = g[1] if g[0] == "error" else "the outputs differ"
        return ("MISS" if checked else "changed"), what
    if orders_nothing_after(source.text, m.line, m.col) and m.kind != "phase":
        return "equivalent", "the kernel's last statement: no access of any thread follows it"
    reason = EQUIVALENT.get(m.ident)
    if reason:
        return "equivalent", reason
    return ("survived" if checked else "unchanged"), "no recorded reason it is equivalent"


def table(outcomes: list[Outcome], checked: bool) -> dict:
    """Counts per kind and per source, and the score."""
    by_kind, by_source = defaultdict(Counter), defaultdict(Counter)
    for o in outcomes:
        by_kind[o.kind][o.status] += 1
        by_source[o.source][o.status] += 1
    total = Counter(o.status for o in outcomes)
    runnable = sum(n for s, n in total.items() if s not in APART)
    can_change = runnable - total["equivalent"]
    if not checked:
        score = "checkers not available"
    else:
        score = f"{total['killed']}/{can_change}" + (f" = {100 * total['killed'] / can_change:.1f} %"
                                                    if can_change else "")
    return {"score": score, "total": dict(total), "runnable": runnable, "can_change": can_change,
            "by_kind": {k: dict(by_kind[k]) for k in KINDS if k in by_kind},
            "by_source": {s: dict(c) for s, c in sorted(by_source.items())}}




def render(summary: dict) -> str:
    def rows(title, groups):
        used = [s for s in STATUSES if any(s in c for c in groups.values())]
        width = max([len(title)] + [len(g) for g in groups])
        lines = [f"{title:<{width}}  " + "  ".join(f"{s:>8}" for s in used)]
        for group, counts in groups.items():
            lines.append(f"{group:<{width}}  " + "  ".join(f"{counts.get(s, 0):>8}" for s in used))
        return lines

    out = [f"mutation score: {summary['score']} (runnable {summary['runnable']}, "
           f"whose result can change {summary['can_change']})", ""]
    out += rows("kind", summary["by_kind"]) + [""] + rows("source", summary["by_source"])
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.sim.mutants.score", description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="also every kernel the GPU tests run under sim")
    parser.add_argument("--json", metavar="F", help="write the table and every outcome as JSON")
    parser.add_argument("--clusters", action="store_true",
                        help="only the kernels that launch clusters: samples and the cluster GPU tests'")
    parser.add_argument("--source", action="append", help="only sources whose name contains this")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every mutant's outcome")
    parser.add_argument("--list", action="store_true", help="only list the mutants (nothing is run)")
    parser.add_argument("--grid-limit", type=int, metavar="N", help="run only the first N blocks of each launch")
    options = parser.parse_args(argv)
    corpus.quiet_env()
    sources = corpus.sample_sources()
    if options.clusters:
        sources = [s for s in sources if corpus.launches_clusters(s.text)]
    if options.all or options.clusters:
        recorded, _ = corpus.record(corpus.CLUSTER_TESTS if options.clusters else None)
        if options.clusters:
            recorded = [s for s in recorded if corpus.launches_clusters(s.text)]
        names = {s.name for s in sources}
        for s in recorded:  # a sample the tests launch keeps the tests' launches
            if s.name in names:
                sources = [s if s.name == t.name else t for t in sources]
            else:
                sources.append(s)
    if options.source:
        sources = [s for s in sources if any(part in s.name for part in options.source)]
    if options.list:
        for source in sources:
            for m in mutants(source.name, source.text):
                print(f"{m.ident}  {m.what}")
        return 0
    checked = checkers(options.grid_limit)
    if checked is None:
        print("checkers not available: transpiler.sim has no SimFindings / Options(racecheck=, synccheck=); "
              "the mutants run without them (changed / unchanged)", file=sys.stderr)
    outcomes = []
    for source in sources:
        got = score_source(source, checked, plain=plain_options(options.grid_limit))
        outcomes += got
        if options.verbose:
            for o in got:
                print(f"{o.status:>13}  {o.ident}  {o.detail}", flush=True)
    summary = table(outcomes, checked is not None)
    print(render(summary))
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            handle.write(as_json(summary, [asdict(o) for o in outcomes]))
    return 0


def as_json(summary: dict, outcomes: list[dict]) -> str:
    """The summary, then one mutant a line (so that two runs' files diff by mutant)."""
    mutant_lines = ",\n  ".join(json.dumps(o) for o in outcomes)
    return json.dumps(summary, indent=1)[:-2] + ',\n "mutants": [\n  ' + mutant_lines + "\n ]\n}\n"


if __name__ == "__main__":
    sys.exit(main())
