"""The host-run oracle: a tirxc kernel's `.cu`, compiled as host C++ with g++ and run
for a few threads, so that tests can compare the values the generated code computes
with the values TIRx's semantics give (tests/hostrun/reference.py).

`run_batch(runs)` takes many kernels at once: each `.cu` goes into a namespace of
one translation unit (its `extern "C"`, `#include` and `#line` lines removed),
after `prelude.h` (CUDA's built-ins with CUDA's semantics: `__clz`, `__popc`, the
`min`/`max` overloads, atomics, `threadIdx` ...), and a generated `main()` fills
every buffer, runs the kernel body once per thread (threads in order, blocks in
order), and prints every buffer afterwards; the translation units are compiled in
parallel. A case g++ rejects is reported as such (its lines are known) and the
others are compiled again without it; a case that traps (`__trap()`), crashes
(SIGFPE of an integer division) or hangs is reported and the binary is run again
from the case after it.

Limits: host C++ is not CUDA. Only integer and float32 / float64 kernels (no half,
bfloat16, fp8, vector types, dynamic shared memory, PTX, warp-wide operations,
transcendental functions compared bit for bit); threads run one after another, so
barriers are no-ops and kernels whose threads talk through shared memory are out
of scope; signed overflow wraps (`-fwrapv`, as the GPU's adders do, where C++
leaves it undefined) and floating point is not contracted (`-ffp-contract=off`;
nvcc fuses `a * b + c` by default: keep such expressions out of value tests).
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

PRELUDE = Path(__file__).with_name("prelude.h")
GXX = os.environ.get("TIRXC_HOST_CXX", "g++")
CXXFLAGS = ("-std=c++17", "-O0", "-fwrapv", "-ffp-contract=off", "-w")
SUPPORTED_HEADERS = {"cstdio", "math_constants.h"}
RUN_TIMEOUT = 20.0  # seconds for one run of a binary (a hang costs this once)

# C types of kernel parameters -> (kind, bits)
C_TYPES = {
    "signed char": ("int", 8), "unsigned char": ("uint", 8), "char": ("int", 8), "short": ("int", 16),
    "unsigned short": ("uint", 16), "int": ("int", 32), "unsigned int": ("uint", 32), "long long": ("int", 64),
    "unsigned long long": ("uint", 64), "float": ("float", 32), "double": ("float", 64), "bool": ("bool", 8),
}


def available() -> bool:
    return shutil.which(GXX) is not None


class Unsupported(Exception):
    """The `.cu` uses something the host prelude does not provide (half, a dynamic arena ...)."""


@dataclass
class Param:
    ctype: str  # without const
    name: str
    pointer: bool


@dataclass
class Run:
    """One kernel launch. `args` maps a kernel parameter's source name (`A` for the C
    `A_ptr`, `n` for a scalar `n`) to a list of element values (a buffer) or a number."""
    cuda: str
    args: dict
    grid: tuple = (1, 1, 1)
    block: tuple = (1, 1, 1)
    kernel: str | None = None  # the C symbol; by default the file's first kernel


@dataclass
class Outcome:
    buffers: dict = field(default_factory=dict)  # source name -> list of final values
    printf_count: int = 0
    error: str | None = None  # "host compile: ...", "trap", "crashed: ...", "timeout", "unsupported: ..."

    @property
    def ok(self) -> bool:
        return self.error is None


_KERNEL = re.compile(r'extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s*\n(?:#line [^\n]*\n)?'
                     r'(\w+)\(([^)]*)\) \{')
_PARAM = re.compile(r"^(?:const )?([A-Za-z_][\w ]*?)\s*(\*)?\s*(?:__restrict__\s+)?(\w+)$")


def kernel_params(cuda: str, kernel: str | None = None) -> tuple[str, list[Param]]:
    """The C symbol and parameters of the file's first kernel (or of `kernel`)."""
    for match in _KERNEL.finditer(cuda):
        if kernel is not None and match.group(1) != kernel:
            continue
        params = []
        for text in filter(None, (p.strip() for p in match.group(2).split(","))):
            m = _PARAM.match(text)
            if m is None or m.group(1) not in C_TYPES:
                raise Unsupported(f"kernel parameter `{text}`")
            params.append(Param(m.group(1), m.group(3), bool(m.group(2))))
        return match.group(1), params
    raise Unsupported(f"no kernel {kernel or ''} in the .cu")


