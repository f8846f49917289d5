"""The older forms of a parsed file, found in its syntax tree, each with the text edits that spell it
today (spellings.py has the facts; the keyword PTX wrappers are ptx_wrappers.py's), the forms of
today's spelling (to tell a kernel that mixes the two), and the older forms tirxc cannot migrate yet.

Names: the file's dialect alias (`from tvm.script import tirx as Tx`) named, in the older spellings,
one namespace for the dialect and its tile primitives; today the dialect is `T` and the tile
primitives are `Tx` (`from tvm.script.tirx import tile as Tx`). A migrated file follows today's
convention: the dialect alias becomes `T`, and a tile call `Tx.copy(...)` inside `with Tx.cta():`
becomes `Tx.cta.copy(...)` with the tile import added after the dialect's."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from transpiler.dialect import ptx_wrappers, spellings
from transpiler.dialect.edits import Edit, Offsets
from transpiler.ir.tile_ops import OPS as TILE_OPS
from transpiler.syntax import ast
from transpiler.syntax.source import Span

DIALECT = "T"
TILE = "Tx"
TILE_IMPORT = f"from tvm.script.tirx import tile as {TILE}"
_DIALECT_MODULES = ("tvm.script.tirx", "tvm.script.tir")
# Forms of today's spelling an older one lacked, with the spelling that introduced them: a kernel
# with one of these and an older form of an earlier spelling mixes the two.
_CURRENT_CALLS = {"device_entry": "june", "SMEMPool": "may", "TMEMPool": "may"}


@dataclass(frozen=True)
class Form:
    """One occurrence of a spelling's form: its era (an older form's: the last spelling that wrote it;
    a current form's: the first, "may", "june" or "today"), where it is, which kernel it is in (None at
    module level) and what it is, in words."""
    era: str
    span: Span
    kernel: str | None
    what: str


@dataclass
class Scan:
    """What scan() found in `text`."""
    text: str = ""
    older: list[Form] = field(default_factory=list)
    current: list[Form] = field(default_factory=list)
    problems: list[tuple[Span, str, str]] = field(default_factory=list)  # (where, message, help)
    edits: list[Edit] = field(default_factory=list)
    # Where today's tile import goes (after the dialect's import), when the file calls a tile primitive
    # on the dialect's namespace: the offset, and the indentation of that import.
    tile_import: tuple[int, str] | None = None
    dropped_lines: list[tuple[int, int]] = field(default_factory=list)  # (start, end before its newline)

    def all_edits(self, own_line: bool) -> list[Edit]:
        """The edits as `tirxc migrate` writes them (own_line: the tile import on a line of its own, a
        dropped `with` header line gone), or as the compiler reads them (the tile import joined to
        the dialect's by `;`, a dropped header left an empty line): then every line keeps its number,
        for `#line`, `tirxc info` and the diagnostics."""
        edits = list(self.edits)
        edits += [Edit(start, min(end + 1, len(self.text)) if own_line else end, "")
                  for start, end in self.dropped_lines]
        if self.tile_import is not None:
            at, indent = self.tile_import
            edits.append(Edit(at, at, f"\n{indent}{TILE_IMPORT}" if own_line else f"; {TILE_IMPORT}"))
        return edits

    @property
    def era(self) -> str | None:
        """The spelling the file is read as: the earliest era of its older forms."""
        eras = {f.era for f in self.older}
        return next((e for e in spellings.ORDER if e in eras), None)


def _children(node):
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.Node):
                    yield item


def _dotted(expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything else."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        return [expr.id] + parts[::-1]
    return None


class _Scanner:
    def __init__(self, source, module: ast.Module):
        self.text = source.text
        self.at = Offsets(source.text)
        self.module = module
        self.out = Scan(source.text)
        self.aliases = self._dialect_aliases()
        self.tile_alias = self._tile_alias()
        self.kernel: str | None = None
        self.scopes: list[str | None] = []  # today's scope of each enclosing scope block (None: thread)
        self.kinds: list[str] = []  # the older scope of each enclosing scope block
        self.ids: dict[tuple[str, str], str] = {}  # (scope, parent) -> the name of the kernel's id of it
        self.dedent: dict[int, int] = {}  # line -> columns it moves left
        self.uses_tile = False

    # ---- positions ------------------------------------------------------------------------------
    def start(self, node) -> int:
        return self.at.at(node.span.line, node.span.col)

    def end(self, node) -> int:
        return self.at.at(node.span.end_line, node.span.end_col)

    def edit(self, start: int, end: int, text: str) -> None:
        self.out.edits.append(Edit(start, end, text))

    def older(self, era: str, node, what: str) -> None:
        self.out.older.append(Form(era, node.span, self.kernel, what))

    def problem(self, node, message: str, help: str) -> None:
        self.out.problems.append((node.span, message, help))

    # ---- names ----------------------------------------------------------------------------------
    def _dialect_aliases(self) -> set[str]:
        names = set()
        for stmt in self.module.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "tvm.script":
                names |= {a.asname or a.name for a in stmt.names if a.name in ("tirx", "tir")}
            elif isinstance(stmt, ast.Import):
                names |= {a.asname for a in stmt.names if a.name in _DIALECT_MODULES and a.asname}
        return names

    def _tile_alias(self) -> str | None:
        for stmt in self.module.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module in _DIALECT_MODULES:
                for a in stmt.names:
                    if a.name == "tile":
                        return a.asname or a.name
        return None

    def dialect_call(self, call) -> list[str] | None:
        """`X.a.b(...)` with X a dialect alias: ["a", "b"]; else None."""
        if not isinstance(call, ast.Call):
            return None
        path = _dotted(call.func)
        if path and len(path) > 1 and path[0] in self.aliases:
            return path[1:]
        return None

    def spelled(self, path: str) -> str:
        return f"{DIALECT}.{path}"

    # ---- the walk -------------------------------------------------------------------------------
    def run(self) -> Scan:
        for stmt in self.module.body:
            self.statement(stmt)
        return self.out

    def statement(self, stmt) -> None:
        if isinstance(stmt, ast.ImportFrom):
            self.import_from(stmt)
            return
        if isinstance(stmt, ast.FunctionDef):
            self.function(stmt)
            return
        if isinstance(stmt, ast.ClassDef):
            for deco in stmt.decorators:
                self.decorator(deco)
                self.expression(deco)
            for s in stmt.body:
                self.statement(s)
            return
        if isinstance(stmt, ast.With) and self.with_(stmt):
            return
        if isinstance(stmt, ast.ExprStmt) and self.tile_call(stmt.value):
            return
        if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
            self.declared_id(stmt.target.id, stmt.value)
        for child in _children(stmt):
            if isinstance(child, ast.Node) and _is_stmt(child):
                self.statement(child)
            else:
                self.expression(child)

    def function(self, fn: ast.FunctionDef) -> None:
        kernel = any(self.is_prim_func(d) for d in fn.decorators)
        outer = self.kernel
        if kernel:
            self.kernel = fn.name
            self.ids = {}
        for deco in fn.decorators:
            self.decorator(deco)
            self.expression(deco)
        for p in fn.params:
            for child in _children(p):
                self.expression(child)
        if fn.returns is not None:
            self.expression(fn.returns)
        for s in fn.body:
            self.statement(s)
        self.kernel = outer

    def declared_id(self, name: str, value) -> None:
        path = self.dialect_call(value)
        if not path or len(path) != 1:
            return
        parent = next((k.value.value for k in value.keywords if k.name == "parent"
                       and isinstance(k.value, ast.Constant)), None)
        declared = spellings.IDS.get((path[0], parent))
        if declared is not None:
            self.ids[declared] = name

    def is_prim_func(self, deco) -> bool:
        path = _dotted(deco.func if isinstance(deco, ast.Call) else deco)
        return bool(path) and path[0] in self.aliases and path[-1] == "prim_func"

    def decorator(self, deco) -> None:
        """`@T.prim_func(tirx=True)`, `@I.ir_module(tirx=True)`: the fork's switch, gone today."""
        if not isinstance(deco, ast.Call):
            return
        path = _dotted(deco.func)
        if not path or path[-1] not in ("prim_func", "ir_module"):
            return
        for k in deco.keywords:
            if k.name == "tirx":
                self.older("fork", k, f"`@{'.'.join(path)}(tirx=True)`")
                if len(deco.keywords) == 1 and not deco.args:
                    self.edit(self.end(deco.func), self.end(deco), "")
                else:
                    self.drop_argument(deco, k)

    def drop_argument(self, call: ast.Call, arg) -> None:
        """Delete one argument of a call with the comma that separates it."""
        items = sorted(list(call.args) + list(call.keywords), key=lambda n: (n.span.line, n.span.col))
        i = items.index(arg)
        if i > 0:
            self.edit(self.end(items[i - 1]), self.end(arg), "")
        elif len(items) > 1:
            self.edit(self.start(arg), self.start(items[1]), "")
        else:
            self.edit(self.start(arg), self.end(arg), "")

    def expression(self, node) -> None:
        if isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Subscript):
            path = _dotted(node.value)
            if path and path[0] in self.aliases and path[1:] == ["ptx"]:
                self.current(node, "`T.ptx[...]`", "today")
        if isinstance(node, ast.Name) and node.id in self.aliases and node.id != DIALECT:
            self.edit(self.start(node), self.end(node), DIALECT)
        for child in _children(node):
            self.expression(child)

    def current(self, node, what: str, since: str) -> None:
        self.out.current.append(Form(since, node.span, self.kernel, what))

    # ---- calls ----------------------------------------------------------------------------------
    def call(self, call: ast.Call) -> None:
        path = self.dialect_call(call)
        if path is None:
            tile = _dotted(call.func)
            if tile and tile[0] == self.tile_alias and len(tile) == 3:
                self.current(call, f"`{'.'.join(tile)}`", "june")
            return
        name = ".".join(path)
        if path[0] in _CURRENT_CALLS:
            self.current(call, f"`T.{name}`", _CURRENT_CALLS[path[0]])
        elif path[0] == "ptx" and "__" in name:
            self.current(call, f"`T.{name}`", "today")
        elif len(path) == 1 and any(k.name == "parent" for k in call.keywords):
            self.thread_id(call, path[0])
        elif name == "filter":
            self.thread_filter(call)
        elif name == "PoolAllocator":
            self.older("fork", call, "`T.PoolAllocator()`")
            self.edit(self.start(call.func), self.end(call.func), self.spelled("SMEMPool"))
        elif path[0] == "ptx" and (name[4:] in spellings.PTX_WRAPPERS or name[4:] in spellings.PTX_SPELLED):
            self.ptx_wrapper(call, name[4:])
        elif path[:2] == ["ptx", "cp_async"]:
            self.problem(call, f"the keyword wrapper `T.{name}` is not supported yet",
                         "a TMA copy is `Tx.copy_async(dst, src, dispatch=\"tma\", mbar=...)`; other bulk copies are "
                         "today's `T.ptx.cp.async_.bulk...` forms (docs/ptx.md)")

    def thread_filter(self, call: ast.Call) -> None:
        """May's `T.filter(var, lo, hi)` (var in [lo, hi)) and `T.filter(var, cond)` (cond): a bool."""
        if call.keywords or len(call.args) not in (2, 3):
            self.problem(call, "this `T.filter` form is not supported yet", "write the condition with `if`")
            return
        var = self.piece(call.args[0])
        if len(call.args) == 2:
            cond = f"({self.piece(call.args[1])})"
        else:
            lo, hi = self.piece(call.args[1]), self.piece(call.args[2])
            single = lo.isdigit() and hi.isdigit() and int(hi) == int(lo) + 1
            cond = f"{var} == {lo}" if single else f"({lo} <= {var} and {var} < {hi})"
        self.older("may", call, "`T.filter(...)`")
        self.edit(self.start(call), self.end(call), cond)

    def thread_id(self, call: ast.Call, name: str) -> None:
        parent = next(k for k in call.keywords if k.name == "parent")
        scope = parent.value.value if isinstance(parent.value, ast.Constant) else None
        today = spellings.THREAD_IDS.get((name, scope))
        if today is None:
            self.problem(call, f"`T.{name}(..., parent={scope!r})` of the fork's spelling is not supported yet",
                         "write today's id function: " + ", ".join(
                             f"`T.{v}` for parent={p!r}" for (n, p), v in spellings.THREAD_IDS.items() if n == name))
            return
        self.older("fork", call, f"`T.{name}(..., parent=\"{scope}\")`")
        self.edit(self.start(call.func), self.end(call.func), self.spelled(today))
        self.drop_argument(call, parent)

    def ptx_wrapper(self, call: ast.Call, name: str) -> None:
        ptx_wrappers.rewrite(self, call, name)

    def piece(self, node) -> str:
        """The source text of node, its dialect aliases renamed (for a replacement that moves it)."""
        names = []
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Name) and n.id in self.aliases and n.id != DIALECT:
                names.append(n)
            stack.extend(_children(n))
        base = self.start(node)
        text = self.text[base:self.end(node)]
        for n in sorted(names, key=self.start, reverse=True):
            text = text[:self.start(n) - base] + DIALECT + text[self.end(n) - base:]
        return text

    # ---- tile calls and scopes ------------------------------------------------------------------
    def tile_call(self, call) -> bool:
        """`T.copy(...)` as a statement: a tile primitive on the dialect's namespace (May and before)."""
        path = self.dialect_call(call)
        if not path or len(path) != 1 or path[0] not in TILE_OPS:
            return False
        op = path[0]
        scope = self.scopes[-1] if self.scopes else None
        self.older("may", call, f"`T.{op}` on the dialect's namespace")
        self.uses_tile = True
        self.edit(self.start(call.func), self.end(call.func), f"{TILE}.{scope}.{op}" if scope else f"{TILE}.{op}")
        for child in list(call.args) + list(call.keywords):
            self.expression(child)
        return True

    def with_(self, stmt: ast.With) -> bool:
        if len(stmt.items) != 1 or stmt.items[0].target is not None:
            return False
        context = stmt.items[0].context
        select = None
        if isinstance(context, ast.Subscript):
            select, context = context, context.value
        path = self.dialect_call(context)
        if not path or len(path) != 1 or path[0] not in ("kernel",) + tuple(spellings.SCOPES):
            return False
        kind = path[0]
        header_end = self.text.index(":", self.end(stmt.items[0]))
        body_line = stmt.body[0].span.line
        if body_line == self.at.position(header_end)[0]:
            self.problem(stmt, "a `with` block of the older spelling written on one line is not supported yet",
                         "put its body on the lines below")
            return True
        if kind == "kernel":
            self.older("may", stmt, "`with T.kernel():`")
            self.edit(self.start(stmt), header_end + 1, f"{DIALECT}.device_entry()")
            self.unindent(stmt, header_end)
            for s in stmt.body:
                self.statement(s)
            return True
        era = "fork" if any(k.name == "parent" for k in context.keywords) else "may"
        self.older(era, stmt, f"`with T.{kind}(){'[...]' if select else ''}:`")
        if select is not None and len(select.indices) == 1 and isinstance(select.indices[0], ast.Slice):
            if not self.select_range(stmt, context, kind, select.indices[0], header_end):
                return True
        elif select is not None:
            if len(select.indices) != 1:
                self.problem(stmt, f"`with T.{kind}()[...]` with several indices is not supported yet",
                             "select with one condition")
                return True
            cond = select.indices[0]
            self.edit(self.start(stmt), self.start(cond), "if ")
            self.edit(self.end(cond), header_end + 1, ":")
            self.expression(cond)
        else:
            self.drop_header(stmt, header_end)
            self.unindent(stmt, header_end)
        self.scopes.append(spellings.SCOPES[kind])
        self.kinds.append(kind)
        for s in stmt.body:
            self.statement(s)
        self.scopes.pop()
        self.kinds.pop()
        return True

    def select_range(self, stmt, context, kind: str, rows: ast.Slice, header_end: int) -> bool:
        """`with T.warp()[lo:hi]:` -> `if lo <= warp and warp < hi:` on the kernel's id of the warp in
        its parent scope (the `parent=` given, else the enclosing scope block's, else the CTA)."""
        parent = next((k.value.value for k in context.keywords if k.name == "parent"
                       and isinstance(k.value, ast.Constant)), None) or (self.kinds[-1] if self.kinds else "cta")
        var = self.ids.get((kind, parent))
        if var is None or rows.step is not None:
            self.problem(stmt, f"`with T.{kind}()[lo:hi]:` in a {parent} with no {kind} id declared in it is not "
                         f"supported yet", f"declare the {kind}'s id in its {parent} (`T.{kind}_id(...)`) before it, "
                         f"or write the `if` on it")
            return False
        lo = self.piece(rows.lower) if rows.lower is not None else "0"
        hi = self.piece(rows.upper) if rows.upper is not None else None
        if hi is None:
            cond = f"{var} >= {lo}"
        elif lo.isdigit() and hi.isdigit() and int(hi) == int(lo) + 1:
            cond = f"{var} == {lo}"
        else:
            cond = f"{lo} <= {var} and {var} < {hi}"
        self.edit(self.start(stmt), header_end + 1, f"if {cond}:")
        return True

    def drop_header(self, stmt, header_end: int) -> None:
        """Delete a `with` header line (its comment, if any, stays where the header was)."""
        line = stmt.span.line
        rest = self.text[header_end + 1:self.at.line_end(line)]
        if rest.strip():
            self.edit(self.start(stmt), header_end + 1 + (len(rest) - len(rest.lstrip())), "")
        else:
            self.out.dropped_lines.append((self.at.line_start(line), self.at.line_end(line)))

    def unindent(self, stmt, header_end: int) -> None:
        """The block's lines (and its comments) move left by its indentation, as they leave the `with`."""
        by = stmt.body[0].span.col - stmt.span.col
        lines = range(self.at.position(header_end)[0] + 1, stmt.span.end_line + 1)
        if any(self.text[self.at.line_start(line):self.at.line_end(line)].startswith("\t") for line in lines):
            self.problem(stmt, "moving a block indented with tabs out of its `with` is not supported yet",
                         "indent the block with spaces")
            return
        for line in lines:
            self.dedent[line] = self.dedent.get(line, 0) + by

    def finish(self) -> Scan:
        for line, by in self.dedent.items():
            start = self.at.line_start(line)
            text = self.text[start:self.at.line_end(line)]
            lead = len(text) - len(text.lstrip(" "))
            if text.strip() and lead:
                self.edit(start, start + min(by, lead), "")
        return self.out

    # ---- imports --------------------------------------------------------------------------------
    def import_from(self, stmt: ast.ImportFrom) -> None:
        if stmt.module in spellings.MODULES:
            today, era, names = spellings.MODULES[stmt.module]
            self.older(era, stmt, f"`from {stmt.module} import ...`")
            start = self.text.index(stmt.module, self.start(stmt))
            self.edit(start, start + len(stmt.module), today)
            for alias in stmt.names:
                if alias.name in names:
                    new = names[alias.name]
                    self.edit(self.start(alias), self.end(alias), f"{new} as {alias.asname or alias.name}")

    def dialect_import(self) -> None:
        """The dialect alias becomes `T`; the tile import follows it when the file has tile calls."""
        for stmt in self.module.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "tvm.script":
                names = [a for a in stmt.names if a.name in ("tirx", "tir")]
            elif isinstance(stmt, ast.Import):
                names = [a for a in stmt.names if a.name in _DIALECT_MODULES and a.asname]
            else:
                continue
            if not names:
                continue
            for alias in names:
                if alias.asname and alias.asname != DIALECT:
                    self.edit(self.start(alias), self.end(alias), f"{alias.name} as {DIALECT}")
            if self.uses_tile and self.tile_alias is None:
                indent = " " * (stmt.span.col - 1)
                self.out.tile_import = (self.end(stmt), indent)
                self.tile_alias = TILE
            return


def _is_stmt(node) -> bool:
    return isinstance(node, (ast.ExprStmt, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.For, ast.While,
                             ast.With, ast.Return, ast.Assert, ast.FunctionDef, ast.ClassDef, ast.ImportFrom,
                             ast.Import, ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Global, ast.Try,
                             ast.Nonlocal, ast.Delete))


def scan(source, module: ast.Module) -> Scan:
    """The older and current forms of a parsed file, and the edits that migrate it."""
    scanner = _Scanner(source, module)
    scanner.run()
    if scanner.out.older:
        scanner.dialect_import()
    else:
        scanner.out.edits = []
    return scanner.finish()
