"""Kernel factories: a `@T.prim_func` defined inside a plain Python function, which the file calls
at module level with compile-time arguments (`scale_64 = make_scale(64, 2.0)`), as the production
library's builders make their kernels. Python runs the factory before TVMScript parses the kernel,
so each call makes a kernel of its own, its body seeing the factory's parameters and locals as
constants (a closure's values when the factory returned).

TIRx names each such PrimFunc by its `def` (its `global_symbol`), the same for every call; tirxc
names each by the module-level name it is assigned to, as a `@T.jit` specialization is named
(jit.py): two calls of one factory are two kernels of one file, which cannot share a C symbol. A
factory's kernel that is never assigned to a name at module level is not emitted."""
from __future__ import annotations

from dataclasses import dataclass, replace

from transpiler.syntax import ast
from transpiler.sema import state
from transpiler.sema.kernel.prim_func import run as check_kernel_state
from transpiler.sema.state import KernelState
from transpiler.sema.values import Namespace


@dataclass(eq=False, repr=False)
class FactoryKernel:
    """A kernel a factory call made: its definition and the factory's scopes (innermost last), read
    when the kernel is checked, after the factory returned: the values a closure sees then."""
    fdef: ast.FunctionDef
    scopes: tuple

    def describe(self) -> str:
        return f"kernel `{self.fdef.name}` made by a kernel factory"


def is_prim_func(st, fdef: ast.FunctionDef) -> bool:
    """Whether a nested `def` is decorated `@T.prim_func` / `@T.function` (with options or not)."""
    if len(fdef.decorators) != 1:
        return False
    dec = fdef.decorators[0]
    target = dec.func if isinstance(dec, ast.Call) else dec
    if not (isinstance(target, ast.Attribute) and target.attr in ("prim_func", "function")
            and isinstance(target.value, ast.Name)):
        return False
    binding = state.binding(st, target.value.id) or st.module.globals.get(target.value.id)
    return binding is not None and isinstance(binding.value, Namespace) and binding.value.path == ("T",)


def make(st, fdef: ast.FunctionDef) -> FactoryKernel:
    """The kernel a `@T.prim_func` nested in a running plain function defines."""
    return FactoryKernel(fdef, tuple(scope for scope in st.scopes if scope is not st.module.globals))


def define(ms, made: FactoryKernel, target: ast.Name, register):
    """`target = factory(...)` at module level: the kernel, named `target`, checked with the
    factory's names bound; register(fdef) validates the name (False when it cannot be used)."""
    fdef = replace(made.fdef, name=target.id, name_span=target.span, decorators=())
    if not register(fdef):
        return None
    st = KernelState(ms, fdef)
    for scope in made.scopes:
        st.scopes[0].update(scope)
    return check_kernel_state(st)
