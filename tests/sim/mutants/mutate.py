"""Seeded synchronisation bugs: the mutants of one `.tx` text (docs/sim.md, "Seeded bugs and
the mutation score").

Each mutant is the text with one synchronisation removed or shifted, a file a user could have
written, naming its source, line and kind:

- `barrier`: a CTA, warp, warpgroup or cluster barrier (`T.cuda.cta_sync()`, `__syncthreads`
  forms, `T.cuda.warp_sync()`, named barriers `bar.sync` / `bar.arrive`, `Tx.<scope>.sync()`),
  deleted;
- `fence`: a fence (`T.ptx.fence...`, proxy fences, `wgmma.fence`, the tcgen05 thread-sync
  fences, `T.cuda.thread_fence()`), deleted;
- `mbarrier_wait`: a wait on an mbarrier (`T.cuda.mbarrier_wait`, a `while` loop polling
  `try_wait` / `test_wait`, the pipeline library's `.wait(...)`), deleted;
- `wait_group`: a `wait_group` / `wait_all` of cp.async, bulk copies or wgmma, deleted;
- `commit`: a `commit_group`, deleted; `commit_wait`: a `commit_group` and the `wait_group` of
  the same family that follows it in the same block, both deleted;
- `phase`: the parity an mbarrier wait waits for, shifted one phase (`p` -> `(p) ^ 1`).

The `.tx` is only parsed (CPython's `ast`, which reads the surface syntax and gives exact
spans): nothing of it runs. A deleted statement becomes `pass` followed by as many blank lines
as it spanned, so the block it leaves cannot be empty and every other line keeps its number
(a report on the mutant names the original's lines).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

KINDS = ("barrier", "fence", "mbarrier_wait", "wait_group", "commit", "commit_wait", "phase")


@dataclass(frozen=True)
class Mutant:
    source: str  # where the original text comes from (a repository path, or a test's kernel name)
    line: int  # 1-based line of the (first) changed statement in the original
    col: int  # 1-based column
    kind: str  # one of KINDS
    what: str  # the statement or call changed, as written (first line)
    text: str  # the mutant's whole text

    @property
    def ident(self) -> str:
        """Stable name of the mutant: source:line:col:kind."""
        return f"{self.source}:{self.line}:{self.col}:{self.kind}"


def callee_path(func: ast.expr) -> str | None:
    """`T.ptx.cp.async_.wait_group` or `T.ptx["cp.async.wait_group"]` as a dotted path with
    the keyword-escaping underscores dropped (`T.ptx.cp.async.wait_group`); None for a callee
    that is not a chain of names."""
    parts: list[str] = []
    node = func
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            parts.extend(reversed(node.slice.value.replace("::", "__").split(".")))
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            break
        else:
            return None
    return ".".join(p.rstrip("_") or p for p in reversed(parts))


_BARRIERS = {"cta_sync", "syncthreads", "__syncthreads", "warp_sync", "syncwarp", "__syncwarp",
             "warpgroup_sync", "cluster_sync"}
_WAIT_GROUPS = {"wait_group", "wait_all", "wait_group_read"}
_MBARRIER_WAITS = {"mbarrier_wait", "mbarrier_wait_acquire_cluster", "wait"}
_POLLS = {"try_wait", "test_wait"}


def classify(path: str) -> str | None:
    """The kind of a call statement, by its callee path (None: not a synchronisation)."""
    words = path.split(".")
    last = words[-1]
    if "commit_group" in words or words[-2:] == ["tcgen05", "commit"]:
        return "commit"
    if any(w in _WAIT_GROUPS or w.startswith("wait__") for w in words):  # wait__ld: tcgen05.wait::ld
        return "wait_group"
    if any(w.startswith("fence") for w in words[1:]) or last in ("thread_fence", "threadfence"):
        return "fence"
    if last in _MBARRIER_WAITS:
        return "mbarrier_wait"
    if last in _BARRIERS or (words[0] == "Tx" and last == "sync"):
        return "barrier"
    if "bar" in words[1:] or "barrier" in words[1:]:
        tail = words[words.index("bar" if "bar" in words[1:] else "barrier") + 1:]
        if tail and tail[0] in ("sync", "arrive", "cta") and "red" not in tail:
            return "barrier"
    return None


def _family(path: str) -> str:
    """What a commit and its wait have in common: the path before `commit_group` / `wait_group`."""
    words = path.split(".")
    for i, w in enumerate(words):
        if w in ("commit_group", "wait_group", "wait_all"):
            return ".".join(words[:i])
    return path


def _polled_call(node: ast.While) -> ast.Call | None:
    for sub in ast.walk(node.test):
        if isinstance(sub, ast.Call):
            path = callee_path(sub.func)
            if path and path.split(".")[-1] in _POLLS:
                return sub
    return None


def _offsets(text: str) -> list[int]:
    starts, at = [0], 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


class _Text:
    """The original text, edited by spans (ast positions: 1-based lines, 0-based UTF-8 columns)."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = _offsets(text)

    def offset(self, line: int, col: int) -> int:
        encoded = self.lines[line - 1].encode("utf-8")[:col]
        return self.starts[line - 1] + len(encoded.decode("utf-8"))

    def segment(self, node) -> str:
        return self.text[self.offset(node.lineno, node.col_offset):self.offset(node.end_lineno, node.end_col_offset)]

    def replaced(self, edits) -> str:
        """The text with each (node, replacement) made, the nodes not overlapping."""
        out, at = [], 0
        for node, new in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset)):
            start = self.offset(node.lineno, node.col_offset)
            out.append(self.text[at:start])
            out.append(new)
            at = self.offset(node.end_lineno, node.end_col_offset)
        out.append(self.text[at:])
        return "".join(out)


