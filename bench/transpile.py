#!/usr/bin/env python3
"""Transpile-speed benchmark of tirxc (CPU only).

Three measurements, written to bench/results/transpile.json and plotted under
docs/img/ (see docs/benchmarks.md for the method and the numbers):

1. process to process, against the reference implementation
   (apache-tvm-tirx 0.1.0a4, installed by this script into bench/.venv-ref):
   `python -m transpiler samples/<s>.tx -o out.cu` versus
   `bench/.venv-ref/bin/python bench/reference/<s>.py out.cu`, alternating,
   fresh processes, median of --runs (default 10) after one untimed warm-up
   of each. The reference's CUDA of each sample is saved under
   bench/reference_cu/ for bench/gpu.py.
2. in process: the driver's stage functions (parse, check, lower, emit, and
   the launcher) called directly, per sample and per kernel, the parser
   already built; and the reference's parse (its decorator) and compile.
3. scaling: generated kernels of 100 ... 20,000 statements, time per stage,
   tracemalloc peak, and the peak RSS of a fresh `tirxc` process.

Usage: python bench/transpile.py [--runs N] [--quick] [--no-reference] [--no-plot]
(`make bench` runs it with the project's virtual environment.)
"""
from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
SAMPLES_DIR = ROOT / "samples"
REF_DIR = BENCH / "reference"
REF_CU_DIR = BENCH / "reference_cu"
REF_VENV = BENCH / ".venv-ref"
REF_REQUIREMENTS = BENCH / "requirements-ref.txt"
RESULTS = BENCH / "results" / "transpile.json"
IMG_DIR = ROOT / "docs" / "img"
SCALING_SIZES = (100, 1000, 5000, 20000)

sys.path.insert(0, str(ROOT))


# ----------------------------------------------------------------------------- helpers

def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def _summary(samples_s: list[float]) -> dict:
    """Median / min / max in milliseconds, and the raw runs."""
    return {"median": _ms(statistics.median(samples_s)), "min": _ms(min(samples_s)),
            "max": _ms(max(samples_s)), "runs": [_ms(s) for s in samples_s]}


def run_timed(cmd: list[str], cwd: Path = ROOT, timeout: float = 600.0) -> tuple[float, int, str]:
    """Run one fresh process: (wall seconds, exit status, stderr tail)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return time.perf_counter() - start, -9, "timed out"
    return time.perf_counter() - start, proc.returncode, stderr.decode("utf-8", "replace")[-2000:]


def run_rss(cmd: list[str], cwd: Path = ROOT, timeout: float = 600.0) -> tuple[float, int, int]:
    """Run one process: (wall seconds, its own peak RSS in KiB, exit status).

    os.wait4 returns the rusage of exactly this child, so ru_maxrss is its own peak."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.002)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, int(usage.ru_maxrss), proc.returncode


def sample_names() -> list[str]:
    return sorted(p.stem for p in SAMPLES_DIR.glob("*.tx"))


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "transpiler", "grammar", "templates"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# ----------------------------------------------------------------------------- reference venv

def ref_python() -> Path:
    return REF_VENV / "bin" / "python"


def ensure_reference_venv() -> tuple[Path | None, str]:
    """bench/.venv-ref with the reference and matplotlib; created on first use.

    Returns (python, note); python is None when it could not be set up."""
    python = ref_python()
    probe = [str(python), "-c", "import tvm_tirx, matplotlib; print(tvm_tirx.__version__)"]
    if python.exists():
        out = subprocess.run(probe, capture_output=True, text=True)
        if out.returncode == 0:
            return python, out.stdout.strip()
    print(f"[bench] setting up {REF_VENV.relative_to(ROOT)} (apache-tvm-tirx, matplotlib) ...", flush=True)
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(REF_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(REF_REQUIREMENTS)], check=True)
    except (OSError, subprocess.CalledProcessError) as err:
        return None, f"could not install the reference: {err}"
    out = subprocess.run(probe, capture_output=True, text=True)
    if out.returncode != 0:
        return None, "reference installed but does not import: " + out.stderr.strip()[-500:]
    return python, out.stdout.strip()


# ----------------------------------------------------------------------------- 1. process to process

