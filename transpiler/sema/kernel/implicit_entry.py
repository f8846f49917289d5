"""A `@T.prim_func` without `T.device_entry()`.

One whose body declares its thread hierarchy right after the parameter bindings
(`bx = T.cta_id([1])` ...), as TVM's own tests of TIRx write functions they only parse and print
(`T.hint`, the printer's round trips): TIRx's parser accepts such a function. tirxc reads it as the
kernel it would be with `T.device_entry()` before that first scope id, and says so (W0006).

One with no device code at all (parameter bindings, symbolic extents, compile-time values and
`T.call_packed` launches of kernels by name, as the documentation prints a module's host `main`
after `SplitHostDevice`): TIRx's `BindTarget` finds no GPU scope in it and compiles it for the
host, where it launches nothing of its own. tirxc emits nothing for it and says so (W0006): the
generated launcher is the host side of every kernel.

A body that starts its device code any other way still needs the entry (E0400)."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.target.dtypes import parse_dtype
from transpiler.sema.expressions import expr
from transpiler.sema.kernel.threads import _ID_KINDS

_SCOPE_IDS = tuple(_ID_KINDS)


def no_device_entry(st, device: list) -> None:
    """Report a kernel with no `T.device_entry()`, whose device part is `device`."""
    first = device[0] if device else None
    if first is not None and declares_scope_id(st, first):
        st.diags.warning("W0006", f"kernel `{st.fdef.name}` has no `T.device_entry()`: its device code is read as "
                                  f"starting at line {first.span.line}, its first scope id", first.span,
                         help="TIRx parses a function without it as well; write `T.device_entry()` before this "
                              "line to say where the device code starts")
        return
    st.diags.error("E0400", f"kernel `{st.fdef.name}` has no `T.device_entry()`", st.fdef.name_span,
                   help="write `T.device_entry()` after the `T.match_buffer` calls; the kernel body follows it")


def looks_like_host(stmt) -> bool:
    """Whether a statement can belong before `T.device_entry()` (judged by its form only)."""
    if isinstance(stmt, (ast.Pass, ast.Assert)):
        return True
    if isinstance(stmt, ast.ExprStmt):
        value = stmt.value
        return isinstance(value, ast.Constant) or (isinstance(value, ast.Call) and isinstance(
            value.func, ast.Attribute) and value.func.attr in ("func_attr", "match_buffer"))
    if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
        value = stmt.value
        if isinstance(value, ast.Call):
            return isinstance(value.func, ast.Attribute) and (
                value.func.attr == "match_buffer" or (not value.args and not value.keywords
                                                      and parse_dtype(value.func.attr) is not None))
        return not _contains_call(value)
    return False


def _contains_call(node) -> bool:
    return isinstance(node, ast.Call) or any(_contains_call(child) for child in ast.iter_children(node))


def is_host_function(st, body: list) -> bool:
    """Whether a body without `T.device_entry()` holds no device code (then a warning says so)."""
    if not all(looks_like_host(stmt) or launches_by_name(st, stmt) for stmt in body):
        return False
    st.host_function = True
    st.diags.warning("W0006", f"function `{st.fdef.name}` has no `T.device_entry()` and no device code: TIRx "
                              f"compiles it for the host, and tirxc emits nothing for it", st.fdef.name_span,
                     help="the generated launcher is the host side of each kernel; to make this function a "
                          "kernel, write `T.device_entry()` and its body after the `T.match_buffer` calls")
    return True


def launches_by_name(st, stmt) -> bool:
    """`T.call_packed("kernel", ...)` of a kernel by name (not a `runtime.*` function): what TIRx's host
    code does to launch a kernel, and what the generated launcher does here."""
    call = stmt.value if isinstance(stmt, ast.ExprStmt) else None
    if call is None or not expr.is_dialect_call(st, call, ("call_packed",), module_level=True) or not call.args:
        return False
    name = call.args[0]
    return isinstance(name, ast.Constant) and isinstance(name.value, str) and not name.value.startswith("runtime.")


def ellipsis(st, stmt) -> None:
    """`...` as a statement, anywhere in a prim_func's body: TIRx's parser evaluates it to Python's
    Ellipsis, which is no statement ('Parsing resulted in unexpected type'), so it is an error here too."""
    st.diags.error("E0201", "`...` is not a statement of a kernel body", stmt.span, help="write `pass`")


def declares_scope_id(st, stmt) -> bool:
    """Whether a statement is a scope-id declaration: `T.cta_id([...])`, bound to names or not."""
    value = stmt.value if isinstance(stmt, (ast.ExprStmt, ast.Assign)) else None
    return value is not None and expr.is_dialect_call(st, value, _SCOPE_IDS, module_level=True)
