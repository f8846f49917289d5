"""The fuzzing invariants, shared by the CI tests (tests/fuzz/test_fuzz.py) and
the long campaign (tests/fuzz/campaign.py).

`check_input(text)` runs the whole pipeline in process through the compile
function the CLI calls (`transpiler.cli.files.compile_file`, else
`transpiler.driver.compile_file`; bytes, as the CLI reads them; up to the
launcher) and returns a `Finding` when an invariant is broken, else an `Outcome`:

* no exception escapes the pipeline (the CLI would print `tirxc: internal
  error` and exit 3 -- never acceptable);
* the input finishes within a time bound (`TIME_LIMIT` seconds, enforced with
  SIGALRM where the platform has it);
* a rejected input has at least one error, and every diagnostic and note
  points inside the file (line within the file, column within the line or one
  past its end, end not before start); rendering them does not fail;
* an accepted input has CUDA text and a launcher; the CUDA encodes as UTF-8,
  the launcher is valid Python, and `--emit ast` works;
* no call with side effects (atomics, printf, `T.cuda.func_call`, PTX) appears in
  the kernels' CUDA more often than the source can evaluate it (T.unroll copies
  counted), nor in a `for` header's condition or increment (tests/fuzz/effects.py).

Whether an accepted input's `.cu` compiles is checked by `nvcc_check`
(sampled: nvcc takes about a second per file).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path

from transpiler.syntax import ast as tx_ast
from . import effects
from transpiler.diag.diagnostics import Renderer
from transpiler import driver
from transpiler.cli import files as cli_files

# The CLI's own entry point where it has one (it turns some library exceptions into
# diagnostics of the input), else the library's.
compile_file = getattr(cli_files, "compile_file", driver.compile_file)
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT = 10.0  # seconds per input; the slowest sample takes about 0.2 s
RECURSION_LIMIT = 10000  # what cli.main sets


def seed_files() -> list[Path]:
    """Every sample and every `.tx` file of the test suites, in a stable order."""
    files = sorted((ROOT / "samples").glob("*.tx")) + sorted((ROOT / "tests").rglob("*.tx"))
    return [f for f in files if ".venv" not in f.parts]


def seed_texts() -> list[tuple[str, str]]:
    out = []
    for path in seed_files():
        try:
            out.append((path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    return out


@dataclass
class Outcome:
    accepted: bool
    codes: tuple[str, ...] = ()
    cuda: str | None = None
    launcher: str | None = None
    inline_sources: tuple[str, ...] = ()  # the T.cuda.func_call sources, pasted into the .cu as they are


@dataclass
class Finding:
    """A broken invariant: `kind` is crash, hang, location, render, output, effects."""
    kind: str
    message: str
    signature: str  # what buckets equal findings together
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class InputTimeout(BaseException):
    """Raised inside the pipeline by the alarm; a BaseException so that no
    `except Exception` of the code under test swallows it."""


class _Alarm:
    """SIGALRM-based time bound for the current (main) thread; a no-op elsewhere."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.active = (seconds > 0 and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread())

    def _fire(self, signum, frame):
        raise InputTimeout()

    def __enter__(self):
        if self.active:
            self.previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def _crash_signature(err: BaseException) -> str:
    """Exception type plus the innermost frame inside transpiler/ (file:function:line)."""
    frames = traceback.extract_tb(err.__traceback__)
    inner = [f for f in frames if "transpiler" in Path(f.filename).parts]
    where = inner[-1] if inner else (frames[-1] if frames else None)
    place = f"{Path(where.filename).name}:{where.name}:{where.lineno}" if where else "?"
    return f"{type(err).__name__}@{place}"


def spans_inside(source: SourceFile, diagnostics) -> str | None:
    """None when every span of every diagnostic is a real position of the file."""
    for d in diagnostics:
        spans = [d.span] + [n.span for n in d.notes if n.span is not None]
        for span in spans:
            if span.file != source.name:
                return f"{d.code} names file {span.file!r}, not {source.name!r}: {d.message}"
            if not 1 <= span.line <= source.line_count:
                return f"{d.code} at line {span.line} of a {source.line_count}-line file: {d.message}"
            if not 1 <= span.col <= len(source.line_text(span.line)) + 1:
                return f"{d.code} at {span.line}:{span.col}, past the end of the line: {d.message}"
            if (span.end_line, span.end_col) < (span.line, span.col):
                return f"{d.code} span ends before it starts ({span}): {d.message}"
    return None


