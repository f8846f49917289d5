"""The sim flavour of the CUDA printer (docs/sim.md): the same lowered program printed for
`tirxc sim`, which compiles it for the CPU against its runtime (transpiler/sim/include/).

It differs from the `.cu` only where the CPU must: every `__shared__` array and the dynamic
arena become pointers into the running block's shared area (`tirx_sim_shared()`), at offsets
laid out here in declaration order; each helper that wraps inline PTX is replaced by the CPU
implementation its caller's `cpu_helper(name, source)` gives for it. What the CPU runtime cannot
run yet is listed by `unsupported`, each with the span of its first use, before anything is
printed. The default flavour (render_cuda without a flavour) is untouched by this module.

With `checked` (`tirxc sim --racecheck` / `--synccheck`) each load and store of global or shared
memory goes through the runtime's access hook (`*tirx_sim::rd(B, &B[i], SITE)`,
`tirx_sim::wr(...) = v`), and each call of a helper, barrier, collective, atomic or device function
names its site first (`(tirx_sim::at(SITE), f(...))`); SITE indexes `sites`, the `.tx` span and
name of each access or call, which the findings name (transpiler/sim/findings.py). Without it
the sim flavour prints exactly as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from transpiler import ir
from transpiler.codegen.cuda import CPrinter, c_string
from transpiler.ir.launch import ParamKind
from transpiler.ir.program import Program
from transpiler.target import ptx
from transpiler.target.dtypes import c_type

SHARED_BASE_ALIGN = 1024  # the runtime aligns each block's area so (TMA swizzles need 1024)
_ASM = re.compile(r"\basm\b")
_ASM_TEXT = re.compile(r'\basm\s*(?:volatile\s*)?\(\s*"([^"\\]*)')
# headers whose types the CPU runtime does not have yet
_UNSUPPORTED_HEADERS = {"cuda_fp6.h": "fp6 types", "cuda_fp4.h": "fp4 types",
                        "cooperative_groups.h": "a grid-wide barrier (T.cuda.grid_sync, a cooperative launch)"}
# the calls whose runtime implementation synchronises or touches memory: they name their site
_SITED_CALL = re.compile(r"(__sync|__shfl|__ballot_sync|__any_sync|__all_sync|__reduce_|__match_|atomic|"
                         r"__threadfence|tirx_)")
# wgmma's calls: the local arrays passed to them are registers the race checker follows (their
# generic accesses go through `tirx_sim::rg`; the calls' own arguments do not)
_WGMMA_CALL = re.compile(r"tirx_(ptx|cuda)_wgmma_(mma_async|fence_)")


@dataclass(frozen=True)
class Unsupported:
    """One construct of the program the CPU runtime cannot run yet, at its first use."""
    what: str
    span: ir.Span


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


@dataclass(frozen=True)
class Site:
    """One access or call the checked sim flavour names to the runtime: its `.tx` span, and the
    buffer (C name) or function it goes through."""
    span: ir.Span
    name: str


def _checked_scope(storage: ir.Storage) -> bool:
    return storage.scope.startswith(("global", "shared"))


class SimPrinter(CPrinter):
    """CPrinter, but a `__shared__` array is a pointer into the block's shared area; with `sites`
    (a list the printer appends to) the checked flavour's hooks."""

    def __init__(self, source_name: str, var_names: dict[str, str], offsets: dict, sites: list | None = None,
                 sited_functions: frozenset = frozenset()):
        super().__init__(False, source_name, var_names)
        self.offsets = offsets  # Storage -> byte offset in the block's shared area
        self.sites = sites
        self.sited_functions = sited_functions
        self.span = ir.NOWHERE  # the statement being printed
        self.wgmma_registers: frozenset = frozenset()  # the local storages the kernel passes to wgmma
        self.in_wgmma_call = False

    def site(self, span, name: str) -> int:
        if span is None or span.line <= 0:
            span = self.span
        self.sites.append(Site(span, name.removesuffix("_ptr")))  # the .tx name of a buffer's storage
        return len(self.sites) - 1

    def expr(self, e: ir.Expr, top: bool = False) -> str:
        if self.sites is not None:
            cls = e.__class__
            if cls is ir.Load and _checked_scope(e.storage):
                name = e.storage.name
                return f"(*tirx_sim::rd({name}, &{name}[{self.expr(e.index, True)}], {self.site(e.span, name)}))"
            if cls is ir.Load and e.storage in self.wgmma_registers and not self.in_wgmma_call:
                name = e.storage.name
                return f"(*tirx_sim::rg(&{name}[{self.expr(e.index, True)}], {self.site(e.span, name)}))"
            if cls is ir.Call and _WGMMA_CALL.match(e.func):
                self.in_wgmma_call = True
                try:
                    return f"(tirx_sim::at({self.site(e.span, e.func.split('<', 1)[0])}), {super().expr(e, True)})"
                finally:
                    self.in_wgmma_call = False
            if cls is ir.VecLoad and _checked_scope(e.storage):
                const = "const " if e.storage.readonly else ""
                pointer = f"({const}{c_type(e.dtype)}*){self.pointer(e.storage, e.index)}"
                return f"(*tirx_sim::rd({e.storage.name}, {pointer}, {self.site(e.span, e.storage.name)}))"
            if cls is ir.Call and (_SITED_CALL.match(e.func) or e.func.split("<", 1)[0] in self.sited_functions):
                return f"(tirx_sim::at({self.site(e.span, e.func.split('<', 1)[0])}), {super().expr(e, True)})"
        return super().expr(e, top)

    def stmt(self, s: ir.Stmt) -> None:
        if self.sites is not None:
            if s.__class__ is not ir.Seq and s.span is not None and s.span.line > 0:
                self.span = s.span
            if s.__class__ in (ir.Store, ir.VecStore) and _checked_scope(s.storage):
                name = s.storage.name
                site = self.site(s.span, name)
                if s.__class__ is ir.Store:
                    target = f"&{name}[{self.expr(s.index, True)}]"
                else:
                    target = f"({c_type(s.value.dtype)}*){self.pointer(s.storage, s.index)}"
                self.emit(f"tirx_sim::wr({name}, {target}, {site}) = {self.expr(s.value, True)};")
                return
            if s.__class__ is ir.Store and s.storage in self.wgmma_registers:
                name = s.storage.name
                site = self.site(s.span, name)
                self.emit(f"*tirx_sim::rg(&{name}[{self.expr(s.index, True)}], {site}) = {self.expr(s.value, True)};")
                return
        if s.__class__ is ir.ArrayDecl and s.storage.scope == "shared" and s.storage in self.offsets:
            self.declare_shared(s.storage, self.offsets[s.storage])
        elif s.__class__ is ir.Trap:  # the run stops with the assertion's place and message
            where = f"{s.span}: " if s.span.line > 0 else ""
            self.emit(f"if ({self.expr(ir.unary('!', s.cond), True)}) {{")
            self.emit(f"  tirx_sim::trap_at({c_string(where + (s.message or 'assertion failed'))});")
            self.emit("}")
        else:
            super().stmt(s)

    def declare_shared(self, st: ir.Storage, offset: int) -> None:
        ctype = c_type(st.dtype)
        self.emit(f"{ctype}* const {st.name} = ({ctype}*)(tirx_sim_shared() + {offset});")


