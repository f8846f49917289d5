"""`permute_layout`: its variant of docs/tile-primitives.md, registered here with its priority and
conditions; xor_swizzle.py lowers it."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active, same_elements, scopes
from transpiler.tile.permute import xor_swizzle as swizzle
from transpiler.tile.registry import variant


@variant("permute_layout", "warp_xor_swizzle", priority=20, when=(
        scopes("warp"), all_threads_active, same_elements, swizzle.plain_elements, swizzle.warp_multiple))
def warp_xor_swizzle(call: ir.TileCall, cx) -> ir.Stmt:
    return swizzle.warp_xor_swizzle(call, cx)
