"""The values the generated CUDA computes equal TIRx's (tests/hostrun/reference.py), for
every integer dtype (int8 ... uint64) and operator, and for the float cases where
folding and run time used to disagree.

Each probe runs twice (tests/hostrun/kernels.py): with its operands loaded from
buffers (nothing folds: the generated code computes) and as typed constants
(everything folds: tirxc computes while compiling); both must give the reference
value, also widened to 64 bits (so an 8-bit sum C kept as a 32-bit `int` shows).
All probes are transpiled in process and compiled as one host program per core
(tests/hostrun/oracle.py), once per session.
"""
from __future__ import annotations

import itertools

import pytest

from tests.hostrun import oracle
from tests.hostrun.kernels import VARIANTS, Probe, check_probes, explain
from tests.hostrun.reference import (INT_DTYPES, NARROW, Bin, Call, Cast, Cmp, Const, Lit, Select, Un, Var, bits,
                                     is_signed)

pytestmark = pytest.mark.skipif(not oracle.available(), reason="g++ is not on PATH")

# a few values of each dtype: its ends, around zero, and wrapping sums and products
SAMPLES = {
    "int8": (-128, -100, -7, -1, 0, 1, 3, 100, 127),
    "uint8": (0, 1, 3, 15, 100, 128, 200, 255),
    "int16": (-32768, -20000, -7, -1, 0, 1, 3, 20000, 32767),
    "uint16": (0, 1, 3, 255, 40000, 65535),
    "int32": (-2147483648, -100000, -7, -1, 0, 1, 3, 65536, 2147483647),
    "uint32": (0, 1, 3, 65536, 2147483648, 3000000000, 4294967295),
    "int64": (-(1 << 63), -(1 << 40) - 3, -7, -1, 0, 1, 3, 1 << 40, (1 << 63) - 1),
    "uint64": (0, 1, 3, 1 << 32, 1 << 63, (1 << 64) - 1),
}
INFIX = ("+", "-", "*", "//", "%", "&", "|", "^")
CALLED = ("floordiv", "floormod", "truncdiv", "truncmod", "min", "max")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def _pairs(dtype: str) -> list[dict]:
    return [{"a": a, "b": b} for a, b in itertools.product(SAMPLES[dtype], repeat=2)]