def check_input(text: str, name: str = "fuzz.tx", *, time_limit: float = TIME_LIMIT,
                line_info: bool = False) -> Outcome | Finding:
    """Run one input through the pipeline, as the CLI does (bytes through
    `compile_file`), and check every invariant."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    data = text.encode("utf-8", "surrogatepass")  # what the CLI would read from a file
    try:
        with _Alarm(time_limit):
            result = compile_file(name, data, until="launcher", launcher_name="fuzz_kernels", line_info=line_info)
            source = result.source
            rendered = None
            if result.diagnostics:
                try:
                    rendered = Renderer(source).render_all(result.diagnostics)
                except Exception as err:
                    return Finding("render", f"{type(err).__name__}: {err}", "render:" + _crash_signature(err),
                                   traceback.format_exc())
            dump = tx_ast.dump(result.module) if result.ok and result.module is not None else None
    except InputTimeout:
        return Finding("hang", f"no result within {time_limit:g} s", "hang")
    except RecursionError as err:
        return Finding("crash", f"RecursionError: {err}", _crash_signature(err), traceback.format_exc())
    except Exception as err:
        return Finding("crash", f"{type(err).__name__}: {err}", _crash_signature(err), traceback.format_exc())
    problem = spans_inside(source, result.diagnostics)
    if problem:
        return Finding("location", problem, "location:" + problem.split(" ", 1)[0])
    codes = tuple(d.code for d in result.diagnostics if d.severity == "error")
    if not result.ok:
        if not codes:
            return Finding("output", "rejected without an error", "output:no-error")
        return Outcome(False, codes)
    if result.cuda is None or result.launcher is None:
        return Finding("output", "accepted without CUDA or launcher text", "output:missing")
    for what, out in (("CUDA", result.cuda), ("launcher", result.launcher), ("diagnostics", rendered or ""),
                      ("AST dump", dump or "")):
        try:
            out.encode("utf-8")
        except UnicodeEncodeError as err:
            return Finding("output", f"the {what} text is not valid UTF-8: {err}", f"output:utf8:{what}")
    try:
        compile(result.launcher, "fuzz_kernels.py", "exec")
    except SyntaxError as err:
        return Finding("output", f"the launcher is not valid Python: {err}", "output:launcher-syntax")
    sources = tuple(getattr(result.program, "func_sources", {}).values())
    problem = effects.check(result.module, result.cuda, sources)
    if problem:
        return Finding("effects", problem, "effects:" + problem.split("`")[1] if "`" in problem else "effects")
    return Outcome(True, (), result.cuda, result.launcher, sources)


# ---- nvcc -----------------------------------------------------------------------------------------------

NVCC_FLAGS = ("--std=c++17", "-c")
# Warnings that can only come from how tirxc spells things (not from the generated
# program's own arithmetic, which may divide by zero or read a register before
# writing it): each fails the check like an error.
OUR_WARNINGS = re.compile(r"trigraph|bidirectional|backslash.{0,20}newline|multi-line comment|null character"
                          r"|universal character|unrecognized token|#line", re.I)


def nvcc_available() -> bool:
    return shutil.which("nvcc") is not None


def nvcc_target(cuda: str) -> str:
    """The architecture a file is compiled for: its recorded minimum, at least sm_80."""
    match = re.search(r"// Minimum architecture: sm_(\d+)(a?)", cuda)
    number, suffix = (int(match.group(1)), match.group(2)) if match else (80, "")
    if number < 80:
        number, suffix = 80, ""
    return f"{number}{suffix}"


def nvcc_check(cuda: str, timeout: float = 300) -> str | None:
    """None when nvcc compiles the text; else nvcc's message."""
    arch = nvcc_target(cuda)
    with tempfile.TemporaryDirectory(prefix="tirxc-fuzz-") as folder:
        path = os.path.join(folder, "k.cu")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(cuda)
        try:
            proc = subprocess.run(["nvcc", "-gencode", f"arch=compute_{arch},code=sm_{arch}", *NVCC_FLAGS, path,
                                   "-o", os.path.join(folder, "k.o")], capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"nvcc took longer than {timeout:g} s"
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        return output or f"nvcc exited with {proc.returncode}"
    if OUR_WARNINGS.search(output):
        return "warning: " + output
    return None


_ERROR_LINE = re.compile(r"k\.cu(?:\((\d+)\)|:(\d+):\d+): (?:fatal )?error")


def blames_inline_source(message: str, cuda: str, sources) -> bool:
    """True when every error nvcc reports lies inside the `T.cuda.func_call` sources, which
    tirxc pastes into the .cu unchanged (a mutant that corrupted them is the user's CUDA)."""
    inside: set[int] = set()
    for source in sources:
        text = source.strip("\n")
        index = cuda.find(text) if text else -1
        if index >= 0:
            first = cuda.count("\n", 0, index) + 1
            inside.update(range(first, first + text.count("\n") + 1))
    lines = [int(a or b) for a, b in _ERROR_LINE.findall(message)]
    return bool(lines) and all(line in inside for line in lines)


def digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
