#!/usr/bin/env python3
"""Generated-kernel speed on a GPU: tirxc's CUDA against a hand-written twin
(bench/cuda/<sample>.cu) and against the reference implementation's CUDA
(bench/reference_cu/<sample>.cu, generated on a CPU by bench/transpile.py).

All three are compiled the same way (cupy.RawModule, NVRTC, --std=c++17),
launched with the same grid, block, dynamic shared bytes and inputs (from
tests/gpu/cases.py, at benchmark sizes where the kernel takes a symbolic
length), checked against NumPy, and timed with CUDA events (CUDA-graph
replay of back-to-back launches, interleaved rounds, median). Also measured:
a device-to-device copy of the float4 copy's bytes, cuBLAS SGEMM and
FP16 GEMM (cupy.matmul) next to the two GEMM kernels, NVRTC compile time per .cu (fresh, no CuPy cache), and the
host time per launch through tirxc's generated launcher against a bare
RawKernel call.

On the GPU machine, from the repository root (no tirxc install needed; lark
comes from the carried wheel in .whl/):

    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/lark-*.whl
    PYTHONPATH=.:/tmp/site python3 bench/gpu.py --out gpu.json

Without a GPU, `--dry-run` generates and checks everything it would run (the
sources, every kernel's parameter mapping and launch) and, where NVRTC is
importable (CuPy installed), compiles every .cu for --arch and times it:

    PYTHONPATH=. python bench/gpu.py --dry-run
"""
from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
HAND_DIR = BENCH / "cuda"
REF_CU_DIR = BENCH / "reference_cu"
SAMPLES_DIR = ROOT / "samples"
VARIANTS = ("tirxc", "hand", "reference")
NVRTC_OPTIONS = ("--std=c++17",)   # what tirxc's launcher passes
TIME_BUDGET_S = 170.0              # soft deadline: optional parts are skipped past it

sys.path.insert(0, str(ROOT))

