"""Typed pointers, TIRx's `PointerType(PrimType(dtype), scope)`: the annotation
`T.handle(dtype, scope)` of a handle parameter (bound by `T.match_buffer` like `T.handle`); a
buffer's address retyped, `T.reinterpret(PointerType(PrimType("int32")), smem.ptr_to([k]))`, which
`T.decl_buffer(shape, "int32", data=...)` takes as a view over those bytes (DeepEP's spelling of
its shared-memory views); `T.ptr_byte_offset(ptr, bytes, dtype)`, the same pointer moved by a byte
count; a 64-bit integer made a pointer (`T.reinterpret("handle", u64)`, or to a `PointerType`, or
`T.cast(u64, PointerType(...))`): a generic address, as DeepEP builds its peer and global
pointers, which PTX operands and `T.cuda.*` pointer arguments take; and `T.Var(name, type)` as
the type of a `T.let[...]` binding. `T.decl_buffer(shape, dtype, data=ptr)` over an integer-made
pointer is a typed view of that address, `float* v_ptr = (float*)(ptr);`, as TIRx's C code
generator declares a buffer over a handle variable."""
from __future__ import annotations

from dataclasses import dataclass, replace

from transpiler import ir
from transpiler.ir import analysis as ir_analysis
from transpiler.syntax import ast
from transpiler.syntax.source import Span
from transpiler.target.dtypes import DType, HANDLE, INT32, UINT64
from transpiler.evaluator.values import POISON, PyConst, article
from transpiler.sema import registry
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.values import LetType
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
NOT_YET: dict[str, str] = {}

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
    if isinstance(source, ir.Expr) and source.dtype.is_int or isinstance(source, PyConst):
        return from_integer(st, node, source, a["x"].span)
    if is_address(source):  # a generic address keeps its bits
        return source
    if isinstance(source, TypedPointer):
        return TypedPointer(source.buffer, source.byte_offset, target.dtype, node.span)
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


def is_address(value) -> bool:
    """A pointer made from an integer: a `void*` expression (`T.reinterpret("handle", u64)`)."""
    return isinstance(value, ir.Expr) and value.dtype == HANDLE and not isinstance(value, ir.BufferAddress)


def address_view(st, node: ast.Call, a: dict, address: ir.Expr, scope: str | None):
    """`T.decl_buffer(shape, dtype, data=ptr)` over a pointer made from an integer: its elements are
    read and written through a pointer of the dtype declared from the address, generic: a peer's
    global buffer, or a peer CTA's shared memory (`mapa` of a shared address, as the library's
    all-gather GEMM declares its `scope="shared"` views). tirxc knows nothing of the storage behind
    it, so no bounds are checked; the dynamic arena's views are the arena's own."""
    from transpiler.sema.memory import views
    if scope not in (None, "global", "shared"):
        return registry.unsupported(st, a["scope"], f"a \"{scope}\" `T.decl_buffer` over a pointer made from an "
                                                   "integer", help="declare the view over the buffer's own address")
    for name in ("strides", "elem_offset", "byte_offset", "layout", "allocated_addr"):
        if name in a and not registry.is_default(a[name]) and not (
                isinstance(a[name], ast.Constant) and a[name].value is None):
            return registry.unsupported(st, a[name], f"`{name}=` of a `T.decl_buffer` over a pointer made from an "
                                                     "integer", help="move the pointer instead: `T.ptr_byte_offset(ptr, "
                                                                     "bytes, dtype)`")
    shape = views.shape_arg(st, a["shape"], symbolic=True, per_copy=True)
    dtype = expr.dtype_or_default(st, a["dtype"])
    if shape is None or dtype is None:
        return POISON
    pointee = _pointee(st, a["data"])
    if pointee is not None and pointee != dtype:
        st.diags.error("E0213", f"{article(dtype)} view over a pointer to {pointee}", a["data"].span,
                       help=f"declare the view as \"{pointee}\", or make the pointer a `PointerType(PrimType"
                            f"(\"{dtype}\"))`")
        return POISON
    align = dtype.nbytes
    scope = scope or "global"
    storage = ir.Storage("\0", dtype, scope, "view_pointer", None, align, address=address)
    buf = ir.Buffer("", tuple(shape), dtype, scope, storage, None, ir.IntImm(INT32, 0), align, node.span)
    st.pending.append(ir.DeclView(buf, node.span))
    return buf


