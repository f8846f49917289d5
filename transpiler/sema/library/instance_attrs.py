"""Setting an attribute of an instance of the file's classes: `obj.x = v` rebinds the attribute, as
Python does, in a plain helper (`assign_py`; `del obj.x`: `delete_py`) and in kernel statements (`assign_kernel`), except in
kernel statements where the attribute holds a mutable scalar (`T.local_scalar`): there it stores
into the scalar, as TVMScript's assignment does. Shared by the helper interpreter (macros.py) and
the statement rules (sema/dispatch.py), below both classes.py and macros.py."""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.syntax import ast
from transpiler.sema.expressions import effects, expr, stores
from transpiler.evaluator import core as pyeval
from transpiler.sema.kernel import statements
from transpiler.sema.library.class_values import GENERATED_INIT_SELF, ClassVal, Instance
from transpiler.evaluator.values import Poison


def set_attribute(st, obj: Instance, name: str, value, span) -> None:
    """Binds an attribute; a buffer made for it (`self.buf = T.local_scalar(...)`) takes its name."""
    if isinstance(value, ir.Buffer) and not value.name.isidentifier() and not st.at_module_level:
        named = replace(value, name=name)
        statements.flush_named(st, named, value)
        value = named
        if value.storage is not None:
            st.__dict__.setdefault("class_storages", set()).add(id(value.storage))
    obj.attrs[name] = value


def frozen_owner(obj: Instance, name: str) -> ClassVal | None:
    """The frozen dataclass whose generated `__setattr__` refuses `obj.name = ...`: one in the
    instance's MRO, when the instance is of that very class or `name` is one of its fields
    (CPython's rule); None when the assignment is allowed."""
    for cls in obj.cls.linear:
        if (cls.dataclass_options or {}).get("frozen"):
            fields = {f.name for c in cls.linear for f in (c.dataclass_fields or ())}
            if obj.cls is cls or name in fields:
                return cls
    return None


def target_instance(st, target: ast.Attribute, action: str = "assign to"):
    obj = expr.elab(st, target.value)
    if isinstance(obj, Instance):
        generated_init = isinstance(target.value, ast.Name) and target.value.id == GENERATED_INIT_SELF
        frozen = None if generated_init else frozen_owner(obj, target.attr)
        if frozen is not None:
            st.diags.error("E0345", f"cannot {action} field `{target.attr}` of a frozen dataclass instance "
                           f"(`{frozen.name}`)", target.span,
                           help="CPython raises dataclasses.FrozenInstanceError here; make a changed copy with "
                                f"`dataclasses.replace(obj, {target.attr}=...)`")
            return None
        return obj
    if isinstance(obj, ClassVal):  # (valid Python: a class attribute rebound for every instance)
        st.diags.error("E0334", f"{'deleting' if action == 'delete' else 'setting'} an attribute of a class "
                                f"(`{obj.name}.{target.attr}`) is not supported yet", target.span,
                       help="keep the value in a module-level name, or on an instance (`self.x = ...`)")
    elif not isinstance(obj, Poison):
        what = pyeval.kind_of(obj)
        st.diags.error("E0334", f"cannot {'delete' if action == 'delete' else 'set'} an attribute of {what}",
                       target.span,
                       help="attributes are set on instances of the file's classes (`self.x = ...`)")
    return None


def assign_py(st, target: ast.Attribute, value) -> bool:
    """`obj.x = value` in a plain helper (the interpreter): rebinds the attribute, as Python does."""
    obj = target_instance(st, target)
    if obj is None:
        return False
    set_attribute(st, obj, target.attr, value, target.span)
    return True


def delete_py(st, target: ast.Attribute) -> bool:
    """`del obj.x` in a plain helper: the instance's own attribute is removed, as Python does (a
    class attribute of the same name shows again)."""
    obj = target_instance(st, target, "delete")
    if obj is None:
        return False
    if target.attr not in obj.attrs:
        st.diags.error("E0334", f"the instance has no attribute `{target.attr}` of its own to delete", target.span)
        return False
    del obj.attrs[target.attr]
    return True


def assign_kernel(st, target: ast.Attribute, value_node, stmt):
    """`obj.x = value` in kernel statements (an inlined method): a store when the attribute holds a
    mutable scalar (TVMScript stores into a scalar buffer there), else the attribute is rebound."""
    obj = target_instance(st, target)
    if obj is None:
        expr.elab(st, value_node)
        return None
    current = obj.attrs.get(target.attr)
    val = expr.elab(st, value_node)
    if isinstance(val, Poison):
        return None
    if isinstance(current, ir.Buffer) and statements.is_scalar_like(current):
        val = stores.stored(st, val, value_node.span, current.dtype)
        return statements.scalar_store(st, current, val, stmt.span, value_node.span)
    if isinstance(val, ir.Expr) and not effects.is_pure(val):
        val = effects.once(st, val, "a value with side effects", value_node.span)
        if val is None:
            return None
    set_attribute(st, obj, target.attr, val, target.span)
    return None


def aug_assign_kernel(st, stmt: ast.AugAssign):
    """`obj.x op= value` in kernel statements: as `obj.x = obj.x op value`."""
    return assign_kernel(st, stmt.target, ast.BinOp(stmt.span, stmt.op, stmt.target, stmt.value), stmt)
