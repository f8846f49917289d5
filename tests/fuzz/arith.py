"""Random integer expressions with known values, for the differential fuzz test
(tests/fuzz/test_differential.py): trees of tests/hostrun/reference.py, mostly of
8- and 16-bit integers, with every operator, casts between all integer widths,
comparisons (chained too) feeding selects, clz / popcount / abs, literals that take
their operand's dtype, typed constants, and sometimes an atomic whose counter says
how often it ran. Each becomes a kernel that loads its variables from buffers and
one in which every variable is a constant (tests/hostrun/kernels.py), and the host-run
oracle compares both with the reference.

Every tree is defined for every row (divisors are non-zero literals or `x | 1`,
shift counts literals below the width or `x & (bits - 1)`), except 32- and 64-bit
MIN // -1, whose rows the reference leaves out. Decisions go through the `Draw`
interface of generate.py, so the same code runs from a seed (`random_probe`).
"""
from __future__ import annotations

import random

from tests.hostrun.kernels import Probe
from tests.hostrun.reference import (INT_DTYPES, NARROW, Bin, Call, Cast, Cmp, Const, Counter, Lit, Select, Un, Var,
                                     bits, int_range, is_signed)

from .generate import RandomDraw

NAMES = ("a", "b", "c", "d")


def _value(draw, dtype: str) -> int:
    lo, hi = int_range(dtype)
    roll = draw.int(0, 9)
    if roll < 3:
        return draw.choice((lo, hi, lo + 1, hi - 1, 0, 1, -1 if lo < 0 else 2))
    if roll < 6:
        return max(lo, min(hi, draw.int(-9, 9)))
    if roll < 8:
        return draw.int(max(lo, -300), min(hi, 300))
    return draw.int(lo, hi)


def _literal(draw, dtype: str, nonzero: bool = False) -> Lit:
    lo, hi = int_range(dtype)
    value = draw.int(max(lo, -100), min(hi, 100))
    if nonzero and value == 0:
        value = draw.choice((1, 3) if lo == 0 else (1, -1, 3))
    return Lit(value, dtype)


class ArithGen:
    def __init__(self, draw, max_depth: int = 4, counters: bool = True):
        self.d = draw
        self.max_depth = max_depth
        self.vars: dict[str, Var] = {}
        self.counters = 0
        self.allow_counters = counters
        self.may_reject = False

    def var(self, dtype: str) -> Var:
        same = [v for v in self.vars.values() if v.dtype == dtype]
        if same and (len(self.vars) >= len(NAMES) or self.d.bool(0.7)):
            return self.d.choice(same)
        if len(self.vars) >= len(NAMES):  # another dtype: the caller converts it
            return self.d.choice(list(self.vars.values()))
        v = Var(NAMES[len(self.vars)], dtype)
        self.vars[v.name] = v
        return v

    def leaf(self, dtype: str):
        d = self.d
        roll = d.int(0, 9)
        if roll < 6:
            v = self.var(dtype)
            if v.dtype == dtype:
                return v
            return Cast(dtype, v)
        if roll < 9 or not (self.allow_counters and dtype == "int32"):
            return Const(_value(d, dtype), dtype)
        self.counters += 1
        return Counter(self.counters - 1)

    def divisor(self, dtype: str, depth: int):
        if self.d.bool(0.6):
            return _literal(self.d, dtype, nonzero=True)
        return Bin("|", self.expr(dtype, depth + 1), Lit(1, dtype))

    def shift_count(self, dtype: str, depth: int):
        if self.d.bool(0.6):
            return Lit(self.d.int(0, bits(dtype) - 1), dtype)
        return Bin("&", self.expr(dtype, depth + 1), Lit(bits(dtype) - 1, dtype))

    def expr(self, dtype: str, depth: int = 0):
        d = self.d
        if depth >= self.max_depth or d.bool(0.25):
            return self.leaf(dtype)
        roll = d.int(0, 15)
        a = self.expr(dtype, depth + 1)
        if roll < 5:
            op = d.choice(("+", "-", "*", "&", "|", "^", "+", "*", "min", "max"))
            b = _literal(d, dtype) if d.bool(0.3) else self.expr(dtype, depth + 1)
            return Bin(op, a, b)
        if roll < 7:
            op = d.choice(("//", "%", "floordiv", "floormod", "truncdiv", "truncmod", "ceildiv"))
            return Bin(op, a, self.divisor(dtype, depth))
        if roll < 9:
            return Bin(d.choice(("<<", ">>")), a, self.shift_count(dtype, depth))
        if roll == 9:
            return Un("~" if not is_signed(dtype) or d.bool(0.5) else "-", a)
        if roll == 10:  # from another width
            source = d.choice(NARROW + INT_DTYPES)
            return Cast(dtype, self.expr(source, depth + 1), d.choice(("ctor", "cast")))
        if roll in (11, 12):
            other = self.expr(dtype, depth + 1) if d.bool(0.7) else _literal(d, dtype)
            return Select(self.condition(depth + 1), a, other, d.choice(("if_then_else", "ifexp")))
        if roll == 13:
            if dtype == "int32":
                source = d.choice(INT_DTYPES)
                if source in NARROW:
                    self.may_reject = True  # counted within 8 / 16 bits, or refused
                return Call(d.choice(("clz", "popcount")), self.expr(source, depth + 1))
            if is_signed(dtype):
                if dtype in NARROW:
                    self.may_reject = True
                return Call("abs", a)
        if roll == 14:  # a narrowed sum or product, widened again
            narrow = d.choice(NARROW)
            inner = Bin(d.choice(("+", "-", "*")), Cast(narrow, a), Cast(narrow, self.expr(dtype, depth + 1)))
            return Cast(dtype, inner) if narrow != dtype else inner
        return Bin(d.choice(("+", "-")), a, self.expr(dtype, depth + 1))

    def condition(self, depth: int):
        d = self.d
        dtype = d.choice(NARROW + INT_DTYPES)
        ops = ("<", "<=", ">", ">=", "==", "!=")
        a, b = self.expr(dtype, depth + 1), self.expr(dtype, depth + 1)
        if d.bool(0.2):
            return Cmp(d.choice(ops), a, b, ((d.choice(ops), self.expr(dtype, depth + 1)),))
        return Cmp(d.choice(ops), a, b)


def random_probe(draw, name: str, rows: int = 12) -> Probe:
    gen = ArithGen(draw, max_depth=draw.int(2, 4))
    root_dtype = draw.choice(NARROW * 3 + INT_DTYPES)
    expr = gen.condition(0) if draw.bool(0.1) else gen.expr(root_dtype)
    values = [{v.name: _value(draw, v.dtype) for v in gen.vars.values()} for _ in range(rows)]
    counter_init = [[draw.int(-5, 5) for _ in range(gen.counters)] for _ in range(rows)]
    return Probe(name, expr, values, counter_init=counter_init, may_reject=gen.may_reject)


def probe_from_seed(seed: str, rows: int = 12) -> Probe:
    return random_probe(RandomDraw(random.Random(seed)), f"arith:{seed}", rows)
