"""Calls with side effects run exactly as often as the source evaluates them: counted at
run time with the host-run oracle (tests/hostrun/oracle.py), where every
`T.cuda.atomic_add` adds to a counter of its own and every `printf` is counted.

Expression probes (each call once, or lazily: the chained comparison, the select,
`and` / `or`, ceildiv, min / max, floor division by a negative, folding around a
call) go through tests/hostrun/kernels.py in both variants; the statement cases
(loop bounds read once, an augmented assignment's index, an unused value that still
has to run its call, unrolled copies, asserts, printf) are whole kernels with the
counters they must end with.
"""
from __future__ import annotations

import pytest

from tests.hostrun import oracle
from tests.hostrun.kernels import VARIANTS, Probe, check_probes, explain, transpile
from tests.hostrun.reference import Bin, BoolOp, Call, Cast, Cmp, Counter, Lit, Select, Var

pytestmark = pytest.mark.skipif(not oracle.available(), reason="g++ is not on PATH")

C0, C1 = Counter(0), Counter(1)
A = Var("a", "int32")
INITS = [[0, 0], [5, 7], [-3, 2], [9, -1], [2147483647, 3]]
ROWS = [{"a": a} for a in (0, 4, -6, 11, 1)]


def _probe(name, expr, **kw) -> Probe:
    return Probe(f"effect-{name}", expr, ROWS, counter_init=INITS, **kw)


def effect_probes() -> list[Probe]:
    i32 = "int32"
    return [
        _probe("chain", Cmp("<", Lit(0, i32), C0, (("<", Lit(10, i32)),))),
        _probe("chain-lazy-end", Cmp("<", Lit(0, i32), C0, (("<", C1),))),
        _probe("chain-variable", Cmp("<=", A, C0, (("<=", Bin("+", A, Lit(5, i32))),))),
        _probe("ceildiv-divisor", Bin("ceildiv", A, C0)),
        _probe("ceildiv-dividend", Bin("ceildiv", C0, Lit(3, i32))),
        _probe("min", Bin("min", C0, A)),
        _probe("max", Bin("max", A, C0)),
        _probe("floordiv", Bin("//", C0, Lit(4, i32))),
        _probe("floordiv-negative", Bin("//", C0, Lit(-3, i32))),
        _probe("floormod-negative", Bin("%", C0, Lit(-4, i32))),
        _probe("floormod-by-variable", Bin("floormod", C0, Bin("|", A, Lit(1, i32)))),
        _probe("truncdiv", Bin("truncdiv", C0, Lit(3, i32))),
        _probe("truncmod", Bin("truncmod", C0, Lit(-3, i32))),
        _probe("select", Select(Cmp(">", A, Lit(0, i32)), C0, C1)),
        _probe("select-literal", Select(Cmp(">", A, Lit(0, i32)), C0, Lit(-1, i32), "ifexp")),
        _probe("and", BoolOp("and", Cmp(">", A, Lit(0, i32)), Cmp(">", C0, Lit(0, i32)))),
        _probe("or", BoolOp("or", Cmp(">", A, Lit(0, i32)), Cmp(">", C0, Lit(0, i32)))),
        _probe("abs", Call("abs", C0)),
        _probe("clz", Call("clz", C0)),
        _probe("popcount", Call("popcount", C0)),
        _probe("times-zero", Bin("*", C0, Lit(0, i32))),
        _probe("zero-times", Bin("*", Lit(0, i32), C0)),
        _probe("and-zero", Bin("&", C0, Lit(0, i32))),
        _probe("mod-one", Bin("%", C0, Lit(1, i32))),
        _probe("twice", Bin("+", C0, C0)),
        _probe("narrowed", Bin("+", Cast("int8", C0), Cast("int8", C1))),
        _probe("widened-min", Bin("min", Cast("int64", C0), Cast("int64", A))),
        _probe("chain-in-ceildiv", Bin("ceildiv", Cast("int32", Cmp("<=", Lit(0, i32), C0, (("<", Lit(5, i32)),))),
                                       C1)),
        _probe("chain-in-select", Select(Cmp("<", A, C0, (("<", Lit(9, i32)),)), C1, Lit(0, i32))),
    ]


