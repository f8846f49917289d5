"""The side-effect invariant of the fuzzers (harness.check_input): a call with side
effects appears in the generated CUDA no more often than the source can evaluate it.

Counted by C name: `T.cuda.atomic_add/max/min/cas` (atomicAdd ...), `T.cuda.printf`
(printf), `T.cuda.func_call("f", ...)` (f) and `T.ptx...` calls (each its own
`tirx_ptx_*` helper). The source's count of a call is one per appearance, times the copies of
every `T.unroll` loop around it (constant bounds; module-level integer constants
are followed); the CUDA's count is its appearances in the kernels' bodies (not in
the pasted `func_call` sources or the helpers), with string literals and comments
left out. More appearances in the CUDA than the source allows is a finding: an
expression the printer wrote twice (`0 < f() < 10` as `0 < f() && f() < 10`,
`T.ceildiv(x, f())` as `(x + f() - 1) / f()`, a min/max macro). Fewer is allowed:
dead branches and empty loops disappear, so "exactly as often" is not decidable from
the text alone; tests/hostrun/test_side_effects.py counts exact numbers at run time.

A second rule: a call with side effects never appears in the condition or the
increment of a generated `for (...; ...; ...)` header -- a `range()` bound is
evaluated once, but a condition is evaluated on every iteration.

The check is skipped (None) for files where the source count is not a sound bound:
a `T.unroll` whose bounds are not constants it can read, a call outside a kernel,
`T.meta_var` (an alias re-evaluated at each use), a memory pool (its methods issue PTX
of their own), a PTX call in a form not looked up here, a func_call whose name is not a
string literal or is a name the printer itself emits (`min`, `expf` ...).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import fields

from transpiler.syntax import ast
from transpiler.target import ptx

ATOMICS = {"cuda.atomic_add": "atomicAdd", "cuda.atomic_max": "atomicMax", "cuda.atomic_min": "atomicMin",
           "cuda.atomic_cas": "atomicCAS", "cuda.printf": "printf"}
_PRINTER_NAMES = {"min", "max", "abs", "llabs", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "printf",
                  "assert"}


class _Skip(Exception):
    pass


_DIALECT = {"T"}  # the names the file being counted binds the dialect to (source_counts sets it)


def _dialect_names(module: ast.Module) -> set[str]:
    """`from tvm.script import tirx as X`, `import tvm.script.tirx as X`: the X; "T" without an import."""
    names = set()
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module in ("tvm.script", "tvm"):
            names |= {a.asname or a.name for a in stmt.names if a.name in ("tirx", "tir")}
        elif isinstance(stmt, ast.Import):
            names |= {a.asname for a in stmt.names if a.asname and a.name.endswith((".tirx", ".tir"))}
    has_import = any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in module.body)
    return names if has_import else {"T"}


def _dotted(e) -> str | None:
    """`T.cuda.atomic_add` -> "cuda.atomic_add"; `T.ptx["..."]` -> "ptx"."""
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Subscript):
        inner = _dotted(e.value)
        return inner if inner == "ptx" or (inner or "").startswith("ptx.") else None
    if isinstance(e, ast.Name) and e.id in _DIALECT:
        return ".".join(reversed(parts))
    return None


def _children(node):
    for f in fields(node):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, ast.Node))


def _int(e, consts: dict) -> int:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.Name) and e.id in consts:
        return consts[e.id]
    if isinstance(e, ast.UnaryOp) and e.op in ("-", "+"):
        v = _int(e.operand, consts)
        return -v if e.op == "-" else v
    if isinstance(e, ast.BinOp) and e.op in ("+", "-", "*", "//"):
        a, b = _int(e.left, consts), _int(e.right, consts)
        if e.op == "//" and b == 0:
            raise _Skip()
        return {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0}[e.op]
    raise _Skip()


def _copies(it, consts: dict) -> int:
    """The copies `for ... in T.unroll(...)` makes of its body; 1 for any other loop."""
    if not (isinstance(it, ast.Call) and _dotted(it.func) == "unroll"):
        return 1
    if it.keywords or not 1 <= len(it.args) <= 3:
        raise _Skip()
    args = [_int(a, consts) for a in it.args]
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    if step == 0:
        raise _Skip()
    return len(range(start, stop, step))


def _ptx_helper(call: ast.Call, dotted: str) -> str:
    """The `tirx_ptx_*` helper a `T.ptx` call becomes (one per call)."""
    if dotted == "ptx":
        index = call.func.indices[0] if isinstance(call.func, ast.Subscript) and call.func.indices else None
        if not (isinstance(index, ast.Constant) and isinstance(index.value, str)):
            raise _Skip()
        mnemonic = index.value
    else:
        mnemonic = ptx.from_attribute_path(dotted.split(".")[1:])
    instruction = ptx.lookup(mnemonic)
    if instruction is None:  # the tcgen05 keyword forms and unknown ones: not counted soundly
        raise _Skip()
    return instruction.helper


def _effect_name(call: ast.Call) -> str | None:
    dotted = _dotted(call.func)
    if dotted is None:
        return None
    if dotted in ATOMICS:
        return ATOMICS[dotted]
    if dotted == "ptx" or dotted.startswith("ptx."):
        return _ptx_helper(call, dotted)
    if dotted == "cuda.func_call":
        first = call.args[0] if call.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            raise _Skip()
        name = first.value
        base = name[1:] if name.startswith("h") else name
        base = base[:-1] if base.endswith("f") else base
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in _PRINTER_NAMES or name in _MATH or base in _MATH \
                or name.startswith(("__", "tirx_", "atomic")):
            raise _Skip()  # a name the printer may also write
        return name
    if dotted == "meta_var" or "Pool" in dotted:
        raise _Skip()  # an alias re-evaluated at each use; pools issue PTX of their own
    return None


_MATH = {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
         "sinh", "cosh", "asin", "acos", "atan", "atan2", "erf", "pow", "fabs", "floor", "ceil", "round", "trunc",
         "nearbyint", "fma", "fmod", "hypot", "copysign", "isnan", "isinf", "isfinite", "abs", "min", "max", "fmin",
         "fmax"}


def source_counts(module: ast.Module) -> Counter | None:
    """C name -> how many times the kernels can evaluate it at most, per launch point; None: skip."""
    global _DIALECT
    _DIALECT = _dialect_names(module)
    consts: dict[str, int] = {}
    counts: Counter = Counter()
    try:
        for stmt in module.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
                try:
                    consts[stmt.target.id] = _int(stmt.value, consts)
                except _Skip:
                    consts.pop(stmt.target.id, None)
        for stmt in module.body:
            inside = isinstance(stmt, ast.FunctionDef)
            _count(stmt, 1, consts, counts, inside)
    except _Skip:
        return None
    return counts


def _count(node, times: int, consts: dict, counts: Counter, inside: bool) -> None:
    if isinstance(node, ast.Call):
        name = _effect_name(node)
        if name is not None:
            if not inside:
                raise _Skip()
            counts[name] += times
    if isinstance(node, ast.For):
        copies = _copies(node.iter, consts)
        _count(node.target, times, consts, counts, inside)
        _count(node.iter, times, consts, counts, inside)
        for s in node.body:
            _count(s, times * copies, consts, counts, inside)
        return
    for child in _children(node):
        _count(child, times, consts, counts, inside)


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def kernel_bodies(cuda: str, inline_sources=()) -> str:
    """The text of every kernel's body, without string literals and comments."""
    for source in inline_sources:
        text = source.strip("\n")
        if text:
            cuda = cuda.replace(text, "")
    parts = []
    for match in re.finditer(r'extern "C" __global__', cuda):
        end = cuda.find("\n}", match.end())
        parts.append(cuda[match.end(): end if end >= 0 else len(cuda)])
    text = "\n".join(parts)
    text = _STRING.sub('""', text)
    return _COMMENT.sub("", text)


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(name)}\s*(?:<[^<>()]*>)?\s*\(")


def cuda_counts(bodies: str, names) -> Counter:
    return Counter({name: len(_pattern(name).findall(bodies)) for name in names})


def _for_headers(bodies: str):
    """(condition, increment) of every `for (init; cond; incr)` header."""
    for match in re.finditer(r"\bfor\s*\(", bodies):
        depth, i, start = 1, match.end(), match.end()
        parts = []
        while i < len(bodies) and depth:
            ch = bodies[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == ";" and depth == 1:
                parts.append(bodies[start:i])
                start = i + 1
            i += 1
        parts.append(bodies[start:i - 1])
        if len(parts) == 3:
            yield parts[1], parts[2]


def check(module, cuda: str, inline_sources=()) -> str | None:
    """None when the invariant holds (or cannot be checked soundly); else what is wrong."""
    if module is None or cuda is None:
        return None
    allowed = source_counts(module)
    if allowed is None:
        return None
    bodies = kernel_bodies(cuda, inline_sources)
    names = set(allowed) | set(ATOMICS.values())
    found = cuda_counts(bodies, names)
    for name in sorted(names):
        if found[name] > allowed[name]:
            return (f"`{name}` appears {found[name]} times in the kernels' CUDA, but the source evaluates it "
                    f"at most {allowed[name]} times (a call with side effects written twice)")
    effect = re.compile("|".join(_pattern(n).pattern for n in sorted(names)))
    for condition, increment in _for_headers(bodies):
        for part, what in ((condition, "condition"), (increment, "increment")):
            if effect.search(part):
                return (f"a call with side effects in a `for` {what} (`{part.strip()}`): evaluated on every "
                        f"iteration, not once")
    return None
