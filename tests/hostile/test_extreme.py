"""Extreme inputs: big files, long kernels, long lines, deep nesting, integers beyond
64 bits, shapes whose indices pass 2^31 - 1, thousands of kernels, nested unrolling
and constant-folding bombs. Each one either compiles (and, where it says so, the `.cu`
compiles with nvcc) or gets diagnostics, within bounded time and memory.

The largest cases (a 100,000-line kernel, 2,000 kernels through nvcc) run only with
TIRXC_SLOW_TESTS=1; CI runs smaller versions of them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.fuzz.harness import nvcc_check

from ._util import FakeArray, compile_text, errors, load_launcher, nvcc_mark, ok

SLOW = pytest.mark.skipif(not os.environ.get("TIRXC_SLOW_TESTS"), reason="set TIRXC_SLOW_TESTS=1 to run")
HEADER = "from tvm.script import tirx as T\n\n"
KERNEL = '''
@T.prim_func
def {name}(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, {shape}, "float32")
    B = T.match_buffer(B_ptr, {shape}, "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
{body}
'''


def kernel(name="k", shape="(128,)", body="    B[tx] = A[tx]"):
    return KERNEL.format(name=name, shape=shape, body=body)


def long_kernel(lines: int) -> str:
    body = "    acc: T.float32 = 0.0\n" + "".join(
        f"    acc = acc + A[(tx + {j}) % 128] * T.float32({j % 7})\n" for j in range(lines)) + "    B[tx] = acc"
    return HEADER + kernel(body=body)


def run_cli_measured(tmp_path, text: str, *args: str) -> dict:
    """tirxc in a fresh process on `text`: exit code, seconds, peak memory (MiB), output sizes."""
    path = tmp_path / "big.tx"
    path.write_text(text, encoding="utf-8")
    code = f"""
import json, resource, sys, time
from transpiler.cli import main as cli
began = time.perf_counter()
try:
    cli.main([{str(path)!r}, *{list(args)!r}])
    status = 0
except SystemExit as err:
    status = err.code
