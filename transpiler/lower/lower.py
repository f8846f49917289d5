"""Lowering: checked kernels to storage-level IR plus a LaunchSpec and a launch description per
kernel, and the program that codegen prints.

Buffers become C storage (pointer parameters, `__shared__` arrays, the one extern arena, register
arrays, typed view pointers); element accesses become index expressions through the buffer's
layout and elem_offset; `T.unroll` loops are expanded; floor division is made exact in C;
declarations nobody reads are dropped. Nothing here produces text. The stages by concern:
expressions.py, statements.py (and the kernel), signature.py (the kernel's parameters as hosts see
them), facts.py, dead_code.py, names.py, narrow.py, cforms.py, tma_writes.py.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.ir.program import CheckedModule, LoweredKernel, Program
from transpiler.ir.walk import all_exprs
from transpiler.lower.facts import dtype_header
from transpiler.lower.functions import FunctionLowerer
from transpiler.lower.statements import KernelLowerer
from transpiler.target import ptx
from transpiler.target.arch import BASE_ARCH
from transpiler.target.cnames import FIXED_WIDTH, fixed_width_names


def lower(module: CheckedModule, diags: Diagnostics) -> Program:
    function_lowerers = [FunctionLowerer(f, module, diags) for f in module.functions]
    functions = [lowerer.run() for lowerer in function_lowerers]
    lowerers = [KernelLowerer(k, module, diags) for k in module.kernels]
    kernels = [lowerer.run() for lowerer in lowerers]
    helpers: list[str] = []
    needed: set[str] = set()  # headers
    non_finite = printf = False
    for lowerer in function_lowerers + lowerers:
        facts = lowerer.facts
        for func in facts.calls:
            if ptx.is_helper(func, module.ptx_instructions) and func.split("<", 1)[0] not in helpers:
                helpers.append(func.split("<", 1)[0])
        printf = printf or "printf" in facts.calls
        non_finite = non_finite or facts.non_finite
        needed |= facts.headers
    for params in [f.params for f in functions] + [list(lk.spec.params) for lk in kernels]:
        needed.update(h for h in map(dtype_header, (p.dtype for p in params)) if h)
    needed.update(h for h in map(dtype_header, (f.returns for f in functions)) if h)
    needed.update(ptx.HELPERS[h].header for h in helpers if h in ptx.HELPERS and ptx.HELPERS[h].header)
    if non_finite:  # printed as CUDART_INF_F / CUDART_NAN_F
        needed.add("math_constants.h")
    if printf:
        needed.add("cstdio")  # nvcc needs it; NVRTC has printf built in (the template guards it)
    order = ["cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h", "math_constants.h", "cstdio",
             "cooperative_groups.h"]
    headers = sorted(needed, key=order.index)
    # the fixed helpers in table order first, then PTX wrappers by first use
    helpers.sort(key=lambda h: (list(ptx.HELPERS).index(h) if h in ptx.HELPERS else len(ptx.HELPERS)))
    archs = [ptx.helper_arch(h, module.ptx_instructions) for h in helpers]
    min_arch = max([BASE_ARCH] + [k.spec.min_arch for k in kernels] + [f.min_arch for f in module.functions]
                   + [a for a, _ in archs])
    suffix = "a" if any(k.spec.arch_suffix == "a" for k in kernels) or any(s == "a" for _, s in archs) \
        or any(f.arch_suffix == "a" for f in module.functions) else ""
    used = {name for source in module.func_sources.values() for name in fixed_width_names(source)}
    return Program(module.source.name, kernels, dict(module.func_sources), helpers, headers, min_arch, suffix,
                   func_lines=_func_source_lines(module, kernels), fixed_width=[n for n in FIXED_WIDTH if n in used],
                   ptx_instructions=module.ptx_instructions, environment_reads=list(module.environment_reads),
                   functions=functions)


def _func_source_lines(module: CheckedModule, kernels: list[LoweredKernel]) -> dict[str, int]:
    """Where each `T.cuda.func_call` source starts in the .tx file, for `--line-info`: the
    line of the first character of the string, when the source stands verbatim in the file
    (a plain or raw string without escapes, so that its lines are the file's lines); else
    the line of the function's first call."""
    text = module.source.text
    lines: dict[str, int] = {}
    for name, source in module.func_sources.items():
        start = text.find(source)
        while start > 0 and text[start - 1] not in "\"'":
            start = text.find(source, start + 1)
        if start > 0:
            lines[name] = text.count("\n", 0, start) + 1
            continue
        calls = [e.span.line for lk in kernels for e in all_exprs(lk.body)
                 if isinstance(e, ir.Call) and e.func == name and e.span.line > 0]
        if calls:
            lines[name] = min(calls)
    return lines
