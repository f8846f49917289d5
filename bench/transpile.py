#!/usr/bin/env python3
"""Transpile-speed benchmark of tirxc (CPU only).

Three measurements, written to bench/results/transpile.json and plotted under
docs/img/ (see docs/benchmarks.md for the method and the numbers):

1. process to process, against the reference implementation
   (apache-tvm-tirx 0.1.0a4, installed by this script into bench/.venv-ref):
   `tirxc samples/<s>.tx -o out.cu` versus
   `bench/.venv-ref/bin/python bench/reference/<s>.py out.cu`, alternating,
   fresh processes, median of --runs (default 10) after one untimed warm-up
   of each. tirxc is measured as users install it: built into a wheel and
   installed (not editable) into bench/out/venv-tirxc, rebuilt from the tree
   on every run of this script; the project's editable .venv
   (`python -m transpiler`, whose import hook costs a few milliseconds) is
   measured beside it. Without a wheel (no network for the build
   dependencies), the editable install is the one reported. The reference's CUDA of each sample is saved under
   bench/reference_cu/ for bench/gpu.py.
2. in process: the driver's stage functions (parse, check, lower, emit, and
   the launcher) called directly, per sample and per kernel, the parser
   already built; and the reference's parse (its decorator) and compile.
3. scaling: generated kernels of 100 ... 20,000 statements, time per stage,
   tracemalloc peak, and the peak RSS of a fresh `tirxc` process; and, on the
   largest, the parsing floor: Lark's own lexer and LALR parser on tirxc's
   grammar and CPython's `tokenize`, against tirxc's parse; and the growth
   curve on arena views (bench/growth.py).

Usage: python bench/transpile.py [--runs N] [--quick] [--no-reference] [--no-plot]
(`make bench` runs it with the project's virtual environment.)
`--speed`: only every sample's time per process and the growth curve at 5,000 to
20,000 views, the editable tree (bench/speed.py).
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
WHEEL_VENV = BENCH / "out" / "venv-tirxc"  # bench/out/ is ignored by git
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


# Children run with bytecode caching on, as in a normal install, into a private
# cache (PYTHONPYCACHEPREFIX): the warm-up run of each tool fills it. (This
# machine sets PYTHONDONTWRITEBYTECODE=1, which would make every tirxc process
# recompile tirxc's modules from source while the reference's site-packages
# come with .pyc files written by pip.)
CHILD_ENV = dict(os.environ)


def set_child_env(pycache: Path | None) -> None:
    CHILD_ENV.clear()
    CHILD_ENV.update(os.environ)
    if pycache is not None:
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(pycache)


def run_proc(cmd: list[str], cwd: Path = ROOT, timeout: float = 600.0, env: dict | None = None) -> dict:
    """Run one fresh process. Returns wall and CPU seconds (user + system of exactly
    this child, from os.wait4), its peak RSS in KiB, exit status and stderr tail.

    CPU time is reported beside wall time because this machine is shared: other
    processes inflate wall time far more than CPU time."""
    import threading
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err, env=env or CHILD_ENV)
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")[-2000:]
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kb": int(usage.ru_maxrss),
            "rc": proc.returncode, "stderr": stderr}


def _last_line(text: str, rc: int) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else f"exit {rc}"


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


# ----------------------------------------------------------------------------- tirxc installed from its wheel

def ensure_wheel_install() -> tuple[Path | None, str]:
    """bench/out/venv-tirxc with tirxc installed from a wheel of this tree (not editable),
    as `pip install tirxc` would give users; reinstalled on every run so that it
    measures the tree as it is. Returns (the `tirxc` script, note); None when it
    could not be built."""
    python = WHEEL_VENV / "bin" / "python"
    script = WHEEL_VENV / "bin" / "tirxc"
    print(f"[bench] installing tirxc from a wheel into {WHEEL_VENV.relative_to(ROOT)} ...", flush=True)
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(WHEEL_VENV)], check=True)
        with tempfile.TemporaryDirectory(prefix="tirxc-wheel-") as work:
            # Built from a copy: an in-tree build would reuse (and package) stale files of build/lib.
            tree = Path(work) / "src"
            for part in ("transpiler", "grammar", "templates"):
                shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
            for part in ("pyproject.toml", "README.md"):
                shutil.copy2(ROOT / part, tree / part)
            subprocess.run([str(python), "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", work, str(tree)],
                           check=True, capture_output=True)
            wheel = next(Path(work).glob("tirxc-*.whl"))
            for options in (["--force-reinstall", "--no-deps"], []):  # this tree's tirxc, then its dependencies
                subprocess.run([str(python), "-m", "pip", "install", "--quiet", *options, str(wheel)],
                               check=True, capture_output=True)
    except (OSError, StopIteration, subprocess.CalledProcessError) as err:
        detail = err.stderr.decode("utf-8", "replace").strip()[-300:] if getattr(err, "stderr", None) else err
        return None, f"could not install tirxc from a wheel: {detail}"
    return script, f"wheel, {WHEEL_VENV.relative_to(ROOT)}"


# ----------------------------------------------------------------------------- 1. process to process

def bench_processes(samples: list[str], runs: int, reference: Path | None, out_dir: Path,
                    installed: Path | None = None) -> list[dict]:
    """`installed`: the `tirxc` script of the wheel install; the editable .venv is timed beside it."""
    rows = []
    for name in samples:
        tx = SAMPLES_DIR / f"{name}.tx"
        ours_out = out_dir / f"{name}.tirxc.cu"
        ref_out = out_dir / f"{name}.ref.cu"
        ref_script = REF_DIR / f"{name}.py"
        editable_cmd = [sys.executable, "-m", "transpiler", str(tx), "-o", str(ours_out)]
        ours_cmd = [str(installed), str(tx), "-o", str(ours_out)] if installed else editable_cmd
        if installed is None:
            editable_cmd = None  # it is the main measurement
        ref_cmd = [str(reference), str(ref_script), str(ref_out)] if reference and ref_script.exists() else None
        row = {"sample": name, "kernels": count_kernels(tx)}

        # warm-up (page cache, .pyc files) and a check that both tools succeed
        first = run_proc(ours_cmd)
        if first["rc"] != 0:
            row["tirxc_error"] = _last_line(first["stderr"], first["rc"])
            ours_cmd = None
        if editable_cmd is not None and run_proc(editable_cmd)["rc"] != 0:
            editable_cmd = None
        if ref_cmd is not None:
            first = run_proc(ref_cmd)
            if first["rc"] != 0:
                row["reference_status"] = "cannot express: " + _last_line(first["stderr"], first["rc"])
                ref_cmd = None
            else:
                row["reference_status"] = "ok"
        else:
            row["reference_status"] = "no translation" if reference else "reference not installed"

        ours, theirs, editable = [], [], []
        for i in range(runs):
            order = [(ours_cmd, ours), (ref_cmd, theirs), (editable_cmd, editable)]
            if i % 2:
                order.reverse()
            for cmd, sink in order:
                if cmd is not None:
                    run = run_proc(cmd)
                    if run["rc"] == 0:
                        sink.append(run)
        for key, runs_ in (("tirxc", ours), ("reference", theirs), ("tirxc_editable", editable)):
            if runs_:
                row[key] = {"wall_ms": _summary([r["wall"] for r in runs_]),
                            "cpu_ms": _summary([r["cpu"] for r in runs_]),
                            "peak_rss_mb": round(max(r["rss_kb"] for r in runs_) / 1024, 1)}
        if ours and theirs:
            for kind in ("wall", "cpu"):
                row[f"ratio_{kind}"] = round(statistics.median(r[kind] for r in theirs)
                                             / statistics.median(r[kind] for r in ours), 2)
        if ref_cmd is not None and ref_out.exists():
            save_reference_cu(name, ref_out.read_text(encoding="utf-8"))
        rows.append(row)
        get = lambda tool, kind: row.get(tool, {}).get(f"{kind}_ms", {}).get("median", "-")  # noqa: E731
        print(f"  {name:18s} wall: tirxc {get('tirxc', 'wall'):>8} ms, reference {get('reference', 'wall'):>8} ms, "
              f"ratio {row.get('ratio_wall', '-')};  CPU: tirxc {get('tirxc', 'cpu'):>8} ms, "
              f"reference {get('reference', 'cpu'):>8} ms, ratio {row.get('ratio_cpu', '-')}"
              + (f";  editable install wall {get('tirxc_editable', 'wall')} ms" if editable else ""), flush=True)
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
    return sum(1 for line in tx.read_text(encoding="utf-8").splitlines() if line.strip().startswith(("@T.prim_func", "@T.function")))


# ----------------------------------------------------------------------------- 2. in process

def _stage_functions():
    from transpiler.sema.check import check
    from transpiler.diag.diagnostics import Diagnostics
    from transpiler.codegen.cuda import render_cuda
    from transpiler.codegen.launcher import render_launcher
    from transpiler.lower.lower import lower
    from transpiler.syntax.parse import parse
    from transpiler.syntax.source import SourceFile
    return SourceFile, Diagnostics, parse, check, lower, render_cuda, render_launcher


def time_stages(name: str, text: str, min_runs: int = 30, min_seconds: float = 0.5, max_runs: int = 2000) -> dict:
    """Median milliseconds of each stage over repeated full pipelines of one source:
    `<stage>_ms` is CPU time (time.process_time), `<stage>_wall_ms` wall time."""
    SourceFile, Diagnostics, parse, check, lower, render_cuda, render_launcher = _stage_functions()
    stages = ("parse", "check", "lower", "emit", "launcher")
    cpu = {k: [] for k in stages}
    wall = {k: [] for k in stages}
    kernels = 0
    gc.collect()
    started = time.perf_counter()
    runs = 0
    clock = time.process_time
    gc.disable()  # the stages run with the cyclic collector paused, as driver.compile_source runs them
    try:
        while runs < max_runs and (runs < min_runs or time.perf_counter() - started < min_seconds):
            source = SourceFile(f"{name}.tx", text)
            diags = Diagnostics()
            marks = [(time.perf_counter(), clock())]
            module = parse(source, diags)
            marks.append((time.perf_counter(), clock()))
            checked = check(module, source, diags)
            marks.append((time.perf_counter(), clock()))
            program = lower(checked, diags)
            marks.append((time.perf_counter(), clock()))
            cuda = render_cuda(program)
            marks.append((time.perf_counter(), clock()))
            render_launcher(program, cuda, module_name=name)
            marks.append((time.perf_counter(), clock()))
            if diags.has_errors:
                raise RuntimeError(f"{name}: tirxc reported errors")
            for i, key in enumerate(stages):
                wall[key].append(marks[i + 1][0] - marks[i][0])
                cpu[key].append(marks[i + 1][1] - marks[i][1])
            kernels = len(program.kernels)
            runs += 1
            gc.collect()  # untimed: the garbage of this run, not left to the next
    finally:
        gc.enable()
    row = {"sample": name, "kernels": kernels, "runs": runs}
    for key in stages:
        row[f"{key}_ms"] = _ms(statistics.median(cpu[key]))
        row[f"{key}_wall_ms"] = _ms(statistics.median(wall[key]))
    row["cuda_ms"] = round(sum(row[f"{k}_ms"] for k in ("parse", "check", "lower", "emit")), 3)
    row["cuda_wall_ms"] = round(sum(row[f"{k}_wall_ms"] for k in ("parse", "check", "lower", "emit")), 3)
    row["per_kernel_ms"] = round(row["cuda_ms"] / max(kernels, 1), 3)
    return row


def bench_stages(samples: list[str], quick: bool) -> tuple[list[dict], dict]:
    # The first call loads the grammar tables; measure that once, separately.
    from transpiler.syntax.grammar import compiled_grammar
    SourceFile, Diagnostics, parse, *_ = _stage_functions()
    compiled_grammar.cache_clear()  # the grammar tables, loaded by a process's first parse
    t0 = time.process_time()
    parse(SourceFile("warm.tx", (SAMPLES_DIR / "smem_demo.tx").read_text()), Diagnostics())
    first_parse = time.process_time() - t0
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
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800, env=CHILD_ENV)
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
            proc_runs = [run_proc([sys.executable, "-m", "transpiler", str(path), "-o",
                                   str(out_dir / f"scaling_{size}.cu")]) for _ in range(1 if quick else 3)]
            if any(r["rc"] != 0 for r in proc_runs):
                row["tirxc"]["process_error"] = _last_line(proc_runs[0]["stderr"], proc_runs[0]["rc"])
            row["tirxc"]["process_ms"] = _ms(statistics.median(r["cpu"] for r in proc_runs))
            row["tirxc"]["process_wall_ms"] = _ms(statistics.median(r["wall"] for r in proc_runs))
            row["tirxc"]["process_maxrss_mb"] = round(max(r["rss_kb"] for r in proc_runs) / 1024, 1)
        except Exception as err:
            row["tirxc"] = {"error": f"{type(err).__name__}: {err}"}
        if reference is not None and size <= reference_max:
            ref_path = REF_DIR / f"_scaling_{size}.py"
            try:
                ref_path.write_text(scaling_source(size, "reference"), encoding="utf-8")
                run = run_proc([str(reference), str(ref_path), str(out_dir / f"scaling_{size}.ref.cu")], timeout=900)
                row["reference"] = ({"process_ms": _ms(run["cpu"]), "process_wall_ms": _ms(run["wall"]),
                                     "process_maxrss_mb": round(run["rss_kb"] / 1024, 1)} if run["rc"] == 0
                                    else {"error": _last_line(run["stderr"], run["rc"])})
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


def bench_parsing_floor(size: int) -> dict:
    """What the prescribed parsing stack costs on the `size`-statement kernel before tirxc
    builds anything: Lark's own lexer (with its Python-style indenter) and its LALR parser
    (a parse tree with positions, as `propagate_positions` gives them) on grammar/tirx.lark,
    and CPython's pure-Python `tokenize` module; beside tirxc's whole parse (tokens, layout,
    automaton and AST). Best of a few runs, CPU seconds, parser construction excluded."""
    import io
    import tokenize

    from lark import Lark, __version__ as lark_version
    from lark.indenter import PythonIndenter

    SourceFile, Diagnostics, parse, *_ = _stage_functions()
    text = scaling_source(size)
    lark = Lark((ROOT / "grammar" / "tirx.lark").read_text(encoding="utf-8"), parser="lalr",
                postlex=PythonIndenter(), propagate_positions=True, maybe_placeholders=True)

    def best(run, times: int) -> float:
        # with the cyclic collector off, as tirxc's parse runs (transpiler/parse.py)
        seconds = []
        for _ in range(times):
            gc.collect()
            gc.disable()
            start = time.process_time()
            try:
                run()
            finally:
                seconds.append(time.process_time() - start)
                gc.enable()
        return _ms(min(seconds))

    floor = {"statements": size, "lark_version": lark_version,
             "tokens": sum(1 for _ in lark.lex(text))}
    floor["lark_lexer_ms"] = best(lambda: sum(1 for _ in lark.lex(text)), 3)
    floor["lark_parse_tree_ms"] = best(lambda: lark.parse(text), 2)
    floor["python_tokenize_ms"] = best(lambda: sum(1 for _ in tokenize.generate_tokens(io.StringIO(text).readline)), 3)
    floor["tirxc_parse_ms"] = best(lambda: parse(SourceFile("scaling.tx", text), Diagnostics()), 3)
    print(f"  parsing floor at {size} statements: Lark lexer {floor['lark_lexer_ms']:.0f} ms, Lark LALR parse "
          f"{floor['lark_parse_tree_ms']:.0f} ms, Python tokenize {floor['python_tokenize_ms']:.0f} ms; "
          f"tirxc parse {floor['tirxc_parse_ms']:.0f} ms", flush=True)
    return floor


# ----------------------------------------------------------------------------- hot spots

def bench_hotspots(out_dir: Path) -> dict:
    """Where a fresh tirxc process spends its time (CPU ms; see docs/benchmarks.md)."""
    spots: dict = {}
    python = sys.executable
    # Interpreter start, tirxc's imports, and the whole CLI on the smallest sample.
    cpu7 = lambda cmd: _ms(statistics.median(run_proc(cmd)["cpu"] for _ in range(7)))  # noqa: E731
    spots["python_startup_ms"] = cpu7([python, "-c", "pass"])
    spots["import_cli_ms"] = cpu7([python, "-c", "import transpiler.cli.main, transpiler.driver, transpiler.syntax.parse, "
                                           "transpiler.sema.check, transpiler.lower.lower, transpiler.codegen.cuda"])
    spots["cli_smem_demo_ms"] = cpu7([python, "-m", "transpiler", str(SAMPLES_DIR / "smem_demo.tx"), "-o",
                                      str(out_dir / "smem_demo.cu")])
    no_cache = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    no_cache.pop("PYTHONPYCACHEPREFIX", None)
    spots["cli_smem_demo_without_bytecode_cache_ms"] = _ms(statistics.median(
        run_proc([python, "-m", "transpiler", str(SAMPLES_DIR / "smem_demo.tx"), "-o", str(out_dir / "smem_demo.cu")],
                 env=no_cache)["cpu"] for _ in range(5)))
    # The first parse of a process loads the grammar tables (transpiler/syntax/tables.py)
    # and compiles the lexer's patterns it meets (measured as first parse minus a second one).
    code = (
        "import time\n"
        "from transpiler.syntax.parse import parse\n"
        "from transpiler.diag.diagnostics import Diagnostics\n"
        "from transpiler.syntax.source import SourceFile\n"
        "import sys\n"
        "text = open(sys.argv[1]).read()\n"
        "t0 = time.process_time(); parse(SourceFile('a.tx', text), Diagnostics())\n"
        "t1 = time.process_time(); parse(SourceFile('a.tx', text), Diagnostics())\n"
        "t2 = time.process_time(); print(t1 - t0, t2 - t1)\n"
    )
    firsts, seconds = [], []
    for _ in range(5):
        out = subprocess.run([python, "-c", code, str(SAMPLES_DIR / "smem_demo.tx")], cwd=ROOT, capture_output=True,
                             text=True, env=CHILD_ENV)
        if out.returncode == 0:
            first, second = map(float, out.stdout.split())
            firsts.append(first)
            seconds.append(second)
    if firsts:
        spots["first_parse_ms"] = _ms(statistics.median(firsts))
        spots["second_parse_ms"] = _ms(statistics.median(seconds))
        spots["parser_build_ms"] = round(spots["first_parse_ms"] - spots["second_parse_ms"], 3)
    # The slowest imports of a CLI process (self time, -X importtime), median of 3 processes.
    per_module: dict[str, list[int]] = {}
    for _ in range(3):
        out = subprocess.run([python, "-X", "importtime", "-m", "transpiler", str(SAMPLES_DIR / "smem_demo.tx"),
                              "-o", str(out_dir / "smem_demo.cu")], cwd=ROOT, capture_output=True, text=True,
                             env=CHILD_ENV)
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
    med = lambda row, tool, kind: row.get(tool, {}).get(f"{kind}_ms", {}).get("median")  # noqa: E731
    fmt = lambda v: "—" if v is None else f"{v:.0f}"  # noqa: E731
    print("\n## Process to process (median ms of fresh processes; CPU = user + system)\n")
    print(f"tirxc installed as: {results['meta'].get('tirxc_install', 'editable')}\n")
    print("| sample | kernels | tirxc wall | reference wall | ratio (wall) | tirxc CPU | reference CPU | ratio (CPU) "
          "| editable install wall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["process"]:
        status = r.get("reference_status", "")
        ref_wall = fmt(med(r, "reference", "wall")) if "reference" in r else status
        print(f"| {r['sample']} | {r['kernels']} | {fmt(med(r, 'tirxc', 'wall'))} | {ref_wall} | "
              f"{r.get('ratio_wall', '—')} | {fmt(med(r, 'tirxc', 'cpu'))} | {fmt(med(r, 'reference', 'cpu'))} | "
              f"{r.get('ratio_cpu', '—')} | {fmt(med(r, 'tirxc_editable', 'wall'))} |")
    print("\n## In process, per stage (median CPU ms per sample; the parser already built)\n")
    print("| sample | kernels | parse | check | lower | emit | CUDA total | per kernel | wall total | launcher |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["stages"]:
        if "error" in r:
            print(f"| {r['sample']} | | {r['error']} |")
            continue
        print(f"| {r['sample']} | {r['kernels']} | {r['parse_ms']:.2f} | {r['check_ms']:.2f} | {r['lower_ms']:.2f} | "
              f"{r['emit_ms']:.2f} | {r['cuda_ms']:.2f} | {r['per_kernel_ms']:.2f} | {r['cuda_wall_ms']:.2f} | "
              f"{r['launcher_ms']:.2f} |")
    if results.get("reference_inprocess"):
        print("\n## Reference in process (median CPU ms per sample)\n")
        print("| sample | parse (decorator) | compile to CUDA | total |")
        print("|---|---:|---:|---:|")
        for r in results["reference_inprocess"]:
            print(f"| {r['sample']} | {r.get('parse_ms', '—')} | {r.get('compile_ms', r.get('error', '—'))} | "
                  f"{r.get('total_ms', '—')} |")
    print("\n## Scaling (CPU ms unless marked wall)\n")
    print("| statements | parse | check | lower | emit | in-process total | tracemalloc peak | process CPU | "
          "process wall | process peak RSS | reference process CPU | reference wall | reference peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["scaling"]:
        o = r["tirxc"]
        ref = r.get("reference", {})
        if "error" in o:
            print(f"| {r['statements']} | {o['error']} |")
            continue
        ref_cells = (f"{ref['process_ms']:.0f} | {ref['process_wall_ms']:.0f} | {ref['process_maxrss_mb']} MB"
                     if "process_ms" in ref else f"{ref.get('error', '—')} | | ")
        print(f"| {r['statements']} | {o['parse_ms']:.0f} | {o['check_ms']:.0f} | {o['lower_ms']:.0f} | "
              f"{o['emit_ms']:.0f} | {o['cuda_ms']:.0f} | {o['tracemalloc_peak_mb']} MB | {o['process_ms']:.0f} | "
              f"{o['process_wall_ms']:.0f} | {o['process_maxrss_mb']} MB | {ref_cells} |")
    if results.get("views_growth"):
        import growth
        print("\n## Growth on arena views (bench/growth.py)\n\n" + growth.table(results["views_growth"]))
    floor = results.get("parsing_floor")
    if floor:
        print(f"\n## Parsing floor at {floor['statements']:,} statements ({floor['tokens']:,} tokens; CPU ms)\n")
        print(f"| Lark {floor['lark_version']} lexer + indenter | Lark LALR parse tree with positions | "
              "Python `tokenize` | tirxc parse (tokens to AST) |")
        print("|---:|---:|---:|---:|")
        print(f"| {floor['lark_lexer_ms']:,.0f} | {floor['lark_parse_tree_ms']:,.0f} | "
              f"{floor['python_tokenize_ms']:,.0f} | {floor['tirxc_parse_ms']:,.0f} |")
    print("\n## Hot spots (CPU ms)\n")
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
    ap.add_argument("--editable", action="store_true",
                    help="time the project's editable .venv only (default: a wheel install, the .venv beside it)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="leave PYTHONDONTWRITEBYTECODE as the environment has it (default: cache bytecode)")
    ap.add_argument("--speed", action="store_true",
                    help="only every sample's time per process and the growth curve (bench/speed.py)")
    args = ap.parse_args(argv)
    if args.speed:
        import speed  # bench/speed.py
        return speed.main(["--runs", str(args.runs if args.runs != 10 else 5)]
                          + (["--samples", *args.samples] if args.samples else []))
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
    set_child_env(None if args.no_bytecode else work / "pycache")
    try:
        results = {"meta": machine_info(reference_version)}
        results["meta"]["runs"] = runs
        results["meta"]["bytecode_cache"] = not args.no_bytecode
        installed, install_note = (None, "editable, .venv") if args.editable else ensure_wheel_install()
        if installed is None and not args.editable:
            print(f"[bench] {install_note}; timing the editable .venv instead", flush=True)
        results["meta"]["tirxc_install"] = install_note if installed else "editable, .venv"
        print(f"[bench] 1/4 process to process ({runs} alternating runs per tool and sample)", flush=True)
        results["process"] = bench_processes(samples, runs, reference, work, installed)
        print("[bench] 2/4 in process, per stage", flush=True)
        results["stages"], results["parser_build"] = bench_stages(samples, args.quick)
        results["reference_inprocess"] = bench_reference_inprocess(reference, samples, args.quick)
        print("[bench] 3/4 scaling", flush=True)
        results["scaling"] = bench_scaling(args.sizes, reference, work, args.quick, args.reference_scaling_max)
        import growth  # bench/growth.py: the growth curve on arena views
        results["views_growth"] = growth.measure(growth.VIEWS, work, 1 if args.quick else 3, CHILD_ENV)
        results["parsing_floor"] = bench_parsing_floor(max(args.sizes))
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
