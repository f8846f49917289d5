"""A kernel without `T.device_entry()` whose body declares its thread hierarchy right after the
parameter bindings (`bx = T.cta_id([1])` ...), as TVM's own tests of TIRx write functions they
only parse and print (`T.hint`, the printer's round trips): TIRx's parser accepts such a function.
tirxc reads it as the kernel it would be with `T.device_entry()` before that first scope id, and
says so (W0006); a body that starts its device code any other way still needs the entry (E0400)."""
from __future__ import annotations

from transpiler.syntax import ast
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


def declares_scope_id(st, stmt) -> bool:
    """Whether a statement is a scope-id declaration: `T.cta_id([...])`, bound to names or not."""
    value = stmt.value if isinstance(stmt, (ast.ExprStmt, ast.Assign)) else None
    return value is not None and expr.is_dialect_call(st, value, _SCOPE_IDS, module_level=True)
