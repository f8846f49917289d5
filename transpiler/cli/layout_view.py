"""`tirxc layout`: what a layout gives every element of a shape, as a text grid,
JSON or an SVG picture.

The layout text is read exactly as a `.tx` file reads one: parse.py parses it as
a one-line file `<layout>`, check.py evaluates it as a module-level constant of
a file that imports `T` and every layout name and axis tirxc knows, and
memory.py holds it to the rules of a buffer's `layout=`. The coordinates come
from layout.py, the functions lowering builds index arithmetic with.
"""
from __future__ import annotations

import itertools
import json
import re
import sys
from dataclasses import dataclass
from math import prod

import click

from transpiler.syntax import ast
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema.check import LAYOUT_MODULE, layout_evaluator
from transpiler.sema.memory.views import layout_arg, layout_value
from transpiler.cli.files import write_file as _write, write_stdout as _write_stdout
from transpiler.diag.diagnostics import Diagnostic, Diagnostics, Renderer, did_you_mean, use_colour
from transpiler.target.dtypes import known_dtype_names, parse_dtype
from transpiler.sema.registry import LAYOUT_CTORS
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.cli.svg import Svg, hue
from transpiler.evaluator.values import POISON

LAYOUT_FILE = "<layout>"
# What the layout text may name: the names of a file that starts with these imports.
PRELUDE = ("from tvm.script import tirx as T\n"
           f"from {LAYOUT_MODULE} import {', '.join([*LAYOUT_CTORS, *layouts.KNOWN_AXES])}\n")
MAX_CELLS = 1 << 16  # a full tensor memory (128 x 512): a few seconds of constant folding
ROW_WRAP = 32  # a 1-D shape is shown in rows of this many elements
BANKS, BANK_BITS = 32, 32

AXIS_TITLES = {
    "tx": "tx: the thread of the CTA that holds each element",
    "laneid": "laneid: the lane that holds each element",
    "warpid": "warpid: the warp that holds each element",
    "wgid": "wgid: the warpgroup that holds each element",
    "tid_in_wg": "tid_in_wg: the thread of the warpgroup that holds each element",
    "wid_in_wg": "wid_in_wg: the warp of the warpgroup that holds each element",
    "TLane": "TLane: the tensor-memory lane of each element",
    "TCol": "TCol: the tensor-memory column (32-bit) of each element",
}


@dataclass(frozen=True)
class ReadLayout:
    """A layout read from text: `layout` is None for "default" (dense row-major) or after errors."""
    source: SourceFile
    layout: ir.Layout | None
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


def read_layout(text: str) -> ReadLayout:
    """Parse and check layout text; surrounding whitespace is not part of `<layout>`."""
    source = SourceFile(LAYOUT_FILE, text.strip())
    diags = Diagnostics()
    layout = _read(source, diags)
    return ReadLayout(source, layout if not diags.has_errors else None, diags.sorted())


def _read(source: SourceFile, diags: Diagnostics) -> ir.Layout | None:
    module = parse(source, diags)
    if module is None:
        return None
    expr = _expression(module, source, diags)
    if expr is None:
        return None
    evaluator = layout_evaluator(source, diags, parse(SourceFile("<prelude>", PRELUDE), Diagnostics()))
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


def _expression(module: ast.Module, source: SourceFile, diags: Diagnostics) -> ast.Expr | None:
    """The one expression of the text; `NAME = expr`, copied from a .tx file, is taken as expr."""
    if not module.body:
        diags.error("E0517", "no layout here: write one such as `S[(4, 8):(1, 4)]`", source.end_span())
        return None
    first, *rest = module.body
    if rest:
        diags.error("E0517", "a layout is one expression; this is a second statement", rest[0].span,
                    help="give one layout, e.g. `TileLayout(S[(4, 8):(1, 4)])`")
        return None
    if isinstance(first, ast.ExprStmt):
        return first.value
    if isinstance(first, ast.Assign) and isinstance(first.target, ast.Name):
        return first.value
    diags.error("E0517", "expected a layout expression such as `S[(4, 8):(1, 4)]`", first.span)
    return None


# -- the grid -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Grid:
    """Per element of `shape` (row-major order), the values of each shown axis: one value,
    or several where a replica holds copies of the element."""
    title: str
    layout: ir.Layout
    shape: tuple[int, ...]
    axes: tuple[str, ...]
    cells: tuple[dict[str, tuple[int, ...]], ...]
    element_bits: int

    @property
    def thread_axes(self) -> tuple[str, ...]:
        return tuple(a for a in self.axes if a in layouts.THREAD_AXES)


