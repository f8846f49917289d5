"""The host arithmetic of every generated launcher: what the kernel's C computes, in Python.

The program's grids, buffer shapes and strides and workspace sizes are Python expressions over
the arguments (`v`) that tirxc prints (transpiler/codegen/launcher.py, py_expr, with the
spellings of transpiler/ir/fold.py's HOST_OPS): they use Python's operators where those agree
with C, and the functions below where they do not. Arguments for which C does not define the
value (a signed overflow, a zero divisor, a shift past the width) are refused, never given a
value of Python's choosing: the launcher (launch.py) reports them, naming what it was computing.

Part of the runtime that tirxc embeds in each launcher, after launch.py and nvrtc.py and in the
same namespace (launch.py's docstring), where the program's expressions find these functions
among their globals. It imports nothing.
"""

_BOUNDS = {"bool": (0, 1)}
_BOUNDS.update((f"int{bits}", (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)) for bits in (8, 16, 32, 64))
_BOUNDS.update((f"uint{bits}", (0, (1 << bits) - 1)) for bits in (8, 16, 32, 64))


_WRAPPING = frozenset({"uint32", "uint64", "int8", "uint8", "int16", "uint16"})


class HostArithmeticError(ArithmeticError):
    """A host expression whose value the kernel's C arithmetic does not define for these arguments."""


def c_int(value: int, dtype: str) -> int:
    """The result of an operation of this dtype in the kernel: the exact value when the dtype
    holds it; wrapped to the dtype's width for uint32 and uint64, whose C arithmetic wraps, and
    for the 8- and 16-bit types, whose results the kernel converts back to their type as
    constant folding does; else refused: C leaves signed 32- and 64-bit overflow undefined."""
    low, high = _BOUNDS[dtype]
    if low <= value <= high:
        return value
    if dtype in _WRAPPING:
        return c_cast(value, dtype)
    raise HostArithmeticError(f"{value} does not fit in {dtype}, and {dtype} arithmetic may not overflow")


def c_cast(value: int, dtype: str) -> int:
    """C's conversion of an integer to dtype: a bool tests for zero; an integer type keeps the
    value's low bits as two's complement (as nvcc does, and C++20 says)."""
    if dtype == "bool":
        return int(value != 0)
    low, high = _BOUNDS[dtype]
    value &= high - low
    return value - (high - low + 1) if value > high else value


def _divisor(b: int) -> int:
    if b == 0:
        raise HostArithmeticError("a division by zero")
    return b


def floordiv(a: int, b: int) -> int:
    """`T.floordiv` and `//`: the quotient rounded down (the kernel's tirx_floordiv)."""
    return a // _divisor(b)


def floormod(a: int, b: int) -> int:
    """`T.floormod` and `%`: the remainder with the divisor's sign."""
    return a % _divisor(b)


def truncdiv(a: int, b: int) -> int:
    """`T.truncdiv`, C's `/`: the quotient rounded toward zero."""
    quotient = abs(a) // abs(_divisor(b))
    return quotient if (a < 0) == (b < 0) else -quotient


def truncmod(a: int, b: int) -> int:
    """`T.truncmod`, C's `%`: the remainder with the dividend's sign."""
    return a - b * truncdiv(a, b)


def shift_count(count: int, width: int) -> int:
    """A shift count, which C defines from 0 to the width (32 or 64 bits) less one."""
    if not 0 <= count < width:
        raise HostArithmeticError(f"a shift by {count} bits, where C shifts a {width}-bit value by 0 to "
                                  f"{width - 1} bits")
    return count


def clz(value: int, bits: int) -> int:
    """`T.clz` (__clz, __clzll): the leading zero bits of the value's `bits`-bit pattern."""
    return bits - (value & ((1 << bits) - 1)).bit_length()


def popcount(value: int, bits: int) -> int:
    """`T.popcount` (__popc, __popcll): the one bits of the value's `bits`-bit pattern."""
    return bin(value & ((1 << bits) - 1)).count("1")
