"""`@T.jit` kernels: a kernel whose parameters annotated `T.constexpr` are compile-time values, made
into an ordinary kernel by `name = kernel.specialize(N=256)` at module level (TIRx's TIRJit). Each
specialization is checked as a kernel of its own, named by the name it is assigned to, with the
constexpr parameters bound as constants (their defaults where not given) and removed from its
parameter list. A `@T.jit` kernel never specialized emits nothing (warning W0004)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from transpiler.diag.diagnostics import did_you_mean
from transpiler.syntax import ast
from transpiler.sema.kernel.prim_func import run as check_kernel_state
from transpiler.sema.state import KernelState, at_module_level
from transpiler.evaluator.values import Binding, Poison
from transpiler.sema.values import Namespace
from transpiler.sema.expressions import expr


@dataclass(eq=False, repr=False)
class JitKernel:
    """A `@T.jit` function: its definition, its constexpr parameters, whether it was specialized."""
    fdef: ast.FunctionDef
    constexprs: tuple  # the ast.Param of each `T.constexpr` parameter
    specialized: bool = False


def _is_constexpr(ms, annotation) -> bool:
    if not (isinstance(annotation, ast.Attribute) and annotation.attr == "constexpr"
            and isinstance(annotation.value, ast.Name)):
        return False
    binding = ms.globals.get(annotation.value.id)
    return binding is not None and isinstance(binding.value, Namespace) and binding.value.path == ("T",)


def define(ms, fdef: ast.FunctionDef) -> None:
    """Bind the `@T.jit` function's name; nothing is checked until it is specialized."""
    constexprs = tuple(p for p in fdef.params if p.annotation is not None and _is_constexpr(ms, p.annotation))
    jit = JitKernel(fdef, constexprs)
    ms.globals[fdef.name] = Binding(jit, "const", fdef.name_span)
    ms.jit_kernels.append(jit)


def specialization(ms, value: ast.Expr) -> JitKernel | None:
    """The JitKernel of `kernel.specialize(...)`, or None when value is another expression."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "specialize"
            and isinstance(value.func.value, ast.Name)):
        return None
    binding = ms.globals.get(value.func.value.id)
    return binding.value if binding is not None and isinstance(binding.value, JitKernel) else None


def specialize(ms, jit: JitKernel, target: ast.Name, call: ast.Call, register):
    """`target = kernel.specialize(N=..., ...)`: the kernel checked with the constants bound;
    register(fdef) validates the new kernel's name and returns False when it cannot be used."""
    jit.specialized = True
    names = [p.name for p in jit.constexprs]
    module_st = at_module_level(ms)
    values = {}
    if call.args:
        ms.diags.error("E0305", f"`{jit.fdef.name}.specialize` takes its constexpr values by keyword",
                       call.args[0].span)
        return None
    for kw in call.keywords:
        if kw.name not in names:
            ms.diags.error("E0311", f"`{jit.fdef.name}` has no constexpr parameter `{kw.name}`", kw.span,
                           help=did_you_mean(kw.name, names) or
                           (f"its constexpr parameters are {', '.join(f'`{n}`' for n in names)}" if names else
                            "it has no `T.constexpr` parameter"))
            continue
        values[kw.name] = (expr.elab(module_st, kw.value), kw.span)
    for param in jit.constexprs:
        if param.name not in values:
            if param.default is None:
                ms.diags.error("E0305", f"`{jit.fdef.name}.specialize` needs a value for `{param.name}`", call.span)
                return None
            values[param.name] = (expr.elab(module_st, param.default), param.span)
    if any(isinstance(v, Poison) for v, _ in values.values()):
        return None
    params = tuple(p for p in jit.fdef.params if p not in jit.constexprs and not (p.star == "*" and not p.name))
    fdef = replace(jit.fdef, name=target.id, name_span=target.span, params=params)
    if not register(fdef):
        return None
    st = KernelState(ms, fdef)
    for name, (value, span) in values.items():
        st.scopes[0][name] = Binding(value, "const", span)
    return check_kernel_state(st)


def unspecialized(ms) -> None:
    for jit in ms.jit_kernels:
        if not jit.specialized:
            ms.diags.warning("W0004", f"`@T.jit` kernel `{jit.fdef.name}` is never specialized: no kernel is emitted",
                             jit.fdef.name_span,
                             help=f"specialize it at module level: `{jit.fdef.name}_k = {jit.fdef.name}.specialize("
                                  + ", ".join(f"{p.name}=..." for p in jit.constexprs) + ")`")
