"""`tirxc info`: what each kernel of a .tx file asks of the GPU.

Read off the lowered program: the launch shape, shared memory against the
per-architecture limits, the dynamic arena's byte map, the tensor-memory columns,
the register arrays, the architecture the kernel needs and the parameters of the
generated launcher. What the launch specs do not record (the arrays declared, the
PTX helpers that need a newer architecture, the columns tcgen05.alloc takes) comes
from a walk of each lowered body; nothing is checked or lowered again. One report
(a dict of plain data) is built per kernel; the text, `--json` and `--svg` outputs
are all printed from it, so they cannot disagree.
"""
from __future__ import annotations

import heapq
import json
import sys

import click

from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.target import ptx
from transpiler.cli.files import print_diagnostics, read_input, same_file, write_file, write_stdout
from transpiler.target.arch import ARCHS, BASE_ARCH, STATIC_SHARED_LIMIT, TMEM_COLUMNS, TMEM_LANES, arch_name, runs_on
from transpiler.ir.walk import all_exprs, all_stmts
from transpiler.cli import svg as svgs

_ALLOC_HELPERS = {ptx.lookup(f"tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32").helper
                  for group in (1, 2)}


# ---- the report ---------------------------------------------------------------------------

def report(program) -> dict:
    """The whole file's report: plain data, deterministic, no absolute paths."""
    return {"file": program.file_name, "environment": list(program.environment_reads),
            "kernels": [kernel_report(lk, program.ptx_instructions) for lk in program.kernels]}


def kernel_report(lk, instructions: dict) -> dict:
    spec = lk.spec
    arch, suffix, reasons = _architecture(lk, instructions)
    block = [e.value for e in spec.block]
    threads = block[0] * block[1] * block[2]
    shared = spec.static_shared_bytes + spec.dynamic_shared_bytes
    return {
        "name": spec.name,
        "symbol": spec.symbol,
        "min_arch": arch_name(arch, suffix),
        "arch_reasons": reasons,
        "grid": [host_text(e) for e in spec.grid],
        "block": block,
        "threads": threads,
        "launch_bounds": None if spec.max_registers else spec.launch_bounds,
        "min_blocks": spec.min_blocks,
        "max_registers": spec.max_registers,
        "cluster": list(spec.cluster) if spec.cluster else None,
        "shared": {
            "static": spec.static_shared_bytes,
            "dynamic": spec.dynamic_shared_bytes,
            "total": shared,
            "static_limit": STATIC_SHARED_LIMIT,
            "opt_in": shared > STATIC_SHARED_LIMIT,
            "limits": [{"arch": arch_name(a.number), "bytes": a.shared_opt_in, "fits": shared <= a.shared_opt_in}
                       for a in ARCHS.values() if runs_on(a.number, arch, suffix)],
            "arrays": _arrays(lk.body, "shared"),
        },
        "arena": _arena(lk),
        "tmem": _tmem(lk),
        "registers": _arrays(lk.body, "local"),
        "params": _params(spec),
        "workspaces": [{"name": w.name, "c_name": w.c_name, "dtype": w.dtype.name,
                        "shape": [host_text(e) for e in w.shape], "align": w.align, "line": w.span.line}
                       for w in spec.workspaces],
        "tile_calls": [{"line": d.span.line, "col": d.span.col, "call": d.call, "operands": d.operands,
                        "variant": d.variant, "why": d.why,
                        "rejected": [{"variant": v, "why": why} for v, why in d.rejected]}
                       for d in lk.tile_dispatch],
        # the launch description every host interface is printed from (ir/launch.py): JSON only
        "launch": lk.launch.to_json(host_text),
    }


def _architecture(lk, instructions: dict) -> tuple[int, str, list[dict]]:
    """The kernel's minimum architecture, and the PTX helpers it calls that need more than
    the oldest one (first call of each, in program order); `instructions`: the program's PTX
    instructions by helper name."""
    arch, suffix = lk.spec.min_arch, lk.spec.arch_suffix
    reasons: dict[str, dict] = {}
    for e in all_exprs(lk.body):
        if isinstance(e, ir.Call) and ptx.is_helper(e.func, instructions):
            need, need_suffix = ptx.helper_arch(e.func, instructions)
            name = e.func.split("<", 1)[0]
            if need > BASE_ARCH and name not in reasons:
                reasons[name] = {"helper": name, "arch": arch_name(need, need_suffix), "line": e.span.line}
                arch, suffix = max((arch, suffix), (need, need_suffix))
    return arch, suffix, list(reasons.values())