def _deleted(node) -> str:
    return "pass" + "\n" * (node.end_lineno - node.lineno)


def _blocks(tree: ast.AST):
    """Every statement list of the tree (bodies, else branches, handlers)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def mutants(source: str, text: str) -> list[Mutant]:
    """Every mutant of `text` (from `source`), in order of line, column and kind."""
    tree = ast.parse(text)
    edit = _Text(text)
    found: list[Mutant] = []

    def add(node, kind, edits):
        what = edit.segment(node).splitlines()[0].strip()
        found.append(Mutant(source, node.lineno, node.col_offset + 1, kind, what, edit.replaced(edits)))

    def phase(call: ast.Call):
        if call.args:
            parity = call.args[-1]
            add(call, "phase", [(parity, f"({edit.segment(parity)}) ^ 1")])

    for block in _blocks(tree):
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.While) and (poll := _polled_call(stmt)) is not None:
                add(stmt, "mbarrier_wait", [(stmt, _deleted(stmt))])
                phase(poll)
                continue
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            path = callee_path(stmt.value.func)
            kind = path and classify(path)
            if kind is None:
                continue
            add(stmt, kind, [(stmt, _deleted(stmt))])
            if kind == "mbarrier_wait":
                phase(stmt.value)
            if kind == "commit":
                wait = _next_wait(block, index, _family(path))
                if wait is not None:
                    add(stmt, "commit_wait", [(stmt, _deleted(stmt)), (wait, _deleted(wait))])
    found.sort(key=lambda m: (m.line, m.col, KINDS.index(m.kind)))
    return found


def _next_wait(block, index: int, family: str):
    """The first wait_group of `family` after block[index], in the same block."""
    for stmt in block[index + 1:]:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            path = callee_path(stmt.value.func)
            if path and classify(path) == "wait_group" and _family(path) == family:
                return stmt
    return None


def orders_nothing_after(text: str, line: int, col: int) -> bool:
    """Whether the statement at (line, col) is the last thing its kernel does: every block that
    holds it ends with it and none of them is a loop body, so no access of any thread follows it
    and removing it cannot reorder one (a provably equivalent mutant)."""
    tree = ast.parse(text)
    for func in ast.walk(tree):
        if isinstance(func, ast.FunctionDef) and func.lineno <= line <= (func.end_lineno or line):
            kernel = any((callee_path(d.func if isinstance(d, ast.Call) else d) or "").endswith("prim_func")
                         for d in func.decorator_list)
            return kernel and _last_in(func.body, line, col)  # an inlined function may run in a loop
    return False


def _last_in(block, line: int, col: int) -> bool:
    last = block[-1]
    if last.lineno == line and last.col_offset + 1 == col:
        return True
    if isinstance(last, (ast.For, ast.While, ast.AsyncFor)):
        return False
    if isinstance(last, ast.If):
        return any(b and _last_in(b, line, col) for b in (last.body, last.orelse))
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _last_in(last.body, line, col)
    return False
