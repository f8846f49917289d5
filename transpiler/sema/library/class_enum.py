"""Classes derived from `enum.Enum` / `enum.IntEnum` (kernel files name modes and GEMM kinds so):
each `NAME = value` of the class body becomes the class's member, one instance per value (a later
name with an earlier value is an alias of it), whose `.name` and `.value` are compile-time values
and whose properties and methods are the class's. Members compare by identity (`is`, `==`); an
IntEnum member also equals its integer value. `Cls(value)` finds the member."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.sema import state
from transpiler.sema.library.class_values import ClassVal, Instance
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema.values import LibraryName

KINDS = ("Enum", "IntEnum")


def base_kind(st, base) -> str | None:
    """"Enum" / "IntEnum" when the base names enum's class (imported from `enum`, or `enum.Enum`)."""
    if isinstance(base, ast.Attribute) and base.attr in KINDS and isinstance(base.value, ast.Name):
        module = state.bound_value(st, base.value.id)
        return base.attr if isinstance(module, LibraryName) and module.module == "enum" else None
    if isinstance(base, ast.Name) and base.id in KINDS:
        value = state.bound_value(st, base.id)
        return base.id if value is None or (isinstance(value, LibraryName) and value.module == "enum") else None
    return None


def complete(st, cdef: ast.ClassDef, cls: ClassVal, members: dict, kind: str) -> None:
    """Turn the body's plain class attributes into members (in definition order)."""
    found: list[Instance] = []
    for stmt in cdef.body:
        if not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name)
                and stmt.value is not None):
            continue
        name = stmt.target.id
        value = members.get(name)
        if name.startswith("_") or not isinstance(value, PyConst):
            if not name.startswith("_"):
                st.diags.error("E0339", f"an enum member's value must be a compile-time constant (`{name}`)",
                               stmt.value.span)
            continue
        earlier = next((m for m in found if m.attrs["value"].value == value.value), None)
        if earlier is None:
            earlier = Instance(cls, {"name": PyConst(name), "value": value})
            found.append(earlier)
        members[name] = earlier
    object.__setattr__(cls, "enum", (kind, tuple(found)))


def lookup(st, cls: ClassVal, node: ast.Call, value):
    """`Cls(value)`: the member with that value."""
    if isinstance(value, Instance) and value.cls is cls:
        return value
    for member in cls.enum[1]:
        if isinstance(value, PyConst) and member.attrs["value"].value == value.value:
            return member
    st.diags.error("E0333", f"no member of `{cls.name}` has this value", node.span)
    return POISON


def by_name(st, cls: ClassVal, node: ast.Subscript, name):
    """`Cls["NAME"]`: the member of that name (an alias gives the member it names), as CPython's
    `EnumType.__getitem__`."""
    if not (isinstance(name, PyConst) and isinstance(name.value, str)):
        st.diags.error("E0333", f"`{cls.name}[...]` takes a member's name, a compile-time string", node.span)
        return POISON
    member = cls.members.get(name.value)
    if isinstance(member, Instance) and member.cls is cls and member in cls.enum[1]:
        return member
    st.diags.error("E0333", f"`{cls.name}` has no member named {name.value!r} (CPython's KeyError)", node.span)
    return POISON