def bank(address: int, element_bits: int) -> int:
    """The shared-memory bank of an element address: 32 banks of 4 bytes."""
    return address * element_bits // BANK_BITS % BANKS


def shown_axes(layout: ir.Layout) -> tuple[str, ...]:
    """Thread axes, then memory axes, in a fixed order; a layout without a memory axis
    keeps every element in register 0 of its thread, so `m` is always there for it."""
    used = {it.axis for it in layout.shard + layout.replica} | {axis for axis, _ in layout.offset}
    threads = [a for a in layouts.THREAD_AXES if a in used]
    memory = [a for a in layouts.MEMORY_AXES if a in used] or ["m"]
    return tuple(threads + memory)


def default_element_bits(layout: ir.Layout) -> int:
    """32, or for a swizzle the element width its per_element was chosen for: the docs pick
    per_element = bitlen(128 / bits) - 1 to keep a 16-byte run intact (fp16: 3)."""
    if layout.swizzle is None:
        return 32
    return max(128 >> layout.swizzle[0], 1)


def build_grid(title: str, layout: ir.Layout, shape: tuple[int, ...], element_bits: int, banks: bool) -> Grid:
    axes = shown_axes(layout)
    cells = []
    for coord in itertools.product(*(range(extent) for extent in shape)):
        copies = layouts.coordinates(layout, coord, shape)
        cell = {axis: tuple(sorted({copy.get(axis, 0) for copy in copies})) for axis in axes}
        if banks:
            cell["bank"] = tuple(sorted({bank(m, element_bits) for m in cell["m"]}))
        cells.append(cell)
    return Grid(title, layout, shape, axes + (("bank",) if banks else ()), tuple(cells), element_bits)


def _blocks(shape: tuple[int, ...]) -> list[tuple[str | None, list[tuple[str, range]], int]]:
    """The 2-D pictures of a shape: (heading, [(row label, flat element indices)], columns).
    A 1-D shape wraps into rows of ROW_WRAP labelled by their first index; a shape of
    rank 3 or more is one picture per index of its leading dimensions."""
    if len(shape) == 1:
        cols = min(shape[0], ROW_WRAP)
        return [(None, [(str(start), range(start, min(start + cols, shape[0])))
                        for start in range(0, shape[0], cols)], cols)]
    rows, cols = shape[-2:]
    blocks = []
    for n, lead in enumerate(itertools.product(*(range(extent) for extent in shape[:-2]))):
        heading = f"[{', '.join(map(str, lead))}, :, :]" if lead else None
        base = n * rows * cols  # the leading indices come in row-major order
        blocks.append((heading, [(str(i), range(base + i * cols, base + (i + 1) * cols)) for i in range(rows)], cols))
    return blocks


def _values(values: tuple[int, ...]) -> str:
    return ",".join(map(str, values))


def _axis_title(grid: Grid, axis: str) -> str:
    if axis == "bank":
        return (f"bank: the shared-memory bank of each element ({grid.element_bits}-bit elements, "
                f"{BANKS} banks of 4 bytes)")
    if axis != "m":
        return AXIS_TITLES.get(axis, axis)
    if grid.thread_axes:
        return "m: the register of the holding thread"
    if grid.layout.swizzle is not None:
        return "m: the swizzled element address"
    return "m: the memory offset of each element"


def _shape_text(shape) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else f"({', '.join(map(str, shape))})"


def render_text(grid: Grid) -> str:
    lines = [f"{grid.title} over shape {_shape_text(grid.shape)}"]
    if grid.layout.replica:
        lines.append("a cell with several values: the element has copies (replica R[...])")
    blocks = _blocks(grid.shape)
    for axis in grid.axes:
        labels = [_values(cell[axis]) for cell in grid.cells]
        cols = blocks[0][2]
        width = max(max(map(len, labels)), len(str(cols - 1)))
        row_width = max(len(label) for _, rows, _ in blocks for label, _ in rows)
        lines += ["", _axis_title(grid, axis)]
        for n, (heading, rows, _) in enumerate(blocks):
            if heading:
                lines += [heading] if n == 0 else ["", heading]
            lines.append(" " * (row_width + 3) + " ".join(str(j).rjust(width) for j in range(cols)))
            for label, indices in rows:
                lines.append(f"{label.rjust(row_width)} | " + " ".join(labels[k].rjust(width) for k in indices))
    return "\n".join(lines) + "\n"