def _arrays(body: ir.Stmt, scope: str) -> list[dict]:
    """The `__shared__` or register arrays the kernel declares (after dead-code removal),
    once each (unrolled copies share their storage)."""
    seen: dict[int, dict] = {}
    for node in all_stmts(body):
        if isinstance(node, ir.ArrayDecl) and node.storage.scope == scope and id(node.storage) not in seen:
            st = node.storage
            seen[id(st)] = {"name": _source_name(st.name), "c_name": st.name, "dtype": st.dtype.name,
                            "elements": st.size, "bytes": st.size * st.dtype.nbytes, "line": node.span.line}
    return list(seen.values())


def _source_name(c_name: str) -> str:
    """`A_ptr` holds the source's `A` (docs/architecture.md, "Naming and dead code"); other C names stay."""
    return c_name[:-4] if c_name.endswith("_ptr") and len(c_name) > 4 else c_name


def _placement(p: ir.Placement) -> dict:
    return {"name": p.name, "dtype": p.dtype.name, "shape": list(p.shape), "start": p.start, "end": p.end,
            "line": p.span.line}


def _arena(lk) -> dict | None:
    """The byte map of the dynamic arena: each view (pool allocation or `T.decl_buffer`)
    over it, the bytes no view covers (alignment padding or unused), and the byte
    ranges two views share (rewinds of a pool, aliasing views)."""
    if not lk.spec.arena:
        return None
    whole, views = lk.spec.arena[0], lk.spec.arena[1:]
    size = lk.spec.dynamic_shared_bytes
    arena_align = lk.arena.align if lk.arena is not None else whole.align
    buffers = []
    for p in views:
        entry = _placement(p)
        entry["bytes"] = p.end - p.start
        entry["align"] = address_align(p.start, arena_align)
        buffers.append(entry)
    placed = [p for p in views if p.start >= 0]
    return {
        "name": whole.name or None,
        "c_name": lk.arena.name if lk.arena is not None else None,
        "bytes": size,
        "align": arena_align,
        "accessed": lk.arena is not None,
        "buffers": buffers,
        "gaps": _gaps(placed, size),
        "overlaps": _overlaps(placed),
    }


def address_align(offset: int, arena_align: int) -> int | None:
    """The alignment a view's address has: the largest power of two dividing its byte offset in
    the arena, at most the arena's own (None where the offset is not known)."""
    if offset < 0:
        return None
    return arena_align if offset == 0 else min(offset & -offset, arena_align)


def _gaps(placed: list[ir.Placement], size: int) -> list[dict]:
    """Byte ranges of [0, size) that no view covers. A gap that ends where a view starts,
    shorter than that view's alignment, is the padding its alignment put there."""
    gaps, cursor = [], 0
    for p in sorted(placed, key=lambda p: (p.start, p.end)):
        if p.start > cursor:
            padding = p.align and p.start % p.align == 0 and p.start - cursor < p.align
            gaps.append({"start": cursor, "end": p.start, "bytes": p.start - cursor,
                         "kind": "padding" if padding else "unused",
                         "before": p.name, "align": p.align if padding else None})
        cursor = max(cursor, p.end)
    if cursor < size:
        gaps.append({"start": cursor, "end": size, "bytes": size - cursor, "kind": "unused", "before": None,
                     "align": None})
    return gaps


def _overlaps(placed: list[ir.Placement]) -> list[dict]:
    """Each pair of buffers sharing bytes (or columns): the later one, the earlier one, the range;
    by the later one's place in `placed`, then the earlier one's. A sweep in address order that
    keeps the buffers not yet ended: time in the number of buffers and of overlaps, never in
    their product (an arena of thousands of views)."""
    order = sorted(range(len(placed)), key=lambda i: (placed[i].start, i))
    live: list[tuple[int, int]] = []  # a heap of (end, index) of the buffers started and not ended
    pairs = []
    for i in order:
        start, end = placed[i].start, placed[i].end
        while live and live[0][0] <= start:
            heapq.heappop(live)
        if start >= end:
            continue
        pairs.extend((max(i, j), min(i, j)) for _, j in live)  # each began at or before `start` and ends after it
        heapq.heappush(live, (end, i))
    out = []
    for i, j in sorted(pairs):
        later, earlier = placed[i], placed[j]
        start, end = max(earlier.start, later.start), min(earlier.end, later.end)
        out.append({"buffer": later.name, "with": earlier.name, "start": start, "end": end, "size": end - start})
    return out


