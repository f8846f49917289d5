"""Lowering of statements and of a whole kernel: allocations become C storage (`__shared__` arrays,
the one extern arena, register arrays, typed view pointers, workspace parameters), `T.unroll` loops
are expanded, declarations nobody reads are dropped (dead_code.py), and the kernel's LaunchSpec and
launch description are made (signature.py)."""
from __future__ import annotations

import dataclasses

from transpiler import ir
from transpiler.ir.fold import nonneg
from transpiler.ir.launch import ParamKind
from transpiler.ir.program import LoweredKernel
from transpiler.ir.walk import declares
from transpiler.lower.dead_code import drop_unused
from transpiler.lower.expressions import ExpressionLowerer
from transpiler.lower.facts import Facts, align_facts, static_shared_bytes
from transpiler.lower.names import reuse_source_names
from transpiler.lower.narrow import exact_stmt
from transpiler.lower.signature import arena_placement, describe, readonly_params, tmem_placement
from transpiler.target import ptx
from transpiler.target.arch import BASE_ARCH
from transpiler.target.dtypes import INT32


def checked_params(kernel) -> list[ir.Param]:
    """The kernel's C parameters as the checker and tile dispatch left them: the source's, then
    the tensor maps a chosen tile variant added (dispatch appends them to `kernel.params`). The
    one place lowering reads them."""
    return kernel.params