def render_json(grid: Grid) -> str:
    """One cell a line: `{"index": [i, j], "<axis>": [values...]}`, elements in row-major order."""
    head = {"layout": grid.title, "shape": list(grid.shape), "axes": list(grid.axes),
            "element_bits": grid.element_bits}
    coords = itertools.product(*(range(extent) for extent in grid.shape))
    cells = [json.dumps({"index": list(coord), **{axis: list(cell[axis]) for axis in grid.axes}})
             for coord, cell in zip(coords, grid.cells)]
    return json.dumps(head)[:-1] + ', "cells": [\n' + ",\n".join(cells) + "\n]}\n"


# -- the picture -------------------------------------------------------------------------------------------

CHAR_W, LINE_H, PAD, MARGIN = 6.7, 14, 4, 12


def _colouring(grid: Grid) -> tuple[str, list[int]]:
    """What the colours mean and a colour class per cell: the holding threads for a
    thread-distributed layout, the bank for shared memory, the lane for tensor memory."""
    if grid.thread_axes:
        owners = [tuple(cell[a] for a in grid.thread_axes) for cell in grid.cells]
        rank = {owner: k for k, owner in enumerate(sorted(set(owners)))}
        return f"colour: the holding thread ({', '.join(grid.thread_axes)})", [rank[o] for o in owners]
    if "m" in grid.axes:
        return (f"colour: the shared-memory bank ({grid.element_bits}-bit elements)",
                [bank(cell["m"][0], grid.element_bits) for cell in grid.cells])
    return "colour: the tensor-memory lane", [cell["TLane"][0] if "TLane" in cell else 0 for cell in grid.cells]


def render_svg(grid: Grid) -> str:
    memory = [a for a in grid.axes if a not in layouts.THREAD_AXES and a != "bank"]
    lines_of = [[" ".join(_values(cell[a]) for a in part) for part in (grid.thread_axes, memory) if part]
                for cell in grid.cells]
    legend, classes = _colouring(grid)
    parts = [" ".join(part) for part in (grid.thread_axes, memory) if part]
    legend = f"cell: {' / '.join(parts)}; {legend}"
    blocks = _blocks(grid.shape)
    cols = blocks[0][2]
    longest = max(len(text) for lines in lines_of for text in lines)
    cell_w = max(CHAR_W * max(longest, len(str(cols - 1))) + 2 * PAD, 24)
    cell_h = LINE_H * len(lines_of[0]) + 2 * PAD
    row_w = CHAR_W * max(len(label) for _, rows, _ in blocks for label, _ in rows) + 2 * PAD
    title = f"{grid.title} over shape {_shape_text(grid.shape)}"
    width = max(2 * MARGIN + row_w + cols * cell_w, 2 * MARGIN + CHAR_W * 1.1 * max(len(title), len(legend)))
    block_h = (LINE_H + 6 if blocks[0][0] else 0) + LINE_H + len(blocks[0][1]) * cell_h + MARGIN
    top = MARGIN + 2 * LINE_H + 8
    svg = Svg(width, top + len(blocks) * block_h, title=title)
    svg.text(MARGIN, MARGIN + LINE_H - 2, title, size=13, weight="bold")
    svg.text(MARGIN, MARGIN + 2 * LINE_H + 2, legend, size=11, fill="#444")
    coords = list(itertools.product(*(range(extent) for extent in grid.shape)))
    y = top
    for heading, rows, _ in blocks:
        if heading:
            y += LINE_H
            svg.text(MARGIN, y, heading, size=11, weight="bold")
            y += 6
        x0 = MARGIN + row_w
        for j in range(cols):
            svg.text(x0 + (j + 0.5) * cell_w, y + LINE_H - 3, str(j), size=10, anchor="middle", fill="#666")
        y += LINE_H
        for label, indices in rows:
            svg.text(x0 - PAD, y + cell_h / 2 + 4, label, size=10, anchor="end", fill="#666")
            for j, k in enumerate(indices):
                x = x0 + j * cell_w
                tip = f"[{', '.join(map(str, coords[k]))}] " + ", ".join(
                    f"{a} {_values(grid.cells[k][a])}" for a in grid.axes)
                svg.rect(x, y, cell_w, cell_h, fill=hue(classes[k]), stroke="#FFF", title=tip)
                for n, text in enumerate(lines_of[k]):
                    svg.text(x + cell_w / 2, y + PAD + LINE_H * (n + 1) - 3, text, size=11, anchor="middle")
            y += cell_h
        y += MARGIN
    return svg.render()


# -- the command -----------------------------------------------------------------------------------------

_SHAPE_TOKEN = re.compile(r"^[0-9][0-9,]*$")