class SimFlavour:
    """The sim flavour for render_cuda(program, flavour=...). `cpu_helper(name, source, mnemonic)`
    gives a PTX helper's CPU implementation (C++ source, the same signature), or None where there is
    none yet. After rendering, `static_shared[symbol]` is the bytes of a kernel's static shared
    area, where its dynamic arena starts."""

    def __init__(self, cpu_helper, checked: bool = False):
        self._cpu_helper = cpu_helper
        self._cpu_sources: dict[str, str | None] = {}
        self.static_shared: dict[str, int] = {}
        self.sites: list[Site] | None = [] if checked else None  # the checked flavour's site table
        # each kernel's shared arrays: (name, offset, bytes, element bytes); the arena's bytes unknown (0)
        self.shared_layout: dict[str, list[tuple]] = {}

    def cpu_source(self, name: str, source: str, program: Program) -> str | None:
        if name not in self._cpu_sources:
            base = name.split("<", 1)[0]
            instruction = program.ptx_instructions.get(base)
            self._cpu_sources[name] = self._cpu_helper(base, source, instruction.mnemonic if instruction else None)
        return self._cpu_sources[name]

    # -- what cannot run ----------------------------------------------------------------------------
    def unsupported(self, program: Program) -> list[Unsupported]:
        found = []
        for lk in program.kernels:
            spec = lk.spec
            for p in spec.params:
                if p.kind is ParamKind.TENSOR_MAP and p.tensor_map is None:  # (the caller's: opaque bytes)
                    found.append(Unsupported(f"a tensor map the caller encodes (T.TensorMap() parameter "
                                             f"'{p.name}')", spec.span))
        for header in program.headers:
            if header in _UNSUPPORTED_HEADERS:
                found.append(Unsupported(_UNSUPPORTED_HEADERS[header], _first_kernel_span(program)))
        for name in program.helpers:
            base = name.split("<", 1)[0]
            source = ptx.helper_source(name, program.ptx_instructions)
            if _ASM.search(source) and self.cpu_source(name, source, program) is None:
                instruction = program.ptx_instructions.get(base)
                what = f"{instruction.mnemonic} ({base})" if instruction is not None else _instruction(source, base)
                found.append(Unsupported(what, _first_use(program, base)))
        for name, text in program.func_sources.items():
            if _ASM.search(text):
                found.append(Unsupported(f"inline PTX in the T.cuda.func_call source of '{name}'",
                                         _first_use(program, name)))
        return found

    # -- what render_cuda asks of a flavour ---------------------------------------------------------
    def helper_sources(self, program: Program) -> list[str]:
        out = []
        for name in program.helpers:
            source = ptx.helper_source(name, program.ptx_instructions)
            out.append(self.cpu_source(name, source, program) if _ASM.search(source) else source)
        return out

    def func_sources(self, program: Program) -> list[str]:
        return list(program.func_sources.values())

    def function_printer(self, program: Program, f) -> CPrinter:
        """A device function's printer: the default one, or with the checks' hooks."""
        if self.sites is None:
            return CPrinter(False, program.source_name, f.var_names)
        return SimPrinter(program.source_name, f.var_names, {}, self.sites, frozenset(g.name for g in program.functions))

    def printer(self, program: Program, lk) -> SimPrinter:
        offsets, end = {}, 0
        for s in ir.all_stmts(lk.body):
            if s.__class__ is ir.ArrayDecl and s.storage.scope == "shared" and s.storage not in offsets:
                st = s.storage
                end = _align_up(end, max(st.align, st.dtype.nbytes, 1))
                offsets[st] = end
                end += st.size * st.dtype.nbytes
        self.shared_layout[lk.spec.symbol] = [(st.name, at, st.size * st.dtype.nbytes, st.dtype.nbytes)
                                              for st, at in offsets.items()]
        printer = SimPrinter(program.source_name, lk.var_names, offsets, self.sites,
                             frozenset(f.name for f in program.functions))
        if self.sites is not None:
            printer.wgmma_registers = frozenset(a.storage for e in ir.all_exprs(lk.body)
                                                if e.__class__ is ir.Call and _WGMMA_CALL.match(e.func)
                                                for a in e.args if a.__class__ is ir.Load)
        if lk.arena is not None:
            a = lk.arena
            end = _align_up(end, max(a.align, 16))
            printer.declare_shared(a, end)
            self.shared_layout[lk.spec.symbol].append((a.name, end, 1 << 40, a.dtype.nbytes))
        self.static_shared[lk.spec.symbol] = _align_up(end, 16)
        return printer


def _instruction(source: str, helper: str) -> str:
    """The PTX instruction a helper wraps (its asm text's first word), with the helper's name."""
    match = _ASM_TEXT.search(source)
    words = match.group(1).replace("\\n", " ").replace("\\t", " ").split() if match else []
    words = [w for w in words if not w.startswith(("{", "}", ".reg"))]
    return f"{words[0].rstrip(';')} ({helper})" if words else helper


def _first_kernel_span(program: Program) -> ir.Span:
    return program.kernels[0].spec.span if program.kernels else ir.NOWHERE


def _first_use(program: Program, func: str) -> ir.Span:
    """The span of the first statement that calls `func`, else the first kernel's."""
    for lk in program.kernels:
        for s in ir.all_stmts(lk.body):
            for e in ir.stmt_exprs(s):
                for node in ir.walk_expr(e):
                    if node.__class__ is ir.Call and node.func.split("<", 1)[0] == func:
                        span = node.span if node.span is not None and node.span.line > 0 else s.span
                        if span is not None and span.line > 0:
                            return span
    return _first_kernel_span(program)
