"""Tile-primitive dispatch: every `ir.TileCall` of a checked kernel replaced by the code of the first
variant, by priority, whose conditions hold (docs/design.md, decision 32), with a record of the
choice and of every variant ruled out before it. A call no variant accepts is one error (E0904)
at its `.tx` location, naming each variant and why it did not apply.

Dispatch writes nothing back into the checked module: it returns a new module whose kernels with
tile calls are new `Kernel`s (the dispatched body, the parameters plus the TMA tensor maps the
chosen variants made, the names and non-negative variables taken, the dispatch record, and in
`raised_align` the storage alignments the chosen variants need; the module's `ptx_instructions`
extended with the instructions they call), and shares everything else. A
variant that is tried and refused leaves nothing behind."""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics, Note, did_you_mean
from transpiler.ir.program import CheckedModule, CNames, Kernel, TileDispatch
from transpiler.target.arch import BASE_ARCH
from transpiler.tile import families  # noqa: F401  (registers every variant)
from transpiler.tile.context import Lowering
from transpiler.tile.explain import closest_help
from transpiler.tile.reach import Uniformity, check_reach, check_repeated
from transpiler.tile.registry import VARIANTS, attempt


def dispatch_module(module: CheckedModule, diags: Diagnostics) -> CheckedModule:
    """The module with every tile call of its kernels lowered; `module` itself is left as it was."""
    instructions = dict(module.ptx_instructions)  # the checker's, and the chosen variants'
    kernels = [_dispatch_kernel(kernel, diags, module.target, instructions) for kernel in module.kernels]
    return replace(module, kernels=kernels, ptx_instructions=instructions)


def _dispatch_kernel(kernel: Kernel, diags: Diagnostics, module_target, instructions: dict) -> Kernel:
    if not any(isinstance(s, ir.TileCall) for s in ir.all_stmts(kernel.body)):
        return kernel
    dispatcher = _Dispatcher(kernel, diags, module_target, instructions)
    body = dispatcher.stmt(kernel.body)
    return replace(kernel, body=body, params=kernel.params + [param for param, _ in dispatcher.tensor_maps],
                   nonneg=dispatcher.nonneg, cnames=dispatcher.names if kernel.cnames is not None else None,
                   tile_dispatch=kernel.tile_dispatch + dispatcher.record,
                   raised_align={**kernel.raised_align, **dispatcher.raised})


def _copy_names(names: CNames | None) -> CNames:
    copy = CNames()
    if names is not None:
        copy.taken, copy.next_suffix = set(names.taken), dict(names.next_suffix)
    return copy


