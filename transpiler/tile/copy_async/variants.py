"""`copy_async` (asynchronous copies: the caller completes them): the variants of
docs/tile-primitives.md's copy_async section. TIRx's names of them are registered here; tirxc's
own are registered by their modules until their architecture conditions ask the target."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import aliases
from transpiler.tile.copy_async import dsmem, ldgsts, tcgen05, tma  # noqa: F401  (they register tirxc's variants)
from transpiler.tile.registry import variant


@variant("copy_async", "tma_auto", priority=10, explicit=True)
def tma_auto(call: ir.TileCall, cx) -> ir.Stmt:
    return aliases.lower_as("copy_async", "tma_auto", "tma", call, cx)


@variant("copy_async", "tma_explicit", priority=10, explicit=True)
def tma_explicit(call: ir.TileCall, cx) -> ir.Stmt:
    return aliases.lower_as("copy_async", "tma_explicit", "tma", call, cx)


@variant("copy_async", "smem->tmem", priority=10, explicit=True)
def smem_to_tmem(call: ir.TileCall, cx) -> ir.Stmt:
    return aliases.lower_as("copy_async", "smem->tmem", "tcgen05_cp", call, cx)


@variant("copy_async", "tmem<->local", priority=10, explicit=True)
def tmem_to_or_from_registers(call: ir.TileCall, cx) -> ir.Stmt:
    return aliases.lower_as("copy_async", "tmem<->local", "tcgen05_ldst", call, cx)
