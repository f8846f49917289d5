"""Where `tcgen05.mma` writes its accumulator in tensor memory: the PTX ISA's data path layouts
(TIRx: `tmem_datapath_layout`), for the shapes tirxc issues. C's layout must say the same, so that
the copies which read it back (`tcgen05.ld`) find each element where the MMA put it.

- D: M = 128, one CTA: row r on lane r, column j on column j.
- F: M = 64, one CTA: 16 rows in the lower half of each warp's 32-lane slab, row r on lane
  (r // 16) * 32 + r % 16, column j on column j.
- A: M = 256 over a CTA pair: each CTA's 128 rows as D.
- B: M = 128 over a CTA pair (64 rows per CTA): N folds in halves onto lanes 64 apart, (r, j) on
  lane r + 64 * (j // (N / 2)), column j % (N / 2).
- E: M = 64, `.ws` (weight-stationary), one CTA: the same fold as B. TIRx also writes this C as a
  batched (2, M, N / 2) region (half h of the columns on lanes 64 h + r).

A in tensor memory (`[a_tmem]`): rows on lanes, K along the columns (datapath D's shape) for
M = 128; for the `.ws` M = 64 MMA, which reads A from both 64-lane halves, a batched (2, M, K)
region holding A in lanes 0..63 and again in 64..127, as TIRx declares it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import INT32
from transpiler.tile import regions
from transpiler.tile.gemm.fragments import NoMatch

DESCRIBE = {
    "D": "datapath D: row r on lane r and column j on column j (tcgen05 M = 128, "
         "`tmem_datapath_layout(\"D\", 128, N)`)",
    "A": "datapath A: row r on lane r and column j on column j (tcgen05 M = 256 over a CTA pair, "
         "`tmem_datapath_layout(\"A\", 128, N)`)",
    "F": "datapath F: 16 rows in the lower half of each warp's 32 lanes, row r on lane (r // 16) * 32 + r % 16 "
         "(tcgen05 M = 64, `tmem_datapath_layout(\"F\", 64, N)`)",
    "B": "datapath B: the column halves folded onto lanes 64 apart (tcgen05 M = 128 over a CTA pair, "
         "`tmem_datapath_layout(\"B\", 64, N)`)",
    "E": "datapath E: the column halves folded onto lanes 64 apart (tcgen05 `.ws` M = 64, "
         "`TileLayout(S[(M, 2, N // 2) : (1 @ TLane, 64 @ TLane, 1 @ TCol)])` or a batched (2, M, N // 2) C)",
    "A_rows": "A's rows on lanes and K along the columns (row r on lane r, element k on column k)",
    "A_ws": "A's rows on lanes 0..63 and again on lanes 64..127 (a batched (2, M, K) A, "
            "`TileLayout(S[(2, M, K) : (64 @ TLane, 1 @ TLane, 1 @ TCol)])`): the `.ws` M = 64 MMA reads both halves",
}


def datapath_of(rows: int, group: int) -> str:
    """The datapath of an MMA with `rows` rows per CTA over `group` CTAs (non-`.ws`, dense A)."""
    return {(128, 1): "D", (64, 1): "F", (128, 2): "A", (64, 2): "B"}[rows, group]


def expected(datapath: str, rows: int, cols: int, i: int, j: int) -> tuple[int, int]:
    """(lane, column) of C's (or A's) element (i, j), relative to element (0, 0)."""
    if datapath == "F":
        return (i // 16) * 32 + i % 16, j
    if datapath in ("B", "E"):
        return i + 64 * (j // (cols // 2)), j % (cols // 2)
    return i, j


def sample_points(rows: int, cols: int) -> list[tuple[int, int]]:
    """Elements whose places pin a datapath down: the edges of each 16-row group and of each column
    half, at the first, middle and last columns."""
    rs = sorted({r for g in range(0, rows, 16) for r in (g, g + 1, g + 15) if r < rows} | {rows - 1})
    cs = sorted({0, 1, cols // 2 - 1, cols // 2, cols - 1} - {-1})
    return [(i, j) for i in rs for j in cs if (i, j) != (0, 0)]


@dataclass
class MatrixView:
    """A (rows, cols) tensor-memory operand: `place(i, j)` is element (i, j)'s (lane, TCol index),
    None where not constant; `copies` lists (i, j, lane offset) samples of a second copy (a batched
    A's upper half), found with `place_copy`."""
    region: ir.TileRegion
    rows: int
    cols: int
    batched: bool
    place: Callable
    place_copy: Callable | None = None
    copies: list = field(default_factory=list)


def matrix_view(region: ir.TileRegion, name: str) -> MatrixView:
    """C, SFA / SFB: a constant 2-D region, or C's batched (2, M, N / 2) fold (columns j on half
    j // (N / 2)); A: 2-D, or the batched (2, M, K) of the `.ws` MMA (half 0 is A, half 1 its copy)."""
    extents = regions.const_extents(region)
    if extents is None or not all(isinstance(s, ir.IntImm) for s in region.starts):
        raise NoMatch(f"{name} is not a constant region")
    dims = [d for d, e in enumerate(extents) if e != 1]
    buf = region.buffer

    def at(pairs) -> tuple[int, int] | None:
        if buf.layout is None:
            return None
        coords = [s.value for s in region.starts]
        for d, v in pairs:
            coords[d] += v
        axes = layouts.apply(buf.layout, [ir.IntImm(INT32, v) for v in coords], list(buf.shape))
        lane, col = layouts.linear_index(axes.get("TLane", [])), layouts.linear_index(axes.get("TCol", []))
        return (lane.value, col.value) if ir.is_const(lane) and ir.is_const(col) else None

    if len(dims) < 2 and len(extents) == 2:  # a column or a row (SFA of one scale factor per row)
        dims = [0, 1]
    if len(dims) == 2:
        r, c = dims
        return MatrixView(region, extents[r], extents[c], False, lambda i, j: at(((r, i), (c, j))))
    if len(dims) == 3 and extents[dims[0]] == 2:
        h, r, c = dims
        if name == "A":
            view = MatrixView(region, extents[r], extents[c], True, lambda i, j: at(((h, 0), (r, i), (c, j))),
                              lambda i, j: at(((h, 1), (r, i), (c, j))))
            view.copies = [(i, j, 64 + i) for i, j in sample_points(view.rows, view.cols) + [(0, 0)]]
            return view
        half = extents[c]
        return MatrixView(region, extents[r], 2 * half, True,
                          lambda i, j: at(((h, j // half), (r, i), (c, j % half))))
    raise NoMatch(f"{name} is not a constant 2-D region" + (" (or a batched (2, M, N / 2) one)" if name == "C" else ""))


def a_tmem_datapath(view: MatrixView, rows: int, group: int, ws: bool) -> str:
    """The layout A in tensor memory must have for this MMA, or NoMatch."""
    if group != 1:
        raise NoMatch("A in tensor memory with cta_group=2 is not supported yet")
    if ws:
        if not view.batched:
            raise NoMatch("the `.ws` M = 64 MMA reads A from both 64-lane halves: declare A as a batched (2, M, K) "
                          "region, `TileLayout(S[(2, M, K) : (64 @ TLane, 1 @ TLane, 1 @ TCol)])`")
        return "A_ws"
    if view.batched:
        raise NoMatch("a batched (2, M, K) A is the `.ws` MMA's; this one is not `.ws`")
    if rows != 128:
        raise NoMatch(f"A in tensor memory with M = {rows} (not `.ws`) is not supported yet")
    return "A_rows"