def _pointee(st, node) -> DType | None:
    """The element type a `data=` argument written as `T.reinterpret(PointerType(PrimType(dtype)), v)` or
    `T.cast(v, PointerType(...))` names (None for any other spelling)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2):
        return None
    typed = {"reinterpret": node.args[0], "cast": node.args[1]}.get(node.func.attr)
    value = None if typed is None else expr.elab(st, typed)
    return value.dtype if isinstance(value, PointerTypeVal) else None


def from_integer(st, node: ast.Call, source, span):
    """`T.reinterpret("handle", u64)` / `T.reinterpret(PointerType(...), u64)`: the integer as a
    generic address, `(void*)u64` (TIRx reinterprets the 64 bits as the pointer)."""
    value = scalars.as_value(st, source, span)
    if value is POISON:
        return POISON
    if not (value.dtype.is_int and value.dtype.bits == 64 and value.dtype.lanes == 1):
        st.diags.error("E0303", f"a pointer is made from a 64-bit integer (uint64 or int64), not {value.dtype}",
                       span, help="convert it first: `T.cast(x, \"uint64\")`")
        return POISON
    if isinstance(value, (ir.Cast, ir.Reinterpret)) and isinstance(value.a, ir.BufferAddress):
        return value.a  # a pointer's own bits, back as that pointer
    return ir.Cast(HANDLE, value, node.span)


def address_of(typed: TypedPointer, span) -> ir.Expr:
    """The generic address a typed pointer holds, as a PTX operand or a `T.cuda.*` pointer takes it:
    an element's address where the byte offset is a whole number of the buffer's elements,
    else the buffer's address plus the bytes (`(void*)((unsigned long long)B_ptr + n)`)."""
    buf = typed.buffer
    size = buf.dtype.nbytes
    relative = ir.binop("-", typed.byte_offset, ir.binop("*", buf.elem_offset, ir.IntImm(INT32, size)))
    if ir.is_const(relative, 0):
        return ir.BufferAddress(HANDLE, buf, None, span)
    modulus, residue = ir_analysis.modular(relative)
    if residue % size == 0 and modulus % size == 0:
        flat = replace(buf, shape=(ir.IntImm(INT32, 1 << 30),), layout=None)
        return ir.BufferAddress(HANDLE, flat, (_divided(relative, size),), span)
    start = ir.Cast(UINT64, ir.BufferAddress(HANDLE, buf, None, span), span)
    return ir.Cast(HANDLE, ir.binop("+", start, ir.cast(UINT64, relative)), span)


