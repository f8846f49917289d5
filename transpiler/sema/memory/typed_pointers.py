"""Typed pointers, TIRx's `PointerType(PrimType(dtype), scope)`: the annotation
`T.handle(dtype, scope)` of a handle parameter (bound by `T.match_buffer` like `T.handle`); a
buffer's address retyped, `T.reinterpret(PointerType(PrimType("int32")), smem.ptr_to([k]))`, which
`T.decl_buffer(shape, "int32", data=...)` takes as a view over those bytes (DeepEP's spelling of
its shared-memory views); and the spellings tirxc does not implement yet (`T.ptr_byte_offset`, an
integer reinterpreted as a pointer), each refused by name as not supported yet."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.syntax import ast
from transpiler.syntax.source import Span
from transpiler.target.dtypes import DType, INT32
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema import registry
from transpiler.sema.expressions import expr
from transpiler.sema.values import CheckerValue, HandleType, LibraryName, Pointer


@dataclass(frozen=True, eq=False, repr=False)
class PrimTypeVal(CheckerValue):
    """`PrimType("int32")`: a scalar type of TVM's type system."""
    dtype: DType

    def describe(self) -> str:
        return f"`PrimType(\"{self.dtype}\")`"


@dataclass(frozen=True, eq=False, repr=False)
class PointerTypeVal(CheckerValue):
    """`PointerType(PrimType(dtype), scope)`: the type of a pointer to dtype elements."""
    dtype: DType
    scope: str | None

    def describe(self) -> str:
        return f"`PointerType(PrimType(\"{self.dtype}\"))`"


@dataclass(frozen=True, eq=False, repr=False)
class TypedPointer(CheckerValue):
    """A buffer's address retyped (`T.reinterpret(PointerType(...), B.ptr_to([i]))`): `byte_offset`
    bytes into `buffer`'s storage, pointing at `dtype` elements."""
    buffer: ir.Buffer
    byte_offset: ir.Expr
    dtype: DType
    span: Span

    def describe(self) -> str:
        return f"a {self.dtype} pointer into `{self.buffer.name}`"

# TIRx's storage scopes a handle may point into
_SCOPES = ("global", "shared", "shared.dyn", "local", "shared::cluster")

# `T.<name>` functions of typed pointers that tirxc does not implement yet
NOT_YET = {"ptr_byte_offset": "`T.ptr_byte_offset` (pointer arithmetic on a typed pointer)",
           "Var": "`T.Var(name, type)` (a variable of a given type, such as a typed pointer for `T.let[...]`)"}

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


def pointer_type(st, value: LibraryName, node: ast.Call):
    """`PrimType("int32")` and `PointerType(PrimType("int32")[, "shared"])`."""
    if value.name == "PrimType":
        a = registry.bind_args(st, node, ("dtype",), "PrimType")
        dtype = None if a is None else expr.dtype_arg(st, a["dtype"])
        return POISON if dtype is None else PrimTypeVal(dtype)
    a = registry.bind_args(st, node, ("element_type", "storage_scope=''"), "PointerType")
    if a is None:
        return POISON
    element = expr.elab(st, a["element_type"])
    if not isinstance(element, PrimTypeVal):
        if element is not POISON:
            st.diags.error("E0302", f"`PointerType` points at a `PrimType(dtype)`, not {expr.kind_of(element)}",
                           a["element_type"].span)
        return POISON
    scope = None
    if not registry.is_default(a["storage_scope"]):
        scope = expr.const_str(st, a["storage_scope"], "`storage_scope`")
        if scope is None:
            return POISON
    return PointerTypeVal(element.dtype, scope or None)


def reinterpret(st, node: ast.Call, target: PointerTypeVal, source, a):
    """`T.reinterpret(PointerType(PrimType(dtype)), B.ptr_to([i]))` (or `B.data`): B's bytes from
    element i on, as dtype elements."""
    if isinstance(source, Pointer):
        source = ir.BufferAddress(source.buffer.dtype, source.buffer, None, a["x"].span)
    if not isinstance(source, ir.BufferAddress) or source.buffer.storage is None:
        if source is not POISON:
            return registry.unsupported(st, a["x"], f"`T.reinterpret` of {expr.kind_of(source)} to a pointer",
                                        help="retype the address of a buffer element (`B.ptr_to([i])`, `B.data`)")
        return POISON
    buf = source.buffer
    if target.scope is not None and target.scope != buf.scope:
        st.diags.error("E0516", f"a \"{target.scope}\" pointer into `{buf.name}`, which is \"{buf.scope}\"",
                       a["dtype"].span, help="leave the scope out: the pointer has the scope of its buffer")
        return POISON
    index = _flat_index(st, buf, source.indices, a["x"].span)
    if index is None:
        return POISON
    return TypedPointer(buf, ir.binop("*", index, ir.IntImm(INT32, buf.dtype.nbytes)), target.dtype, node.span)


def _flat_index(st, buf: ir.Buffer, indices, span) -> ir.Expr | None:
    """The element `indices` name, counted from the start of `buf`'s storage."""
    offset = buf.elem_offset if buf.elem_offset is not None else ir.IntImm(INT32, 0)
    if indices is None:
        return offset
    if buf.layout is not None:
        registry.unsupported(st, ast.Value(span, None), f"a retyped pointer into `{buf.name}`, which has a layout")
        return None
    flat = ir.IntImm(INT32, 0)
    for extent, index in zip(buf.shape, indices):
        flat = ir.binop("+", ir.binop("*", flat, extent), index)
    return ir.binop("+", offset, flat)


def as_view_base(st, typed: TypedPointer, dtype: DType, a: dict):
    """`T.decl_buffer(..., data=typed)`: the `data=` and `byte_offset=` it stands for, or None after an
    error: the view starts `typed.byte_offset` bytes into its buffer's storage."""
    if dtype != typed.dtype:
        st.diags.error("E0516", f"`data=` points at {typed.dtype} elements, but the buffer holds {dtype}",
                       a["data"].span, help=f"declare the buffer as \"{typed.dtype}\" or retype the pointer")
        return None
    for name in ("elem_offset", "byte_offset"):
        if not registry.is_default(a[name]):
            registry.unsupported(st, a[name], f"`{name}=` with a retyped `data=` pointer",
                                 help="put the offset into the address the pointer is made from")
            return None
    base = typed.buffer
    byte_offset = typed.byte_offset
    if dtype == base.dtype and base.elem_offset is not None:  # a same-typed view counts from the buffer's start
        byte_offset = ir.binop("-", byte_offset, ir.binop("*", base.elem_offset, ir.IntImm(INT32, dtype.nbytes)))
    return Pointer(base), ast.Value(a["data"].span, byte_offset)