def _tmem(lk) -> dict | None:
    """Tensor memory: the columns the kernel's tcgen05.alloc takes (all TMEM_LANES lanes
    of each), and the columns each tmem buffer addresses from its `allocated_addr`."""
    allocated = None
    for e in all_exprs(lk.body):
        if isinstance(e, ir.Call) and e.func in _ALLOC_HELPERS and isinstance(e.args[1], ir.IntImm):
            allocated = e.args[1].value
            break
    if allocated is None and not lk.spec.tmem:
        return None
    buffers = []
    for p in lk.spec.tmem:
        entry = _placement(p)
        entry["columns"] = p.end - p.start
        buffers.append(entry)
    placed = [p for p in lk.spec.tmem if p.start >= 0]
    return {"lanes": TMEM_LANES, "columns": TMEM_COLUMNS, "allocated": allocated, "buffers": buffers,
            "overlaps": _overlaps(placed)}


def _params(spec: ir.LaunchSpec) -> list[dict]:
    """The launcher's arguments in call order, then the symbolic extents it reads off the arrays."""
    by_name = {p.name: p for p in spec.params}
    out = []
    for c_name in spec.arg_order:
        p = by_name[c_name]
        if p.kind is ParamKind.BUFFER:
            buf = p.buffer
            out.append({"name": buf.name, "kind": "buffer", "dtype": buf.dtype.name,
                        "shape": [host_text(e) for e in buf.shape], "readonly": buf.storage.readonly})
        else:
            out.append({"name": p.name, "kind": p.kind.value, "dtype": p.dtype.name})
    for p in spec.params:
        if p.kind is ParamKind.EXTENT:
            out.append({"name": p.name, "kind": "extent", "dtype": p.dtype.name})
    for p in spec.params:
        tm = p.tensor_map
        if p.kind is ParamKind.TENSOR_MAP and tm is not None:  # encoded by the launcher (docs/design.md, decision 24)
            out.append({"name": p.name, "kind": "tensor map", "dtype": tm.buffer.dtype.name,
                        "maps": tm.buffer.name, "box": list(tm.box[::-1]), "swizzle": tm.swizzle})
    return out


# ---- host expressions ------------------------------------------------------------------------

def host_text(e: ir.Expr) -> str:
    """A grid extent or shape entry as the source would write it (without `T.`): `ceildiv(n, 256)`
    for the `(n + 255) // 256` that `T.ceildiv` folds to, `truncdiv(a, b)`, `min(a, b)`."""
    cls = e.__class__
    if cls is ir.IntImm:
        return str(e.value)
    if cls is ir.Var:
        return e.name
    if cls is ir.Cast:
        (low, high), (to_low, to_high) = e.a.dtype.int_bounds, e.dtype.int_bounds
        widening = e.dtype.is_int and e.a.dtype.is_int and to_low <= low and high <= to_high
        return host_text(e.a) if widening else f"{e.dtype.name}({host_text(e.a)})"
    if cls is ir.UnaryOp:
        return f"{'not ' if e.op == '!' else e.op}{_operand(e.a)}"
    if cls is ir.Select:
        return f"{_operand(e.a)} if {_operand(e.cond)} else {_operand(e.b)}"
    if cls is ir.Call and e.func in ir.HOST_OPS:
        return f"{e.func.removeprefix('math:')}({', '.join(host_text(a) for a in e.args)})"
    if cls is ir.BinOp:
        if e.op == "floordiv" and isinstance(e.b, ir.IntImm) and e.b.value > 1 and isinstance(e.a, ir.BinOp) \
                and e.a.op == "+" and ir.is_const(e.a.b, e.b.value - 1):
            return f"ceildiv({host_text(e.a.a)}, {e.b.value})"
        if e.op in _SOURCE_OPS:
            return f"{_operand(e.a)} {_SOURCE_OPS[e.op]} {_operand(e.b)}"
        if e.op in ir.HOST_OPS:  # min, max, truncdiv, truncmod
            return f"{e.op}({host_text(e.a)}, {host_text(e.b)})"
    return "?"


