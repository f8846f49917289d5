"""The fused forms (`binary_reduce`, `unary_reduce`, `reduce_negate`): their variant of
docs/tile-primitives.md's ## fused, registered here with its priority and conditions; composed.py
lowers it (`binary_chain` is an elementwise op: elementwise/variants.py)."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.fused import composed
from transpiler.tile.registry import variant


@variant(("binary_reduce", "unary_reduce", "reduce_negate"), "composed", priority=10,
         when=(composed.op_names, composed.parts_lower))
def lower_composed(call: ir.TileCall, cx) -> ir.Stmt:
    return composed.lower_composed(call, cx)