PROBES = effect_probes()


@pytest.fixture(scope="module")
def probe_verdicts():
    return {(v.probe.name, v.variant): v for v in check_probes(PROBES)}


# Probes and statement cases that fail on today's tree (strict: a fixed one must lose its mark).
KNOWN_BUGS: dict[str, str] = {}


def _marks(key: str):
    reason = KNOWN_BUGS.get(key) or KNOWN_BUGS.get(key.split("/")[0])
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("name, variant", [pytest.param(p.name, v, id=f"{p.name}/{v}",
                                                        marks=_marks(f"{p.name}/{v}"))
                                           for p in PROBES for v in VARIANTS])
def test_calls_run_as_often_as_evaluated(probe_verdicts, name, variant):
    verdict = probe_verdicts[(name, variant)]
    assert verdict.problem is None, explain(verdict)


# ---- whole statements -----------------------------------------------------------------------------

BUMP = '''SRC = """
__device__ __forceinline__ int bump(int* p) { return (*p)++; }
"""'''
ADD = "T.cuda.atomic_add(C.ptr_to([{}]), 1)"

# name -> (body lines, C before, C after, printf calls, n)
STATEMENTS = {
    "range-stop-call": ([f"for i in range({ADD.format(0)}):", "    C[1] = C[1] + 1"],
                        [3, 0, 0, 0], [4, 3, 0, 0], 0, 0),
    "range-start-stop-calls": ([f"for i in range({ADD.format(0)}, {ADD.format(2)}):", "    C[1] = C[1] + 1"],
                               [1, 0, 4, 0], [2, 3, 5, 0], 0, 0),
    "serial-min-call": ([f"for i in T.serial(T.min({ADD.format(0)}, 10)):", "    C[1] = C[1] + 1"],
                        [3, 0, 0, 0], [4, 3, 0, 0], 0, 0),
    "range-ceildiv-call": ([f"for i in range(T.ceildiv(n, {ADD.format(0)})):", "    C[1] = C[1] + 1"],
                           [2, 0, 0, 0], [3, 4, 0, 0], 0, 7),
    "range-stop-read-once": (["for i in range(C[0]):", "    C[0] = C[0] - 1", "    C[1] = C[1] + 1"],
                             [3, 0, 0, 0], [0, 3, 0, 0], 0, 0),
    "serial-stop-read-once": (["for i in T.serial(1, C[2] + 1):", "    C[2] = C[2] - 1", "    C[1] = C[1] + 1"],
                              [0, 0, 4, 0], [0, 4, 0, 0], 0, 0),
    "range-stop-scalar-read-once": (["m: T.int32 = 3", "for i in range(m):", "    m = m - 1",
                                     "    C[1] = C[1] + 1", "C[3] = m"],
                                    [0, 0, 0, 0], [0, 3, 0, 0], 0, 0),
    "while-call": ([f"while {ADD.format(0)} < 5:", "    C[1] = C[1] + 1"], [0, 0, 0, 0], [6, 5, 0, 0], 0, 0),
    "augmented-index-call": ([f"C[{ADD.format(0)} % 2 + 2] += 5"], [1, 0, 0, 0], [2, 0, 0, 5], 0, 0),
    "unused-conditional-call": ([f"t: T.int32 = T.if_then_else(n > 100, {ADD.format(0)}, 0)"],
                                [0, 0, 0, 0], [0, 0, 0, 0], 0, 0),
    "unused-short-circuit-call": ([f"t: T.int32 = T.int32((n > 100) and ({ADD.format(0)} > 0))"],
                                  [0, 0, 0, 0], [0, 0, 0, 0], 0, 0),
    "unused-select-call": ([f"t: T.int32 = {ADD.format(0)} if n > 100 else {ADD.format(2)}"],
                           [0, 0, 0, 0], [0, 0, 1, 0], 0, 0),
    "unused-times-zero": ([f"t: T.int32 = {ADD.format(0)} * 0"], [0, 0, 0, 0], [1, 0, 0, 0], 0, 0),
    "stored-times-zero": ([f"x: T.int32 = {ADD.format(0)} * 0", "C[1] = x"], [5, 9, 0, 0], [6, 0, 0, 0], 0, 0),
    "unrolled-copies": (["for u in T.unroll(3):", f"    {ADD.format(0)}", "    T.cuda.printf(\"%d\\n\", u)"],
                        [0, 0, 0, 0], [3, 0, 0, 0], 3, 0),
    "nested-unrolled-copies": (["for u in T.unroll(2):", "    for v in T.unroll(3):", f"        {ADD.format(0)}"],
                               [0, 0, 0, 0], [6, 0, 0, 0], 0, 0),
    "assert-call": ([f"assert {ADD.format(0)} >= 0, \"negative\""], [4, 0, 0, 0], [5, 0, 0, 0], 0, 0),
    "printf-argument-call": ([f"T.cuda.printf(\"%d\\n\", {ADD.format(0)})"], [4, 0, 0, 0], [5, 0, 0, 0], 1, 0),
    "elif-calls": ([f"if {ADD.format(0)} > 100:", "    C[1] = 1", f"elif {ADD.format(2)} > 100:", "    C[1] = 2",
                    "else:", "    C[1] = 3"], [0, 0, 0, 0], [1, 3, 1, 0], 0, 0),
    "func-call-chain": (["if 0 < T.cuda.func_call(\"bump\", C.ptr_to([0]), source_code=SRC, return_type=\"int32\")"
                         " < 10:", "    C[1] = 1"], [5, 0, 0, 0], [6, 1, 0, 0], 0, 0),
    "func-call-ceildiv": (["C[1] = T.ceildiv(n, T.cuda.func_call(\"bump\", C.ptr_to([0]), source_code=SRC, "
                           "return_type=\"int32\"))"], [2, 0, 0, 0], [3, 4, 0, 0], 0, 7),
    "func-call-max": (["C[1] = T.max(T.cuda.func_call(\"bump\", C.ptr_to([0]), source_code=SRC, "
                       "return_type=\"int32\"), n)"], [2, 0, 0, 0], [3, 7, 0, 0], 0, 7),
}