def _divided(e: ir.Expr, size: int) -> ir.Expr:
    """e / size for an e that modular() proves a multiple of size, divided term by term where the
    terms are (`(tx * 4 + 8) / 4` is `tx + 2`), else as a division."""
    if isinstance(e, ir.IntImm):
        return ir.IntImm(e.dtype, e.value // size)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-") and all(
            m % size == 0 and r % size == 0 for m, r in map(ir_analysis.modular, (e.a, e.b))):
        return ir.binop(e.op, _divided(e.a, size), _divided(e.b, size))
    if isinstance(e, ir.BinOp) and e.op == "*":
        for a, b in ((e.a, e.b), (e.b, e.a)):
            if isinstance(b, ir.IntImm) and b.value % size == 0:
                return ir.binop("*", a, ir.IntImm(b.dtype, b.value // size))
    return ir.binop("floordiv", e, ir.IntImm(e.dtype, size))


@registry.handler("ptr_byte_offset", "data", "byte_offset", "dtype")
def ptr_byte_offset(st, node: ast.Call, a):
    """`T.ptr_byte_offset(ptr, n, dtype)`: `(dtype*)((char*)ptr + n)`, a typed pointer `n` bytes past
    `ptr` (a buffer's address or a typed pointer into one)."""
    base = expr.elab(st, a["data"])
    dtype = expr.dtype_arg(st, a["dtype"])
    offset = expr.int_value(st, a["byte_offset"])
    if POISON in (base, offset) or dtype is None:
        return POISON
    if isinstance(base, Pointer):
        base = ir.BufferAddress(HANDLE, base.buffer, None, a["data"].span)
    if isinstance(base, ir.BufferAddress) and base.buffer.storage is not None:
        index = _flat_index(st, base.buffer, base.indices, a["data"].span)
        if index is None:
            return POISON
        base = TypedPointer(base.buffer, ir.binop("*", index, ir.IntImm(INT32, base.buffer.dtype.nbytes)),
                            base.buffer.dtype, a["data"].span)
    if isinstance(base, TypedPointer):
        return TypedPointer(base.buffer, ir.binop("+", base.byte_offset, ir.cast(INT32, offset)), dtype, node.span)
    if is_address(base):
        moved = ir.binop("+", ir.Cast(UINT64, base, node.span), ir.cast(UINT64, offset))
        return ir.Cast(HANDLE, moved, node.span)
    st.diags.error("E0602", f"`T.ptr_byte_offset` moves a pointer, not {expr.kind_of(base)}", a["data"].span,
                   help="pass a pointer such as `A.ptr_to([i])`, `A.data` or a typed pointer")
    return POISON


@dataclass(frozen=True, eq=False, repr=False)
class VarType(CheckerValue):
    """`T.Var(name, type)` written as the type of a `T.let[...]`: the binding's type (a dtype or a
    pointer type); the name is the binding's own."""
    dtype: DType | None
    pointer: PointerTypeVal | None

    def describe(self) -> str:
        return "`T.Var(name, type)`"


@registry.handler("Var", "name", "dtype")
def var_type(st, node: ast.Call, a):
    """`T.Var("p", PointerType(PrimType("int32")))` (or a dtype): TIRx's typed variable, which
    tirxc takes as the type of a `T.let[...]` binding."""
    if expr.const_str(st, a["name"], "the name of `T.Var`") is None:
        return POISON
    kind = expr.elab(st, a["dtype"])
    if isinstance(kind, PointerTypeVal):
        return VarType(None, kind)
    dtype = expr.dtype_arg(st, ast.Value(a["dtype"].span, kind))
    return POISON if dtype is None else VarType(dtype, None)


def let_annotation(var: VarType):
    """`T.let[T.Var(name, type)]`: `T.let[dtype]` for a dtype; the VarType itself for a pointer type,
    whose binding checks its value (check_let_pointer)."""
    return LetType(var.dtype) if var.pointer is None else var


def check_let_pointer(st, wanted: PointerTypeVal, value, span) -> bool:
    """A `T.let[T.Var(name, PointerType(...))]` binding holds a pointer of that element type."""
    if isinstance(value, TypedPointer) and value.dtype != wanted.dtype:
        st.diags.error("E0516", f"the binding is a pointer to {wanted.dtype}, but the value points at "
                                f"{value.dtype} elements", span)
        return False
    if isinstance(value, (Pointer, ir.BufferAddress)) or is_address(value) or isinstance(value, TypedPointer):
        return True
    if value is not POISON:
        st.diags.error("E0516", f"the binding is a pointer, but the value is {expr.kind_of(value)}", span)
    return False


def operand_address(value, span):
    """A pointer argument as an address expression: a typed pointer's address (address_of); any
    other value as it is."""
    return address_of(value, span) if isinstance(value, TypedPointer) else value
