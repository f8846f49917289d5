"""Test kernels made of reference expressions, checked with the host-run oracle.

A `Probe` is one expression (tests/hostrun/reference.py) and the rows of variable
values to evaluate it on. It becomes a kernel in two variants:

* `loads`: each variable is an input buffer and thread `tx` evaluates row `tx` with
  `in_a[tx]`, so nothing can fold: the generated code computes the value at run time;
* `consts`: one thread, one statement per row, every variable a typed constant
  (`T.uint8(200)`), so everything folds: tirxc computes the value while compiling.

Both store the value (`out_v`, bools as int32) and the value widened (`out_w`: an
integer through `T.int64(...)`, a float32 through `T.float64(...)`), which shows an
intermediate that the generated C kept wider than its dtype (C's integer promotion:
`(long long)(a + b)` of two uint8 is 300, TIRx's is 44). Each `T.cuda.atomic_add`
of a probe counts into its own slot of `cnt` (one set of slots per row), and the
counters afterwards must say how often the reference evaluated each call.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from tests.hostrun import oracle
from tests.hostrun.reference import (FLOAT_DTYPES, Ctx, Expr, Undefined, const_text, convert, counters, evaluate,
                                     f32, int_range, same_value, variables)

VARIANTS = ("loads", "consts")
CONST_ROWS = 16  # rows of a `consts` kernel (spread over all rows): each is a statement to parse and fold


@dataclass
class Probe:
    name: str
    expr: Expr
    rows: list  # of {variable name: value}
    counter_init: list = field(default_factory=list)  # per row, each a list of one value per counter
    may_reject: bool = False  # tirxc may refuse it with an error (e.g. T.clz of an int8): that passes too
    note: str = ""

    def defined_rows(self) -> list[tuple[dict, list, object, list]]:
        """(row, counters before, value, counters after) for the rows with a defined value."""
        out = []
        k = counters(self.expr)
        types = variables(self.expr)
        for i, row in enumerate(self.rows):
            row = {name: representable(row[name], dtype) for name, dtype in types.items()}
            init = (list(self.counter_init[i]) if i < len(self.counter_init) else [])[:k]
            init += [0] * (k - len(init))
            try:
                value, after = evaluate(self.expr, row, init)
            except Undefined:
                continue
            out.append((row, init, value, after))
        return out


def representable(value, dtype: str):
    """A row's value as the dtype holds it (float32 inputs rounded; integers must fit)."""
    if dtype == "float32":
        return f32(value)
    if dtype in FLOAT_DTYPES:
        return float(value)
    lo, hi = int_range(dtype)
    assert lo <= value <= hi, f"{value} is not a {dtype}"
    return value


def _out_dtype(e: Expr) -> str:
    return "int32" if e.dtype == "bool" else e.dtype


def _wide(e: Expr) -> str | None:
    if e.dtype in FLOAT_DTYPES:
        return "float64" if e.dtype == "float32" else None
    return "int64"


def _stores(e: Expr, ctx: Ctx, index: str, variant: str) -> list[str]:
    text = e.text(ctx)
    if e.dtype == "bool":
        text = f"T.cast({text}, \"int32\")"
    wide = _wide(e)
    # written once when it has side effects, or folds (the widened value says it all)
    once = counters(e) > 0 or variant == "consts"
    out = [] if once and wide else [f"out_v[{index}] = {text}"]
    if wide:
        out.append(f"out_w[{index}] = T.{wide}({text})")
    return out


def probe_source(probe: Probe, variant: str) -> tuple[str, list]:
    """(the .tx text, the defined rows) of a probe's kernel."""
    rows = probe.defined_rows()
    if variant == "consts" and len(rows) > CONST_ROWS:
        step = (len(rows) - 1) / (CONST_ROWS - 1)
        rows = [rows[round(i * step)] for i in range(CONST_ROWS)]
    n = max(1, len(rows))
    k = counters(probe.expr)
    e = probe.expr
    params = []
    if variant == "loads":
        params += [f"in_{name}: T.Buffer(({n},), \"{dtype}\")" for name, dtype in variables(e).items()]
    params.append(f"out_v: T.Buffer(({n},), \"{_out_dtype(e)}\")")
    if _wide(e):
        params.append(f"out_w: T.Buffer(({n},), \"{_wide(e)}\")")
    if k:
        params.append(f"cnt: T.Buffer(({n * k},), \"int32\")")
    lines = ["from tvm.script import tirx as T", "", "", "@T.prim_func", f"def probe({', '.join(params)}):",
             "    T.device_entry()"]
    if variant == "loads":
        lines.append(f"    tx = T.thread_id([{n}])")
        ctx = Ctx(lambda v: f"in_{v.name}[tx]", lambda slot: f"cnt.ptr_to([tx * {k} + {slot}])")
        lines += ["    " + s for s in _stores(e, ctx, "tx", variant)]
    else:
        lines.append("    tx = T.thread_id([1])")
        for r, (row, *_rest) in enumerate(rows):
            ctx = Ctx(lambda v, row=row: const_text(row[v.name], v.dtype),
                      lambda slot, r=r: f"cnt.ptr_to([{r * k + slot}])")
            lines += ["    " + s for s in _stores(e, ctx, str(r), variant)]
    return "\n".join(lines) + "\n", rows


