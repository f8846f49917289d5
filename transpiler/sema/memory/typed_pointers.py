"""Typed pointers, TIRx's `PointerType(PrimType(dtype), scope)`: the annotation
`T.handle(dtype, scope)` of a handle parameter (bound by `T.match_buffer` like `T.handle`), and
the spellings tirxc does not implement yet (`T.ptr_byte_offset`, `tvm.ir.PointerType` /
`PrimType`, an integer reinterpreted as a pointer), each refused by name as not supported yet."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema import registry
from transpiler.sema.expressions import expr
from transpiler.sema.values import HandleType, LibraryName

# TIRx's storage scopes a handle may point into
_SCOPES = ("global", "shared", "shared.dyn", "local", "shared::cluster")

# `T.<name>` functions of typed pointers that tirxc does not implement yet
NOT_YET = {"ptr_byte_offset": "`T.ptr_byte_offset` (pointer arithmetic on a typed pointer)"}

# the names of TVM's type system a typed pointer is built from
POINTER_TYPES = {("tvm.ir", "PointerType"), ("tvm.ir", "PrimType"), ("tvm.ir.type", "PointerType"),
                  ("tvm.ir.type", "PrimType")}


def handle_annotation(st, node: ast.Call):
    """`T.handle("float32", "global")`: a handle parameter whose pointer TIRx types; tirxc takes the
    element type from its `T.match_buffer`, as for a plain `T.handle`."""
    a = registry.bind_args(st, node, ("dtype=None", "storage_scope='global'", "is_size_var=False"), "T.handle")
    if a is None:
        return POISON
    if not registry.is_default(a["dtype"]):
        value = expr.elab(st, a["dtype"])
        if not (isinstance(value, PyConst) and value.value in ("handle", "void")):  # TIRx's untyped spellings
            if expr.dtype_arg(st, a["dtype"]) is None:
                return POISON
    if not registry.is_default(a["storage_scope"]):
        scope = expr.const_str(st, a["storage_scope"], "`storage_scope`")
        if scope is None:
            return POISON
        if scope not in _SCOPES:
            st.diags.error("E0310", f"`T.handle` into scope \"{scope}\" is not supported yet",
                           a["storage_scope"].span, help=f"the scopes are {', '.join(_SCOPES)}")
            return POISON
    if not registry.is_default(a["is_size_var"]):
        return registry.unsupported(st, a["is_size_var"], "`T.handle(is_size_var=...)`")
    return HandleType()


def not_yet(st, name: str, node):
    """A `T.*` name of typed pointers that tirxc does not implement: refused by name."""
    return registry.unsupported(st, node, NOT_YET[name], help="declare a buffer over the bytes instead "
                                "(`T.decl_buffer(shape, dtype, data=buf.data)` or `buf.view(dtype)`) and index it")


def is_pointer_type(value) -> bool:
    return isinstance(value, LibraryName) and (value.module, value.name) in POINTER_TYPES


def pointer_type(st, value: LibraryName, node):
    return registry.unsupported(st, node, f"`{value.name}` (a typed pointer from `{value.module}`)",
                                help="declare a buffer over the bytes instead (`T.decl_buffer(shape, dtype, "
                                     "data=buf.data)` or `buf.view(dtype)`) and index it")