def _shift_rows(dtype: str) -> list[dict]:
    counts = sorted({0, 1, 3, bits(dtype) // 2, bits(dtype) - 1})
    return [{"a": a, "b": b} for a in SAMPLES[dtype] for b in counts]


def integer_probes() -> list[Probe]:
    out = []
    for d in INT_DTYPES:
        a, b = Var("a", d), Var("b", d)
        narrow = d in NARROW
        for op in INFIX + CALLED:
            out.append(Probe(f"{d}-{op}", Bin(op, a, b), _pairs(d)))
        for op in ("<<", ">>"):
            out.append(Probe(f"{d}-{op}", Bin(op, a, b), _shift_rows(d)))
        rows = [{"a": v} for v in SAMPLES[d]]
        out.append(Probe(f"{d}-invert", Un("~", a), rows))
        if is_signed(d):
            out.append(Probe(f"{d}-negate", Un("-", a), rows))
            out.append(Probe(f"{d}-abs", Call("abs", a), rows))
        else:
            out.append(Probe(f"{d}-abs", Call("abs", a), rows, may_reject=True,
                             note="abs of an unsigned value: the value itself, or refused"))
        for fn in ("clz", "popcount"):
            out.append(Probe(f"{d}-{fn}", Call(fn, a), rows, may_reject=narrow,
                             note="counted within the dtype's width, or refused"))
        # comparisons: of the operands, and of a wrapped sum and difference
        for op in COMPARISONS:
            out.append(Probe(f"{d}-cmp{op}", Cmp(op, a, b), _pairs(d)))
        for op in ("<", ">="):
            out.append(Probe(f"{d}-sum{op}", Cmp(op, Bin("+", a, b), b), _pairs(d)))
            out.append(Probe(f"{d}-difference{op}", Cmp(op, Bin("-", a, b), a), _pairs(d)))
        # the review's examples, in every dtype
        out.append(Probe(f"{d}-average", Bin("//", Bin("+", a, b), Lit(2, d)), _pairs(d)))
        out.append(Probe(f"{d}-inverted-shift", Bin(">>", Un("~", a), Lit(bits(d) // 2, d)), rows))
        out.append(Probe(f"{d}-product-mod", Bin("%", Bin("*", a, b), Lit(7, d)), _pairs(d)))
        out.append(Probe(f"{d}-shifted-back", Bin(">>", Bin("<<", a, Lit(bits(d) - 1, d)), Lit(bits(d) - 1, d)),
                         rows))
        out.append(Probe(f"{d}-select-of-sum", Select(Cmp(">", a, b), Bin("+", a, b), Bin("-", a, b)), _pairs(d)))
        out.append(Probe(f"{d}-min-of-sum", Bin("max", Bin("+", a, b), Bin("*", a, Lit(2, d))), _pairs(d)))
        out.append(Probe(f"{d}-ceildiv", Bin("ceildiv", a, Lit(3, d)), rows))
        # casts to every other integer dtype and to the floats, both spellings
        for i, target in enumerate(INT_DTYPES + ("float32", "float64")):
            if target != d:
                out.append(Probe(f"{d}-to-{target}", Cast(target, a, "cast" if i % 2 else "ctor"), rows))
            if target in NARROW and target != d:  # the sum of two narrowed values
                out.append(Probe(f"{d}-narrowed-sum-{target}", Bin("+", Cast(target, a), Cast(target, b)),
                                 _pairs(d)))
    # T.int32 of a uint32 is not non-negative: floor division and modulo by constants
    u = Var("u", "uint32")
    urows = [{"u": v} for v in SAMPLES["uint32"] + (2147483647, 4294967289)]
    for op, k in (("//", 2), ("%", 3), ("//", 4), ("%", 8), ("floordiv", 7), ("floormod", 7)):
        out.append(Probe(f"int32-of-uint32-{op}{k}", Bin(op, Cast("int32", u), Lit(k, "int32")), urows))
    w = Var("w", "uint16")
    wrows = [{"w": v} for v in SAMPLES["uint16"]]
    out.append(Probe("int16-of-uint16-floordiv", Bin("//", Cast("int16", w), Lit(4, "int16")), wrows))
    out.append(Probe("int8-of-uint8-mod", Bin("%", Cast("int8", Var("v", "uint8")), Lit(3, "int8")),
                     [{"v": v} for v in SAMPLES["uint8"]]))
    out.append(Probe("uint8-exact-example", Bin("//", Bin("+", Var("a", "uint8"), Var("b", "uint8")), Lit(2, "uint8")),
                     [{"a": 200, "b": 100}]))
    out.append(Probe("uint8-exact-inverted-shift", Bin(">>", Un("~", Var("b", "uint8")), Lit(4, "uint8")),
                     [{"b": 0}, {"b": 15}, {"b": 240}]))
    return out


NAN, INF = float("nan"), float("inf")
BIG = (1 << 60) + (1 << 36) + 1  # int64 -> float32: 2^60 + 2^37 once rounded, 2^60 rounded twice


def float_probes() -> list[Probe]:
    out = []
    for d in ("float32", "float64"):
        x, y = Var("x", d), Var("y", d)
        rows = [{"x": p, "y": q} for p, q in itertools.product((NAN, 1.0, -2.5, INF), repeat=2)]
        for op in ("min", "max"):
            out.append(Probe(f"{d}-{op}-nan", Bin(op, x, y), rows))
            out.append(Probe(f"{d}-{op}-nan-const", Bin(op, x, Const(1.0, d)), [{"x": NAN}, {"x": 3.0}]))
        arith = [{"x": p, "y": q} for p, q in itertools.product((0.0, -0.0, 1.0, -3.0, 0.1, 1e30, INF, NAN),
                                                                 repeat=2)]
        for op in ("+", "-", "*"):
            out.append(Probe(f"{d}-{op}", Bin(op, x, y), arith))
        out.append(Probe(f"{d}-divide", Bin("/", x, y), arith))
        for target in ("int32", "uint8", "int64", "uint32"):
            out.append(Probe(f"{d}-to-{target}", Cast(target, x),
                             [{"x": v} for v in (2.5, -2.5, -0.5, 0.99, 200.7, 1e9, 3e9, -1e10, NAN)]))
    f32rows = [{"x": v} for v in (1.0 + 2.0 ** -24, 1.0 + 2.0 ** -24 + 2.0 ** -50, 3.4028235677973366e38, 1e39,
                                  1e-46, -1.5e-45, 0.1)]
    out.append(Probe("float64-to-float32", Cast("float32", Var("x", "float64")), f32rows))
    out.append(Probe("float32-sum-widened", Bin("+", Var("x", "float32"), Var("y", "float32")),
                     [{"x": 1.0, "y": 2.0 ** -24}, {"x": 16777216.0, "y": 1.0}, {"x": 3e38, "y": 3e38}]))
    conversions = {
        ("int64", "float32"): (BIG, -BIG, (1 << 24) + 1, (1 << 53) + 1, (1 << 63) - 1, -(1 << 63), 3),
        ("uint64", "float32"): ((1 << 64) - 1, (1 << 63) + (1 << 39) + 1, BIG, 1),
        ("int64", "float64"): ((1 << 53) + 1, (1 << 63) - 1, -(1 << 53) - 3, (1 << 62) + (1 << 9) + 1),
        ("uint64", "float64"): ((1 << 64) - 1, (1 << 63) + (1 << 10) + 1),
        ("int32", "float32"): ((1 << 24) + 1, (1 << 31) - 1, -(1 << 31), (1 << 25) + 3),
        ("uint32", "float32"): ((1 << 32) - 1, (1 << 31) + 129, (1 << 24) + 1),
        ("int16", "float32"): (-32768, 32767),
        ("uint8", "float64"): (0, 255),
    }
    for (source, target), values in conversions.items():
        out.append(Probe(f"{source}-to-{target}-rounding", Cast(target, Var("i", source)),
                         [{"i": v} for v in values]))
    return out


PROBES = integer_probes() + float_probes()
_IDS = [p.name for p in PROBES]
assert len(set(_IDS)) == len(_IDS), "probe names must be unique"

# Probes that fail on today's tree (none at present), by the bug that makes them fail (each fix is
# being made in transpiler/; strict: a probe that starts passing must lose its mark).
KNOWN_BUGS: dict[str, str] = {}


@pytest.fixture(scope="session")
def verdicts():
    return {(v.probe.name, v.variant): v for v in check_probes(PROBES)}


def _marks(name: str, variant: str):
    reason = KNOWN_BUGS.get(f"{name}/{variant}") or KNOWN_BUGS.get(name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("name, variant", [pytest.param(p.name, v, id=f"{p.name}/{v}", marks=_marks(p.name, v))
                                           for p in PROBES for v in VARIANTS])
def test_value_equals_tirx_semantics(verdicts, name, variant):
    verdict = verdicts[(name, variant)]
    assert verdict.problem is None, explain(verdict)


@pytest.mark.nvcc
@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc is not on PATH")
def test_intrinsic_probes_compile_with_nvcc(verdicts):
    """What tirxc accepts of clz / popcount / abs / min / max on every dtype, nvcc compiles
    (abs of an unsigned value was accepted, then ambiguous for nvcc): one translation unit,
    each probe's .cu in a namespace of its own."""
    from tests.fuzz.harness import nvcc_check
    includes, parts = set(), []
    for (name, variant), verdict in sorted(verdicts.items()):
        if verdict.cuda is None or not name.endswith(("-clz", "-popcount", "-abs", "-min", "-max")):
            continue
        body = []
        for line in verdict.cuda.split("\n"):
            if line.startswith(("#include", "#ifndef", "#endif")):
                includes.add(line) if line.startswith("#include") else None
                continue
            body.append(line.replace('extern "C" __global__', "__global__"))
        parts.append(f"namespace p{len(parts)} {{  // {name}/{variant}\n" + "\n".join(body) + "\n}")
    assert parts
    text = "// Minimum architecture: sm_80\n" + "\n".join(sorted(includes)) + "\n" + "\n".join(parts) + "\n"
    message = nvcc_check(text)
    assert message is None, message
