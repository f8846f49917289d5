"""Facts about IR values that several stages prove: the residue of an integer expression modulo
a power of two's worth of its variables, and the alignment a buffer's storage is known to have.
The checker's vector accesses and the tile variants' vectorization both ask these."""
from __future__ import annotations

from collections.abc import Mapping
from math import gcd

from transpiler.ir import nodes as ir


def modular(e: ir.Expr) -> tuple[int, int]:
    """(m, r) with e == r (mod m) for every value of its variables; m == 0 means e == r exactly."""
    if isinstance(e, ir.IntImm):
        return 0, e.value
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.a.dtype.is_int:
        return modular(e.a)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        (m1, r1), (m2, r2) = modular(e.a), modular(e.b)
        if e.op == "*":  # (m1 a + r1)(m2 b + r2)
            m, r = gcd(gcd(m1 * m2, m1 * r2), m2 * r1), r1 * r2
        else:
            m, r = gcd(m1, m2), r1 + r2 if e.op == "+" else r1 - r2
        return (m, r % m) if m else (0, r)
    if isinstance(e, ir.BinOp) and e.op == "<<" and isinstance(e.b, ir.IntImm) and 0 <= e.b.value < 63:
        m, r = modular(e.a)
        return m << e.b.value, r << e.b.value
    return 1, 0


def base_alignment(buf: ir.Buffer, raised: Mapping[ir.Storage, int] | None = None) -> int:
    """The alignment in bytes the start of a buffer's storage is known to have (a typed view's
    pointer starts its byte offset into the storage it views); `raised` holds alignments raised
    beyond the storage's own (the tile variants chosen so far: tile/context.py Lowering.raised)."""
    storage, offset = buf.storage, 0
    while storage is not None and storage.kind == "view_pointer" and storage.base is not None:
        storage, offset = storage.base, offset + storage.byte_offset
    if storage is None:
        align = buf.align
    else:
        align = max(storage.align, raised.get(storage, 0)) if raised else storage.align
        align = align if align > 0 else storage.dtype.nbytes
    return gcd(align, offset) if offset else align
