"""TIRx's names of variants that tirxc lowers under names of its own (docs/tile-primitives.md): each
is an `explicit` variant (tried only when a call names it with `dispatch=`) that runs tirxc's
variant, its conditions first. `tma_explicit` also keeps TIRx's one-instruction rule."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.registry import VARIANTS, Decline, variant

ALIASES = {  # (op, TIRx's name) -> tirxc's variant
    ("copy_async", "tma_auto"): "tma",
    ("copy_async", "tma_explicit"): "tma",
    ("copy_async", "smem->tmem"): "tcgen05_cp",
    ("copy_async", "tmem<->local"): "tcgen05_ldst",
    ("gemm", "mma.m16n8k*"): "mma_sync",
}
# TIRx options of its TMA variants that tirxc has no lowering of yet
UNSUPPORTED_TMA = {"tma_dtype": "`tma_dtype=`", "mbarrier_addr": "`mbarrier_addr=`"}


def run_variant(op: str, name: str, call: ir.TileCall, cx) -> ir.Stmt:
    """tirxc's variant `name` of `op` on the call: its conditions, then its lowering (or Decline)."""
    case = next(v for v in VARIANTS[op] if v.name == name)
    reason = next((r for r in (check.test(call, cx) for check in case.when) if r), None)
    if reason is not None:
        raise Decline(f"as `{name}`: {reason}")
    try:
        return case.lower(call, cx)
    except Decline as declined:
        raise Decline(f"as `{name}`: {declined.reason}") from None


def _issues(stmt: ir.Stmt) -> int:
    return sum(1 for s in ir.all_stmts(stmt) if isinstance(s, ir.Evaluate) and isinstance(s.value, ir.Call)
               and "bulk_tensor" in s.value.func)


def _alias(op: str, name: str, target: str):
    def lower(call: ir.TileCall, cx) -> ir.Stmt:
        if target == "tma":
            given = [text for key, text in UNSUPPORTED_TMA.items() if call.option(key) is not None]
            if given:
                raise Decline(f"{given[0]} is not supported yet")
        out = run_variant(op, target, call, cx)
        if name == "tma_explicit" and _issues(out) != 1:
            raise Decline(f"the region is {_issues(out)} TMA boxes; `tma_explicit` issues one instruction "
                          f"(the region's extents as the box): use `tma_auto`")
        return out
    return lower


for (_op, _name), _target in ALIASES.items():
    variant(_op, _name, priority=10, explicit=True)(_alias(_op, _name, _target))
