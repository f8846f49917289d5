"""The section of docs/conformance.md on the production library: the last run of the probe
(library_probe.py) as recorded in tests/conformance/library_probe.json, rendered with its date and
the library's commit (the probe needs a checkout of the library, which CI does not have, so the
page reports the recorded run and tests/conformance checks only that the page renders it)."""
from __future__ import annotations

import json
from collections import defaultdict

from tests.conformance.library_probe import RESULTS

_REPOSITORY = "https://github.com/mlc-ai/TIRx-kernels"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _reason(kernel: dict) -> str:
    """What refused a kernel, by construct: the first error's code and message."""
    if kernel["status"] == "refused":
        return f"{kernel['message']} ({kernel['code']})"
    if kernel["status"] == "nvcc":
        return f"nvcc: {kernel['message']}"
    return kernel["message"]


def section() -> list[str]:
    if not RESULTS.exists():
        return []
    run = json.loads(RESULTS.read_text(encoding="utf-8"))
    kernels = run["kernels"]
    probed = [k for k in kernels if k["status"] != "no call"]
    passed = [k for k in probed if k["status"] == "pass"]
    rate = f"{len(passed)}/{len(probed)} ({100 * len(passed) // len(probed)}%)" if probed else "0/0"
    commit = run["commit"]
    out = ["", "## The production library", "",
           f"The TVMScript kernels of [{run['repository']}]({_REPOSITORY}) at commit "
           f"[{commit[:12]}]({_REPOSITORY}/tree/{commit}) ({run['commit_date']}), probed on {run['date']} by",
           "`python -m tests.conformance.library_probe CHECKOUT --write` (the kernels' code is not in this",
           "repository): each kernel's source is extracted as a user of the library would write it in one",
           "file (its module without the test and benchmark harness, the library modules it imports",
           "inlined, its builder's body at module level with one bench-suite configuration bound), then",
           "transpiled for its architecture and compiled with nvcc.",
           "",
           f"**{rate} kernels transpile and compile**; "
           f"{len(kernels) - len(probed)} TVMScript modules have no builder call recorded, and "
           f"{len(run['kern_dsl_modules'])} modules written in the library's `kern` DSL need its Python package "
           "and are not probed.",
           "",
           "| module | builder | arch | status | first error |",
           "|---|---|---|---|---|"]
    for k in kernels:
        builder = k["call"].split("(", 1)[0] if k["call"] else "-"
        first = "" if k["status"] == "pass" else _md(_reason(k))
        out.append(f"| {k['module']} | {builder} | {k['arch'] or '-'} | {k['status']} | {first} |")
    by_reason = defaultdict(list)
    for k in probed:
        if k["status"] != "pass":
            by_reason[_reason(k)].append(k)
    out += ["", "Refusals by construct (the first error of each refused kernel):", ""]
    for reason, items in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = ", ".join(f"{k['module'].rsplit('/', 1)[-1]}:{k['call'].split('(', 1)[0]}" for k in items)
        out.append(f"- {_md(reason)} — {len(items)}: {names}")
    return out
