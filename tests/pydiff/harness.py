"""Running a generated program through tirxc and CPython, and classifying what happened.

`check(scenes)` builds the `.tx` (program.build: CPython's values decide the probes),
transpiles it in process with `transpiler.driver.compile_source`, reads the stored
constants back from the `.cu` (cuda_values.py) and compares them with CPython's. The
program's outcome, worst first:

* `differ`: tirxc accepted the file and a store holds another value than CPython's, or a
  store is missing (a silently dropped statement), or is not a constant;
* `crash`: an exception escaped tirxc (the CLI's internal error), or it ran over the time bound;
* `wrong-error`: an error that does not say "not supported yet" on a program CPython runs;
* `refused`: only "not supported yet" errors (tirxc names what it does not do: not a difference);
* `agree`: every probe agrees.

An error hides the values of the whole file, so the scenes the errors point at are dropped
and the rest compiled again (up to `ROUNDS` times): a difference behind an error is found too.
Each finding is attributed to one scene and carries a signature (outcome and the scene's tag,
with the diagnostic's code for errors) that groups findings by the construct."""
from __future__ import annotations

import re
import signal
import sys
import traceback
from dataclasses import dataclass, field

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

from . import cuda_values, program
from .scenes import Scene

TIME_LIMIT = 10  # seconds per compile
ROUNDS = 4
RECURSION_LIMIT = 10000  # what the tirxc command sets
OUTCOMES = ("differ", "crash", "wrong-error", "refused", "agree")


@dataclass(frozen=True)
class Finding:
    outcome: str  # differ | crash | wrong-error | refused
    scene: int | None
    tag: str
    signature: str
    detail: str


@dataclass
class Verdict:
    outcome: str  # of the whole file as generated (OUTCOMES)
    findings: list[Finding] = field(default_factory=list)
    probes: int = 0

    @property
    def hidden_differences(self) -> bool:
        """A value difference found only once the scenes with errors were dropped."""
        return self.outcome != "differ" and any(f.outcome == "differ" for f in self.findings)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def transpile(text: str):
    """compile_source's Result, or the exception it raised (a `_Timeout` past TIME_LIMIT)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(TIME_LIMIT)
    try:
        return compile_source(SourceFile("pydiff.tx", text))
    except BaseException as err:  # noqa: BLE001 -- every escape is the finding
        if isinstance(err, KeyboardInterrupt):
            raise
        return err
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def is_refusal(code: str, message: str) -> bool:
    """tirxc naming a construct it does not support: "... is not supported yet" (E0518, E0339 and
    others), "... is not supported in a kernel file" (E0109)."""
    return "not supported" in message or code in ("E0518", "E0339")


def family(tag: str) -> str:
    """The construct of a scene's tag (`arith:/` of `arith:/ int,big`): what signatures group by."""
    return tag.split(" ")[0]


def normalise(message: str) -> str:
    """A diagnostic's message without what varies between instances of one construct."""
    message = re.sub(r"s\d+_", "", message)
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    message = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", message)
    return message[:70]


def _crash_site(err: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "transpiler" in f.filename]
    where = f"{frames[-1].filename.rsplit('transpiler/', 1)[-1]}:{frames[-1].name}" if frames else "?"
    return f"{type(err).__name__} at {where}"


def _compare(built: program.Built, cuda: str, scenes: list[Scene]) -> list[Finding]:
    found = cuda_values.stores(cuda)
    tags = {s.number: s.tag for s in scenes}
    findings: dict[int, Finding] = {}
    for probe, slot in zip(built.probes, built.slots):
        if probe.scene in findings:
            continue
        values = found.get(slot)
        problem = None
        if not values:
            problem = "missing-store"
            got = "no store"
        else:
            got = values[-1]
            if got is cuda_values.UNPARSED:
                problem = "unparsed"
            elif probe.buffer == "f" and not (isinstance(got, float) and cuda_values.same_float(got, probe.expected)):
                problem = "value"
            elif probe.buffer == "i" and got != probe.expected:
                problem = "value"
        if problem:
            tag = tags[probe.scene]
            suffix = "" if problem == "value" else f" [{problem}]"
            findings[probe.scene] = Finding("differ", probe.scene, tag, f"differ {family(tag)}{suffix}",
                                            f"`{probe.expr}` ({probe.what}): CPython {probe.expected!r}, tirxc {got!r}")
    return list(findings.values())