# One entry per kernel: the case of tests/gpu/cases.py that supplies inputs and
# the NumPy check, the kernel's parameters in declaration order (names as in
# the .tx: the CUDA parameter of buffer X is X_ptr), its symbolic extents, its
# global workspaces (hidden pointer parameters: {name: (dtype, elements from the
# extents)}, zero-filled before every launch as tirxc's launcher does), and the
# benchmark size for kernels over a symbolic length.
KERNELS = [
    dict(case="smem_demo.smem_demo", params=["A", "B"]),
    dict(case="dyn_smem_views.dyn", params=["A", "B", "C"]),
    dict(case="layout_views.add_one_row_major", params=["A", "B"]),
    dict(case="layout_views.add_one_col_major", params=["A", "B"]),
    dict(case="layout_views.add_one_offset", params=["A", "B"]),
    dict(case="layout_views.add_one_stride16", params=["A", "B"]),
    dict(case="registers_unroll.registers_unroll", params=["A", "B"]),
    dict(case="scalars.scalars_explicit", params=["A", "B", "C"]),
    dict(case="scalars.scalars_sugar", params=["A", "B", "C"]),
    dict(case="let_binding.let_const", params=["A", "B"]),
    dict(case="let_binding.let_runtime.m5", params=["A", "B", "m"]),
    dict(case="buffer_api.pointers", params=["A", "B", "C", "D"]),
    dict(case="buffer_api.vector_copy", params=["A", "B"]),
    dict(case="buffer_api.view_permute", params=["A", "B", "C"]),
    dict(case="block_reduce.block_reduce", params=["A", "B"]),
    dict(case="block_reduce.block_reduce_warp_tail", params=["A", "B"]),
    dict(case="warp_reduce.warp_reduce_xor", params=["A", "B"]),
    dict(case="warp_reduce.warp_reduce_down", params=["A", "B"]),
    dict(case="float4_copy.float4_copy", params=["A", "B"], extents={"n": (0, 0)}, size=1 << 24,
         bytes=lambda n: 2 * n * 16),
    dict(case="sgemm_tiled.sgemm_tiled", params=["A", "B", "C"], flops=2 * 1024 ** 3,
         cublas=dict(title="SGEMM 1024³", precision="FP32", transpose_b=False)),
    dict(case="mma_gemm_fp16.mma_gemm", params=["A", "B", "C"], flops=2 * 1024 ** 3,
         cublas=dict(title="FP16 GEMM 1024³ (C = A @ B^T)", precision="FP16 in and out, FP32 accumulation",
                     transpose_b=True)),
    dict(case="smem_pool.smem_pool", params=["A", "B", "C"]),
    dict(case="relu_inline.relu_inline", params=["A", "B"]),
    dict(case="saxpy.saxpy", params=["a", "x", "y"], extents={"n": (1, 0)}, size=1 << 25,
         bytes=lambda n: 3 * n * 4),
    dict(case="global_workspace.global_sum", params=["A", "total"], extents={"n": (0, 0)}, size=1 << 24,
         workspaces={"partials": ("float32", lambda e: (e["n"] + 255) // 256), "tickets": ("int32", lambda e: 1)},
         bytes=lambda n: n * 4),
    dict(case="dyn_smem_large.dyn_smem_large", params=["A", "B"]),
    dict(case="math_ops.int_ops", params=["A", "B", "C"]),
    dict(case="math_ops.float_ops", params=["X", "I", "H", "Y", "HO"]),
    dict(case="control_flow.control_flow", params=["A", "B"]),
]
DRY_RUN_SIZE = 4099                 # symbolic lengths in a dry run: no huge host arrays
LAUNCHER_KERNELS = [("saxpy", "saxpy", 1 << 12), ("math_ops", "float_ops", None)]

_SIGNATURE = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                        r'(\w+)\s*\(([^)]*)\)\s*\{', re.S)
_SCALAR_TYPES = {"float": "float32", "double": "float64", "int": "int32", "unsigned int": "uint32",
                 "uint": "uint32", "int64_t": "int64", "long long": "int64", "uint64_t": "uint64",
                 "bool": "bool", "half": "float16", "__half": "float16", "int32_t": "int32"}
_POINTER_TYPES = {"float": "float32", "double": "float64", "int": "int32", "half": "float16", "__half": "float16",
                  "int32_t": "int32", "int64_t": "int64", "uint8_t": "uint8", "int8_t": "int8",
                  "unsigned int": "uint32", "uint": "uint32", "uint16_t": "uint16", "unsigned short": "uint16"}


# ----------------------------------------------------------------------------- sources

def use_source_checkout() -> None:
    """Make `transpiler.grammar` / `transpiler.templates` importable from a source
    checkout run with PYTHONPATH=. (no install): installed, they are packages of
    the wheel; here they are the top-level grammar/ and templates/ folders."""
    import importlib.util
    import transpiler
    for sub in ("grammar", "templates"):
        try:
            found = importlib.util.find_spec(f"transpiler.{sub}") is not None
        except ModuleNotFoundError:
            found = False
        if not found and (ROOT / sub).is_dir() and str(ROOT) not in transpiler.__path__:
            transpiler.__path__.append(str(ROOT))


def generate_tirxc(out_dir: Path) -> dict:
    """tirxc's .cu and launcher for every sample: {sample: {"cuda": text, "launcher": path,
    "arch": (minimum architecture, suffix)}}."""
    use_source_checkout()
    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile
    out = {}
    for tx in sorted(SAMPLES_DIR.glob("*.tx")):
        result = compile_source(SourceFile(tx.name, tx.read_text(encoding="utf-8")), until="launcher",
                                launcher_name=tx.stem)
        if not result.ok:
            out[tx.stem] = {"error": "; ".join(str(d.message) for d in result.diagnostics)[:500]}
            continue
        cu = out_dir / f"{tx.stem}.tirxc.cu"
        cu.write_text(result.cuda, encoding="utf-8")
        launcher = out_dir / f"{tx.stem}_launcher.py"
        launcher.write_text(result.launcher, encoding="utf-8")
        out[tx.stem] = {"cuda": result.cuda, "launcher": launcher,
                        "arch": (result.program.min_arch, result.program.arch_suffix)}
    return out


def load_sources(tirxc: dict) -> dict:
    """{sample: {variant: CUDA text or None}}."""
    sources = {}
    for sample, info in tirxc.items():
        hand = HAND_DIR / f"{sample}.cu"
        ref = REF_CU_DIR / f"{sample}.cu"
        sources[sample] = {
            "tirxc": info.get("cuda"),
            "hand": hand.read_text(encoding="utf-8") if hand.exists() else None,
            "reference": ref.read_text(encoding="utf-8") if ref.exists() else None,
        }
    return sources


def signatures(cuda: str) -> dict:
    """{kernel symbol: [(c type, c name), ...]} of the extern "C" definitions in a .cu text."""
    sigs = {}
    for match in _SIGNATURE.finditer(cuda):
        params = []
        for raw in match.group(2).split(","):
            raw = " ".join(raw.replace("__restrict__", " ").replace("const ", " ").split())
            if not raw:
                continue
            name = re.findall(r"\w+", raw)[-1]
            ctype = raw[: raw.rfind(name)].strip()
            params.append((ctype, name))
        sigs[match.group(1)] = params
    return sigs


def bind_params(sig: list, entry: dict, args: list) -> list:
    """How each CUDA parameter is filled: [(kind, argument index or extent name, dtype)].

    kind is "buffer" (the array's base pointer), "scalar" (argument as the C
    type), "extent" (a symbolic length taken from an argument's shape) or
    "workspace" (a zero-filled global scratch array the benchmark allocates)."""
    import numpy as np
    plan = []
    names = entry["params"]
    extents = entry.get("extents", {})
    workspaces = entry.get("workspaces", {})
    for ctype, cname in sig:
        if ctype.endswith("*"):
            base = ctype[:-1].strip()
            buf = cname[:-4] if cname.endswith("_ptr") else cname
            if buf in workspaces:
                dtype = workspaces[buf][0]
                if _POINTER_TYPES.get(base, dtype) != dtype:
                    raise ValueError(f"{cname} is {ctype} but the workspace is {dtype}")
                plan.append(("workspace", buf, dtype))
                continue
            if buf not in names:
                raise ValueError(f"pointer parameter {cname} matches no buffer of {names}")
            index = names.index(buf)
            want = _POINTER_TYPES.get(base)
            have = np.asarray(args[index]).dtype.name
            if want is not None and want != have:
                raise ValueError(f"{cname} is {ctype} but the argument is {have}")
            plan.append(("buffer", index, have))
        elif cname in extents:
            plan.append(("extent", cname, _SCALAR_TYPES.get(ctype, "int32")))
        elif cname in names:
            dtype = _SCALAR_TYPES.get(ctype)
            if dtype is None:
                raise ValueError(f"scalar parameter {ctype} {cname}: unknown C type")
            plan.append(("scalar", names.index(cname), dtype))
        else:
            raise ValueError(f"parameter {ctype} {cname} matches nothing in {names} or extents {list(extents)}")
    return plan


def extent_values(entry: dict, args: list) -> dict:
    return {name: int(args[arg].shape[dim]) for name, (arg, dim) in entry.get("extents", {}).items()}


def workspace_arrays(cupy, entry: dict, extents: dict) -> dict:
    """{name: device array} of the kernel's global workspaces, sized from its extents."""
    return {name: cupy.zeros(size(extents), dtype=dtype) for name, (dtype, size) in entry.get("workspaces", {}).items()}


def zero_fill(cupy, arrays) -> None:
    """Zero `arrays` on the current stream (captured into the CUDA graph when timing)."""
    stream = cupy.cuda.get_current_stream().ptr
    for array in arrays:
        cupy.cuda.runtime.memsetAsync(array.data.ptr, 0, array.nbytes, stream)


def leave_out_newer_arch(tirxc: dict, compute_capability: str, why: str) -> None:
    """Drop the samples a device of `compute_capability` ("90") cannot run (tensor-memory
    samples need sm_100a), saying so with `why` (formatted with sample and architecture)."""
    for sample in [k for k, v in tirxc.items() if "cuda" in v]:
        arch, suffix = tirxc[sample]["arch"]
        if arch > int(compute_capability) or (suffix and arch != int(compute_capability)):
            print(why.format(sample=sample, arch=f"sm_{arch}{suffix}"), flush=True)
            del tirxc[sample]


def launch_of(case: dict, args: list) -> tuple[tuple, tuple, int]:
    spec = case["launch"](args)
    pad = lambda t: tuple(int(v) for v in t) + (1,) * (3 - len(t))  # noqa: E731
    return pad(spec["grid"]), pad(spec["block"]), int(spec["dyn_shared_bytes"])


# ----------------------------------------------------------------------------- NVRTC without a GPU (dry run)

def nvrtc_offline():
    """A compile(source, arch) -> seconds function through NVRTC, or None (no CuPy / no NVRTC)."""
    try:
        import cupy
        from cupy_backends.cuda.libs import nvrtc
        nvrtc.getVersion()
    except Exception:
        return None
    pkg = Path(cupy.__file__).parent
    includes = [pkg / "_core" / "include"] + [pkg / "_core" / "include" / "cupy" / "_cccl" / d
                                              for d in ("libcudacxx", "cub", "thrust")]
    try:
        cuda_path = cupy.cuda.get_cuda_path()
    except Exception:
        cuda_path = None
    if cuda_path and (Path(cuda_path) / "include").is_dir():
        includes.append(Path(cuda_path) / "include")
    for site in sys.path:  # CUDA headers from the nvidia-cuda-runtime wheel
        candidate = Path(site) / "nvidia" / "cu13" / "include"
        if candidate.is_dir():
            includes.append(candidate)
            break

    def compile_(source: str, arch: str, cubin: bool = False):
        """Seconds to compile `source` for `arch` (and the cubin when asked)."""
        options = [f"--gpu-architecture={arch}", *NVRTC_OPTIONS, "--device-as-default-execution-space"]
        options += [f"-I{d}" for d in includes if d.is_dir()]
        start = time.perf_counter()
        program = nvrtc.createProgram(source, "bench.cu", [], [])
        try:
            try:
                nvrtc.compileProgram(program, options)
            except nvrtc.NVRTCError:
                raise RuntimeError(nvrtc.getProgramLog(program).strip()[-1500:]) from None
            binary = nvrtc.getCUBIN(program)
        finally:
            nvrtc.destroyProgram(program)
        elapsed = time.perf_counter() - start
        return (elapsed, binary) if cubin else elapsed

    return compile_


def find_cuobjdump() -> str | None:
    import shutil
    found = shutil.which("cuobjdump")
    if found:
        return found
    roots = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    roots += [str(Path(p) / "nvidia" / "cu13") for p in sys.path]   # the nvidia-cuda-cuobjdump wheel
    for root in roots:
        if root and (Path(root) / "bin" / "cuobjdump").is_file():
            return str(Path(root) / "bin" / "cuobjdump")
    return None


_SASS_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def sass_counts(compile_, cuobjdump: str, source: str, arch: str) -> dict:
    """{kernel symbol: static SASS instruction count without NOPs} of one .cu text."""
    import subprocess
    _, binary = compile_(source, arch, cubin=True)
    binary = _whole_elf(bytes(binary))
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as handle:
        handle.write(binary)
    try:
        text = subprocess.run([cuobjdump, "-sass", handle.name], capture_output=True, text=True,
                              timeout=60, check=True).stdout
    finally:
        os.unlink(handle.name)
    counts, current = {}, None
    for line in text.splitlines():
        match = _SASS_FUNCTION.match(line)
        if match:
            current = match.group(1)
            counts[current] = 0
            continue
        match = _SASS_INSTRUCTION.match(line)
        if current and match and match.group(2) != "NOP":
            counts[current] += 1
    return counts


def _whole_elf(binary: bytes) -> bytes:
    """CuPy's nvrtc.getCUBIN drops the cubin's last byte (a NUL), which cuobjdump
    then rejects; pad the ELF back to the length its own header gives."""
    import struct
    if binary[:4] != b"\x7fELF" or binary[4] != 2 or len(binary) < 64:
        return binary
    phoff, shoff = struct.unpack_from("<QQ", binary, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", binary, 0x36)
    size = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    return binary + b"\0" * (size - len(binary)) if size > len(binary) else binary


def sass_table(sources: dict, arch: str, compile_, cuobjdump: str, problems: list) -> list:
    rows = []
    for sample in sorted(sources):
        per_variant = {}
        for variant in VARIANTS:
            text = sources[sample][variant]
            if text is None:
                continue
            # an arch-specific file (sm_90a) compiles for its own target: the generic one traps
            suffix = "a" if re.search(r"// Minimum architecture: sm_\d+a", text) else ""
            try:
                per_variant[variant] = sass_counts(compile_, cuobjdump, text, arch + suffix)
            except Exception as err:
                problems.append(f"{sample}/{variant} SASS: {type(err).__name__}: {str(err)[:200]}")
        for symbol in sorted(per_variant.get("tirxc", {})):
            row = {"sample": sample, "kernel": symbol}
            row.update({v: c.get(symbol) for v, c in per_variant.items()})
            rows.append(row)
    return rows


def dry_run(args) -> int:
    import numpy as np
    from tests.gpu.cases import CASES, make_args
    by_id = {c["id"]: c for c in CASES}
    out_dir = args.out_dir or (BENCH / "out" / "gpu-dry-run")
    out_dir.mkdir(parents=True, exist_ok=True)
    tirxc = generate_tirxc(out_dir)
    # as on the GPU: a Blackwell-only sample is left out on an sm_90 device
    leave_out_newer_arch(tirxc, re.sub(r"\D", "", args.arch), "  {sample}: needs {arch}, left out for " + args.arch)
    sources = load_sources(tirxc)
    problems, report = [], {"kernels": [], "compile": []}
    for entry in KERNELS:
        case = by_id.get(entry["case"])
        if case is None:
            problems.append(f"{entry['case']}: no such case in tests/gpu/cases.py")
            continue
        size = DRY_RUN_SIZE if "size" in entry else None
        host = make_args(case, size)
        grid, block, dyn = launch_of(case, host)
        row = {"id": entry["case"], "grid": grid, "block": block, "dyn_shared_bytes": dyn,
               "bench_size": entry.get("size"), "variants": {}}
        for variant in VARIANTS:
            text = sources.get(case["sample"], {}).get(variant)
            symbol = f"{case['kernel']}_kernel"
            if text is None:
                row["variants"][variant] = "missing"
                if variant != "reference":
                    problems.append(f"{entry['case']}: no {variant} source")
                continue
            sig = signatures(text).get(symbol)
            if sig is None:
                row["variants"][variant] = "no kernel"
                problems.append(f"{entry['case']}: {variant} source has no extern \"C\" {symbol}")
                continue
            try:
                plan = bind_params(sig, entry, host)
                row["variants"][variant] = " ".join(f"{n}<-{k}:{i}" for (_, n), (k, i, _) in zip(sig, plan))
            except ValueError as err:
                row["variants"][variant] = f"error: {err}"
                problems.append(f"{entry['case']}: {variant}: {err}")
        report["kernels"].append(row)
        print(f"  {entry['case']:38s} grid {grid} block {block} dyn {dyn:6d}  " +
              "  ".join(f"{v}: {'ok' if isinstance(s, str) and '<-' in s else s}" for v, s in row["variants"].items()))
    compile_ = nvrtc_offline() if not args.no_compile else None
    if compile_ is None:
        print("  (NVRTC not importable here: sources not compiled; install CuPy and nvidia-cuda-nvrtc to check them)")
    else:
        print(f"  NVRTC compile of every .cu for {args.arch} (offline, seconds, median of 3):")
        for sample in sorted(sources):
            row = {"sample": sample}
            for variant in VARIANTS:
                text = sources[sample][variant]
                if text is None:
                    continue
                try:
                    row[f"{variant}_ms"] = round(1000 * statistics.median(compile_(text, args.arch)
                                                                           for _ in range(3)), 1)
                except RuntimeError as err:
                    row[f"{variant}_error"] = str(err)
                    problems.append(f"{sample}: {variant} does not compile: {str(err)[:300]}")
            report["compile"].append(row)
            print(f"    {sample:18s} " + "  ".join(f"{v} {row.get(v + '_ms', row.get(v + '_error', '-'))}"
                                                    for v in VARIANTS))
    cuobjdump = find_cuobjdump()
    if compile_ is not None and cuobjdump and not args.no_sass:
        print(f"  static SASS instructions per kernel ({args.arch}, no NOPs):")
        report["sass"] = sass_table(sources, args.arch, compile_, cuobjdump, problems)
        for row in report["sass"]:
            print(f"    {row['kernel']:34s} " + "  ".join(f"{v} {row.get(v, '-')}" for v in VARIANTS))
    report["problems"] = problems
    (out_dir / "dry_run.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"[gpu dry run] sources and dry_run.json in {out_dir}")
    if problems:
        print("[gpu dry run] PROBLEMS:\n  " + "\n  ".join(problems))
        return 1
    print("[gpu dry run] every kernel maps onto all its variants")
    return 0


# ----------------------------------------------------------------------------- timing on the GPU

class Timer:
    """Per-launch device time of a callable that enqueues work on `stream`."""

    def __init__(self, cupy, stream):
        self.cupy = cupy
        self.stream = stream
        self.graph_ok = True

    def _elapsed_ms(self, fn) -> float:
        cupy = self.cupy
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(self.stream)
        fn()
        end.record(self.stream)
        end.synchronize()
        return cupy.cuda.get_elapsed_time(start, end)

    def prepare(self, launch, target_ms: float = 1.0, max_inner: int = 500):
        """A no-argument callable replaying `inner` launches (a CUDA graph where capture works)."""
        with self.stream:
            launch()
            self.stream.synchronize()
            one = self._elapsed_ms(lambda: [launch() for _ in range(5)]) / 5
        inner = max(1, min(max_inner, int(target_ms / max(one, 1e-4))))
        body = None
        if self.graph_ok:
            try:
                with self.stream:
                    self.stream.begin_capture()
                    try:
                        for _ in range(inner):
                            launch()
                    finally:
                        graph = self.stream.end_capture()
                graph.upload(self.stream)
                body = lambda: graph.launch(self.stream)  # noqa: E731
                body()
                self.stream.synchronize()
            except Exception:
                body = None
        if body is None:
            def body():
                with self.stream:
                    for _ in range(inner):
                        launch()
        return body, inner

    def round_us(self, body, inner: int) -> float:
        return 1000.0 * self._elapsed_ms(body) / inner


def _median(values):
    return statistics.median(values) if values else None


def gpu_run(args) -> int:
    started = time.perf_counter()
    deadline = started + args.budget
    cache_dir = tempfile.mkdtemp(prefix="tirxc-bench-cupy-cache-")
    os.environ["CUPY_CACHE_DIR"] = cache_dir          # fresh: every compile below is a real NVRTC compile
    os.environ.setdefault("CUPY_TF32", "0")           # cuBLAS SGEMM in full FP32, like the kernels
    import numpy as np
    import cupy
    from tests.gpu.cases import CASES, make_args
    by_id = {c["id"]: c for c in CASES}

    work = Path(tempfile.mkdtemp(prefix="tirxc-bench-gpu-"))
    errors: list[str] = []
    device = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(device.id)
    meta = {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "compute_capability": device.compute_capability, "sms": props.get("multiProcessorCount"),
        "driver": cupy.cuda.runtime.driverGetVersion(), "runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "nvrtc": ".".join(map(str, cupy.cuda.nvrtc.getVersion())), "cupy": cupy.__version__,
        "numpy": np.__version__, "python": platform.python_version(), "host": platform.node(),
        "nvrtc_options": list(NVRTC_OPTIONS), "rounds": args.rounds, "tf32": os.environ.get("CUPY_TF32"),
        "parts": list(args.parts), "tag": args.tag,
    }
    try:
        import subprocess
        meta["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                     text=True, timeout=10).stdout.strip() or None
    except Exception:
        meta["git"] = None
    print(f"[gpu] {meta['device']} sm_{meta['compute_capability']}, CuPy {meta['cupy']}, NVRTC {meta['nvrtc']}",
          flush=True)

    tirxc = generate_tirxc(work)
    # Blackwell-only samples (tensor memory) cannot be compiled for this device: leave them out
    leave_out_newer_arch(tirxc, str(device.compute_capability), "[gpu] {sample}: needs {arch}, skipped on this device")
    for sample, info in tirxc.items():
        if "error" in info:
            errors.append(f"tirxc failed on {sample}: {info['error']}")
    sources = load_sources(tirxc)

    # -- compile: NVRTC through CuPy, fresh each time (nonce comment, empty cache dir) --------
    def compile_module(text: str):
        module = cupy.RawModule(code=text + f"\n// bench nonce {uuid.uuid4().hex}\n", options=NVRTC_OPTIONS)
        module.compile()
        return module

    warm = compile_module('extern "C" __global__ void bench_warm(float* p) { p[0] = 1.0f; }')  # NVRTC's first use
    del warm
    modules: dict = {}
    compile_rows = []
    if "compile" in args.parts:
        print("[gpu] compiling (NVRTC through CuPy, no cache)", flush=True)
    for sample in sorted(sources) if "compile" in args.parts else ():
        row = {"sample": sample}
        for variant in VARIANTS:
            text = sources[sample][variant]
            if text is None:
                continue
            reps = args.compile_reps if time.perf_counter() < deadline - 60 else 1
            times = []
            try:
                for _ in range(reps):
                    t0 = time.perf_counter()
                    module = compile_module(text)
                    times.append(time.perf_counter() - t0)
                modules[(sample, variant)] = module
                row[f"{variant}_ms"] = round(1000 * statistics.median(times), 1)
            except Exception as err:
                row[f"{variant}_error"] = f"{type(err).__name__}: {str(err).strip()[-400:]}"
                errors.append(f"{sample}/{variant} compile: {str(err).strip()[-200:]}")
        if row.get("tirxc_ms") and row.get("reference_ms"):
            row["reference_over_tirxc"] = round(row["reference_ms"] / row["tirxc_ms"], 1)
        compile_rows.append(row)
        print(f"  {sample:18s} " + "  ".join(f"{v} {row.get(v + '_ms', '-')} ms" for v in VARIANTS), flush=True)

    # -- kernels ---------------------------------------------------------------------------------
    stream = cupy.cuda.Stream(non_blocking=True)
    timer = Timer(cupy, stream)
    kernel_rows = []
    only = set(args.only or [])
    print("[gpu] timing kernels", flush=True)
    for entry in KERNELS if "kernels" in args.parts else ():
        case = by_id.get(entry["case"])
        if case is None or (only and case["sample"] not in only and entry["case"] not in only):
            continue
        row = {"id": entry["case"], "sample": case["sample"], "kernel": case["kernel"], "variants": {}}
        try:
            size = entry.get("size")
            host = make_args(case, size)
            grid, block, dyn = launch_of(case, host)
            row.update(size=size, grid=grid, block=block, dyn_shared_bytes=dyn)
            extents = extent_values(entry, host)
            symbol = f"{case['kernel']}_kernel"
            prepared = {}
            for variant in VARIANTS:
                module = modules.get((case["sample"], variant))
                if module is None:
                    row["variants"][variant] = {"error": "not compiled" if sources[case["sample"]][variant]
                                                else "no source"}
                    continue
                try:
                    sig = signatures(sources[case["sample"]][variant])[symbol]
                    plan = bind_params(sig, entry, host)
                    function = module.get_function(symbol)
                    if dyn > 48 * 1024:
                        function.max_dynamic_shared_size_bytes = dyn
                    # correctness on fresh copies of the inputs
                    bases = {i: cupy.array(a, order="K") for i, a in enumerate(host) if isinstance(a, np.ndarray)}
                    scratch = workspace_arrays(cupy, entry, extents)
                    bases.update(scratch)    # kept with the inputs: the captured graph writes them
                    kargs = _kernel_args(plan, host, bases, extents, np)
                    zero_fill(cupy, scratch.values())
                    function(grid, block, kargs, shared_mem=dyn)
                    cupy.cuda.runtime.deviceSynchronize()
                    after = [cupy.asnumpy(bases[i]) if i in bases else a for i, a in enumerate(host)]
                    try:
                        case["check"](host, after)
                        check = "ok"
                    except AssertionError as err:
                        check = "WRONG: " + str(err).strip().splitlines()[0][:200]
                        errors.append(f"{entry['case']}/{variant}: wrong result")
                    def launch(f=function, k=kargs, w=tuple(scratch.values())):
                        zero_fill(cupy, w)
                        f(grid, block, k, shared_mem=dyn)
                    body, inner = timer.prepare(launch)
                    prepared[variant] = (body, inner, bases)
                    row["variants"][variant] = {"check": check, "inner": inner, "rounds_us": []}
                except Exception as err:
                    row["variants"][variant] = {"error": f"{type(err).__name__}: {str(err).strip()[-300:]}"}
                    errors.append(f"{entry['case']}/{variant}: {type(err).__name__}: {str(err).strip()[-200:]}")
            for _ in range(args.rounds):            # interleaved rounds: the variants share drift
                for variant, (body, inner, _) in prepared.items():
                    row["variants"][variant]["rounds_us"].append(round(timer.round_us(body, inner), 3))
            for variant, info in row["variants"].items():
                if info.get("rounds_us"):
                    info["us"] = round(statistics.median(info["rounds_us"]), 3)
                    info["min_us"] = round(min(info["rounds_us"]), 3)
            t = {v: i.get("us") for v, i in row["variants"].items()}
            if t.get("tirxc") and t.get("hand"):
                row["tirxc_over_hand"] = round(t["tirxc"] / t["hand"], 4)
            if t.get("tirxc") and t.get("reference"):
                row["tirxc_over_reference"] = round(t["tirxc"] / t["reference"], 4)
            if "bytes" in entry and size:
                nbytes = entry["bytes"](size)
                row["bytes"] = nbytes
                for info in row["variants"].values():
                    if info.get("us"):
                        info["gb_s"] = round(nbytes / (info["us"] * 1e-6) / 1e9, 1)
            if "flops" in entry:
                for info in row["variants"].values():
                    if info.get("us"):
                        info["tflop_s"] = round(entry["flops"] / (info["us"] * 1e-6) / 1e12, 2)
            # kernel-specific baselines, on the same device buffers
            if entry["case"] == "float4_copy.float4_copy" and prepared:
                row["memcpy"] = _time_memcpy(cupy, timer, host, args.rounds)
                for info in row["variants"].values():
                    if info.get("gb_s"):
                        info["fraction_of_memcpy"] = round(info["gb_s"] / row["memcpy"]["gb_s"], 4)
            if "cublas" in entry:
                row["cublas"] = _time_cublas(cupy, timer, host, args.rounds, entry["flops"], **entry["cublas"])
            for _, _, bases in prepared.values():
                bases.clear()
        except Exception as err:
            row["error"] = f"{type(err).__name__}: {err}"
            errors.append(f"{entry['case']}: {type(err).__name__}: {err}")
            traceback.print_exc()
        kernel_rows.append(row)
        print("  " + _kernel_line(row), flush=True)
        cupy.get_default_memory_pool().free_all_blocks()

    # -- host time per launch: generated launcher vs bare RawKernel ------------------------------
    launcher_rows = []
    if "launcher" not in args.parts:
        pass
    elif time.perf_counter() < deadline - 10:
        print("[gpu] host time per launch", flush=True)
        for sample, kernel, n in LAUNCHER_KERNELS:
            try:
                launcher_rows.append(_launcher_overhead(cupy, np, by_id, tirxc, sources, sample, kernel, n,
                                                        args.launch_calls))
                r = launcher_rows[-1]
                print(f"  {sample}.{kernel}: launcher {r['launcher_us']} us, launch_config alone "
                      f"{r['launch_config_us']} us, bare RawKernel {r['bare_us']} us, added {r['added_us']} us "
                      f"(getDevice {r['getDevice_us']} us; per buffer: pointerGetAttributes "
                      f"{r['pointerGetAttributes_us']} us, __cuda_array_interface__ {r['cuda_array_interface_us']} us; "
                      f"{r['buffers']} buffers)", flush=True)
            except Exception as err:
                launcher_rows.append({"kernel": f"{sample}.{kernel}", "error": f"{type(err).__name__}: {err}"})
                errors.append(f"launcher {sample}.{kernel}: {type(err).__name__}: {err}")
    else:
        errors.append("launcher overhead skipped: time budget spent")

    # -- the Hopper BF16 GEMM against cuBLAS, side by side (bench/gemm_hopper.py) -----------------
    gemm = None
    if "gemm" in args.parts:
        if device.compute_capability == "90":
            print("[gpu] BF16 GEMM (samples/gemm_bf16_hopper.tx) against cuBLAS", flush=True)
            try:
                from bench.gemm_hopper import run as run_gemm
                gemm = run_gemm(rounds=5)
            except Exception as err:
                errors.append(f"gemm: {type(err).__name__}: {err}")
                traceback.print_exc()
        else:
            errors.append(f"gemm skipped: it needs an sm_90 GPU, this is sm_{device.compute_capability}")

    # -- the samples written with tile primitives, against their bounds (bench/tile_samples.py) -----
    tile = None
    if "tile" in args.parts:
        if device.compute_capability == "90":
            print("[gpu] tile-primitive samples (softmax_tx, rmsnorm_tx, gemm_tx_hopper)", flush=True)
            try:
                from bench.tile_samples import run as run_tile
                tile = run_tile(rounds=5)
            except Exception as err:
                errors.append(f"tile: {type(err).__name__}: {err}")
                traceback.print_exc()
        else:
            errors.append(f"tile samples skipped: they need an sm_90 GPU, this is sm_{device.compute_capability}")

    # -- static SASS instruction counts (code size, free of timing noise) -------------------------
    sass_rows = []
    cuobjdump = find_cuobjdump()
    if "sass" in args.parts and cuobjdump and time.perf_counter() < deadline - 20:
        compile_ = nvrtc_offline()
        if compile_ is not None:
            print("[gpu] static SASS instruction counts", flush=True)
            sass_rows = sass_table(sources, f"sm_{device.compute_capability}", compile_, cuobjdump, errors)
    elif "sass" in args.parts:
        errors.append("SASS counts skipped: " + ("no cuobjdump" if not cuobjdump else "time budget spent"))

    results = {"meta": meta, "kernels": kernel_rows, "compile": compile_rows, "launcher": launcher_rows,
               "sass": sass_rows, "gemm_hopper": gemm, "tile_samples": tile, "errors": errors,
               "elapsed_s": round(time.perf_counter() - started, 1)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    print_tables(results)
    print(f"[gpu] wrote {out} in {results['elapsed_s']} s")
    return 0


def _kernel_args(plan, host, bases, extents, np):
    out = []
    for kind, key, dtype in plan:
        if kind in ("buffer", "workspace"):
            out.append(bases[key])
        elif kind == "scalar":
            out.append(np.dtype(dtype).type(host[key]))
        else:
            out.append(np.dtype(dtype).type(extents[key]))
    return tuple(out)


def _time_memcpy(cupy, timer, host, rounds) -> dict:
    src = cupy.asarray(host[0])
    dst = cupy.empty_like(src)
    nbytes = src.nbytes
    stream = timer.stream
    kind = cupy.cuda.runtime.memcpyDeviceToDevice
    launch = lambda: cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, kind, stream.ptr)  # noqa
    body, inner = timer.prepare(launch)
    us = statistics.median(timer.round_us(body, inner) for _ in range(rounds))
    return {"bytes": 2 * nbytes, "us": round(us, 3), "gb_s": round(2 * nbytes / (us * 1e-6) / 1e9, 1)}


def _time_cublas(cupy, timer, host, rounds, flops, title, precision, transpose_b) -> dict:
    """cupy.matmul on the kernel's own inputs, in their dtype. For C = A @ B^T,
    B.T is a Fortran-ordered view that CuPy hands to cuBLAS as a transposed
    operand (no copy), so cuBLAS reads the same (N, K) bytes as the kernel."""
    a, b = cupy.asarray(host[0]), cupy.asarray(host[1])
    if transpose_b:
        b = b.T
    c = cupy.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    launch = lambda: cupy.matmul(a, b, out=c)  # noqa: E731
    body, inner = timer.prepare(launch)
    us = statistics.median(timer.round_us(body, inner) for _ in range(rounds))
    return {"title": title, "precision": precision, "us": round(us, 3),
            "tflop_s": round(flops / (us * 1e-6) / 1e12, 2)}


def _launcher_overhead(cupy, np, by_id, tirxc, sources, sample, kernel, n, calls) -> dict:
    """Median host time of one call: the generated launcher vs a bare RawKernel launch."""
    spec = importlib.util.spec_from_file_location(f"bench_launcher_{sample}", tirxc[sample]["launcher"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wrapped = getattr(module, kernel)
    case = next(c for c in by_id.values() if c["sample"] == sample and c["kernel"] == kernel)
    entry = next(e for e in KERNELS if e["case"] == case["id"] or e["case"].startswith(case["id"]))
    host = make_host(case, n)
    device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    grid, block, dyn = launch_of(case, host)
    bare = cupy.RawModule(code=sources[sample]["tirxc"], options=NVRTC_OPTIONS).get_function(f"{kernel}_kernel")
    plan = bind_params(signatures(sources[sample]["tirxc"])[f"{kernel}_kernel"], entry, host)
    bases = {i: a for i, a in enumerate(device_args) if not isinstance(a, (int, float, np.generic))}
    kargs = _kernel_args(plan, host, bases, extent_values(entry, host), np)
    wrapped(*device_args)        # compiles once
    bare(grid, block, kargs, shared_mem=dyn)
    cupy.cuda.runtime.deviceSynchronize()
    perf = time.perf_counter_ns
    samples = {"launcher": [], "config": [], "bare": []}
    block_size = 100
    # The launcher and the bare call alternate in blocks, so that both see the host in the same
    # state (its speed drifts over minutes); launch_config() (a full validation, ~30 us, which
    # would disturb the caches between blocks) is timed after them.
    for _ in range(max(1, calls // block_size)):
        for name in ("launcher", "bare"):
            sink = samples[name]
            for _ in range(block_size):
                if name == "launcher":
                    t0 = perf(); wrapped(*device_args); t1 = perf()          # noqa: E702
                else:
                    t0 = perf(); bare(grid, block, kargs, shared_mem=dyn); t1 = perf()  # noqa: E702
                sink.append((t1 - t0) / 1000.0)
            cupy.cuda.runtime.deviceSynchronize()   # keep the launch queue short
    for _ in range(calls):
        t0 = perf(); wrapped.launch_config(*device_args); t1 = perf()  # noqa: E702
        samples["config"].append((t1 - t0) / 1000.0)
    med = {k: round(statistics.median(v), 2) for k, v in samples.items()}
    # Pieces of the launcher's per-call work, timed alone: the CUDA runtime calls it
    # makes on every launch (the current device; the owner device of each array).
    pointer = int(next(iter(bases.values())).data.ptr)
    array = next(iter(bases.values()))
    pieces = {"getDevice": lambda: cupy.cuda.runtime.getDevice(),
              "pointerGetAttributes": lambda: cupy.cuda.runtime.pointerGetAttributes(pointer),
              "cuda_array_interface": lambda: array.__cuda_array_interface__}
    piece_us = {}
    for name, fn in pieces.items():
        times = []
        for _ in range(1000):
            t0 = perf(); fn(); t1 = perf()  # noqa: E702
            times.append((t1 - t0) / 1000.0)
        piece_us[name] = round(statistics.median(times), 2)
    return {"kernel": f"{sample}.{kernel}", "n": n, "calls": len(samples["launcher"]),
            "buffers": len(bases), "launcher_us": med["launcher"], "launch_config_us": med["config"],
            "bare_us": med["bare"], "added_us": round(med["launcher"] - med["bare"], 2),
            "getDevice_us": piece_us["getDevice"], "pointerGetAttributes_us": piece_us["pointerGetAttributes"],
            "cuda_array_interface_us": piece_us["cuda_array_interface"]}


def make_host(case, n):
    from tests.gpu.cases import make_args
    return make_args(case, n if "sizes" in case else None)


def _kernel_line(row) -> str:
    if "error" in row:
        return f"{row['id']:38s} ERROR {row['error']}"
    parts = []
    for v in VARIANTS:
        info = row["variants"].get(v, {})
        parts.append(f"{v} " + (f"{info['us']:.2f} us" if info.get("us") else info.get("error", "-")[:40])
                     + ("" if info.get("check", "ok") == "ok" else " [WRONG]"))
    return f"{row['id']:38s} " + "  ".join(parts)


def print_tables(results: dict) -> None:
    print("\n## Kernels (median µs per launch, CUDA events over graph replays)\n")
    print("| kernel | size | tirxc | hand-written | reference | tirxc / hand | tirxc / reference | checks |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for r in results["kernels"]:
        if "error" in r:
            print(f"| {r['id']} | | error: {r['error']} |")
            continue
        v = r["variants"]
        cell = lambda name: (f"{v[name]['us']:.2f}" if v.get(name, {}).get("us") else  # noqa: E731
                             (v.get(name, {}).get("error", "—")[:40]))
        checks = ", ".join(f"{k}: {i.get('check', 'n/a')}" for k, i in v.items() if i.get("check", "ok") != "ok")
        size = f"n={r['size']}" if r.get("size") else "fixed"
        print(f"| {r['id']} | {size} | {cell('tirxc')} | {cell('hand')} | {cell('reference')} | "
              f"{r.get('tirxc_over_hand', '—')} | {r.get('tirxc_over_reference', '—')} | {checks or 'all ok'} |")
    for r in results["kernels"]:
        if r.get("memcpy"):
            m = r["memcpy"]
            print(f"\nfloat4 copy ({r['bytes'] / 2**20:.0f} MiB moved): device-to-device memcpy {m['gb_s']} GB/s; "
                  + ", ".join(f"{k} {i.get('gb_s')} GB/s = {100 * i.get('fraction_of_memcpy', 0):.1f}% of memcpy"
                              for k, i in r["variants"].items() if i.get("gb_s")))
        if r.get("cublas"):
            b = r["cublas"]
            print(f"\n{b['title']}: cuBLAS (cupy.matmul, {b['precision']}) {b['tflop_s']} TFLOP/s; "
                  + ", ".join(f"{k} {i.get('tflop_s')} TFLOP/s" for k, i in r["variants"].items() if i.get("tflop_s")))
    print("\n## NVRTC compile (ms, fresh, through cupy.RawModule)\n")
    print("| sample | tirxc | hand-written | reference | reference / tirxc |")
    print("|---|---:|---:|---:|---:|")
    for r in results["compile"]:
        print(f"| {r['sample']} | {r.get('tirxc_ms', r.get('tirxc_error', '—'))} | "
              f"{r.get('hand_ms', r.get('hand_error', '—'))} | "
              f"{r.get('reference_ms', str(r.get('reference_error', '—'))[:60])} | {r.get('reference_over_tirxc', '—')} |")
    print("\n## Host time per launch (median µs)\n")
    print("| kernel | buffers | generated launcher | launch_config only | bare RawKernel | added by the launcher |"
          " getDevice | pointerGetAttributes | __cuda_array_interface__ |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["launcher"]:
        if "error" in r:
            print(f"| {r['kernel']} | error: {r['error']} |")
        else:
            print(f"| {r['kernel']} | {r['buffers']} | {r['launcher_us']} | {r['launch_config_us']} | {r['bare_us']} | "
                  f"{r['added_us']} | {r['getDevice_us']} | {r['pointerGetAttributes_us']} | "
                  f"{r['cuda_array_interface_us']} |")
    if results.get("sass"):
        print("\n## Static SASS instructions per kernel (no NOPs)\n")
        print("| kernel | tirxc | hand-written | reference |")
        print("|---|---:|---:|---:|")
        for r in results["sass"]:
            print(f"| {r['kernel']} | {r.get('tirxc', '—')} | {r.get('hand', '—')} | {r.get('reference', '—')} |")
    if results["errors"]:
        print("\nErrors:\n  " + "\n  ".join(results["errors"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(BENCH / "results" / "gpu.json"), help="JSON results path")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: generate and check everything it would run")
    ap.add_argument("--out-dir", type=Path, help="dry run: where the generated sources go")
    ap.add_argument("--arch", default="sm_90", help="dry run: NVRTC target (default sm_90, the H200)")
    ap.add_argument("--no-compile", action="store_true", help="dry run: skip the NVRTC compile check")
    ap.add_argument("--rounds", type=int, default=25, help="timed rounds per kernel and variant (default 25)")
    ap.add_argument("--compile-reps", type=int, default=3, help="fresh compiles per .cu (default 3)")
    ap.add_argument("--launch-calls", type=int, default=20000, help="host-overhead calls per path (default 20000)")
    ap.add_argument("--budget", type=float, default=TIME_BUDGET_S, help="soft time budget in seconds")
    ap.add_argument("--only", nargs="*", help="only these samples or case ids")
    ap.add_argument("--tag", help="free text stored in the JSON's meta (e.g. the git commit measured)")
    ap.add_argument("--no-sass", action="store_true", help="dry run: skip the SASS instruction counts")
    ap.add_argument("--parts", nargs="*", default=["compile", "kernels", "launcher", "gemm", "tile", "sass"],
                    choices=["compile", "kernels", "launcher", "gemm", "tile", "sass"],
                    help="what to run (default all; kernels need compile)")
    args = ap.parse_args(argv)
    if args.dry_run:
        return dry_run(args)
    return gpu_run(args)


if __name__ == "__main__":
    sys.exit(main())