def probe_run(probe: Probe, variant: str, cuda: str, rows: list) -> oracle.Run:
    e = probe.expr
    n = max(1, len(rows))
    args = {"out_v": [0] * n}
    if _wide(e):
        args["out_w"] = [0] * n
    if counters(e):
        args["cnt"] = [c for _, init, _, _ in rows for c in init] or [0] * counters(e)
    if variant == "loads":
        for name in variables(e):
            args[f"in_{name}"] = [row[name] for row, *_ in rows] or [0]
    threads = n if variant == "loads" else 1
    return oracle.Run(cuda, args, block=(threads, 1, 1))


def expected(probe: Probe, variant: str, rows: list) -> dict:
    e = probe.expr
    out = {"out_v": [convert(v, e.dtype, _out_dtype(e)) for _, _, v, _ in rows]}
    if _wide(e):
        out["out_w"] = [convert(v, e.dtype, _wide(e)) for _, _, v, _ in rows]
        if counters(e) or variant == "consts":
            del out["out_v"]  # written once, as out_w
    if counters(e):
        out["cnt"] = [c for _, _, _, after in rows for c in after]
    return out


def transpile(text: str, name: str = "probe.tx"):
    """(CUDA text or None, the errors as `code: message` strings)."""
    from transpiler.driver import compile_file
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    result = compile_file(name, text.encode("utf-8"), until="cuda")
    errors = [f"{d.code}: {d.message}" for d in result.diagnostics if d.severity == "error"]
    return (result.cuda if result.ok else None), errors


def compare(got: dict, want: dict, rows: list, probe: Probe) -> str | None:
    """None when every output equals the reference; else the first differences."""
    problems = []
    for buffer, values in want.items():
        have = got.get(buffer, [])[:len(values)]
        per_row = max(1, len(values) // max(1, len(rows)))  # cnt holds each row's counters
        for r, (w, h) in enumerate(zip(values, have)):
            if not same_value(w, h):
                row, before = rows[r // per_row][:2]
                inputs = ", ".join([f"{k}={v!r}" for k, v in row.items()] + ([f"counters {before}"] if before else []))
                problems.append(f"{buffer}[{r}] ({inputs}): got {h!r}, TIRx says {w!r}")
        if len(have) < len(values):
            problems.append(f"{buffer}: {len(have)} values, expected {len(values)}")
    if problems:
        more = f" (and {len(problems) - 6} more)" if len(problems) > 6 else ""
        return "; ".join(problems[:6]) + more
    return None


@dataclass
class Verdict:
    probe: Probe
    variant: str
    problem: str | None  # None: the kernel computed the reference values (or was refused, where allowed)
    source: str = ""
    cuda: str | None = None


def check_probes(probes: list[Probe], variants=VARIANTS) -> list[Verdict]:
    """Transpile every probe in every variant, run them all in one oracle batch, compare."""
    verdicts, runs, pending = [], [], []
    for probe in probes:
        for variant in variants:
            text, rows = probe_source(probe, variant)
            if not rows:
                verdicts.append(Verdict(probe, variant, None, text))
                continue
            cuda, errors = transpile(text)
            if cuda is None:
                problem = None if probe.may_reject else "tirxc rejected it: " + "; ".join(errors)
                verdicts.append(Verdict(probe, variant, problem, text))
                continue
            verdict = Verdict(probe, variant, None, text, cuda)
            verdicts.append(verdict)
            runs.append(probe_run(probe, variant, cuda, rows))
            pending.append((verdict, rows))
    outcomes = oracle.run_batch(runs) if runs else []
    for (verdict, rows), outcome in zip(pending, outcomes):
        if outcome.error is not None:
            verdict.problem = outcome.error
            continue
        verdict.problem = compare(outcome.buffers, expected(verdict.probe, verdict.variant, rows), rows, verdict.probe)
    return verdicts


def explain(verdict: Verdict) -> str:
    return f"{verdict.problem}\n--- .tx ---\n{verdict.source}\n--- .cu ---\n{verdict.cuda or '(none)'}"
