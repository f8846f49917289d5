"""The elementwise family (`Tx.add`, `Tx.exp`, `Tx.select` ...): the variants of
docs/tile-primitives.md's ## elementwise, each registered here with its priority and conditions;
the modules beside this one lower them.

- `reg` (registers.py): every operand in registers; each thread computes the elements it holds.
- `smem` (shared.py): every operand in shared memory; the scope's threads take the elements
  round-robin, then the scope synchronises.

The ops' arithmetic and operands are in ops.py, the f32x2 forms of sm_100 in packed.py."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active, cooperative_scope
from transpiler.tile.elementwise import registers, shared
from transpiler.tile.elementwise.ops import OPS, in_registers, in_shared, parses
from transpiler.tile.registry import variant


@variant(OPS + ("binary_chain",), "reg", priority=10,
         when=(all_threads_active, parses, in_registers, registers.register_layouts))
def lower_reg(call: ir.TileCall, cx) -> ir.Stmt:
    return registers.lower_reg(call, cx)


@variant(OPS + ("binary_chain",), "smem", priority=10, when=(all_threads_active, parses, in_shared, cooperative_scope))
def lower_smem(call: ir.TileCall, cx) -> ir.Stmt:
    return shared.lower_smem(call, cx)