class _Dispatcher:
    def __init__(self, kernel: Kernel, diags: Diagnostics, module_target, instructions: dict):
        self.kernel = kernel
        self.diags = diags
        # the kernel's own, copied: the dispatched kernel takes fresh names and non-negative variables
        self.names = _copy_names(kernel.cnames)
        self.nonneg = set(kernel.nonneg)
        # what the chosen variants made so far (Lowering.raised, Lowering.tensor_maps)
        self.raised: dict[ir.Storage, int] = {}
        self.tensor_maps: list[tuple[ir.Param, ir.Buffer]] = []
        self.record: list[TileDispatch] = []
        self.instructions = instructions  # the module's PTX instructions by helper (the chosen variants' added)
        # what the kernel needs without its tile primitives: the architecture variants keep to when
        # `--arch` is not given (None when it is)
        self.kernel_arch = None if module_target.named else max(kernel.min_arch, BASE_ARCH)
        self.guards: list[ir.Expr] = []  # the conditions of the enclosing `if`s and `while`s
        self.uniform = Uniformity(kernel.body)
        self.block_size = Lowering.constant_block_size(kernel.block)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        cls = s.__class__
        if cls is ir.TileCall:
            return self.call(s)
        if cls is ir.Seq:
            body = tuple(self.stmt(x) for x in s.body)
            return s if all(a is b for a, b in zip(body, s.body)) else ir.Seq(body, s.span)
        if cls is ir.Block or cls is ir.While or cls is ir.For:
            body = self.guarded(s.cond, s.body) if cls is ir.While else self.stmt(s.body)
            if body is s.body:
                return s
            if cls is ir.Block:
                return ir.Block(body, s.span)
            if cls is ir.While:
                return ir.While(s.cond, body, s.span)
            return ir.For(s.var, s.start, s.stop, s.step, body, s.kind, s.unroll_factor, s.span, s.direction)
        if cls is ir.If:
            then = self.guarded(s.cond, s.then)
            orelse = self.guarded(s.cond, s.orelse) if s.orelse is not None else None
            if then is s.then and orelse is s.orelse:
                return s
            return ir.If(s.cond, then, orelse, s.span)
        return s

    def guarded(self, cond: ir.Expr, body: ir.Stmt) -> ir.Stmt:
        self.guards.append(cond)
        try:
            return self.stmt(body)
        finally:
            self.guards.pop()

    def call(self, call: ir.TileCall) -> ir.Stmt:
        title = f"Tx.{call.op}" if call.scope == "thread" else f"Tx.{_scope_name(call.scope)}.{call.op}"
        cases = VARIANTS.get(call.op, [])
        if call.dispatch is not None:
            chosen = [v for v in cases if v.name == call.dispatch]
            if not chosen:
                names = [v.name for v in cases]
                self.diags.error("E0905", f"`{title}` has no variant `{call.dispatch}`", call.span,
                                 help=did_you_mean(call.dispatch, names)
                                 or (f"its variants are {', '.join(names)}" if names else None))
                return ir.Seq(())
            cases = chosen
        else:
            cases = [v for v in cases if not v.explicit]
        # Without --arch, a variant that needs a newer GPU than the kernel already does is taken only
        # when no variant within the kernel's architecture applies (docs/design.md, decision 32).
        outcome = self.attempt(call, cases, raise_arch=False)
        if outcome[0] is None and self.kernel_arch is not None:
            outcome = self.attempt(call, cases, raise_arch=True)
        case, lowered, rejected = outcome
        if case is not None and not check_reach(call, title, self.diags):
            return ir.Seq(())
        if case is not None:
            check_repeated(call, title, self.block_size, self.guards, self.uniform, self.diags)
            why = "; ".join(check.says for check in case.when) or "applies to every call"
            operands = describe_operands(call)
            self.record.append(TileDispatch(call.span, title, operands, case.name, why,
                                                          tuple(rejected)))
            header = ir.Comment(f"{title}({operands}): {case.name}", call.span)
            return ir.Seq((header, ir.Block(lowered or ir.Seq(()), call.span)), call.span)
        if not cases:
            self.diags.error("E0904", f"`{title}` is not supported yet: tirxc has no lowering of it", call.span)
            return ir.Seq(())
        notes = [Note(f"variant `{name}`: {reason}") for name, reason in rejected]
        forced = f" (forced with dispatch=\"{call.dispatch}\")" if call.dispatch else ""
        help = closest_help(call, cases, lambda: Lowering(call, _copy_names(self.names), set(self.nonneg)))
        self.diags.error("E0904", f"no lowering of `{title}` accepts this call{forced}", call.span, notes=notes,
                         help=help)
        return ir.Seq(())


    def attempt(self, call: ir.TileCall, cases, raise_arch: bool):
        """(the first variant that accepts the call, its code, the variants ruled out before it)."""
        rejected: list[tuple[str, str]] = []
        for case in cases:
            cx = Lowering(call, self.names, self.nonneg, None if raise_arch else self.kernel_arch)
            cx.raised, cx.tensor_maps = dict(self.raised), list(self.tensor_maps)  # kept if it is chosen
            reason, lowered = attempt(case, call, cx)
            if reason is not None:
                rejected.append((case.name, reason))
                continue
            self.raised, self.tensor_maps = cx.raised, cx.tensor_maps
            self.instructions.update(cx.instructions)
            return case, lowered, rejected
        return None, None, rejected


def _scope_name(scope: str) -> str:
    return "wg" if scope == "warpgroup" else scope


def describe_operands(call: ir.TileCall) -> str:
    """The operands as the comment over the lowered code shows them: `A_smem[0:4, 0:6], A`."""
    parts = []
    for name, value in call.operands:
        if isinstance(value, ir.TileRegion):
            parts.append(describe_region(value))
        elif value is None:
            continue
        elif isinstance(value, (bool, int, float, str)):
            parts.append(f"{name}={value!r}")
        else:
            parts.append(name)
    return ", ".join(parts)


def _start_name(start: ir.Expr) -> str:
    if isinstance(start, ir.Var):
        return start.name
    if isinstance(start, ir.BufferLoad) and start.buffer.scalar:
        return start.buffer.name
    return "s"


def describe_region(region: ir.TileRegion) -> str:
    buf = region.buffer
    whole = all(ir.is_const(s, 0) for s in region.starts) and all(
        e is f or e == f for e, f in zip(region.extents, buf.shape))
    name = buf.name or "registers"
    if whole:
        return name
    dims = []
    for start, extent in zip(region.starts, region.extents):
        if ir.is_const(start) and ir.is_const(extent):
            dims.append(str(start.value) if extent.value == 1 else f"{start.value}:{start.value + extent.value}")
        elif ir.is_const(extent):  # a run-time start: its name when it has one
            at = _start_name(start)
            dims.append(at if extent.value == 1 else f"{at}:{at}+{extent.value}")
        else:
            dims.append(":")
    return f"{name}[{', '.join(dims)}]"
