"""The launcher computes grids, buffer shapes, strides and workspace sizes with the kernel's
integer semantics (docs/design.md, decision 7): C's truncating `T.truncdiv` / `T.truncmod`,
floor `//` and `%`, shifts, uint32 wrap-around, narrowing conversions, selects, `-`, `~`,
T.abs / T.clz / T.popcount. Where C leaves a value undefined (a signed overflow, a zero
divisor, a shift count past the width) the arguments are refused with a message naming what
was being computed. Checked against a reference written here, operation by operation, from
the C rules; on the CPU (arrays are FakeArrays)."""
from __future__ import annotations

import itertools

import pytest

from tests.hostile._util import FakeArray as _FakeArray, compile_text, load_launcher, ok

_addresses = itertools.count(1)
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1


class FakeArray(_FakeArray):
    def __init__(self, shape, typestr="<f4", strides=None, address=None, readonly=False):
        super().__init__(shape, typestr, strides, next(_addresses) << 32 if address is None else address, readonly)


def shaped(tmp_path, shape: str, params: str = "n: T.int32, m: T.int32", stem: str = "k"):
    """The launcher of a kernel whose buffer A has `shape` (a Python expression of the .tx)."""
    text = f'''from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, {params}):
    A = T.match_buffer(A_ptr, ({shape},), "float32")
    T.device_entry()
    tx = T.thread_id([32])
    A[0] = 1.0
'''
    return load_launcher(tmp_path, ok(text, f"{stem}.tx", launcher_name=stem).launcher, stem).k


def expected_extent(kernel, *scalars):
    """The extent the launcher asks of A for these scalars, or the ValueError it raises."""
    try:
        kernel.launch_config(FakeArray((0,)), *scalars)
    except ValueError as err:
        text = str(err)
        if "must have shape (" in text:
            return int(text.split("must have shape (")[1].split(",")[0])
        return text
    return 0


# ---- the reported bug: T.truncdiv evaluated with Python's floor division -----------------------------------

def test_truncdiv_rounds_toward_zero_as_the_kernel_does(tmp_path):
    """For n = 1 the kernel's (truncdiv(n - 1000, 1000) + 1) * 1000 is 1000: the launcher asked
    for a 0-element array (floor division gives -1 + 1) and the kernel wrote 1000 floats past it."""
    kernel = shaped(tmp_path, "(T.truncdiv(n - 1000, 1000) + 1) * 1000", "n: T.int32")
    with pytest.raises(ValueError, match=r"argument 'A' must have shape \(1000,\), got \(0,\)"):
        kernel.launch_config(FakeArray((0,)), 1)
    assert kernel.launch_config(FakeArray((1000,)), 1) == ((1, 1, 1), (32, 1, 1), 0)
    for n, extent in ((999, 1000), (1000, 1000), (1999, 1000), (2000, 2000), (-1, 0), (-999, 0)):
        assert expected_extent(kernel, n) == extent, n
    assert expected_extent(kernel, -1000) == "k(): argument 'A' would have the shape (-1000,) for these " \
                                             "arguments: an extent is negative"


# ---- each operation against C's rules ----------------------------------------------------------------------

def c_truncdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int32(value):
    """C's int32 result, or None where C leaves it undefined."""
    return value if INT_MIN <= value <= INT_MAX else None


def uint32(value):
    return value % 2 ** 32


VALUES = [0, 1, 2, 7, 31, 32, 100, 1000, 65535, INT_MAX - 1, INT_MAX]
SIGNED = VALUES + [-1, -2, -7, -31, -1000, INT_MIN + 1, INT_MIN]

