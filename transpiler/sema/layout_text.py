"""`tirxc layout`'s text read as a `.tx` file reads a layout (cli/layout_view.py, through the
driver): evaluated as a module-level constant of a file that imports `T` and every layout name
and axis tirxc knows, then held to the rules of a buffer's `layout=` for a buffer of the layout's
own shape."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.evaluator.values import POISON
from transpiler.ir import layout as layouts
from transpiler.sema import check  # noqa: F401  (imports every family, so that their handlers register)
from transpiler.sema.host import HOST
from transpiler.sema.library.imports import LAYOUT_MODULE, import_
from transpiler.sema.memory.views import layout_arg, layout_value
from transpiler.sema.registry import LAYOUT_CTORS
from transpiler.sema.state import KernelState, ModuleState, at_module_level
from transpiler.syntax import ast
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.target.dtypes import parse_dtype


def check_layout_text(source: SourceFile, expr: ast.Expr, diags: Diagnostics) -> ir.Layout | None:
    """The layout `expr` (the one expression of `source`) denotes, checked; None for "default"
    (dense row-major) and after errors."""
    # what the layout text may name: the names of a file that starts with these imports
    prelude = ("from tvm.script import tirx as T\n"
               f"from {LAYOUT_MODULE} import {', '.join([*LAYOUT_CTORS, *layouts.KNOWN_AXES])}\n")
    evaluator = layout_evaluator(source, diags, parse(SourceFile("<prelude>", prelude), Diagnostics()))
    layout = layout_value(evaluator, expr)
    if layout is None or layout is POISON:
        return None
    if not layout.shard:
        diags.error("E0517", "a layout needs a shard `S[...]`", expr.span)
        return None
    # The buffer rules of `layout=` (strides forward, supported axes), for a buffer of
    # the layout's own shape in the one scope its axes allow.
    if layouts.thread_axes(layout):
        scope = "local"
    elif any(it.axis in ("TLane", "TCol") for it in layout.shard):
        scope = "tmem"
    else:
        scope = "shared"
    extents = tuple(it.extent for it in layout.shard)
    checked = layout_arg(evaluator, expr, extents, parse_dtype("float32"), scope, expr.span)
    if checked is POISON:
        return None
    # What a buffer's own extents would have rejected, had the shape not come from the layout.
    empty = [it.extent.value for it in checked.shard + checked.replica if it.extent.value <= 0]
    if empty:
        diags.error("E0517", f"layout extent {empty[0]} is not positive", expr.span)
        return None
    return checked


def layout_evaluator(source: SourceFile, diags: Diagnostics, prelude: ast.Module) -> KernelState:
    """A module-level state with the imports of `prelude` bound, in which layout expressions
    are evaluated with `layout_value(st, expr)` / `layout_arg(st, ...)` (memory/views.py)."""
    ms = ModuleState(source, diags, None, HOST)
    for stmt in prelude.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            import_(ms, stmt)
    return at_module_level(ms)