class KernelLowerer(ExpressionLowerer):
    """One kernel lowered: its body, LaunchSpec and launch description (run)."""

    # -- statements ----------------------------------------------------------------------------------------
    def stmt(self, s: ir.Stmt) -> ir.Stmt | None:
        cls = s.__class__
        if cls is ir.Seq:
            return ir.seq(self.stmt(x) for x in s.body)
        if cls is ir.Allocate:
            storage = self.own(s.buffer.storage)
            if storage.kind == "arena":
                return None  # declared once at the top of the kernel
            if storage.kind == "workspace":
                self.workspaces.append(s.buffer)
                return None  # a pointer parameter (run() adds it)
            return ir.ArrayDecl(storage, s.span)
        if cls is ir.DeclView:
            storage = self.own(s.buffer.storage)
            if s.buffer.scope == "tmem":  # columns, not C storage: recorded for `tirxc info`
                self.tmem.setdefault(id(s.buffer), tmem_placement(s.buffer))
                return None
            if storage.kind == "view_pointer" and id(storage) not in self.declared_pointers:
                self.declared_pointers.add(id(storage))
                address = s.buffer.storage.address  # (a view of an integer-made address: that address)
                return ir.PointerDecl(storage, ir.IntImm(INT32, 0) if address is None else self.expr(address), s.span)
            return None
        if cls is ir.BufferStore:
            return ir.Store(self.own(s.buffer.storage), self.index(s.buffer, s.indices), self.expr(s.value), s.span)
        if cls is ir.BufferVecStore:
            return ir.VecStore(self.own(s.buffer.storage), self.index(s.buffer, s.indices), self.expr(s.value), s.span)
        if cls is ir.LetStmt:
            value = self.expr(s.value)
            if value.__class__ is ir.Builtin and not self.depth and s.var.dtype == value.dtype:
                self.id_vars[value] = s.var
            # The fact belongs to this binding: the copies of an unrolled body bind
            # the same name to different values (`t = tx` then `t = tx - 1`).
            if nonneg(value, self.nonneg_names):
                self.nonneg_names.add(s.var.name)
            else:
                self.nonneg_names.discard(s.var.name)
            return ir.LetStmt(s.var, value, s.span)
        if cls is ir.Evaluate:
            return ir.Evaluate(self.expr(s.value), s.span)
        if cls is ir.If:
            cond = self.expr(s.cond)
            if ir.is_const(cond):
                return self.stmt(s.then) if cond.value else (self.stmt(s.orelse) if s.orelse else None)
            then = self.nested(s.then) or ir.Seq(())
            orelse = self.nested(s.orelse) if s.orelse is not None else None
            return ir.If(cond, then, orelse, s.span)
        if cls is ir.While:
            return ir.While(self.expr(s.cond), self.nested(s.body) or ir.Seq(()), s.span)
        if cls is ir.Block:  # a lowered tile primitive's code (transpiler/tile/dispatch.py)
            return ir.Block(self.stmt(s.body) or ir.Seq(()), s.span)
        if cls is ir.For:
            return self.loop(s)
        if cls is ir.Trap:
            return ir.Trap(self.expr(s.cond), s.message, s.span)
        return s

    def nested(self, s: ir.Stmt) -> ir.Stmt | None:
        """A statement lowered inside another (a body or branch: not at the top of the kernel's)."""
        self.depth += 1
        lowered = self.stmt(s)
        self.depth -= 1
        return lowered

    def loop(self, s: ir.For) -> ir.Stmt | None:
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        if s.kind == "unroll":
            # Each copy is lowered with the variable bound to its value, so every expression
            # folds as it is rebuilt (one pass, however deep the unrolled loops nest).
            out = []
            outer = self.unrolled.get(s.var.name)
            for value in range(start.value, stop.value, step.value):
                self.unrolled[s.var.name] = ir.IntImm(s.var.dtype, value)
                lowered = self.nested(s.body)
                if lowered is None:
                    continue
                out.append(ir.Block(lowered) if declares(lowered) else lowered)
            if outer is None:
                del self.unrolled[s.var.name]
            else:
                self.unrolled[s.var.name] = outer
            return ir.seq(out) if out else None
        if ir.is_const(step):
            direction = 1 if step.value > 0 else -1
        else:
            direction = 1 if nonneg(step, self.nonneg_names) else 0
        if ir.is_const(start) and ir.is_const(stop) and ir.is_const(step) and \
                (start.value >= stop.value if step.value > 0 else start.value <= stop.value):
            return None  # an empty range
        body = self.nested(s.body) or ir.Seq(())
        return ir.For(s.var, start, stop, step, body, s.kind, s.unroll_factor, s.span, direction)

    # -- the kernel ---------------------------------------------------------------------------------------
    def lowered_body(self, body: ir.Stmt):
        """A kernel's or device function's body lowered, unused values dropped and C's promotion of
        8- and 16-bit integers made exact (lower/narrow.py); with its facts, also kept in self.facts.
        Renaming changes variable and array names only, so the facts of the body as dropping left
        it answer every later question about it."""
        body, facts = drop_unused(self.stmt(body) or ir.Seq(()), self.pure_calls)
        if facts.promoted:
            body = exact_stmt(body)
        self.facts = facts
        return body, facts

    def run(self) -> LoweredKernel:
        k = self.kernel
        body, facts = self.lowered_body(k.body)
        var_names = reuse_source_names(body, self.module.source, self._global_names(facts))
        align_facts(facts, {self.own(storage): align for storage, align in k.raised_align.items()})
        kernel_params = checked_params(k)
        readonly = readonly_params(facts, kernel_params, body, self.module.ptx_instructions)
        params = []
        for p in kernel_params:
            if p.kind is ParamKind.BUFFER and p.buffer is not None:
                p = dataclasses.replace(p, buffer=self.own_buffer(p.buffer))
                if p.buffer.storage.name in readonly:
                    p.buffer.storage.readonly = True
            params.append(p)
        workspaces = tuple(self.own_buffer(ws) for ws in self.workspaces if id(self.own(ws.storage)) in facts.used)
        params.extend(ir.Param(ws.storage.name, ParamKind.WORKSPACE, ws.dtype, ws, ws.span) for ws in workspaces)
        arena = self.own(k.arena.storage) if k.arena is not None else None
        if arena is not None and id(arena) not in facts.used:
            arena = None
        if arena is not None:
            align = max([arena.align] + [v.align for v in k.views])
            arena.align = align
        block = [self.expr(e) for e in k.block]
        threads = 1
        for e in block:
            threads = threads * e.value if isinstance(e, ir.IntImm) and threads is not None else None
        arena_map = tuple(arena_placement(v) for v in [k.arena] + k.views if v is not None)
        spec = ir.LaunchSpec(
            name=k.name, symbol=f"{k.name}_kernel", params=tuple(params),
            grid=tuple(k.grid), block=tuple(block),  # host-side: floor division stays `//`
            static_shared_bytes=static_shared_bytes(facts),
            dynamic_shared_bytes=max(k.arena_bytes if arena else 0, k.attrs.get("tirx.dyn_smem_bytes", 0)),
            min_blocks=k.attrs.get("tirx.launch_bounds_min_blocks_per_sm"),
            max_registers=k.attrs.get("tirx.max_registers"), cluster=k.attrs.get("tirx.cluster_dims"),
            cooperative=k.attrs.get("tirx.use_cooperative_launch"),
            min_arch=max(BASE_ARCH, k.min_arch), arch_suffix=k.arch_suffix, arena=arena_map,
            launch_bounds=threads or None,  # docs/design.md, decision 8: the constant block size, 1 included
            arg_order=tuple(p.name for p in k.args), tmem=tuple(self.tmem.values()),
            span=k.name_span,
            workspaces=tuple(ir.Workspace(ws.name, ws.storage.name, ws.dtype, ws.shape, ws.align, ws.span)
                             for ws in workspaces))
        return LoweredKernel(spec, body, arena, var_names, list(self.kernel.tile_dispatch), describe(spec))

    def _global_names(self, facts: "Facts") -> set[str]:
        """C names visible everywhere in the kernel: parameters, storage, called functions."""
        names = {p.name for p in checked_params(self.kernel)}
        names.update(ws.storage.name for ws in self.workspaces)
        names.update(self.module.func_sources)
        names.update(ptx.HELPERS)
        if self.kernel.arena is not None:
            names.add(self.kernel.arena.storage.name)
        names.update(storage.name for storage in facts.accessed)
        names.update(facts.calls)
        names.update(storage.name for storage in facts.stored)
        names.update(storage.name for storage in facts.pointers)
        # arrays declared in the body are scoped like the variables
        names -= {storage.name for storage in facts.arrays}
        return names