# the binary operations that the source writes as operators, in its spelling
_SOURCE_OPS = {"+": "+", "-": "-", "*": "*", "floordiv": "//", "floormod": "%", "<<": "<<", ">>": ">>", "&": "&",
               "|": "|", "^": "^", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!=",
               "&&": "and", "||": "or"}


def _operand(e: ir.Expr) -> str:
    text = host_text(e)
    nested = (isinstance(e, ir.BinOp) and e.op in _SOURCE_OPS and not text.startswith("ceildiv(")) or \
        isinstance(e, ir.Select)
    return f"({text})" if nested else text


# ---- text ------------------------------------------------------------------------------------

def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n / 1024:.1f} KiB"


def _type(dtype: str, shape) -> str:
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


def _range(start: int, end: int) -> str:
    return "?" if start < 0 else f"{start}..{end}"


def _table(rows: list[list[str]], indent: str, right: set[int] = frozenset()) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def render_text(rep: dict) -> str:
    count = len(rep["kernels"])
    lines = [f"{rep['file']}: {count} kernel{'s' if count != 1 else ''}"]
    for k in rep["kernels"]:
        lines.append("")
        lines.extend(_kernel_text(k))
    return "\n".join(lines) + "\n"


def _kernel_text(k: dict) -> list[str]:
    out = [f"kernel {k['name']} (CUDA symbol {k['symbol']})"]
    arch = k["min_arch"]
    arch += {"a": " (that architecture only)", "f": " (its family only)"}.get(arch[-1], " or newer")
    needing = [r for r in k["arch_reasons"] if r["arch"] == k["min_arch"]]
    if needing:
        more = len(needing) - 1
        arch += f": first needed by {needing[0]['helper']} at line {needing[0]['line']}" + \
            (f" (and {more} more PTX helper{'s' if more != 1 else ''})" if more else "")
    out.append(f"  architecture   {arch}")
    out.append(f"  grid           ({', '.join(k['grid'])})")
    bounds = f", __launch_bounds__({k['launch_bounds']}{', ' + str(k['min_blocks']) if k['min_blocks'] else ''})" \
        if k["launch_bounds"] else \
        f", __maxnreg__({k['max_registers']})" if k["max_registers"] else ""
    if k["cluster"]:
        bounds += f", clusters of ({', '.join(map(str, k['cluster']))})"
    out.append(f"  block          ({', '.join(map(str, k['block']))}): {k['threads']} threads{bounds}")
    out.extend(_shared_text(k["shared"]))
    if k["arena"] is not None:
        out.extend(_arena_text(k["arena"]))
    if k["tmem"] is not None:
        out.extend(_tmem_text(k["tmem"]))
    regs = k["registers"]
    if regs:
        total = sum(r["bytes"] for r in regs)
        out.append(f"  registers      {len(regs)} array{'s' if len(regs) != 1 else ''}, {total} bytes per thread "
                   f"(declared; nvcc's own register use is not counted)")
        out.extend(_table([[r["name"], _type(r["dtype"], [r["elements"]]), f"{r['bytes']} B", f"line {r['line']}"]
                           for r in regs], "    ", {2}))
    else:
        out.append("  registers      no register arrays")
    then = [what for kind, what in (("extent", "the extents read off the arrays"),
                                     ("tensor map", "the tensor maps the launcher encodes"))
            if any(p["kind"] == kind for p in k["params"])]
    out.append("  parameters     in call order" + (f" (then {' and '.join(then)})" if then else ""))
    rows = []
    for p in k["params"]:
        if p["kind"] == "buffer":
            rows.append([p["name"], "buffer", p["dtype"], "(" + ", ".join(p["shape"]) + ("," if len(p["shape"]) == 1
                                                                                      else "") + ")",
                         "read-only" if p["readonly"] else ""])
        elif p["kind"] == "tensor map":
            rows.append([p["name"], "tensor map", p["dtype"], f"of {p['maps']}, box ({', '.join(map(str, p['box']))})",
                         f"swizzle {p['swizzle']}" if p["swizzle"] else ""])
        else:
            rows.append([p["name"], p["kind"], p["dtype"], "", ""])
    if rows:
        out.extend(_table(rows, "    "))
    if k["workspaces"]:
        out.append("  workspaces     global memory the launcher allocates and zero-fills before each launch")
        out.extend(_table([[w["name"], _type(w["dtype"], w["shape"]), f"align {w['align']}", f"line {w['line']}"]
                           for w in k["workspaces"]], "    "))
    if k["tile_calls"]:
        count = len(k["tile_calls"])
        out.append(f"  tile calls     {count} call{'s' if count != 1 else ''}, each with the variant dispatch chose")
        for t in k["tile_calls"]:
            out.append(f"    line {t['line']}: {t['call']}({t['operands']}) -> {t['variant']}")
            out.append(f"      because {t['why']}")
            for r in t["rejected"]:
                out.append(f"      not {r['variant']}: {r['why']}")
    return out


