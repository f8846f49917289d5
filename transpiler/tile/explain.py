"""What E0904 says beyond each variant's reason: the variant that came closest to taking the call
(the one that met the most of its conditions, in their order, before one failed) and the
condition it still needs, as the error's `help:`; a call that only part of the scope reaches is
told the fix for that (docs/tile-primitives.md, How dispatch works)."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.checks import all_threads_active
from transpiler.tile.registry import Variant


def closest_help(call: ir.TileCall, cases: list[Variant], make_cx) -> str:
    """The help of an E0904 over `cases` (the variants tried, by priority); `make_cx()` gives a
    throwaway lowering context for the conditions to read."""
    best, best_met, failed = None, -1, None
    for case in cases:
        cx = make_cx()
        met, missing = 0, None
        for check in case.when:
            if check.test(call, cx):
                missing = check
                break
            met += 1
        else:
            met += 1  # every condition holds: its lowering declined, which is closer still
        if met > best_met:
            best, best_met, failed = case, met, missing
    page = f"docs/tile-primitives.md, ## {_page_section(call.op)}, lists each variant's conditions"
    if best is None:
        return page
    if failed is all_threads_active:
        return (f"`{best.name}` came closest, but an enclosing `if` keeps only part of the {call.scope}: move the "
                f"call out of it, or narrow the scope to the threads it keeps; {page}")
    if failed is None:
        return (f"`{best.name}` came closest: its conditions hold, but its lowering declined (its note says why); "
                f"{page}")
    return f"`{best.name}` came closest; it applies when {failed.says}; {page}"


_SECTIONS = {"copy": "copy", "copy_async": "copy_async", "gemm": "gemm", "gemm_async": "gemm_async",
             "permute_layout": "permute_layout", "sum": "reductions", "max": "reductions", "min": "reductions",
             "binary_reduce": "fused", "unary_reduce": "fused", "reduce_negate": "fused"}


def _page_section(op: str) -> str:
    return _SECTIONS.get(op, "elementwise")