def _crash_scene(scenes: list[Scene]) -> int | None:
    """The first scene that crashes tirxc alone (each compiled on its own)."""
    for scene in scenes:
        if isinstance(transpile(program.build([scene]).text), BaseException):
            return scene.number
    return None


def _error_findings(result, built: program.Built, scenes: list[Scene]) -> list[Finding]:
    """One finding per scene and signature. An error on a scene's own line is the scene's
    (wrong-error or refused; an error after a refusal in the same scene is taken as its
    consequence and not counted); an error in a probe's store only, with none on the scene's
    lines, means tirxc's value has another structure than CPython's (`differ`, probe-error)."""
    tags = {s.number: s.tag for s in scenes}
    errors = [d for d in result.diagnostics if d.severity == "error"]
    first_refusal: dict[int | None, int] = {}
    for d in errors:
        if is_refusal(d.code, d.message):
            number = built.line_scene.get(d.span.line)
            first_refusal[number] = min(first_refusal.get(number, d.span.line), d.span.line)
    scene_errors: dict[int | None, dict[str, Finding]] = {}
    probe_errors = {}
    for d in errors:
        number = built.line_scene.get(d.span.line)
        refusal = is_refusal(d.code, d.message)
        if not refusal and d.span.line > built.kernel_line:
            probe_errors.setdefault(number, d)
            continue
        if not refusal and d.span.line > first_refusal.get(number, d.span.line):
            continue
        kind = "refused" if refusal else "wrong-error"
        tag = tags.get(number, "?")
        finding = Finding(kind, number, tag, f"{kind} {family(tag)} {d.code}: {normalise(d.message)}",
                          f"{d.code}: {d.message}")
        scene_errors.setdefault(number, {}).setdefault(finding.signature, finding)
    findings = [f for by_signature in scene_errors.values() for f in by_signature.values()]
    for number, d in probe_errors.items():
        if number not in scene_errors:
            tag = tags.get(number, "?")
            findings.append(Finding("differ", number, tag, f"differ {family(tag)} [probe-error]",
                                    f"{d.code} in a probe, line {d.span.line}: {d.message}"))
    return findings


def worst(outcomes) -> str:
    return min(outcomes, key=OUTCOMES.index, default="agree")


def check(scenes: list[Scene]) -> Verdict:
    """Run the program (see the module's docstring). Raises what CPython raises on it."""
    built = program.build(scenes)
    verdict = Verdict("agree", probes=len(built.probes))
    for round_number in range(ROUNDS):
        tags = {s.number: s.tag for s in scenes}
        result = transpile(built.text)
        if isinstance(result, BaseException):
            site = "timeout" if isinstance(result, _Timeout) else _crash_site(result)
            number = _crash_scene(scenes)
            tag = tags.get(number, "?")
            findings = [Finding("crash", number, tag, f"crash {family(tag)} {site}", site)]
        elif not result.ok:
            findings = _error_findings(result, built, scenes)
        else:
            findings = _compare(built, result.cuda, scenes)
        verdict.findings += findings
        if round_number == 0:
            verdict.outcome = worst(f.outcome for f in findings)
        if isinstance(result, BaseException) or not result.ok:
            dropped = {f.scene for f in findings}
            if None in dropped:
                break
            scenes = [s for s in scenes if s.number not in dropped]
            if scenes:
                built = program.build(scenes)
                continue
        break
    return verdict


def minimise(scene: Scene, signature: str, limit: int = 60) -> Scene:
    """The scene with every statement removed that the finding does not need (one at a time,
    until none can go); the same signature must stay, and CPython must still run it."""
    current = scene
    changed = True
    while changed and limit > 0:
        changed = False
        for i in range(len(current.statements)):
            limit -= 1
            statements = current.statements[:i] + current.statements[i + 1:]
            if not statements:
                continue
            candidate = Scene(current.number, current.tag, statements, tuple(r for r in current.results
                                                            if any(r in s for s in statements)))
            try:
                verdict = check([candidate])
            except Exception:
                continue
            if any(f.signature == signature for f in verdict.findings):
                current, changed = candidate, True
                break
    return current