def bench_processes(samples: list[str], runs: int, reference: Path | None, out_dir: Path) -> list[dict]:
    rows = []
    for name in samples:
        tx = SAMPLES_DIR / f"{name}.tx"
        ours_out = out_dir / f"{name}.tirxc.cu"
        ref_out = out_dir / f"{name}.ref.cu"
        ref_script = REF_DIR / f"{name}.py"
        ours_cmd = [sys.executable, "-m", "transpiler", str(tx), "-o", str(ours_out)]
        ref_cmd = [str(reference), str(ref_script), str(ref_out)] if reference and ref_script.exists() else None
        row = {"sample": name, "kernels": count_kernels(tx)}

        # warm-up (page cache, .pyc files) and a check that both tools succeed
        _, rc, err = run_timed(ours_cmd)
        if rc != 0:
            row["tirxc_error"] = err.strip().splitlines()[-1] if err.strip() else f"exit {rc}"
            ours_cmd = None
        if ref_cmd is not None:
            _, rc, err = run_timed(ref_cmd)
            if rc != 0:
                row["reference_status"] = "cannot express: " + (err.strip().splitlines()[-1] if err.strip()
                                                                  else f"exit {rc}")
                ref_cmd = None
            else:
                row["reference_status"] = "ok"
        else:
            row["reference_status"] = "no translation" if reference else "reference not installed"

        ours, theirs = [], []
        for i in range(runs):
            order = [(ours_cmd, ours), (ref_cmd, theirs)]
            if i % 2:
                order.reverse()
            for cmd, sink in order:
                if cmd is not None:
                    elapsed, rc, _ = run_timed(cmd)
                    if rc == 0:
                        sink.append(elapsed)
        if ours:
            row["tirxc_ms"] = _summary(ours)
        if theirs:
            row["reference_ms"] = _summary(theirs)
        if ours and theirs:
            row["ratio"] = round(statistics.median(theirs) / statistics.median(ours), 2)
        if ref_cmd is not None and ref_out.exists():
            save_reference_cu(name, ref_out.read_text(encoding="utf-8"))
        rows.append(row)
        print(f"  {name:18s} tirxc {row.get('tirxc_ms', {}).get('median', '-'):>8} ms   "
              f"reference {row.get('reference_ms', {}).get('median', '-'):>8} ms   "
              f"ratio {row.get('ratio', '-')}", flush=True)
    return rows


def save_reference_cu(name: str, text: str) -> None:
    """Commit-stable copy of the reference's CUDA for bench/gpu.py (written only when it changed)."""
    REF_CU_DIR.mkdir(parents=True, exist_ok=True)
    header = (f"// CUDA generated by the reference implementation (apache-tvm-tirx 0.1.0a4) from\n"
              f"// bench/reference/{name}.py by bench/transpile.py. Do not edit.\n")
    path = REF_CU_DIR / f"{name}.cu"
    new = header + text
    if not path.exists() or path.read_text(encoding="utf-8") != new:
        path.write_text(new, encoding="utf-8")


def count_kernels(tx: Path) -> int:
    return sum(1 for line in tx.read_text(encoding="utf-8").splitlines() if line.strip().startswith("@T.prim_func"))


# ----------------------------------------------------------------------------- 2. in process

def _stage_functions():
    from transpiler.check import check
    from transpiler.diagnostics import Diagnostics
    from transpiler.emit import render_cuda
    from transpiler.launcher import render_launcher
    from transpiler.lower import lower
    from transpiler.parse import parse
    from transpiler.source import SourceFile
    return SourceFile, Diagnostics, parse, check, lower, render_cuda, render_launcher


