"""The reduction family (`Tx.sum` / `Tx.max` / `Tx.min` over `axes=`, `accum=`): the variants of
docs/tile-primitives.md's ## reductions, each registered here with its priority and conditions;
the modules beside this one lower them.

- `local` (registers.py): src and dst in registers, at thread scope a sequential loop, over the
  threads of a warp / warpgroup / CTA each thread's own elements and then a shuffle butterfly.
- `shared` (shared.py): src and dst in shared memory, groups of lanes folding one output each.
- `sm100_packed` (packed.py): Blackwell, thread scope, 1-D float32 of 8 or more elements to one:
  `add.f32x2` pairs (sum) or the three-input `max.f32` / `min.f32`."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active, cooperative_scope, needs, scopes
from transpiler.tile.reduction import packed, registers, shared
from transpiler.tile.reduction.common import REDUCE_OPS, valid
from transpiler.tile.registry import variant


@variant(REDUCE_OPS, "local", priority=10,
         when=(all_threads_active, registers.valid_forms, registers.in_registers, registers.layouts_fit))
def lower_local(call: ir.TileCall, cx) -> ir.Stmt:
    return registers.lower_local(call, cx)


@variant(REDUCE_OPS, "shared", priority=10, when=(all_threads_active, valid, shared.in_shared, cooperative_scope))
def lower_shared(call: ir.TileCall, cx) -> ir.Stmt:
    return shared.lower_shared(call, cx)


@variant(REDUCE_OPS, "sm100_packed", priority=20,
         when=(scopes("thread"), packed.gate, needs("f32x2", "the packed f32x2 add and three-input min / max")))
def lower_packed(call: ir.TileCall, cx) -> ir.Stmt:
    return packed.lower_packed(call, cx)