def _shared_text(s: dict) -> list[str]:
    out = [f"  shared memory  static {s['static']} B + dynamic {s['dynamic']} B = {s['total']} B"
           + (f" ({_kib(s['total'])})" if s["total"] >= 1024 else "")]
    for a in s["arrays"]:
        out.append(f"    __shared__ {a['name']} {_type(a['dtype'], [a['elements']])}: {a['bytes']} B "
                   f"(line {a['line']})")
    verdict = "within" if s["static"] <= s["static_limit"] else "OVER"
    out.append(f"    static       {verdict} the {s['static_limit']} B ({_kib(s['static_limit'])}) "
               f"static limit")
    if s["opt_in"]:
        out.append(f"    opt-in       over {_kib(s['static_limit'])}: the launcher raises the kernel's "
                   f"dynamic shared limit")
    fits = [f"{x['arch']} ({x['bytes']} B)" for x in s["limits"] if x["fits"]]
    short = [f"{x['arch']} ({x['bytes']} B)" for x in s["limits"] if not x["fits"]]
    if fits:
        out.append(f"    fits         {', '.join(fits)}")
    if short:
        out.append(f"    too large    {', '.join(short)}")
    return out


def _arena_text(a: dict) -> list[str]:
    name = a["c_name"] or "arena"
    if a["name"]:
        name = f"{a['name']} ({name})"
    if not a["accessed"]:
        return [f"  dynamic arena  {name}: never accessed, so not allocated"]
    out = [f"  dynamic arena  {name}: {a['bytes']} B, aligned to {a['align']} B"]
    rows = [["bytes", "size", "buffer", "type", "align", "line"]]
    for b in a["buffers"]:
        rows.append([_range(b["start"], b["end"]), str(b["bytes"]) if b["start"] >= 0 else "?", b["name"],
                     _type(b["dtype"], b["shape"]), "?" if b["align"] is None else str(b["align"]), str(b["line"])])
    out.extend(_table(rows, "    ", {1, 4, 5}))
    for g in a["gaps"]:
        why = f"padding: {g['before']} is aligned to {g['align']} B" if g["kind"] == "padding" else "unused"
        out.append(f"    gap      {_range(g['start'], g['end'])} ({g['bytes']} B): {why}")
    for o in a["overlaps"]:
        out.append(f"    overlap  {_range(o['start'], o['end'])} ({o['size']} B): {o['buffer']} reuses "
                   f"bytes of {o['with']}")
    return out


def _tmem_text(t: dict) -> list[str]:
    if t["allocated"] is None:
        head = "columns not allocated in this kernel"
    else:
        head = f"{t['allocated']} of {t['columns']} columns allocated ({t['lanes']} lanes of 32-bit cells each)"
    out = [f"  tensor memory  {head}"]
    rows = [["columns", "count", "buffer", "type", "line"]]
    for b in t["buffers"]:
        rows.append([_range(b["start"], b["end"]), str(b["columns"]) if b["start"] >= 0 else "?", b["name"],
                     _type(b["dtype"], b["shape"]), str(b["line"])])
    if len(rows) > 1:
        out.extend(_table(rows, "    ", {1, 4}))
    for o in t["overlaps"]:
        out.append(f"    overlap  columns {_range(o['start'], o['end'])}: {o['buffer']} and {o['with']}")
    return out


# ---- the picture -------------------------------------------------------------------------------