print(json.dumps({{"status": status, "seconds": time.perf_counter() - began,
                   "mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}), file=sys.stderr)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, timeout=900)
    report = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    report["stderr"] = proc.stderr.decode()[-3000:]
    return report


# ---- size ------------------------------------------------------------------------------------------------

def test_ten_megabyte_file(tmp_path):
    """10 MB: two kernels, 4 MB of inline CUDA (which reaches the .cu and the launcher) and
    6 MB of comments. Compiles in bounded time and memory; outputs are whole."""
    functions = "".join(f"__device__ float f{i}(float x) {{ return x * {i}.0f; }}  // padding padding\n"
                        for i in range(4_000_000 // 70))
    text = (HEADER + 'SRC = r"""\n' + functions + '"""\n' + "# a comment line of padding text\n" * 190_000
            + kernel("k0") + kernel("k1", body='    B[tx] = T.cuda.func_call("f7", A[tx], source_code=SRC, '
                                              'return_type="float32")'))
    assert len(text.encode()) >= 10_000_000
    report = run_cli_measured(tmp_path, text, "-o", "big.cu", "--launcher", "big_launcher.py")
    assert report["status"] == 0, report["stderr"]
    assert report["seconds"] < 120 and report["mib"] < 1500, report
    cuda = (tmp_path / "big.cu").read_text(encoding="utf-8")
    assert functions.strip() in cuda and cuda.rstrip().endswith("}")
    launcher = (tmp_path / "big_launcher.py").read_text(encoding="utf-8")
    compile(launcher, "big_launcher.py", "exec")


def test_five_thousand_line_kernel():
    result = ok(long_kernel(5_000))
    assert result.cuda.count("acc_ptr[0] = acc_ptr[0] +") == 5_000 or result.cuda.count(" + (A_ptr[") >= 5_000


@SLOW
def test_hundred_thousand_line_kernel(tmp_path):
    report = run_cli_measured(tmp_path, long_kernel(100_000), "-o", "big.cu")
    assert report["status"] == 0, report["stderr"]
    assert report["seconds"] < 600 and report["mib"] < 4000, report


def test_two_thousand_kernels_in_one_file(tmp_path):
    text = HEADER + "".join(kernel(f"k{i}") for i in range(2000))
    result = ok(text)
    assert result.cuda.count("__global__") == 2000
    module = load_launcher(tmp_path, result.launcher)
    assert len(module.__all__) == 2000
    assert module.k1999.launch_config(FakeArray((128,)), FakeArray((128,))) == ((1, 1, 1), (128, 1, 1), 0)


@SLOW
def test_two_thousand_kernels_compile_with_nvcc(request):
    for m in nvcc_mark:
        request.applymarker(m)
    assert nvcc_check(ok(HEADER + "".join(kernel(f"k{i}") for i in range(2000))).cuda, timeout=900) is None


# ---- long lines ------------------------------------------------------------------------------------------

def test_a_one_megabyte_printf_format():
    result = ok(HEADER + kernel(body='    T.cuda.printf("' + "ab%%" * 250_000 + '")\n    B[tx] = A[tx]'))
    assert "ab%%" * 250_000 in result.cuda


def test_a_five_thousand_dimension_buffer():
    shape = "(" + "1, " * 5000 + "128)"
    index = "0, " * 5000 + "tx"
    result = ok(HEADER + kernel(shape=shape, body=f"    B[{index}] = A[{index}]"))
    assert "B_ptr[tx] = A_ptr[tx];" in result.cuda


def test_a_ten_thousand_term_expression_is_too_deep():
    found = errors(HEADER + kernel(body="    B[tx] = " + " + ".join(["A[tx]"] * 10_000)))
    assert [code for _, code, _ in found] == ["E0108"]


def test_ten_thousand_printf_arguments():
    ok(HEADER + kernel(body='    T.cuda.printf("' + "%d" * 10_000 + '"' + ", tx" * 10_000 + ")\n    B[tx] = A[tx]"))


def test_a_thousand_loop_variables_in_one_grid():
    body = ("    for " + ", ".join(f"i{j}" for j in range(1000)) + " in T.grid(" + ", ".join(["1"] * 1000) + "):\n"
            "        B[tx] = A[tx]")
    assert ok(HEADER + kernel(body=body)).cuda.count("for (int ") == 1000


# ---- nesting ---------------------------------------------------------------------------------------------

def _nested(depth: int, header: str) -> str:
    lines = ["    " * (d + 1) + header.format(d=d) for d in range(depth)]
    return "\n".join(lines) + "\n" + "    " * (depth + 1) + "B[tx] = A[tx] + 1.0"


def test_a_hundred_nested_blocks_compile(request):
    """100 blocks is the parser's limit (the kernel body is the first)."""
    for m in nvcc_mark:
        request.applymarker(m)
    cuda = ok(HEADER + kernel(body=_nested(99, "if tx > {d}:"))).cuda
    assert cuda.count("if (") == 99
    assert nvcc_check(cuda) is None


def test_one_block_deeper_is_an_error():
    found = errors(HEADER + kernel(body=_nested(100, "if tx > {d}:")))
    assert found and found[0][1] == "E0108"


@pytest.mark.parametrize("depth, code", [(12, None), (13, "E0305"), (30, "E0305")])
def test_nested_unrolling_is_bounded(depth, code):
    """Each T.unroll(2) is small, but nested they multiply: 2^12 copies is the limit."""
    began = time.perf_counter()
    result = compile_text(HEADER + kernel(body=_nested(depth, "for i{d} in T.unroll(2):")))
    assert time.perf_counter() - began < 60
    if code is None:
        assert result.ok
    else:
        assert [d.code for d in result.diagnostics] == [code]


def test_unrolled_statements_are_bounded():
    body = "    for i in T.unroll(4096):\n" + "".join(f"        B[(tx + {j}) % 128] = A[tx]\n" for j in range(9))
    found = errors(HEADER + kernel(body=body.rstrip("\n")))
    assert [(code, "36864 statements" in message) for _, code, message in found] == [("E0305", True)]


# ---- integers beyond 64 bits and constant folding -------------------------------------------------------

BIG = "1" + "0" * 400


@pytest.mark.parametrize("body, codes", [
    ("    x: T.int64 = 1180591620717411303424\n    B[tx] = T.float32(x)", ["E0318"]),
    ("    x: T.uint64 = 18446744073709551616\n    B[tx] = T.float32(x)", ["E0318"]),
    ("    x: T.uint64 = 18446744073709551615\n    B[tx] = T.float32(x)", []),
    ("    x: T.int64 = -9223372036854775808\n    B[tx] = T.float32(x)", []),
    ("    B[1180591620717411303424] = A[tx]", ["E0318"]),
    ("    B[tx] = T.float32(tx << 100)", ["E0318"]),
    (f"    v: T.float32 = {BIG}\n    B[tx] = v", []),
    (f"    B[tx] = A[tx] * {BIG}", []),
    (f"    B[tx] = T.float32({BIG} * 1.5)", []),
    ("    B[tx] = T.float32(0x" + "f" * 2000 + ")", ["E0318"]),
    ("    B[tx] = T.float32((1 << 1000) * (1 << 1000) * (1 << 1000) * (1 << 1000) * (1 << 1000))", ["E0318"]),
    ("    for i in range(1180591620717411303424):\n        B[tx] = A[tx]", ["E0318"]),
    ("    x: T.int32 = T.floordiv(-2147483648, -1)\n    B[tx] = T.float32(x)", ["E0318"]),
])
def test_integers_beyond_64_bits(body, codes):
    result = compile_text(HEADER + kernel(body=body))
    assert [d.code for d in result.diagnostics if d.severity == "error"] == codes, \
        [(d.code, d.message) for d in result.diagnostics]


def test_constant_string_doubling_is_bounded():
    lines = ['S0 = "xxxxxxxxxxxxxxxx"'] + [f"S{i + 1} = S{i} + S{i}" for i in range(40)]
    began = time.perf_counter()
    found = errors(HEADER + "\n".join(lines) + "\n" + kernel())
    assert time.perf_counter() - began < 30
    assert [code for _, code, _ in found] == ["E0318"]


# ---- 32-bit indexing: rejected with a clear error, never silent overflow --------------------------------

@pytest.mark.parametrize("shape, ok_", [
    ("(46340, 46340)", True), ("(46341, 46341)", False), ("(65536, 65536)", False), ("(2147483647,)", True),
    ("(2147483648,)", False), ("(2, 1073741825)", False), ("(2, 1073741824)", True),
])
def test_constant_shapes_past_int_max_are_rejected(shape, ok_):
    result = compile_text(HEADER + kernel(shape=shape, body="    B[" + ", ".join(["0"] * (shape.count(",") - (
        1 if shape.endswith(",)") else 0)) + ["tx"]) + "] = 1.0"))
    if ok_:
        assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    else:
        assert {d.code for d in result.diagnostics} == {"E0503"}
        assert any("2147483647" in d.message for d in result.diagnostics)


def test_layouts_offsets_and_views_past_int_max_are_rejected():
    layout = HEADER.replace("\n\n", "\nfrom tvm.tirx.layout import TileLayout, S\n\n")
    text = layout + '''
@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8):(1073741824, 1)]))
    B = T.match_buffer(B_ptr, (128,), "float32", elem_offset=2147483600)
    C = T.match_buffer(C_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    V = T.decl_buffer((65536, 65536), "float32", data=C.data)
    C[tx] = 1.0
'''
    found = errors(text)
    assert [(line, code) for line, code, _ in found] == [(7, "E0503"), (8, "E0503"), (12, "E0503")], found


def test_symbolic_shapes_are_checked_at_launch(tmp_path):
    """`(n, m)` cannot be checked when compiling: the launcher refuses arrays whose
    elements pass index 2^31 - 1 (tests/launcher/test_arguments.py has the details)."""
    text = HEADER + kernel(shape="(n, m)", body="    B[bx, tx] = A[bx, tx]").replace(
        '    A = T.match_buffer', '    n = T.int32()\n    m = T.int32()\n    A = T.match_buffer')
    module = load_launcher(tmp_path, ok(text).launcher)
    module.k.launch_config(FakeArray((46340, 46340)), FakeArray((46340, 46340)))
    with pytest.raises(ValueError, match=r"32-bit ints: at most element 2147483647"):
        module.k.launch_config(FakeArray((46341, 46341)), FakeArray((46341, 46341)))


def test_int64_parameters_and_sample_sizes_are_unaffected():
    ok((SAMPLES / "saxpy.tx").read_text())