CASES = {
    # shape text: reference(n, m) with C's rules; None: C does not define it (refused)
    "T.truncdiv(n, m)": lambda n, m: None if m == 0 else int32(c_truncdiv(n, m)),
    "T.truncmod(n, m)": lambda n, m: None if m == 0 else n - m * c_truncdiv(n, m),
    "n // m": lambda n, m: None if m == 0 else int32(n // m),
    "n % m": lambda n, m: None if m == 0 else n % m,
    "n + m": lambda n, m: int32(n + m),
    "n - m": lambda n, m: int32(n - m),
    "n * m": lambda n, m: int32(n * m),
    "n << m": lambda n, m: None if not 0 <= m < 32 else int32(n << m),
    "n >> m": lambda n, m: None if not 0 <= m < 32 else n >> m,
    "n & m": lambda n, m: n & m,
    "n | m": lambda n, m: n | m,
    "n ^ m": lambda n, m: n ^ m,
    "-n + m": lambda n, m: None if n == INT_MIN else int32(-n + m),
    "~n": lambda n, m: ~n,
    "T.min(n, m)": min,
    "T.max(n, m)": max,
    "T.abs(n)": lambda n, m: int32(abs(n)),
    "T.Select(n > m, n, m)": lambda n, m: n if n > m else m,
    "T.if_then_else(n > 5 and m < 10, n, m)": lambda n, m: n if n > 5 and m < 10 else m,
    "T.int32(T.int8(n))": lambda n, m: (n + 128) % 256 - 128,
    "T.int32(T.uint8(n))": lambda n, m: n % 256,
    "T.int32(T.uint32(n) - T.uint32(m))": lambda n, m: (uint32(uint32(n) - uint32(m)) + 2 ** 31) % 2 ** 32 - 2 ** 31,
    "T.int32(T.uint32(n) * T.uint32(3))": lambda n, m: (uint32(uint32(n) * 3) + 2 ** 31) % 2 ** 32 - 2 ** 31,
    "T.clz(n)": lambda n, m: 32 - (n % 2 ** 32).bit_length(),
    "T.popcount(n) + m": lambda n, m: int32(bin(n % 2 ** 32).count("1") + m),
    "T.int32(n > m) + T.int32(n != m)": lambda n, m: int(n > m) + int(n != m),
    "T.int32(T.int64(n) * T.int64(m) // T.int64(65536))": lambda n, m: (n * m // 65536 + 2 ** 31) % 2 ** 32 - 2 ** 31,
}


@pytest.mark.parametrize("shape", list(CASES))
def test_each_operation_follows_c(tmp_path, shape):
    kernel = shaped(tmp_path, shape, stem="ops")
    pairs = [(n, m) for n in SIGNED for m in SIGNED[::3]] + [(n, m) for n in (1, -7, INT_MIN) for m in range(-2, 40)]
    for n, m in pairs:
        want = CASES[shape](n, m)
        got = expected_extent(kernel, n, m)
        if want is None:
            assert isinstance(got, str) and "cannot be computed for these arguments" in got, (shape, n, m, got)
            assert got.startswith("k(): the shape of argument 'A' cannot be computed"), got
        elif want < 0:
            assert isinstance(got, str) and "an extent is negative" in got, (shape, n, m, got)
            assert f"would have the shape ({want},)" in got, (shape, n, m, got)
        else:
            assert got == want, (shape, n, m)


def test_the_refusals_say_why(tmp_path):
    assert expected_extent(shaped(tmp_path, "T.truncdiv(n, m)"), 7, 0) == \
        "k(): the shape of argument 'A' cannot be computed for these arguments: a division by zero"
    assert expected_extent(shaped(tmp_path, "n + m"), INT_MAX, 1) == \
        "k(): the shape of argument 'A' cannot be computed for these arguments: 2147483648 does not fit in " \
        "int32, and int32 arithmetic may not overflow"
    assert expected_extent(shaped(tmp_path, "n << m"), 1, 32) == \
        "k(): the shape of argument 'A' cannot be computed for these arguments: a shift by 32 bits, where C " \
        "shifts a 32-bit value by 0 to 31 bits"


def test_narrow_arithmetic_wraps_as_in_the_kernel(tmp_path):
    """The kernel converts an 8- or 16-bit result back to its type, as folding does
    (lower/narrow.py): the host wraps it alike, 100 + 200 in uint8 is 44."""
    kernel = shaped(tmp_path, "T.int32(c + T.uint8(200))", "c: T.uint8")
    assert expected_extent(kernel, 50) == 250
    assert expected_extent(kernel, 100) == 44


def test_uint32_and_uint64_arithmetic_wraps_as_in_c(tmp_path):
    kernel = shaped(tmp_path, "T.int32((u - T.uint32(1)) % T.uint32(1000))", "u: T.uint32")
    assert expected_extent(kernel, 0) == (2 ** 32 - 1) % 1000 and expected_extent(kernel, 5) == 4


# ---- grids, workspaces and strides use the same rule ---------------------------------------------------------

GRID_AND_WORKSPACE = '''from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([T.truncdiv(n + 7, 8)])
    tx = T.thread_id([32])
    W = T.alloc_buffer((T.truncmod(n, 5) + 5,), "float32", scope="global")
    W[0] = 1.0
    A[tx] = W[0]
'''


def test_the_grid_and_workspace_sizes_truncate_too(tmp_path):
    kernel = load_launcher(tmp_path, ok(GRID_AND_WORKSPACE, "gw.tx", launcher_name="gw").launcher, "gw").k
    assert kernel.launch_config(FakeArray((64,)), -9)[0] == (0, 1, 1)  # truncdiv(-2, 8) == 0; floor gives -1
    assert kernel.workspace_bytes(FakeArray((64,)), -9) == {"W": (-4 + 5) * 4}  # truncmod(-9, 5) == -4
    assert kernel.launch_config(FakeArray((64,)), 9)[0] == (2, 1, 1)
    with pytest.raises(ValueError, match=r"^k\(\): the grid would be \(-1, 1, 1\) for these arguments, but CUDA "
                                         r"takes from 0 to"):
        kernel.launch_config(FakeArray((64,)), -15)
    with pytest.raises(ValueError, match=r"^k\(\): the grid cannot be computed for these arguments: 2147483654 "
                                         r"does not fit in int32"):
        kernel.launch_config(FakeArray((64,)), INT_MAX)


STRIDED = '''from tvm.script import tirx as T
from tvm.tirx.layout import TileLayout, S


@T.prim_func
def k(A_ptr: T.handle, s: T.int32):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8):(T.truncdiv(s, 2) + 8, 1)]))
    T.device_entry()
    tx = T.thread_id([8])
    A[0, tx] = 1.0
'''


def test_layout_strides_truncate_too(tmp_path):
    result = compile_text(STRIDED, "strided.tx", launcher_name="strided")
    if not result.ok:
        pytest.skip("a layout stride over a scalar is not accepted here")
    kernel = load_launcher(tmp_path, result.launcher, "strided").k
    kernel.launch_config(FakeArray((4, 8), strides=((8 - 1) * 4, 4)), -3)  # truncdiv(-3, 2) == -1: row stride 7
    with pytest.raises(ValueError, match=r"byte strides \(28, 4\)"):
        kernel.launch_config(FakeArray((4, 8), strides=(24, 4)), -3)  # floor division would have asked for 6


# ---- what the launcher cannot compute: a located error, not an internal one -------------------------------

FLOAT_SHAPE = '''from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (T.int32(T.float32(n) * 1.5),), "float32")
    T.device_entry()
    tx = T.thread_id([32])
    A[0] = 1.0
'''


def test_a_floating_point_extent_is_an_error_at_its_place(tmp_path):
    """nvcc may contract and round a float expression as the host cannot repeat: the launcher
    does not compute one, and says so where it is written (the checker lets it through)."""
    from transpiler.cli.files import compile_file
    result = compile_file("f.tx", FLOAT_SHAPE.encode(), until="launcher", launcher_name="f")
    assert [(d.code, d.span.line, d.span.col, d.message) for d in result.diagnostics] == [
        ("E0325", 6, 32, "the launcher cannot compute the shape of `A` before the launch: it uses a float32 "
                         "value, which the launcher does not compute on the host")]
    (tmp_path / "f.tx").write_text(FLOAT_SHAPE)
    import os
    import subprocess
    import sys
    from tests.conftest import ROOT
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "transpiler", "f.tx", "--launcher", "f.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 1 and run.stderr.startswith("f.tx:6:32: error[E0325]: the launcher cannot compute")
    assert not (tmp_path / "f.py").exists()


def test_clz_and_popcount_count_within_the_operands_own_bits(tmp_path):
    """As the kernel's __clz(x) - 24 for a uint8 (lower/cforms.py): 1 has 7 leading zeros in 8 bits."""
    kernel = shaped(tmp_path, "T.int32(T.clz(c)) + T.int32(T.popcount(c))", "c: T.uint8")
    assert expected_extent(kernel, 1) == 7 + 1
    assert expected_extent(kernel, 255) == 0 + 8
