"""Lowering of device functions (sema/kernel/device_functions.py): the body as a kernel's is
lowered, with `return value` lowered too; a device function has no launch, so no LaunchSpec and no
launch description."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.ir.program import CheckedModule, DeviceFunction, Kernel, LoweredFunction
from transpiler.lower.names import reuse_source_names
from transpiler.lower.statements import KernelLowerer
from transpiler.target import ptx


class FunctionLowerer(KernelLowerer):
    """One device function lowered (run)."""

    def __init__(self, function: DeviceFunction, module: CheckedModule, diags: Diagnostics):
        # the kernel-shaped view of the function the expression lowerer reads (its nonneg facts)
        shape = Kernel(function.name, function.span, function.name_span, list(function.params), [],
                       function.body, [], [], set(function.nonneg), function.min_arch, function.arch_suffix,
                       None, 0, [], 0)
        super().__init__(shape, module, diags)
        self.function = function

    def stmt(self, s: ir.Stmt) -> ir.Stmt | None:
        if s.__class__ is ir.ReturnValue:
            return ir.ReturnValue(self.expr(s.value), s.span)
        return super().stmt(s)

    def run(self) -> LoweredFunction:
        f = self.function
        body, facts = self.lowered_body(f.body)
        names = {p.name for p in f.params} | set(self.module.func_sources) | set(ptx.HELPERS) | set(facts.calls)
        names |= {storage.name for storage in facts.accessed + facts.stored + facts.pointers}
        names -= {storage.name for storage in facts.arrays}
        var_names = reuse_source_names(body, self.module.source, names)
        return LoweredFunction(f.name, list(f.params), f.returns, body, var_names, f.name_span)
