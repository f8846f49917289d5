"""Tensor-memory buffers of 8- and 16-bit data, and tensor-memory addresses held in shared memory.

Tensor memory is lanes x 32-bit columns. A buffer of a narrower dtype packs 32 / bits elements
into each column along TCol (two float16, four uint8, as tcgen05.ld / st / cp move them:
target/tcgen05.py per_column), so its TCol coordinate counts elements and its column is that
count divided by the packing (ir/tmem.py column); an address handed to a tcgen05 instruction
starts at a column boundary.

TIRx's `allocated_addr=` of a tensor-memory `T.decl_buffer` is the buffer's full tensor-memory
address, typically `tmem_addr[0] + 32` where `tmem_addr` is the shared slot `tcgen05.alloc`
wrote; tirxc keeps a column offset from the allocation's base. `relative_column` turns the
first form into the second, so that both spellings mean the same columns. A kernel that names
its slot this way before any `tcgen05.alloc` (the allocation may be made elsewhere, as in code
that only issues tcgen05 instructions) has that slot as its allocation's: the checker's record of
the allocation then has no span until the `tcgen05.alloc` itself is seen.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.ir.tmem import column  # noqa: F401  (the checker's tcgen05 operands address columns by it)
from transpiler.target.dtypes import INT32, UINT32
from transpiler.target.tcgen05 import per_column
from transpiler.evaluator.values import POISON


def check_dtype(st, dtype, span) -> bool:
    if per_column(dtype) is None:
        st.diags.error("E0724", f"tensor memory holds 32-bit columns of 4-, 8-, 16- or 32-bit data, not {dtype}",
                       span)
        return False
    return True


def check_boundary(st, index: ir.Expr, dtype, span) -> bool:
    """A tcgen05 address of a packed buffer starts at a column boundary (checked when constant)."""
    per = per_column(dtype) or 1
    if per > 1 and isinstance(index, ir.IntImm) and index.value % per:
        st.diags.error("E0724", f"a {dtype} region of tensor memory starts at element {index.value} of its "
                                f"columns, inside a 32-bit column ({per} elements each)", span,
                       help=f"start the region at a multiple of {per} along TCol")
        return False
    return True


def columns(width: int | None, dtype) -> int | None:
    """The 32-bit columns `width` TCol elements of `dtype` take."""
    per = per_column(dtype) or 1
    return None if width is None else -(-width // per)


def relative_column(st, value):
    """`allocated_addr=` as a column offset from the allocation: `slot[0] + c` (TIRx's full
    address, the slot being `tcgen05.alloc`'s) gives `c`, `slot[0]` gives 0; anything else
    is already a column offset."""
    if value is POISON or not isinstance(value, ir.Expr):
        return value
    terms, found = [], []
    _split(value, 1, terms, found)
    slots = [t for t, sign in found if sign == 1]
    if len(found) != 1 or len(slots) != 1:
        return value
    slot = slots[0]
    if st.tmem_alloc is None:  # no `tcgen05.alloc` seen: the slot named here is taken as its slot
        st.tmem_alloc = (slot.buffer, None, None)
    elif slot.buffer is not st.tmem_alloc[0]:
        return value
    rest = ir.IntImm(INT32, 0)
    for term, sign in terms:
        term = ir.cast(INT32, term)
        rest = ir.add(rest, term) if sign == 1 else ir.binop("-", rest, term)
    return rest


def _split(e, sign: int, terms: list, found: list) -> None:
    """The additive terms of e (with their signs), the loads of a shared uint32 slot apart."""
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.a.dtype.is_int and e.dtype.bits >= 32:
        _split(e.a, sign, terms, found)
    elif isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        _split(e.a, sign, terms, found)
        _split(e.b, sign if e.op == "+" else -sign, terms, found)
    elif isinstance(e, ir.BufferLoad) and e.dtype == UINT32 and e.buffer.scope in ("shared", "shared.dyn"):
        found.append((e, sign))
    else:
        terms.append((e, sign))


def allocated_addr(st, buf: ir.Buffer, node):
    """`tmem_buf.allocated_addr` (TIRx: the list of the buffer's tensor-memory addresses): the
    allocation's base read from its slot plus the buffer's first column, as a one-element tuple
    that `[0]` indexes."""
    if st.tmem_alloc is None:
        st.diags.error("E0707", f"`{buf.name}` is used before any `tcgen05.alloc` in this kernel", node.span,
                       help="allocate the columns first (by hand or with `T.TMEMPool.commit()`)")
        return POISON
    base = ir.BufferLoad(UINT32, st.tmem_alloc[0], (ir.IntImm(INT32, 0),), node.span)
    return (ir.add(base, ir.cast(UINT32, buf.allocated_addr)),)


