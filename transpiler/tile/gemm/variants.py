"""`gemm` (D = alpha * A @ B + beta * C on registers): the variants of docs/tile-primitives.md's
gemm section, each registered here with its priority and conditions; mma_sync.py lowers them."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import aliases
from transpiler.tile.checks import all_threads_active, scopes
from transpiler.tile.gemm import mma_sync as mma
from transpiler.tile.registry import variant


@variant("gemm", "mma_sync", priority=10, when=(
        scopes("warp", "warpgroup", "cta"), all_threads_active, mma.in_registers, mma.unit_scales, mma.constant_flags))
def mma_sync(call: ir.TileCall, cx) -> ir.Stmt:
    return mma.mma_sync(call, cx)


@variant("gemm", "mma.m16n8k*", priority=10, explicit=True)
def mma_m16n8k(call: ir.TileCall, cx) -> ir.Stmt:
    """TIRx's name of `mma_sync`."""
    return aliases.lower_as("gemm", "mma.m16n8k*", "mma_sync", call, cx)
