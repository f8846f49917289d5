"""Run every runnable sample's GPU cases under NVIDIA compute-sanitizer.

On a machine with an NVIDIA GPU, CuPy and compute-sanitizer (no tirxc install
needed; lark, if the parser wants it, from a carried wheel):

    PYTHONPATH=.:/tmp/site python3 tests/gpu/sanitize.py --out sanitize.json

For each sample of tests/gpu/cases.py and each tool (memcheck, racecheck,
synccheck by default), one `compute-sanitizer --tool TOOL python3
tests/gpu/sanitize.py --child SAMPLE` process builds the sample's launcher with
tirxc from the source tree, launches every case of the sample through it
(cases with a `sizes` list run at each size), synchronises, and checks the
results against NumPy as the GPU tests do. The parent reads the sanitizer's
"ERROR SUMMARY" (and racecheck's hazard summary) of each process, prints a
table (sample, tool, errors, ...) and writes everything as JSON to `--out`.
Several processes run at once (`--jobs`); samples whose minimum architecture
the device lacks are listed as skipped.

Exit status: 0 when every run finished with no sanitizer error, 1 when some
run reported errors (or a result check failed, or a run crashed or timed
out), 2 when the tools are missing.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("memcheck", "racecheck", "synccheck")
TOOL_OPTIONS = {
    # CuPy keeps freed blocks in its memory pool: leak reports would be noise. API errors
    # that CuPy provokes on purpose (probing) are not the kernels' and are left out.
    "memcheck": ["--leak-check", "no", "--report-api-errors", "no"],
    "racecheck": ["--racecheck-report", "analysis", "--report-api-errors", "no"],
    "synccheck": ["--report-api-errors", "no"],
    "initcheck": ["--report-api-errors", "no"],
}
MARK = "@@tirxc-sanitize "

# Planted bugs, one per tool: a run that does not report them means the tool is not
# working here, and its zeros above would mean nothing.
PLANTED = '''from tvm.script import tirx as T


@T.prim_func
def oob(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    A[tx * 100003] = 1.0


@T.prim_func
def race(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "float32")
    B = T.match_buffer(B_ptr, (256,), "float32")
    T.device_entry()
    tx = T.thread_id([256])
    sm = T.alloc_shared((256,), "float32")
    sm[tx] = A[tx]
    B[tx] = sm[255 - tx]


@T.prim_func
def divergent(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "float32")
    T.device_entry()
    tx = T.thread_id([256])
    if tx < 16:
        T.cuda.cta_sync()
    A[tx] = 1.0
'''
PLANTED_FOR = {"memcheck": "oob", "racecheck": "race", "synccheck": "divergent", "initcheck": None}


# ---- child: run the cases of one sample ---------------------------------------------------------------

def _planted(kernel_name: str) -> int:
    """Launch one planted bug (child of a sanitizer run)."""
    sys.path.insert(0, str(ROOT))
    import cupy

    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile

    result = compile_source(SourceFile("planted.tx", PLANTED), until="launcher", launcher_name="planted")
    namespace: dict = {}
    exec(compile(result.launcher, "planted_launcher.py", "exec"), namespace)  # tirxc's own output
    kernel = namespace[kernel_name]
    arrays = [cupy.zeros(p["shape"], cupy.float32) for p in kernel.spec["params"] if p["kind"] == "buffer"]
    print(MARK + json.dumps({"event": "start", "case": f"planted.{kernel_name}"}), flush=True)
    try:
        kernel(*arrays)
        cupy.cuda.Device().synchronize()
    except Exception as err:  # memcheck stops the kernel: an error here is expected
        print(MARK + json.dumps({"event": "error", "case": f"planted.{kernel_name}", "error": str(err)[:300]}),
              flush=True)
        return 0
    print(MARK + json.dumps({"event": "done", "case": f"planted.{kernel_name}", "status": "ok"}), flush=True)
    return 0


def _child(sample: str) -> int:
    if sample.startswith("@planted:"):
        return _planted(sample.split(":", 1)[1])
    sys.path.insert(0, str(ROOT))
    import cupy

    from tests.gpu.cases import PARAMS, make_args, to_device
    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile

    def report(**fields):
        print(MARK + json.dumps(fields), flush=True)

    source = SourceFile(f"{sample}.tx", (ROOT / "samples" / f"{sample}.tx").read_text(encoding="utf-8"))
    result = compile_source(source, until="launcher", launcher_name=sample)
    if not result.ok:
        report(event="compile-error", messages=[d.message for d in result.diagnostics])
        return 3
    folder = Path(os.environ.get("TIRXC_SANITIZE_TMP", "/tmp")) / f"tirxc-sanitize-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sample}_launcher.py"
    path.write_text(result.launcher, encoding="utf-8")
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"tirxc_sanitize_{sample}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    cases = [(case_id, case, size) for case_id, case, size in PARAMS if case["sample"] == sample]
    failures = 0
    for case_id, case, size in cases:
        report(event="start", case=case_id)
        began = time.perf_counter()
        try:
            kernel = getattr(module, case["kernel"])
            args = make_args(case, size)
            bases, device_args = to_device(args, case)
            kernel(*device_args)
            cupy.cuda.Device().synchronize()
            after = [cupy.asnumpy(bases[i]) if i in bases else arg for i, arg in enumerate(args)]
        except Exception as err:  # a CUDA error poisons the context: stop here
            report(event="error", case=case_id, error=f"{type(err).__name__}: {err}"[:2000],
                   traceback=traceback.format_exc()[-3000:])
            return 4
        try:
            case["check"](args, after)
            status = "ok"
        except AssertionError as err:
            status = f"check failed: {str(err)[:500]}"
            failures += 1
        report(event="done", case=case_id, status=status, seconds=round(time.perf_counter() - began, 3))
    return 1 if failures else 0


# ---- parent: one sanitizer process per (sample, tool) ----------------------------------------------------

def _samples_and_cases():
    sys.path.insert(0, str(ROOT))
    from tests.gpu.cases import PARAMS
    samples: dict[str, list[str]] = {}
    for case_id, case, _ in PARAMS:
        samples.setdefault(case["sample"], []).append(case_id)
    return samples


def _sample_arch(sample: str) -> tuple[int, str]:
    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile
    source = SourceFile(f"{sample}.tx", (ROOT / "samples" / f"{sample}.tx").read_text(encoding="utf-8"))
    result = compile_source(source, until="cuda")
    match = re.search(r"// Minimum architecture: sm_(\d+)(a?)", result.cuda or "")
    return (int(match.group(1)), match.group(2)) if match else (0, "")


def _device():
    """(name, compute capability as an int like 90) of device 0, asked in a child process so
    that this process does not hold a CUDA context while the sanitizer runs."""
    code = ("import cupy, json; d = cupy.cuda.Device(0); p = cupy.cuda.runtime.getDeviceProperties(0); "
            "print(json.dumps([p['name'].decode() if isinstance(p['name'], bytes) else p['name'], "
            "int(d.compute_capability), cupy.__version__]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot query the GPU: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


_ERROR_SUMMARY = re.compile(r"=+ ERROR SUMMARY: (\d+) errors?")
_RACE_SUMMARY = re.compile(r"=+ RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def _run_one(sanitizer: str, tool: str, sample: str, timeout: float, env) -> dict:
    command = [sanitizer, "--tool", tool, *TOOL_OPTIONS.get(tool, []), "--print-limit", "50",
               sys.executable, str(Path(__file__).resolve()), "--child", sample]
    began = time.time()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(ROOT))
        output, code, status = proc.stdout + proc.stderr, proc.returncode, "finished"
    except subprocess.TimeoutExpired as err:
        output = (err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or "")
        code, status = None, "timeout"
    seconds = round(time.time() - began, 1)
    events = []
    for line in output.splitlines():
        if line.startswith(MARK):
            try:
                events.append(json.loads(line[len(MARK):]))
            except ValueError:
                pass
    summaries = [int(m.group(1)) for m in _ERROR_SUMMARY.finditer(output)]
    races = _RACE_SUMMARY.findall(output)
    # racecheck prints its own summary (hazards, errors, warnings) and no ERROR SUMMARY
    errors = summaries[-1] if summaries else sum(int(e) for _, e, _ in races) if races else None
    warnings = sum(int(w) for _, _, w in races) if races else 0
    cases = [e for e in events if e.get("event") == "done"]
    crashed = [e for e in events if e.get("event") in ("error", "compile-error")]
    if status == "finished" and errors is None:
        status = "no sanitizer summary"
    elif status == "finished" and crashed:
        status = "crashed: " + crashed[0].get("error", crashed[0].get("event"))[:200]
    elif status == "finished" and any(c["status"] != "ok" for c in cases):
        status = "result check failed"
    elif status == "finished" and code not in (0, None):
        status = f"exit {code}"
    elif status == "finished":
        status = "ok"
    # the sanitizer's own report lines, for the JSON (errors and where they happened)
    report = [line for line in output.splitlines() if line.startswith("=========")]
    return {"sample": sample, "tool": tool, "errors": errors, "warnings": warnings, "status": status,
            "exit_code": code, "seconds": seconds, "cases": cases, "crash": crashed,
            "report": report[:400], "output_tail": output[-4000:] if status != "ok" or errors else ""}


def _table(runs) -> str:
    head = ["sample", "tool", "errors", "warnings", "cases", "seconds", "status"]
    rows = [[r["sample"], r["tool"], "-" if r["errors"] is None else str(r["errors"]), str(r.get("warnings", 0)),
             str(len(r.get("cases", []))), f"{r.get('seconds', 0):.1f}", r["status"]] for r in runs]
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", metavar="SAMPLE", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="write the JSON report here")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--samples", help="comma-separated sample stems (default: every sample with GPU cases)")
    parser.add_argument("--jobs", type=int, default=4, help="sanitizer processes at once (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per process (default: %(default)s)")
    parser.add_argument("--sanitizer", help="path of compute-sanitizer (default: PATH, then CUDA_HOME)")
    parser.add_argument("--no-planted", action="store_true",
                        help="skip the planted-bug runs that prove each tool reports errors here")
    args = parser.parse_args(argv)
    if args.child:
        return _child(args.child)

    sanitizer = args.sanitizer or shutil.which("compute-sanitizer")
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if not sanitizer and home and (Path(home) / "bin" / "compute-sanitizer").exists():
            sanitizer = str(Path(home) / "bin" / "compute-sanitizer")
    if not sanitizer:
        print("compute-sanitizer not found (PATH, CUDA_HOME, /usr/local/cuda/bin); use --sanitizer", file=sys.stderr)
        return 2
    try:
        device_name, cc, cupy_version = _device()
    except Exception as err:
        print(f"no usable GPU: {err}", file=sys.stderr)
        return 2
    version = subprocess.run([sanitizer, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    samples = _samples_and_cases()
    if args.samples:
        wanted = [s.strip() for s in args.samples.split(",")]
        samples = {s: samples[s] for s in wanted if s in samples}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")

    jobs, runs = [], []
    for sample in sorted(samples):
        arch, suffix = _sample_arch(sample)
        if arch > cc or (suffix and arch != cc):
            for tool in tools:
                runs.append({"sample": sample, "tool": tool, "errors": None, "warnings": 0, "status":
                             f"skipped: needs sm_{arch}{suffix}, device is sm_{cc}", "cases": [], "seconds": 0})
            continue
        jobs += [(tool, sample) for tool in tools]
    planted = [] if args.no_planted else [(tool, f"@planted:{PLANTED_FOR[tool]}") for tool in tools
                                          if PLANTED_FOR.get(tool)]
    # racecheck runs are the slowest: start them first
    jobs.sort(key=lambda job: (job[0] != "racecheck", job[1]))
    began = time.time()
    planted_runs = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_run_one, sanitizer, tool, sample, args.timeout, env) for tool, sample in jobs]
        checks = [pool.submit(_run_one, sanitizer, tool, child, args.timeout, env) for tool, child in planted]
        for future in futures:
            run = future.result()
            runs.append(run)
            print(f"{run['sample']:<18} {run['tool']:<10} errors={run['errors']} {run['status']} "
                  f"({run['seconds']} s)", file=sys.stderr, flush=True)
        for future in checks:
            run = future.result()
            run["detected"] = bool(run["errors"])
            planted_runs.append(run)
    runs.sort(key=lambda r: (r["sample"], tools.index(r["tool"]) if r["tool"] in tools else 99))
    total = sum(r["errors"] or 0 for r in runs)
    bad = [r for r in runs if not r["status"].startswith(("ok", "skipped"))]
    missed = [r for r in planted_runs if not r["detected"]]
    report = {"device": device_name, "compute_capability": cc, "cupy": cupy_version,
              "sanitizer": version[-1] if version else sanitizer, "tools": tools,
              "wall_seconds": round(time.time() - began, 1), "total_errors": total,
              "runs_not_ok": len(bad), "planted_bugs_missed": len(missed), "runs": runs,
              "planted": planted_runs}
    print(_table(runs))
    for run in planted_runs:
        print(f"planted bug {run['sample'].split(':', 1)[1]:<10} under {run['tool']:<10} "
              f"{'reported' if run['detected'] else 'NOT REPORTED'} ({run['errors']} errors)")
    print(f"\n{len(runs)} runs, {total} sanitizer errors, {len(bad)} runs not ok, {len(missed)} planted bugs "
          f"missed, {report['wall_seconds']} s on {device_name} (sm_{cc})")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"JSON written to {args.out}")
    return 1 if total or bad or missed else 0


if __name__ == "__main__":
    sys.exit(main())
