"""The probe of the production library: tirxc over the TVMScript kernels of mlc-ai/TIRx-kernels.

    python -m tests.conformance.library_probe CHECKOUT [--write]

CHECKOUT is a clone of https://github.com/mlc-ai/TIRx-kernels (its kernels are not copied into
this repository). The kernels this probe takes are the library's TVMScript ones: a module that
writes `@T.prim_func` kernels with `from tvm.script import tirx as T` (those written with the
library's own `kern` DSL, `import tirx_kernels.kern as K`, need that package's Python and are
counted apart). Each kernel is built by a function of its module (a `get_kernel` or `_build_*`),
called with one of the library's benchmark configurations (CALLS). The probe extracts the
kernel source of each module (the module without its test and benchmark harness: top-level
functions that use torch, generators, `tvm.compile`, or run, prepare, test or benchmark the
kernel; the library modules it imports inlined before it, their names that another module of
the file also defines renamed, as each module has its own globals in Python), appends
the builder's call, transpiles it for the kernel's architecture and compiles the CUDA with nvcc.

--write records the outcome in tests/conformance/library_probe.json (with the date and the
checkout's commit), which docs/conformance.md reports (library_report.py)."""
from __future__ import annotations

import ast
import datetime
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

RESULTS = Path(__file__).resolve().parent / "library_probe.json"

# module -> [(the builder, its arguments, the architecture the kernel is compiled for)], one per
# kernel; the arguments are one configuration of the library's bench suite
# (tirx_kernels/bench_suite/config)
CALLS = {
    "tirx_kernels/deepep/combine.py": [
        ("_build_combine_kernel", dict(num_sms=148, num_max_tokens_per_rank=4096, num_ranks=8), "sm_100a"),
        ("_build_reduce_epilogue_kernel", dict(num_sms=148, num_max_tokens_per_rank=4096, num_ranks=8), "sm_100a")],
    "tirx_kernels/deepep/dispatch.py": [
        ("_build_dispatch_kernel", dict(num_sms=148, num_max_tokens_per_rank=4096, expert_alignment=1, num_ranks=8),
         "sm_100a"),
        ("_build_epilogue_kernel", dict(num_sms=148, num_max_tokens_per_rank=4096, expert_alignment=1, num_ranks=8),
         "sm_100a")],
    "tirx_kernels/flashinfer/norm/layernorm.py": [
        ("get_kernel", dict(M=128, H=1024, input_layout="compact", output_layout="compact", enable_pdl=False),
         "sm_100a")],
    "tirx_kernels/flashinfer/norm/fused_add_rmsnorm.py": [
        ("get_kernel", dict(variant="fused_add_rmsnorm", dtype="bfloat16", M=128, H=4096, input_layout="compact",
                            residual_layout="compact", enable_pdl=False), "sm_100a")],
    "tirx_kernels/flashinfer/norm/fused_add_rmsnorm_quant.py": [
        ("get_kernel", dict(input_dtype="bfloat16", output_dtype="float8_e4m3fn", M=128, H=4096,
                            input_layout="compact", residual_layout="compact", output_layout="compact",
                            enable_pdl=False, scale=1.0), "sm_100a")],
    "tirx_kernels/flashinfer/norm/rmsnorm_quant.py": [
        ("get_kernel", dict(input_dtype="bfloat16", output_dtype="float8_e4m3fn", M=128, H=4096,
                            input_layout="compact", output_layout="compact", enable_pdl=False, scale=1.0),
         "sm_100a")],
    "tirx_kernels/flashinfer/norm/rmsnorm_fp4quant.py": [
        ("get_kernel", dict(input_dtype="bfloat16", M=32, H=4096, block_size=16, scale_format="e4m3",
                            swizzled=False, enable_pdl=False), "sm_100a")],
    "tirx_kernels/flashinfer/norm/add_rmsnorm_fp4quant.py": [
        ("get_kernel", dict(config=dict(input_dtype="bfloat16", M=32, H=4096, block_size=16, scale_format="e4m3",
                                        swizzled=False, output_both_sf_layouts=False, output_norm=False,
                                        enable_pdl=False)), "sm_100a")],
    "tirx_kernels/flashinfer/norm/fused_dit_layernorm.py": [
        # rss_bf16_b1_r768 (the suite's small default: `_cfg("rss", 1, 768)`, whose auxiliary tensors are 3-D)
        ("get_kernel", dict(mode="rss", batch_size=1, num_rows=768, output_format="bf16", use_input_sf_scale=False,
                            input_sf_scale=1.0, has_residual=True, destination_passing=False, auxiliary_ndim=3,
                            bias_ndim=2), "sm_100a")],
}

