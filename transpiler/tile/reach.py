"""Which threads run a tile-primitive call, checked as dispatch chooses a variant: TIRx's rule
that every thread of a call's scope reaches it (a `Tx.cta.copy` under `if tx < 128:` is
refused), and the warning for a thread-scope copy that many threads run with the same operands
(each of them copies the whole tile).

Whether a value is the same in every thread of the CTA (uniform) is proved from the kernel's own
definitions: a constant, a parameter, `blockIdx`, a `T.let` of uniform values, a loop variable
with uniform bounds, a shared or global element at a uniform index. Anything else (a thread id,
a register, a call) may differ between threads, so the warning stays silent for it."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.tile.levels import LEVELS, finer_than

_UNIFORM_BUILTINS = ("blockIdx.", "gridDim.", "blockDim.")
# ops that write memory every thread of the scope shares: a copy into shared or global memory
_WRITING_COPIES = ("copy", "copy_async")


class Uniformity:
    """The kernel's variables that are provably the same in every thread of the CTA."""

    def __init__(self, body: ir.Stmt):
        self.defined: dict[str, ir.Stmt] = {}
        for s in ir.all_stmts(body):
            if isinstance(s, (ir.LetStmt, ir.For)):
                self.defined.setdefault(s.var.name, s)
        self.known: dict[str, bool] = {}

    def var(self, name: str) -> bool:
        if name in self.known:
            return self.known[name]
        self.known[name] = False  # a definition that reaches itself is not trusted
        s = self.defined.get(name)
        if s is None:  # a parameter or a symbolic extent: one value for the launch
            result = True
        elif isinstance(s, ir.LetStmt):
            result = self.expr(s.value)
        else:
            result = self.expr(s.start) and self.expr(s.stop) and self.expr(s.step)
        self.known[name] = result
        return result

    def expr(self, e) -> bool:
        if not isinstance(e, ir.Expr):
            return True  # a compile-time Python value
        cls = e.__class__
        if cls in (ir.IntImm, ir.FloatImm, ir.StrImm):
            return True
        if cls is ir.Var:
            return self.var(e.name)
        if cls is ir.Builtin:
            return e.name.startswith(_UNIFORM_BUILTINS)
        if cls is ir.BinOp:
            return self.expr(e.a) and self.expr(e.b)
        if cls in (ir.UnaryOp, ir.Cast, ir.Reinterpret):
            return self.expr(e.a)
        if cls is ir.Select:
            return self.expr(e.cond) and self.expr(e.a) and self.expr(e.b)
        if cls is ir.BufferLoad:
            return e.buffer.scope != "local" and not e.buffer.scalar and all(self.expr(i) for i in e.indices)
        return False


def check_reach(call: ir.TileCall, title: str, diags: Diagnostics) -> bool:
    """False (after an error) when an enclosing `if` lets only part of the call's scope reach it.
    Dispatch asks once a variant took the call: the variants that share work among the scope's
    threads refuse such a call themselves (E0904 then names the `if`); the ones that accept it
    (the copy's `fallback`, TIRx's names) would have every thread that reaches it do all the work."""
    if call.scope == "thread":
        return True
    guard = next((g for g in call.threads.guards if finer_than(g.level, call.scope)), None)
    if guard is None:
        return True
    scope = "CTA" if call.scope == "cta" else call.scope
    one = f"`Tx.{call.op}(...)`" if call.op == "copy" else "a thread-scope primitive"
    diags.error("E0906", f"`{title}` is reached by only part of its {scope}: an enclosing `if` depends on "
                         f"{guard.level}-level ids", call.span,
                help=f"every thread of the {scope} must reach the call: move it out of the `if`, narrow "
                     f"the scope to the threads the `if` keeps (`Tx.warp.*` under a warp test), or have "
                     f"one thread run {one} under a test only it passes")
    return False


def check_repeated(call: ir.TileCall, title: str, block_size: int | None, guards: list[ir.Expr],
                   uniform: Uniformity, diags: Diagnostics) -> None:
    """Warn when a thread-scope copy into shared or global memory runs in many threads with the
    same operands: each of them copies the whole tile."""
    if call.scope != "thread" or call.op not in _WRITING_COPIES or not block_size or block_size < 2:
        return
    dst, src = call.operand("dst"), call.operand("src")
    # a copy out of each thread's own registers copies different data in each thread
    if not isinstance(dst, ir.TileRegion) or dst.buffer.scope == "local" or \
            not isinstance(src, ir.TileRegion) or src.buffer.scope == "local":
        return
    leveled = {id(g.cond): g.level for g in call.threads.guards}
    for cond in guards:  # a test that keeps whole warps still keeps many threads
        if not uniform.expr(cond) and leveled.get(id(cond), "thread") == "thread":
            return
    for _, value in call.operands + call.config:
        starts = value.starts if isinstance(value, ir.TileRegion) else (value,)
        if not all(uniform.expr(s) for s in starts):
            return
    coarsest = max((leveled[id(c)] for c in guards if id(c) in leveled), key=LEVELS.index, default=None)
    who = f"every thread of each {coarsest} the `if` keeps" if coarsest else f"all {block_size} threads of the CTA"
    diags.warning("W0901", f"`{title}` runs at thread scope in {who}, with the same operands: each of them "
                           f"copies the whole tile", call.span,
                  help="run it in one thread (`if tx == 0:`, or `T.cuda.elect_sync()` in a warp), or give "
                       "it a wider scope (`Tx.cta.copy(...)`) so that the threads share the work")