def statement_source(body: list[str]) -> str:
    lines = ["from tvm.script import tirx as T", "", BUMP, "", "", "@T.prim_func",
             "def k(C: T.Buffer((4,), \"int32\"), n: T.int32):", "    T.device_entry()",
             "    tx = T.thread_id([1])"]
    return "\n".join(lines + ["    " + line for line in body]) + "\n"


@pytest.fixture(scope="module")
def statement_outcomes():
    runs, names, out = [], [], {}
    for name, (body, before, _after, _printf, n) in STATEMENTS.items():
        text = statement_source(body)
        cuda, errors = transpile(text, "effects.tx")
        if cuda is None:
            out[name] = (text, None, "tirxc rejected it: " + "; ".join(errors))
            continue
        runs.append(oracle.Run(cuda, {"C": list(before), "n": n}))
        names.append((name, text, cuda))
    for (name, text, cuda), outcome in zip(names, oracle.run_batch(runs)):
        out[name] = (text, cuda, outcome)
    return out


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in STATEMENTS])
def test_statement_calls_run_as_often_as_evaluated(statement_outcomes, name):
    text, cuda, outcome = statement_outcomes[name]
    _, before, after, printf_calls, _ = STATEMENTS[name]
    context = f"\n--- .tx ---\n{text}\n--- .cu ---\n{cuda}"
    assert not isinstance(outcome, str), outcome + context
    assert outcome.error is None, outcome.error + context
    assert outcome.buffers["C"] == after, f"C went from {before} to {outcome.buffers['C']}, not {after}" + context
    assert outcome.printf_count == printf_calls, f"printf ran {outcome.printf_count} times" + context