_LEFT, _RIGHT, _ROW, _GAP = 150, 30, 22, 4
_WIDTH = 900
_UNUSED_FILL, _OVERLAP_FILL, _FREE_FILL = "#E6E6E6", "#CC3311", "#FFFFFF"


def render_svg(rep: dict) -> str:
    """The arena map (bytes along x, one row per buffer, padding grey, overlaps red) and the
    tensor-memory columns (TMEM_LANES lanes by TMEM_COLUMNS columns) of every kernel, top
    to bottom."""
    parts: list = []
    y = 30.0
    for k in rep["kernels"]:
        if k["arena"] is not None and k["arena"]["accessed"]:
            parts.append(("arena", k, y))
            y += 20 + _ROW * (len(k["arena"]["buffers"]) + 2) + 60
        if k["tmem"] is not None:
            parts.append(("tmem", k, y))
            y += 26 + TMEM_LANES + _ROW * (len(k["tmem"]["buffers"]) + 1) + 60
    if not parts:
        y += 20
    picture = svgs.Svg(_WIDTH, y, title=f"tirxc info {rep['file']}")
    padding = picture.hatch("padding")
    if not parts:
        picture.text(10, 30, f"{rep['file']}: no dynamic arena and no tensor memory", size=14)
    for kind, k, top in parts:
        if kind == "arena":
            _draw_arena(picture, k, top, padding)
        else:
            _draw_tmem(picture, k, top)
    return picture.render()


def _axis(picture, top: float, bottom: float, total: int, unit: str) -> None:
    scale = (_WIDTH - _LEFT - _RIGHT) / total
    for i in range(5):
        value = total * i // 4
        x = _LEFT + value * scale
        picture.line(x, top, x, bottom, stroke="#BBBBBB", dash="2,3")
        picture.text(x, bottom + 14, str(value), size=10, anchor="middle", fill="#555")
    picture.text(_WIDTH - _RIGHT, bottom + 28, unit, size=10, anchor="end", fill="#555")


def _band(picture, x0: float, x1: float, y: float, fill: str, title: str, label: str = "") -> None:
    width = max(x1 - x0, 2.0)  # a few bytes of a large arena stay visible
    picture.rect(x0, y, width, _ROW - _GAP, fill=fill, stroke="#333", title=title)
    if label and len(label) * 6.5 < width - 6:
        picture.text(x0 + width / 2, y + _ROW - _GAP - 5, label, size=10, anchor="middle")


def _draw_arena(picture, k: dict, top: float, padding: str) -> None:
    a = k["arena"]
    total = max(a["bytes"], 1)
    scale = (_WIDTH - _LEFT - _RIGHT) / total
    name = a["name"] or a["c_name"]
    picture.text(10, top, f"kernel {k['name']}: dynamic shared arena {name}, {a['bytes']} bytes, "
                          f"aligned to {a['align']}", size=14, weight="bold")
    y = top + 20
    rows_top = y
    for i, b in enumerate(a["buffers"]):
        picture.text(_LEFT - 8, y + _ROW - _GAP - 5, b["name"], size=12, anchor="end")
        if b["start"] >= 0:
            _band(picture, _LEFT + b["start"] * scale, _LEFT + b["end"] * scale, y, svgs.colour(i),
                  f"{b['name']} {_type(b['dtype'], b['shape'])}: bytes {b['start']}..{b['end']}, "
                  f"align {b['align'] or '?'}, line {b['line']}", f"{b['start']}..{b['end']}")
        y += _ROW
    picture.text(_LEFT - 8, y + _ROW - _GAP - 5, "padding / unused", size=12, anchor="end", fill="#555")
    picture.rect(_LEFT, y, _WIDTH - _LEFT - _RIGHT, _ROW - _GAP, fill=_FREE_FILL, stroke="#BBBBBB")
    for g in a["gaps"]:
        _band(picture, _LEFT + g["start"] * scale, _LEFT + g["end"] * scale, y,
              padding if g["kind"] == "padding" else _UNUSED_FILL,
              f"{g['kind']}: bytes {g['start']}..{g['end']} ({g['bytes']} B)", g["kind"])
    y += _ROW
    _overlap_row(picture, y, scale, a["overlaps"], "reuses bytes {start}..{end} of {with}")
    y += _ROW
    _axis(picture, rows_top, y, total, "bytes")


