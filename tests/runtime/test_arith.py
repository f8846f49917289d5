"""The runtime's host arithmetic (transpiler/runtime/arith.py) on its own: C's results, or a
refusal where C defines none. The launchers' use of it is tests/launcher/test_host_arithmetic.py."""
from __future__ import annotations

import pytest

from transpiler.runtime import arith
from transpiler.runtime.arith import HostArithmeticError


@pytest.mark.parametrize("a, b, floor, trunc", [(7, 2, 3, 3), (-7, 2, -4, -3), (7, -2, -4, -3), (-7, -2, 3, 3),
                                                (-1, 1000, -1, 0), (0, -5, 0, 0)])
def test_division_rounds_down_or_toward_zero(a, b, floor, trunc):
    assert arith.floordiv(a, b) == floor and arith.truncdiv(a, b) == trunc
    assert arith.floormod(a, b) == a - b * floor and arith.truncmod(a, b) == a - b * trunc
    assert (arith.truncmod(a, b) < 0) <= (a < 0)  # C's remainder takes the dividend's sign


@pytest.mark.parametrize("divide", [arith.floordiv, arith.floormod, arith.truncdiv, arith.truncmod])
def test_a_zero_divisor_is_refused(divide):
    with pytest.raises(HostArithmeticError, match=r"^a division by zero$"):
        divide(5, 0)


def test_results_wrap_only_where_c_wraps():
    assert arith.c_int(2 ** 31 - 1, "int32") == 2 ** 31 - 1 and arith.c_int(-2 ** 31, "int32") == -2 ** 31
    assert arith.c_int(-1, "uint32") == 2 ** 32 - 1 and arith.c_int(2 ** 64, "uint64") == 0
    assert [arith.c_int(128, "int8"), arith.c_int(-1, "uint8"), arith.c_int(65536, "uint16")] == [-128, 255, 0]
    for value, dtype in ((2 ** 31, "int32"), (-2 ** 31 - 1, "int32"), (2 ** 63, "int64"), (2, "bool")):
        with pytest.raises(HostArithmeticError, match=rf"^{value} does not fit in {dtype}"):
            arith.c_int(value, dtype)
    assert issubclass(HostArithmeticError, ArithmeticError)


def test_conversions_keep_the_low_bits():
    assert [arith.c_cast(v, "int8") for v in (127, 128, 255, 256, -129)] == [127, -128, -1, 0, 127]
    assert [arith.c_cast(v, "uint16") for v in (-1, 65536, 70000)] == [65535, 0, 70000 - 65536]
    assert arith.c_cast(2 ** 32 + 5, "int32") == 5 and arith.c_cast(2 ** 31, "int32") == -2 ** 31
    assert [arith.c_cast(v, "bool") for v in (0, 7, -1)] == [0, 1, 1]


def test_shift_counts_and_bit_counts():
    assert arith.shift_count(0, 32) == 0 and arith.shift_count(63, 64) == 63
    for count, width in ((32, 32), (-1, 32), (64, 64)):
        with pytest.raises(HostArithmeticError, match=rf"^a shift by {count} bits, where C shifts a {width}-bit"):
            arith.shift_count(count, width)
    assert [arith.clz(v, 32) for v in (0, 1, -1, 2 ** 31 - 1)] == [32, 31, 0, 1]
    assert arith.clz(1, 64) == 63 and arith.clz(-1, 64) == 0
    assert [arith.popcount(v, 32) for v in (0, 7, -1, -2 ** 31)] == [0, 3, 32, 1]
    assert arith.popcount(-1, 64) == 64
