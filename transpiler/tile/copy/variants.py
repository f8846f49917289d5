"""`copy` (synchronous element copy): the variants of docs/tile-primitives.md's copy page, each
registered here with its priority and conditions; the modules beside this one lower them."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active, divides_threads, same_elements, scopes
from transpiler.tile.copy import fallback as element_loop, gmem_smem as vectors, ldstmatrix as matrices, \
    registers, vec_forced
from transpiler.tile.copy.plan import memory_pair
from transpiler.tile.registry import variant

ANY_SCOPE = scopes("thread", "warp", "warpgroup", "cta")


@variant("copy", "gmem_smem", priority=10, when=(
        ANY_SCOPE, all_threads_active, same_elements,
        memory_pair("global", "shared", "one side is in global memory and the other in shared memory"),
        divides_threads))
def gmem_smem(call: ir.TileCall, cx) -> ir.Stmt:
    return vectors.gmem_smem(call, cx)


@variant("copy", "ldstmatrix", priority=10, when=(
        scopes("warp", "warpgroup", "cta"), all_threads_active, same_elements,
        memory_pair("local", "shared", "one side is in registers and the other in shared memory"),
        matrices.sixteen_bit))
def ldstmatrix(call: ir.TileCall, cx) -> ir.Stmt:
    return matrices.ldstmatrix(call, cx)


@variant("copy", "reg", priority=10, when=(ANY_SCOPE, all_threads_active, same_elements, registers.has_registers))
def reg(call: ir.TileCall, cx) -> ir.Stmt:
    return registers.reg(call, cx)


@variant("copy", "fallback", priority=0, when=(same_elements, element_loop.not_spread, ANY_SCOPE))
def fallback(call: ir.TileCall, cx) -> ir.Stmt:
    return element_loop.fallback(call, cx)


# TIRx's forced widths and auto-vectorizing copy: tried only when a call names them with `dispatch=`
FORCED = (scopes("thread"), same_elements, vec_forced.memory_pair)


@variant("copy", "vec_16b", priority=20, explicit=True, when=FORCED)
def vec_16b(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.forced(2)(call, cx)


@variant("copy", "vec_32b", priority=20, explicit=True, when=FORCED)
def vec_32b(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.forced(4)(call, cx)


@variant("copy", "vec_64b", priority=20, explicit=True, when=FORCED)
def vec_64b(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.forced(8)(call, cx)


@variant("copy", "vec_128b", priority=20, explicit=True, when=FORCED)
def vec_128b(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.forced(16)(call, cx)


@variant("copy", "vec_256b", priority=20, explicit=True, when=FORCED)
def vec_256b(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.forced(32)(call, cx)


@variant("copy", "vec_auto", priority=10, explicit=True)
def vec_auto(call: ir.TileCall, cx) -> ir.Stmt:
    return vec_forced.vec_auto(call, cx)
