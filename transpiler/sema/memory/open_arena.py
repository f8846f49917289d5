"""The dynamic arena declared with extent 0 (`T.alloc_buffer((0,), "uint8", scope="shared.dyn")`),
as TIRx kernels declare the base their views carve up: its size is the end of its furthest view,
settled when the kernel ends (the launch passes that many bytes)."""
from __future__ import annotations

from transpiler import ir
from transpiler.sema import registry
from transpiler.sema.memory.views import view_extent
from transpiler.target.dtypes import INT32


def is_open(arena: ir.Buffer | None) -> bool:
    """Whether the arena was declared with extent 0 and has no size yet."""
    return arena is not None and arena.storage is not None and arena.storage.size is None \
        and any(isinstance(e, ir.IntImm) and e.value == 0 for e in arena.shape)


def size_from_views(st) -> None:
    """Give an open arena the size its views reach (in its own elements), or report the view whose
    end is not known before the launch."""
    arena = st.arena
    storage = arena.storage
    end = 0
    for view in st.views:
        base, start = view.storage, 0
        if base is not storage:
            if base.kind != "view_pointer" or base.base is not storage:
                continue
            start = base.byte_offset
        extent = view_extent(view.shape, view.layout)
        offset = view.elem_offset if view.elem_offset is not None else ir.IntImm(INT32, 0)
        if extent is None or not isinstance(offset, ir.IntImm):
            registry.unsupported(st, view, "a view at a run-time offset into a dynamic arena of extent 0",
                                 help="give the arena its size, so that the launch knows how many bytes to pass")
            return
        end = max(end, start + (offset.value + extent) * view.dtype.nbytes)
    storage.size = -(-end // arena.dtype.nbytes)
