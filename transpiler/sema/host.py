"""The checker as the evaluator's host (evaluator/host.py): the one place where the evaluator's
questions meet the checker's answers. Every state of a check carries it (`st.host`)."""
from __future__ import annotations

from transpiler.evaluator.host import Host
from transpiler.evaluator.values import Builtin
from transpiler.sema import state
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.library import class_dataclass, classes, macros, tma_utils
from transpiler.sema.library.class_values import Instance


class CheckerHost(Host):
    __slots__ = ()

    # (the evaluator's most frequent questions, answered without a call in between)
    elab = staticmethod(expr.elab)
    const_int = staticmethod(expr.const_int)
    arith = staticmethod(scalars.arith)

    def bound_value(self, st, name: str):
        return state.bound_value(st, name)

    def class_isinstance(self, st, value, kinds):
        return classes.isinstance_of(st, value, kinds)

    def call_function(self, st, function, args: dict, node):
        return macros.interpret(st, function, args, node)

    def class_of(self, value):
        return value.cls if isinstance(value, Instance) else None

    def number_of(self, value):
        number = expr.enum_value(value)
        return number if number is not value else None

    # `dataclasses` and TIRx's layout helpers for TMA / MMA operands, under each of their module names
    library_modules = {"dataclasses": class_dataclass.NAMES,
                       **{module: tma_utils.NAMES[short] for module, short in tma_utils.MODULE_ALIASES.items()}}
    library_builtins = {**class_dataclass.BUILTINS, **classes.BUILTINS, **tma_utils.BUILTINS}

    def library_import(self, module: str, name: str):
        if module == "dataclasses":
            return Builtin(f"{module}.{name}") if name in class_dataclass.NAMES else None
        return tma_utils.imported(module, name)

    def library_member(self, st, base, node):
        return tma_utils.member_attr(st, base, node)


HOST = CheckerHost()
