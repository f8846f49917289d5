"""TIRx's names of variants that tirxc lowers under names of its own (docs/tile-primitives.md): each
is an `explicit` variant (tried only when a call names it with `dispatch=`), registered in its
family's variants.py, that runs tirxc's variant, its conditions first. `tma_explicit` also keeps
TIRx's one-instruction rule."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.registry import Decline, attempt, named

# TIRx options of its TMA variants that tirxc has no lowering of yet
UNSUPPORTED_TMA = {"tma_dtype": "`tma_dtype=`", "mbarrier_addr": "`mbarrier_addr=`"}


def run_variant(op: str, name: str, call: ir.TileCall, cx) -> ir.Stmt:
    """tirxc's variant `name` of `op` on the call: its conditions, then its lowering (or Decline)."""
    reason, code = attempt(named(op, name), call, cx)
    if reason is not None:
        raise Decline(f"as `{name}`: {reason}")
    return code


def _issues(stmt: ir.Stmt) -> int:
    return sum(1 for s in ir.all_stmts(stmt) if isinstance(s, ir.Evaluate) and isinstance(s.value, ir.Call)
               and "bulk_tensor" in s.value.func)


def lower_as(op: str, name: str, target: str, call: ir.TileCall, cx) -> ir.Stmt:
    """TIRx's variant `name` of `op`, lowered as tirxc's `target`."""
    if target == "tma":
        given = [text for key, text in UNSUPPORTED_TMA.items() if call.option(key) is not None]
        if given:
            raise Decline(f"{given[0]} is not supported yet")
    out = run_variant(op, target, call, cx)
    if name == "tma_explicit" and _issues(out) != 1:
        raise Decline(f"the region is {_issues(out)} TMA boxes; `tma_explicit` issues one instruction "
                      f"(the region's extents as the box): use `tma_auto`")
    return out