class _LayoutCommand(click.Command):
    """`--shape 4 8`: the option takes every number that follows it (a click option
    takes a fixed number of values), joined as `--shape 4,8`."""

    def parse_args(self, ctx, args):
        joined, k = [], 0
        while k < len(args):
            joined.append(args[k])
            if args[k] == "--shape":
                numbers = []
                while k + 1 < len(args) and _SHAPE_TOKEN.match(args[k + 1]):
                    numbers.append(args[k + 1])
                    k += 1
                if numbers:
                    joined.append(",".join(numbers))
            k += 1
        return super().parse_args(ctx, joined)


def _shape_option(ctx, param, value):
    if value is None:
        return None
    items = [item for item in re.split(r"[,\s]+", value.strip("()[] ")) if item]
    if not items or not all(item.isdigit() and int(item) > 0 for item in items):
        raise click.BadParameter(f"'{value}' is not a shape: give positive extents, e.g. --shape 4 8")
    return tuple(int(item) for item in items)


def _dtype_option(ctx, param, value):
    if value is None:
        return None
    dtype = parse_dtype(value)
    if dtype is None or dtype.kind == "handle":
        hint = did_you_mean(value, known_dtype_names())
        raise click.BadParameter(f"unknown dtype '{value}'" + (f"; {hint}" if hint else ""))
    return dtype.bits * dtype.lanes


EXAMPLES = """\b
Examples:
  tirxc layout "S[(4, 8):(1, 4)]"                          column-major: offsets j*4 + i
  tirxc layout "S[(4, 8):(1, 4)]" --shape 2 16             the same layout over another shape
  tirxc layout "S[(32, 8) : (1 @ laneid, 1)]"              the lane and register of each element
  tirxc layout "ComposeLayout(3, 3, 3, S[8, 64])" --banks  swizzled addresses and their banks
  tirxc layout "S[(4, 8):(1, 4)]" --svg layout.svg         also draw it
"""


@click.command(cls=_LayoutCommand, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
@click.argument("layout_text", metavar="LAYOUT")
@click.option("--shape", callback=_shape_option, metavar="D0 [D1 ...]",
              help="Logical shape to show (default: the layout's shard extents); any shape with as many "
                   "elements as the layout works.")
@click.option("--dtype", callback=_dtype_option, metavar="DTYPE",
              help="Element type for shared-memory banks (default float32; for a ComposeLayout the width its "
                   "per_element was chosen for, 128 >> per_element bits).")
@click.option("--banks", is_flag=True, help="Also show the shared-memory bank of each element.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one element a line) instead of the grid.")
@click.option("--svg", "svg_path", metavar="FILE", help="Also write the grid as an SVG picture.")
def layout_command(layout_text, shape, dtype, banks, as_json, svg_path):
    """Show the coordinates LAYOUT gives every element: memory offsets, the thread (lane,
    warp ...) that holds it, swizzled addresses. LAYOUT is written as in a .tx file:
    S[...], TileLayout(...), ComposeLayout(...), with the axes of tvm.tirx.layout."""
    if not layout_text.strip():
        raise click.UsageError("LAYOUT is empty: give one such as \"S[(4, 8):(1, 4)]\"")
    read = read_layout(layout_text)
    if read.diagnostics:
        sys.stderr.write(Renderer(read.source, colour=use_colour(sys.stderr)).render_all(read.diagnostics))
    if not read.ok:
        sys.exit(1)
    layout = read.layout
    if layout is None:  # "default": dense row-major over the shape asked for
        if shape is None:
            raise click.UsageError("the layout \"default\" has no shape of its own: give --shape")
        layout = layouts.tile_layout([layouts.c(e) for e in shape], text="default")
    own = tuple(it.extent.value for it in layout.shard)
    shape = shape or own
    if prod(shape) != prod(own):
        raise click.UsageError(f"shape {_shape_text(shape)} has {prod(shape)} elements but the layout covers "
                               f"{prod(own)} (its extents are {_shape_text(own)})")
    if prod(shape) > MAX_CELLS:
        raise click.UsageError(f"the layout covers {prod(shape)} elements; tirxc layout shows at most {MAX_CELLS}")
    if banks and (layouts.thread_axes(layout) or "m" not in shown_axes(layout)):
        raise click.UsageError("--banks is for shared-memory layouts (memory axis `m`, no thread axes)")
    grid = build_grid(layout.text or read.source.text, layout, shape, dtype or default_element_bits(layout), banks)
    if svg_path:
        _write(svg_path, render_svg(grid))
    _write_stdout(render_json(grid) if as_json else render_text(grid))
