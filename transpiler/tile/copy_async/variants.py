"""`copy_async` (asynchronous copies: the caller completes them): the variants of
docs/tile-primitives.md's copy_async section, each registered here with its priority and
conditions, and TIRx's names of them; the modules beside this one lower them."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import aliases
from transpiler.tile.checks import all_threads_active, divides_threads, needs, same_elements, scopes
from transpiler.tile.copy_async import dsmem as peer, ldgsts as cp_async, tcgen05, tma
from transpiler.tile.copy_async.common import constant_extents, pair
from transpiler.tile.registry import variant


@variant("copy_async", "tma", priority=10,
         when=(pair(("shared", "global"), ("global", "shared"), "it copies between global and shared memory"),
               scopes("thread"), needs("bulk", "TMA"), constant_extents))
def tma_copy(call: ir.TileCall, cx) -> ir.Stmt:
    return tma.tma_copy(call, cx)


@variant("copy_async", "ldgsts", priority=20, when=(
        pair(("shared",), ("global",), "it copies global to shared memory"),
        scopes("thread", "warp", "warpgroup", "cta"), all_threads_active, constant_extents, same_elements,
        needs("cp.async", "cp.async"), divides_threads))
def ldgsts(call: ir.TileCall, cx) -> ir.Stmt:
    return cp_async.ldgsts(call, cx)


@variant("copy_async", "dsmem", priority=10, when=(
        pair(("shared",), ("shared",), "it copies shared memory to a peer CTA's shared memory"),
        scopes("thread"), constant_extents, same_elements, needs("bulk", "cp.async.bulk"), peer.in_cluster))
def dsmem(call: ir.TileCall, cx) -> ir.Stmt:
    return peer.dsmem(call, cx)


@variant("copy_async", "tcgen05_ldst", priority=10, when=(
        pair(("tmem", "local"), ("tmem", "local"), "it copies between tensor memory and registers"),
        tcgen05.one_tmem_side, scopes("warpgroup"), constant_extents, same_elements,
        needs("tcgen05", "tensor memory")))
def tcgen05_ldst(call: ir.TileCall, cx) -> ir.Stmt:
    return tcgen05.tcgen05_ldst(call, cx)


@variant("copy_async", "tcgen05_cp", priority=10, when=(
        pair(("tmem",), ("shared",), "it copies shared memory to tensor memory"),
        scopes("thread"), constant_extents, same_elements, needs("tcgen05", "tensor memory")))
def tcgen05_cp(call: ir.TileCall, cx) -> ir.Stmt:
    return tcgen05.tcgen05_cp(call, cx)


# TIRx's names: tried only when a call names them with `dispatch=`
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
