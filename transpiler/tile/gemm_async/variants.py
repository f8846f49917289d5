"""`gemm_async` (the asynchronous tensor cores: the caller commits and waits): the variants of
docs/tile-primitives.md's gemm_async section, each registered here with its priority and
conditions; wgmma.py (Hopper) and tcgen05.py (Blackwell) lower them."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active, needs, scopes
from transpiler.tile.gemm_async import tcgen05 as blackwell, wgmma as hopper
from transpiler.tile.registry import variant


@variant("gemm_async", "wgmma", priority=20, when=(
        scopes("warpgroup"), needs("wgmma", "wgmma"), all_threads_active, hopper.unscaled,
        hopper.accumulator_in_registers))
def wgmma(call: ir.TileCall, cx) -> ir.Stmt:
    return hopper.wgmma(call, cx)


@variant("gemm_async", "tcgen05", priority=10, when=(
        scopes("thread", "warp"), needs("tcgen05", "tcgen05"), all_threads_active, blackwell.accumulator_in_tmem))
def tcgen05(call: ir.TileCall, cx) -> ir.Stmt:
    return blackwell.tcgen05(call, cx)