_PRIM_FUNC = re.compile(r"^\s*@(?:T|K|Kern)\.prim_func\b", re.M)
_HARNESS_CODE = re.compile(r"\btorch\.|^\s*import torch|^\s*yield\b|tvm\.compile\(", re.M)
_HARNESS_NAMES = re.compile(r"test|bench|^run_|^prepare_|^_run_|simulate|reference|closed_form|_device_num_sms|"
                            r"compiled|^_check")


def tvmscript_modules(checkout: Path) -> tuple[list[str], list[str]]:
    """The library's modules with `@T.prim_func` kernels: (TVMScript ones, `kern` DSL ones)."""
    script, kern = [], []
    for path in sorted((checkout / "tirx_kernels").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "/kern/" in path.as_posix() or path.name == "low_level_ir.py":
            continue
        name = path.relative_to(checkout).as_posix()
        if _PRIM_FUNC.search(text) and "from tvm.script import tirx as T" in text:
            script.append(name)  # (a helper module that only mentions `@T.prim_func` is not a kernel's)
        elif "tirx_kernels.kern" in text and "def get_kernel" in text:
            kern.append(name)
    return script, kern


def kernel_source(checkout: Path, module: str, builder: str, arguments: dict) -> str:
    """The kernel as a user of the library would write it in one file: the module without its test
    and benchmark harness, the library modules it imports inlined before it (each once, the same
    way), then the builder's body at module level, its parameters bound to the arguments (its
    `return` dropped: the `@T.prim_func` it defines is the file's kernel)."""
    seen: set[str] = set()
    text = _stripped(checkout, module, seen)
    tree = ast.parse((checkout / module).read_text(encoding="utf-8"))
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == builder)
    params = fdef.args.args + fdef.args.kwonlyargs
    defaults = dict(zip([p.arg for p in fdef.args.args[len(fdef.args.args) - len(fdef.args.defaults):]],
                        fdef.args.defaults))
    defaults.update({p.arg: d for p, d in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults) if d is not None})
    bound = []
    for p in params:
        value = repr(arguments[p.arg]) if p.arg in arguments else ast.unparse(defaults[p.arg])
        bound.append(f"{p.arg} = {value}")
    if fdef.args.kwarg is not None:  # `**config`: the arguments as a dict
        bound.append(f"{fdef.args.kwarg.arg} = {arguments.get(fdef.args.kwarg.arg, {})!r}")
    body = [stmt for stmt in fdef.body if not isinstance(stmt, ast.Return)
            and not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
    lines = (checkout / module).read_text(encoding="utf-8").split("\n")
    indent = fdef.body[0].col_offset
    hoisted = []
    for stmt in body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        hoisted += [line[indent:] for line in lines[first - 1:stmt.end_lineno]]
    return text + "\n\n" + "\n".join(bound) + "\n" + "\n".join(hoisted) + "\n"


def _stripped(checkout: Path, module: str, seen: set[str]) -> str:
    """The module without its harness, the library modules it imports inlined before it. Python
    gives each module its own globals; one file has one namespace, so a top-level name of an
    inlined module that another module of the file also defines is renamed in its text
    (`_source_config` of fused_add_rmsnorm.py becomes `_fused_add_rmsnorm___source_config`), and
    each library import becomes the assignments of the names it binds (`_fused_source_config =
    _fused_add_rmsnorm___source_config`)."""
    parts: list[tuple[str, str, list]] = []  # (module, stripped text, its library imports), inlined first
    _collect(checkout, module, seen, parts)
    defined = {name: _top_level_names(text) for name, text, _ in parts}
    renames: dict[str, dict[str, str]] = {}
    for name, _, _ in parts:
        others = set().union(*(names for other, names in defined.items() if other != name))
        stem = Path(name).stem.lstrip("_")
        renames[name] = {} if name == module else {n: f"_{stem}__{n}" for n in sorted(defined[name] & others)}
    texts = []
    for name, text, imports in parts:
        lines = text.split("\n")
        for line, target, aliases in imports:  # the import's first line: the names it binds
            exported = renames[target]
            lines[line] = "; ".join(f"{asname} = {exported.get(n, n)}" for n, asname in aliases
                                    if asname != exported.get(n, n))
        texts.append(_renamed("\n".join(lines), renames[name]))
    return "\n".join(texts)


def _collect(checkout: Path, module: str, seen: set[str], parts: list) -> None:
    seen.add(module)
    text = (checkout / module).read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.split("\n")
    dropped: set[int] = set()
    imports = []
    for node in tree.body:
        harness = False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = "\n".join(lines[node.lineno - 1:node.end_lineno])
            harness = bool(_HARNESS_NAMES.search(node.name) or _HARNESS_CODE.search(body)) \
                or any(isinstance(d, ast.Name) and d.id == "bench" for d in node.decorator_list)
        elif isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            harness = True
        elif isinstance(node, ast.ImportFrom):
            target = _library_module(checkout, module, node)
            if target is not None:
                harness = True  # the import line goes; the module's text comes before
                imports.append((node.lineno - 1, target, [(a.name, a.asname or a.name) for a in node.names]))
                if target not in seen:
                    _collect(checkout, target, seen, parts)
        if harness:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            dropped.update(range(first - 1, node.end_lineno))
    kept = [line if i not in dropped else "" for i, line in enumerate(lines)]
    parts.append((module, "\n".join(kept), imports))


def _top_level_names(text: str) -> set[str]:
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _renamed(text: str, renames: dict[str, str]) -> str:
    """The text with each name of renames replaced where it is a name, a parameter or a definition's
    name (not an attribute after `.`, not a keyword argument's name); names inside f-strings too."""
    if not renames:
        return text
    lines = text.split("\n")
    edits = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and node.id in renames:
            edits.add((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.arg) and node.arg in renames:
            edits.add((node.lineno, node.col_offset, node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in renames:
            line = lines[node.lineno - 1]
            keyword = "class " if isinstance(node, ast.ClassDef) else "def "
            edits.add((node.lineno, line.index(keyword + node.name) + len(keyword), node.name))
    for row, col, name in sorted(edits, reverse=True):  # (col_offset counts UTF-8 bytes)
        raw = lines[row - 1].encode("utf-8")
        lines[row - 1] = (raw[:col] + renames[name].encode("utf-8") + raw[col + len(name.encode("utf-8")):]).decode("utf-8")
    return "\n".join(lines)


def _library_module(checkout: Path, module: str, node: ast.ImportFrom) -> str | None:
    """The library module an import names (`from .utils._buffer import x`, `from tirx_kernels.a
    import y`), as a path below the checkout; None for any other import."""
    if node.level:
        base = Path(module).parent
        for _ in range(node.level - 1):
            base = base.parent
        parts = (node.module or "").split(".") if node.module else []
        target = base.joinpath(*parts)
    elif node.module and node.module.startswith("tirx_kernels.") and not node.module.startswith("tirx_kernels.kern"):
        target = Path(*node.module.split("."))
    else:
        return None
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if (checkout / candidate).is_file() and len(candidate.parts) > 2:  # not the runner or registry
            return candidate.as_posix()
    return None


def probe_one(source: str, name: str, arch: str) -> dict:
    """Transpile and nvcc-compile one kernel: its status and, where refused, the first error."""
    result = compile_source(SourceFile(name, source), arch=arch)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        first = errors[0]
        return {"status": "refused", "code": first.code, "message": first.message, "line": first.span.line}
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "k.cu"
        cu.write_text(result.cuda, encoding="utf-8")
        done = subprocess.run(["nvcc", f"-arch={arch}", "-std=c++17", "-c", str(cu), "-o", str(Path(tmp) / "k.o")],
                              capture_output=True, text=True)
    if done.returncode:
        return {"status": "nvcc", "message": (done.stderr.strip().splitlines() or [""])[0][:200]}
    return {"status": "pass"}


def run(checkout: Path) -> dict:
    script, kern = tvmscript_modules(checkout)
    commit = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%H %cs"], capture_output=True,
                            text=True).stdout.split()
    kernels = []
    for module in script:
        for builder, arguments, arch in CALLS.get(module, [("", {}, "")]):
            call = f"{builder}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})" if builder else ""
            entry = {"module": module, "call": call, "arch": arch}
            if not builder:
                entry.update(status="no call", message="no builder call is recorded for it (CALLS)")
            else:
                try:
                    entry.update(probe_one(kernel_source(checkout, module, builder, arguments), Path(module).name,
                                           arch))
                except Exception as err:  # noqa: BLE001 - a crash is a finding of the probe
                    entry.update(status="crash", message=f"{type(err).__name__}: {err}")
            kernels.append(entry)
    return {"date": datetime.date.today().isoformat(), "repository": "mlc-ai/TIRx-kernels",
            "commit": commit[0] if commit else "", "commit_date": commit[1] if len(commit) > 1 else "",
            "kernels": kernels, "kern_dsl_modules": kern}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.split("\n\n")[1])
        return 2
    results = run(Path(argv[0]))
    for k in results["kernels"]:
        print(f"{k['status']:8} {k['module']} {k['call'][:40]} {k.get('code', '')} {k.get('message', '')[:90]}")
    if "--write" in argv:
        RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