def _host_text(cuda: str) -> str:
    """The .cu as the body of a namespace: no extern "C", includes checked and removed."""
    out = []
    guard = False  # inside the template's `#ifndef __CUDACC_RTC__` around <cstdio>
    for line in cuda.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#include"):
            header = stripped[len("#include"):].strip().strip("<>\"")
            if header not in SUPPORTED_HEADERS:
                raise Unsupported(f"#include <{header}>")
            continue
        if stripped == "#ifndef __CUDACC_RTC__" or (guard and stripped == "#endif"):
            guard = not guard
            continue
        if stripped.startswith("#line"):
            continue
        if "extern __shared__" in line:
            raise Unsupported("dynamic shared memory")
        out.append(line.replace('extern "C" __global__', "__global__"))
    return "\n".join(out)


def c_literal(value, ctype: str) -> str:
    kind, bits = C_TYPES[ctype]
    if kind == "float":
        value = float(value)
        if math.isnan(value):
            return "__builtin_nan(\"\")"
        if math.isinf(value):
            return ("-" if value < 0 else "") + "__builtin_inf()"
        return f"({ctype}){value.hex()}"
    value = int(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "uint":
        return f"({ctype}){value}ULL"
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    return f"({ctype}){value}LL"


def parse_value(text: str, ctype: str):
    kind, _ = C_TYPES[ctype]
    if kind == "float":
        return math.nan if text == "nan" else float.fromhex(text)
    return int(text)


def _case_source(index: int, run: Run):
    """(namespace text, main block, C parameters, their source names by position) of one case."""
    symbol, params = kernel_params(run.cuda, run.kernel)
    body = _host_text(run.cuda)
    decls, call, emits = [], [], []
    names = {}
    for slot, p in enumerate(params):
        base = p.name[:-4] if p.pointer and p.name.endswith("_ptr") else p.name
        key = base if base in run.args else base.rstrip("_") if base.rstrip("_") in run.args else None
        if key is None:
            raise Unsupported(f"no value given for kernel parameter `{p.name}`")
        names[slot] = key
        value = run.args[key]
        if p.pointer:
            values = list(value)
            init = ", ".join(c_literal(v, p.ctype) for v in values) or "0"
            decls.append(f"    static {p.ctype} p{slot}[{max(1, len(values))}] = {{{init}}};")
            call.append(f"p{slot}")
            emits.append(f"    for (long i = 0; i < {len(values)}; ++i) tirx_emit({index}, {slot}, i, p{slot}[i]);")
        else:
            call.append(c_literal(value, p.ctype))
    gx, gy, gz = (tuple(run.grid) + (1, 1, 1))[:3]
    bx, by, bz = (tuple(run.block) + (1, 1, 1))[:3]
    main = "\n".join([
        f"  if (start <= {index}) {{",
        f"    fprintf(stdout, \"@@begin {index}\\n\"); fflush(stdout);",
        *decls,
        "    tirx_host_printf_count = 0;",
        f"    gridDim = {{{gx}u, {gy}u, {gz}u}}; blockDim = {{{bx}u, {by}u, {bz}u}};",
        "    try {",
        f"      for (unsigned z = 0; z < {gz}u; ++z) for (unsigned y = 0; y < {gy}u; ++y) "
        f"for (unsigned x = 0; x < {gx}u; ++x)",
        f"      for (unsigned k = 0; k < {bz}u; ++k) for (unsigned j = 0; j < {by}u; ++j) "
        f"for (unsigned i = 0; i < {bx}u; ++i) {{",
        "        blockIdx = {x, y, z}; threadIdx = {i, j, k};",
        f"        c{index}::{symbol}({', '.join(call)});",
        "      }",
        "    } catch (tirx_host_trap&) {",
        f"      fprintf(stdout, \"@@trap {index}\\n\");",
        "    }",
        *emits,
        f"    fprintf(stdout, \"@@end {index} %ld\\n\", tirx_host_printf_count); fflush(stdout);",
        "  }",
    ])
    return f"namespace c{index} {{\n{body}\n}}  // namespace c{index}\n", main, params, names


def _compile(folder: str, name: str, sources: dict[int, tuple]) -> tuple[str | None, dict[int, str]]:
    """Compile the cases; (binary, {case: g++ error}) -- cases g++ rejects are left out and
    the rest compiled again."""
    failed: dict[int, str] = {}
    prelude = PRELUDE.read_text(encoding="utf-8")
    while True:
        live = [i for i in sources if i not in failed]
        if not live:
            return None, failed
        parts, spans, line = [prelude], {}, prelude.count("\n") + 1
        for i in live:
            text = sources[i][0]
            spans[i] = (line, line + text.count("\n"))
            parts.append(text)
            line += text.count("\n")
        parts.append("int main(int argc, char** argv) {\n  int start = argc > 1 ? atoi(argv[1]) : 0;\n"
                     + "\n".join(sources[i][1] for i in live) + "\n  return 0;\n}\n")
        path = os.path.join(folder, name + ".cpp")
        Path(path).write_text("".join(parts), encoding="utf-8")
        binary = os.path.join(folder, name)
        proc = subprocess.run([GXX, *CXXFLAGS, path, "-o", binary], capture_output=True, text=True, timeout=600)
        if proc.returncode == 0:
            return binary, failed
        blamed = {}
        for m in re.finditer(rf"{re.escape(name)}\.cpp:(\d+):\d+: (?:fatal )?error: (.*)", proc.stderr):
            where = int(m.group(1))
            for i, (lo, hi) in spans.items():
                if lo <= where <= hi:
                    blamed.setdefault(i, m.group(2))
        if not blamed:  # an error outside the cases (the prelude, main): every case fails with it
            message = proc.stderr.strip()[-2000:]
            return None, {**failed, **{i: message for i in live}}
        for i, message in blamed.items():
            failed[i] = f"host compile: {message}"


def _execute(binary: str, indices: list[int]) -> dict[int, tuple[list[str], str | None]]:
    """Run the binary from the first case on, again after a case that crashed or hung."""
    out: dict[int, tuple[list[str], str | None]] = {}
    position = 0
    while position < len(indices):
        start = indices[position]
        try:
            proc = subprocess.run([binary, str(start)], capture_output=True, text=True, timeout=RUN_TIMEOUT)
            stdout, status, timed_out = proc.stdout, proc.returncode, False
        except subprocess.TimeoutExpired as err:
            stdout = (err.stdout or b"").decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
            status, timed_out = None, True
        current, lines, finished = None, [], set()
        for line in stdout.splitlines():
            if line.startswith("@@begin "):
                current, lines = int(line.split()[1]), []
            elif line.startswith("@@end ") and current is not None:
                out[current] = (lines + [line], None)
                finished.add(current)
                current = None
            elif current is not None:
                lines.append(line)
        if current is None and status == 0:
            for i in indices[position:]:
                if i not in out:
                    out[i] = ([], "no output")
            break
        problem = "timeout" if timed_out else f"crashed (exit status {status})"
        if current is None:  # died between cases: blame the next one
            current = next((i for i in indices[position:] if i not in out), None)
            if current is None:
                break
        out[current] = (lines, problem)
        position = indices.index(current) + 1
    return out


def run_batch(runs: list[Run], jobs: int | None = None) -> list[Outcome]:
    """Run every kernel; one Outcome per Run, in order."""
    outcomes = [Outcome() for _ in runs]
    sources, meta = {}, {}
    for i, run in enumerate(runs):
        try:
            namespace, main, params, names = _case_source(i, run)
        except Unsupported as err:
            outcomes[i].error = f"unsupported: {err}"
            continue
        sources[i] = (namespace, main)
        meta[i] = (params, names)
    if not sources:
        return outcomes
    jobs = jobs or max(1, min(4, os.cpu_count() or 1, len(sources) // 8 or 1))
    keys = sorted(sources)
    chunks = [keys[k::jobs] for k in range(jobs)]
    with tempfile.TemporaryDirectory(prefix="tirxc-hostrun-") as folder:
        def work(item):
            n, chunk = item
            binary, failed = _compile(folder, f"batch{n}", {i: sources[i] for i in chunk})
            results = _execute(binary, [i for i in chunk if i not in failed]) if binary else {}
            return failed, results

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(work, enumerate(chunks)))
    for failed, results in done:
        for i, message in failed.items():
            outcomes[i].error = message
        for i, (lines, problem) in results.items():
            params, names = meta[i]
            outcome = outcomes[i]
            for line in lines:
                if line.startswith("@@trap"):
                    outcome.error = "trap"
                elif line.startswith("@@end "):
                    outcome.printf_count = int(line.split()[2])
                elif line.startswith("@@ "):
                    _, _, slot, index, value = line.split()
                    p = params[int(slot)]
                    outcome.buffers.setdefault(names[int(slot)], []).append(parse_value(value, p.ctype))
            if problem:
                outcome.error = problem
    return outcomes


def run_one(run: Run) -> Outcome:
    return run_batch([run], jobs=1)[0]
