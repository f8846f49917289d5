"""Tensor-memory addresses of IR buffers: the 32-bit column that holds an element of a buffer
whose narrow data packs several elements into each column (target/tcgen05.py per_column). The
checker's tcgen05 operands and the tile variants' tcgen05 copies and MMAs address columns so."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import INT32
from transpiler.target.tcgen05 import per_column


def column(index: ir.Expr, dtype, offset: ir.Expr | None) -> ir.Expr:
    """The column of TCol element `index` of a buffer of `dtype` whose first column is `offset`."""
    per = per_column(dtype) or 1
    col = index if per == 1 else ir.binop("floordiv", index, ir.IntImm(INT32, per))
    return col if offset is None else ir.add(col, offset)