def time_stages(name: str, text: str, min_runs: int = 30, min_seconds: float = 0.5, max_runs: int = 2000) -> dict:
    """Median milliseconds of each stage over repeated full pipelines of one source."""
    SourceFile, Diagnostics, parse, check, lower, render_cuda, render_launcher = _stage_functions()
    per = {"parse": [], "check": [], "lower": [], "emit": [], "launcher": []}
    kernels = 0
    gc.collect()
    started = time.perf_counter()
    runs = 0
    while runs < max_runs and (runs < min_runs or time.perf_counter() - started < min_seconds):
        source = SourceFile(f"{name}.tx", text)
        diags = Diagnostics()
        t0 = time.perf_counter()
        module = parse(source, diags)
        t1 = time.perf_counter()
        checked = check(module, source, diags)
        t2 = time.perf_counter()
        program = lower(checked, diags)
        t3 = time.perf_counter()
        cuda = render_cuda(program)
        t4 = time.perf_counter()
        render_launcher(program, cuda, module_name=name)
        t5 = time.perf_counter()
        if diags.has_errors:
            raise RuntimeError(f"{name}: tirxc reported errors")
        for key, value in zip(per, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            per[key].append(value)
        kernels = len(program.kernels)
        runs += 1
    row = {"sample": name, "kernels": kernels, "runs": runs}
    for key, values in per.items():
        row[f"{key}_ms"] = _ms(statistics.median(values))
    row["cuda_ms"] = round(sum(row[f"{k}_ms"] for k in ("parse", "check", "lower", "emit")), 3)
    row["per_kernel_ms"] = round(row["cuda_ms"] / max(kernels, 1), 3)
    return row


def bench_stages(samples: list[str], quick: bool) -> tuple[list[dict], dict]:
    # The first call builds the Lark parser; measure that once, separately.
    from transpiler import parse as parse_module
    SourceFile, Diagnostics, parse, *_ = _stage_functions()
    for value in list(vars(parse_module).values()):  # the lru_cache'd parser builder, whatever its name
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
    t0 = time.perf_counter()
    parse(SourceFile("warm.tx", (SAMPLES_DIR / "smem_demo.tx").read_text()), Diagnostics())
    first_parse = time.perf_counter() - t0
    rows = []
    for name in samples:
        text = (SAMPLES_DIR / f"{name}.tx").read_text(encoding="utf-8")
        try:
            rows.append(time_stages(name, text, min_runs=10 if quick else 30, min_seconds=0.2 if quick else 0.5))
        except Exception as err:  # one broken sample must not stop the bench
            rows.append({"sample": name, "error": f"{type(err).__name__}: {err}"})
        r = rows[-1]
        print(f"  {name:18s} " + ("  ".join(f"{k} {r[k + '_ms']:.3f}" for k in ("parse", "check", "lower", "emit"))
                                  if "error" not in r else r["error"]) + " ms", flush=True)
    return rows, {"first_parse_ms": _ms(first_parse)}


def bench_reference_inprocess(reference: Path | None, samples: list[str], quick: bool) -> list[dict]:
    if reference is None:
        return []
    cmd = [str(reference), str(REF_DIR / "_inprocess.py"), "--repeat", "5" if quick else "15", *samples]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        print("  reference in-process timing failed:", out.stderr.strip()[-800:])
        return []
    return json.loads(out.stdout)


# ----------------------------------------------------------------------------- 3. scaling

def scaling_source(statements: int, spelling: str = "tirxc") -> str:
    """A kernel with exactly `statements` statements after its fixed prologue.

    The body cycles through five statement shapes (a scalar update, a buffer
    store, an `if`, a `for` loop and a `let` with a use), so every stage sees
    the mix a hand-written kernel has; nested statements count."""
    n = 1024
    if spelling == "tirxc":
        head = [
            "from tvm.script import tirx as T",
            "",
            f"N = {n}",
            "",
            "",
            "@T.prim_func",
            "def big(A_ptr: T.handle, B_ptr: T.handle):",
            "    A = T.match_buffer(A_ptr, (N,), \"float32\")",
            "    B = T.match_buffer(B_ptr, (N,), \"float32\")",
            "    T.device_entry()",
            "    bx = T.cta_id([1])",
            "    tx = T.thread_id([256])",
            "    acc: T.float32 = 0.0",
        ]
    else:
        head = [
            "from tvm_tirx.script import tirx as T",
            "import _emit",
            "",
            f"N = {n}",
            "",
            "",
            "@T.function",
            "def big(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\")):",
            "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))",
            "    tx = T.cuda.thread_idx(\"x\")",
            "    acc: T.float32 = 0.0",
        ]
    body: list[str] = []
    count = 0
    k = 0
    while count < statements:
        left = statements - count
        shape = k % 5
        if shape == 0 or left < 2:
            body.append(f"    acc = acc + A[(tx + {k}) % N] * T.float32({k % 7 + 1}.0)")
            count += 1
        elif shape == 1:
            body.append(f"    B[(tx * 4 + {k}) % N] = acc * T.float32(0.5)")
            count += 1
        elif shape == 2:
            body.append(f"    if acc > T.float32({k % 100}.0):")
            body.append("        acc = acc - T.float32(1.0)")
            count += 2
        elif shape == 3:
            body.append(f"    for i in range({k % 4 + 1}):")
            body.append(f"        acc = acc + A[(tx + i + {k}) % N]")
            count += 2
        else:
            body.append(f"    t{k}: T.let = (tx + {k}) % N")
            body.append(f"    B[t{k}] = A[t{k}] + acc")
            count += 2
        k += 1
    tail = ["    B[tx] = acc", ""]
    if spelling != "tirxc":
        tail += ["", "if __name__ == \"__main__\":", "    _emit.main({\"big\": big})", ""]
    return "\n".join(head + body + tail)


def bench_scaling(sizes, reference: Path | None, out_dir: Path, quick: bool, reference_max: int) -> list[dict]:
    SourceFile, Diagnostics, parse, check, lower, render_cuda, _ = _stage_functions()
    rows = []
    for size in sizes:
        text = scaling_source(size)
        path = out_dir / f"scaling_{size}.tx"
        path.write_text(text, encoding="utf-8")
        row: dict = {"statements": size, "source_lines": text.count("\n")}
        try:
            reps = 1 if size >= 20000 or quick else 3
            timing = time_stages(f"scaling_{size}", text, min_runs=reps, min_seconds=0.0, max_runs=reps)
            row["tirxc"] = {k: timing[k] for k in ("parse_ms", "check_ms", "lower_ms", "emit_ms", "launcher_ms",
                                                   "cuda_ms")}
            # Peak Python memory of one pipeline run (tracemalloc slows the run, so it is timed apart).
            gc.collect()
            tracemalloc.start()
            source = SourceFile(path.name, text)
            diags = Diagnostics()
            cuda = render_cuda(lower(check(parse(source, diags), source, diags), diags))
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            row["tirxc"]["tracemalloc_peak_mb"] = round(peak / 2**20, 2)
            row["tirxc"]["cuda_lines"] = cuda.count("\n")
            proc_runs = [run_rss([sys.executable, "-m", "transpiler", str(path), "-o", str(out_dir / f"scaling_{size}.cu")])
                         for _ in range(1 if quick else 3)]
            if any(rc != 0 for _, _, rc in proc_runs):
                row["tirxc"]["process_error"] = "tirxc exited non-zero"
            row["tirxc"]["process_ms"] = _ms(statistics.median(t for t, _, _ in proc_runs))
            row["tirxc"]["process_maxrss_mb"] = round(max(r for _, r, _ in proc_runs) / 1024, 1)
        except Exception as err:
            row["tirxc"] = {"error": f"{type(err).__name__}: {err}"}
        if reference is not None and size <= reference_max:
            ref_path = REF_DIR / f"_scaling_{size}.py"
            try:
                ref_path.write_text(scaling_source(size, "reference"), encoding="utf-8")
                t, rss, rc = run_rss([str(reference), str(ref_path), str(out_dir / f"scaling_{size}.ref.cu")],
                                     timeout=600)
                row["reference"] = ({"process_ms": _ms(t), "process_maxrss_mb": round(rss / 1024, 1)} if rc == 0
                                    else {"error": f"exit {rc}"})
            finally:
                ref_path.unlink(missing_ok=True)
        rows.append(row)
        ours = row["tirxc"]
        print(f"  {size:6d} statements: " + (f"in-process {ours['cuda_ms']:.1f} ms, process {ours['process_ms']:.0f} ms, "
                                              f"tracemalloc peak {ours['tracemalloc_peak_mb']} MB, "
                                              f"maxrss {ours['process_maxrss_mb']} MB" if "error" not in ours
                                              else ours["error"])
              + (f"; reference process {row['reference'].get('process_ms', row['reference'].get('error'))} ms"
                 if "reference" in row else ""), flush=True)
    return rows


# ----------------------------------------------------------------------------- hot spots

def bench_hotspots(out_dir: Path) -> dict:
    """Where a fresh tirxc process spends its time (see docs/benchmarks.md)."""
    spots: dict = {}
    python = sys.executable
    # Interpreter start, tirxc's imports, and the whole CLI on the smallest sample.
    spots["python_startup_ms"] = _ms(statistics.median(run_timed([python, "-c", "pass"])[0] for _ in range(7)))
    spots["import_cli_ms"] = _ms(statistics.median(
        run_timed([python, "-c", "import transpiler.cli, transpiler.driver, transpiler.parse, transpiler.check, "
                   "transpiler.lower, transpiler.emit"])[0] for _ in range(7)))
    spots["cli_smem_demo_ms"] = _ms(statistics.median(
        run_timed([python, "-m", "transpiler", str(SAMPLES_DIR / "smem_demo.tx"), "-o",
                   str(out_dir / "smem_demo.cu")])[0] for _ in range(7)))
    # The Lark parser is built from the grammar in every process: the first parse
    # of a process pays for it (measured as first parse minus a second one).
    code = (
        "import time\n"
        "from transpiler.parse import parse\n"
        "from transpiler.diagnostics import Diagnostics\n"
        "from transpiler.source import SourceFile\n"
        "import sys\n"
        "text = open(sys.argv[1]).read()\n"
        "t0 = time.perf_counter(); parse(SourceFile('a.tx', text), Diagnostics())\n"
        "t1 = time.perf_counter(); parse(SourceFile('a.tx', text), Diagnostics())\n"
        "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)\n"
    )
    firsts, seconds = [], []
    for _ in range(5):
        out = subprocess.run([python, "-c", code, str(SAMPLES_DIR / "smem_demo.tx")], cwd=ROOT, capture_output=True,
                             text=True)
        if out.returncode == 0:
            first, second = map(float, out.stdout.split())
            firsts.append(first)
            seconds.append(second)
    if firsts:
        spots["first_parse_ms"] = _ms(statistics.median(firsts))
        spots["second_parse_ms"] = _ms(statistics.median(seconds))
        spots["parser_build_ms"] = round(spots["first_parse_ms"] - spots["second_parse_ms"], 3)
    # What-if: the same CLI with Lark's grammar-analysis cache (Lark(..., cache=PATH)),
    # injected from outside by a shim; tirxc's code is not changed.
    shim = out_dir / "tirxc_lark_cache_shim.py"
    shim.write_text(
        "import sys, lark\n"
        f"CACHE = {str(out_dir / 'lark.cache')!r}\n"
        "_init = lark.Lark.__init__\n"
        "def _cached(self, *args, **kwargs):\n"
        "    kwargs.setdefault('cache', CACHE)\n"
        "    _init(self, *args, **kwargs)\n"
        "lark.Lark.__init__ = _cached\n"
        "from transpiler.cli import main\n"
        "main(sys.argv[1:])\n", encoding="utf-8")
    shim_cmd = [python, str(shim), str(SAMPLES_DIR / "smem_demo.tx"), "-o", str(out_dir / "smem_demo.cu")]
    _, rc, err = run_timed(shim_cmd)  # writes the cache
    if rc == 0:
        spots["cli_smem_demo_with_lark_cache_ms"] = _ms(statistics.median(run_timed(shim_cmd)[0] for _ in range(7)))
    else:
        spots["cli_with_lark_cache_error"] = err.strip()[-400:]
    # The slowest imports of a CLI process (self time, -X importtime), median of 3 processes.
    per_module: dict[str, list[int]] = {}
    for _ in range(3):
        out = subprocess.run([python, "-X", "importtime", "-m", "transpiler", str(SAMPLES_DIR / "smem_demo.tx"),
                              "-o", str(out_dir / "smem_demo.cu")], cwd=ROOT, capture_output=True, text=True)
        for line in out.stderr.splitlines():
            if line.startswith("import time:") and "|" in line:
                parts = [p.strip() for p in line[len("import time:"):].split("|")]
                if parts[0].isdigit():
                    per_module.setdefault(parts[2].strip(), []).append(int(parts[0]))
    ranked = sorted(((statistics.median(v), k) for k, v in per_module.items()), reverse=True)[:12]
    spots["slowest_imports_self_ms"] = {k: round(us / 1000, 2) for us, k in ranked}
    spots["transpiler_imports_self_ms"] = round(sum(statistics.median(v) for k, v in per_module.items()
                                                    if k.startswith("transpiler")) / 1000, 1)
    return spots


# ----------------------------------------------------------------------------- report

def machine_info(reference_version: str | None) -> dict:
    try:
        import lark
        lark_version = lark.__version__
    except ImportError:
        lark_version = None
    from transpiler import __version__
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "tirxc": __version__, "git": git_commit(), "lark": lark_version,
        "reference": f"apache-tvm-tirx {reference_version}" if reference_version else None,
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def print_tables(results: dict) -> None:
    print("\n## Process to process (median ms)\n")
    print("| sample | kernels | tirxc | reference | ratio |")
    print("|---|---:|---:|---:|---:|")
    for r in results["process"]:
        ref = r.get("reference_ms", {}).get("median")
        print(f"| {r['sample']} | {r['kernels']} | {r.get('tirxc_ms', {}).get('median', '—')} | "
              f"{ref if ref is not None else r.get('reference_status', '—')} | {r.get('ratio', '—')} |")
    print("\n## In process, per stage (median ms per sample)\n")
    print("| sample | kernels | parse | check | lower | emit | CUDA total | per kernel | launcher |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["stages"]:
        if "error" in r:
            print(f"| {r['sample']} | | {r['error']} |")
            continue
        print(f"| {r['sample']} | {r['kernels']} | {r['parse_ms']:.3f} | {r['check_ms']:.3f} | {r['lower_ms']:.3f} | "
              f"{r['emit_ms']:.3f} | {r['cuda_ms']:.3f} | {r['per_kernel_ms']:.3f} | {r['launcher_ms']:.3f} |")
    if results.get("reference_inprocess"):
        print("\n## Reference in process (median ms per sample)\n")
        print("| sample | parse (decorator) | compile to CUDA |")
        print("|---|---:|---:|")
        for r in results["reference_inprocess"]:
            print(f"| {r['sample']} | {r.get('parse_ms', '—')} | {r.get('compile_ms', r.get('error', '—'))} |")
    print("\n## Scaling\n")
    print("| statements | parse | check | lower | emit | in-process total | tracemalloc peak | process | process peak RSS |"
          " reference process |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["scaling"]:
        o = r["tirxc"]
        ref = r.get("reference", {})
        if "error" in o:
            print(f"| {r['statements']} | {o['error']} |")
            continue
        print(f"| {r['statements']} | {o['parse_ms']:.1f} | {o['check_ms']:.1f} | {o['lower_ms']:.1f} | "
              f"{o['emit_ms']:.1f} | {o['cuda_ms']:.1f} ms | {o['tracemalloc_peak_mb']} MB | {o['process_ms']:.0f} ms | "
              f"{o['process_maxrss_mb']} MB | "
              f"{str(ref.get('process_ms', ref.get('error', '—'))) + (' ms' if 'process_ms' in ref else '')} |")
    print("\n## Hot spots\n")
    print(json.dumps(results.get("hotspots", {}), indent=2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="fresh processes per tool and sample (default 10)")
    ap.add_argument("--quick", action="store_true", help="fewer runs everywhere (a smoke test, not for the docs)")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference implementation")
    ap.add_argument("--no-plot", action="store_true", help="do not draw docs/img/*.png")
    ap.add_argument("--samples", nargs="*", help="only these samples")
    ap.add_argument("--sizes", nargs="*", type=int, default=list(SCALING_SIZES), help="scaling sizes")
    ap.add_argument("--reference-scaling-max", type=int, default=5000,
                    help="largest generated kernel also given to the reference (default 5000)")
    ap.add_argument("--out", type=Path, default=RESULTS, help="JSON results path")
    args = ap.parse_args(argv)
    runs = 3 if args.quick and args.runs == 10 else args.runs
    samples = args.samples or sample_names()

    reference, reference_version = (None, None)
    if not args.no_reference:
        reference, note = ensure_reference_venv()
        if reference is None:
            print(f"[bench] reference unavailable: {note}; continuing without it")
        else:
            reference_version = note

    work = Path(tempfile.mkdtemp(prefix="tirxc-bench-"))
    try:
        results = {"meta": machine_info(reference_version)}
        results["meta"]["runs"] = runs
        print(f"[bench] 1/4 process to process ({runs} alternating runs per tool and sample)", flush=True)
        results["process"] = bench_processes(samples, runs, reference, work)
        print("[bench] 2/4 in process, per stage", flush=True)
        results["stages"], results["parser_build"] = bench_stages(samples, args.quick)
        results["reference_inprocess"] = bench_reference_inprocess(reference, samples, args.quick)
        print("[bench] 3/4 scaling", flush=True)
        results["scaling"] = bench_scaling(args.sizes, reference, work, args.quick, args.reference_scaling_max)
        print("[bench] 4/4 hot spots", flush=True)
        results["hotspots"] = bench_hotspots(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    results["meta"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"[bench] wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    print_tables(results)
    if not args.no_plot:
        plotter = reference or (ref_python() if ref_python().exists() else None)
        if plotter is None:
            print("[bench] no bench venv with matplotlib: plots skipped")
        else:
            out = subprocess.run([str(plotter), str(BENCH / "plot.py"), str(args.out), str(IMG_DIR)],
                                 capture_output=True, text=True)
            print(out.stdout.strip() or out.stderr.strip()[-800:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