def _overlap_row(picture, y: float, scale: float, overlaps: list[dict], what: str) -> None:
    """The row that marks overlapping ranges; `what` describes one after the buffer's name."""
    picture.text(_LEFT - 8, y + _ROW - _GAP - 5, "overlaps", size=12, anchor="end", fill=_OVERLAP_FILL)
    picture.rect(_LEFT, y, _WIDTH - _LEFT - _RIGHT, _ROW - _GAP, fill=_FREE_FILL, stroke="#BBBBBB")
    for o in overlaps:
        title = f"{o['buffer']} " + what.format(start=o["start"], end=o["end"], **{"with": o["with"]})
        _band(picture, _LEFT + o["start"] * scale, _LEFT + o["end"] * scale, y, _OVERLAP_FILL, title,
              f"{o['buffer']} / {o['with']}")


def _draw_tmem(picture, k: dict, top: float) -> None:
    t = k["tmem"]
    scale = (_WIDTH - _LEFT - _RIGHT) / t["columns"]
    allocated = t["allocated"]
    head = f"{allocated} columns allocated" if allocated is not None else "no allocation in this kernel"
    picture.text(10, top, f"kernel {k['name']}: tensor memory, {t['lanes']} lanes x {t['columns']} columns, "
                          f"{head}", size=14, weight="bold")
    y = top + 20
    picture.text(_LEFT - 8, y + t["lanes"] / 2, f"lanes 0..{t['lanes'] - 1}", size=12, anchor="end")
    picture.rect(_LEFT, y, t["columns"] * scale, t["lanes"], fill="#F4F4F4", stroke="#BBBBBB",
                 title="tensor memory of the SM")
    if allocated is not None:
        picture.rect(_LEFT, y, allocated * scale, t["lanes"], fill=_FREE_FILL, stroke="#333", stroke_width=2,
                     title=f"tcgen05.alloc: columns 0..{allocated}")
    for i, b in enumerate(t["buffers"]):
        if b["start"] >= 0:
            picture.rect(_LEFT + b["start"] * scale, y + 4, (b["end"] - b["start"]) * scale, t["lanes"] - 8,
                         fill=svgs.colour(i), stroke="#333",
                         title=f"{b['name']} {_type(b['dtype'], b['shape'])}: columns {b['start']}..{b['end']}, "
                               f"line {b['line']}")
            picture.text(_LEFT + (b["start"] + b["end"]) / 2 * scale, y + t["lanes"] / 2 + 4, b["name"], size=12,
                         anchor="middle")
    y += t["lanes"] + 6
    rows_top = y
    for i, b in enumerate(t["buffers"]):
        picture.text(_LEFT - 8, y + _ROW - _GAP - 5, b["name"], size=12, anchor="end")
        if b["start"] >= 0:
            _band(picture, _LEFT + b["start"] * scale, _LEFT + b["end"] * scale, y, svgs.colour(i),
                  f"{b['name']}: columns {b['start']}..{b['end']}", f"{b['start']}..{b['end']}")
        y += _ROW
    _overlap_row(picture, y, scale, t["overlaps"], "and {with} share columns {start}..{end}")
    y += _ROW
    _axis(picture, rows_top - t["lanes"] - 6, y, t["columns"], "columns")


# ---- the command -----------------------------------------------------------------------------

@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("kernel_file", metavar="KERNEL.tx")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (stable keys, for CI diffs).")
@click.option("--svg", "svg_path", metavar="FILE", help="Also draw the arena map and tensor-memory columns to FILE.")
def info_command(kernel_file, as_json, svg_path):
    """Report what each kernel of KERNEL.tx needs: launch shape, shared memory against the
    per-architecture limits, the dynamic arena's byte map, tensor-memory columns,
    register arrays, minimum architecture and the launcher's parameters."""
    from transpiler.driver import compile_file
    if svg_path and kernel_file != "-" and same_file(kernel_file, svg_path):
        raise click.UsageError(f"refusing to overwrite the input file '{kernel_file}' with the picture")
    name, data = read_input(kernel_file)
    result = compile_file(name, data, until="cuda")
    print_diagnostics(result)
    if not result.ok:
        sys.exit(1)
    rep = report(result.program)
    if svg_path:
        write_file(svg_path, render_svg(rep))
    write_stdout(json.dumps(rep, indent=2) + "\n" if as_json else render_text(rep))
