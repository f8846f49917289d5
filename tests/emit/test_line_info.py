"""`--line-info`: `#line N "kernel.tx"` directives make every statement of the .cu, the
kernel signature and each line of a pasted `T.cuda.func_call` source count as its line
of the .tx file, so that nvcc and NVRTC report errors there. Off by default.

`mapped` below reads a .cu as a compiler does: after `#line N "f"` the next line is line
N of f, the one after it N + 1, and so on.
"""
from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import ROOT, SAMPLES, has_nvcc, transpile
from tests.launcher.test_compile_errors import BROKEN  # a func_call body with a C error on its line 6
from transpiler.cli import main as cli

_DIRECTIVE = re.compile(r'#line (\d+) "((?:[^"\\]|\\.)*)"$')


def mapped(cuda: str) -> list[tuple[str | None, int, str]]:
    """(file, line, text) of each line that is not a directive; file None before the first."""
    out, current, number = [], None, 0
    for physical, text in enumerate(cuda.split("\n"), 1):
        match = _DIRECTIVE.match(text)
        if match:
            current, number = match.group(2), int(match.group(1))
            continue
        out.append((current, number if current is not None else physical, text))
        number += 1
    return out


def line_of(cuda: str, fragment: str) -> tuple[str | None, int]:
    hits = [(f, n) for f, n, text in mapped(cuda) if fragment in text]
    assert len(hits) == 1, (fragment, hits)
    return hits[0]


def lines_of(cuda: str, fragment: str) -> list[int]:
    return [n for _, n, text in mapped(cuda) if fragment in text]


def tx_line(text: str, fragment: str) -> int:
    hits = [n for n, line in enumerate(text.split("\n"), 1) if fragment in line]
    assert len(hits) == 1, (fragment, hits)
    return hits[0]


def test_off_by_default():
    for sample in ("saxpy", "relu_inline", "registers_unroll"):
        result = transpile((SAMPLES / f"{sample}.tx").read_text(), f"{sample}.tx")
        assert "#line" not in result.cuda


SAXPY = (SAMPLES / "saxpy.tx").read_text()


def test_every_statement_and_the_signature_count_as_their_tx_line():
    cuda = transpile(SAXPY, "saxpy.tx", line_info=True).cuda
    for c_fragment, tx_fragment in [("int bx = ", "bx = T.cta_id"), ("int tx = ", "tx = T.thread_id"),
                                    ("int i = ", "i: T.let"), ("if (i < n)", "if i < n:"),
                                    ("y_ptr[i] = ", "y[i] = a * x[i]"), ("saxpy_kernel(", "def saxpy(")]:
        assert line_of(cuda, c_fragment) == ("saxpy.tx", tx_line(SAXPY, tx_fragment)), c_fragment


UNROLLED = '''from tvm.script import tirx as T


@T.prim_func
def unrolled(A: T.Buffer((8,), "float32")):
    T.device_entry()
    tx = T.thread_id([32])
    acc: T.float32 = 0.0
    for k in T.unroll(2):
        acc = acc + A[k]
        A[k + 2] = acc
    A[tx % 8] = acc
'''


def test_statements_that_repeat_or_share_a_line_are_each_mapped():
    """An unrolled body goes back to earlier lines, and the scalar `acc` prints two C lines
    (declaration, store) for one .tx line: each C line still counts as its own .tx line."""
    cuda = transpile(UNROLLED, "u.tx", line_info=True).cuda
    acc = tx_line(UNROLLED, "acc: T.float32")
    assert lines_of(cuda, "float acc_ptr[1];") == [acc]
    assert lines_of(cuda, "acc_ptr[0] = 0.0f;") == [acc]
    assert lines_of(cuda, "acc_ptr[0] = acc_ptr[0] + A_ptr[") == [tx_line(UNROLLED, "acc = acc + A[k]")] * 2
    assert lines_of(cuda, "A_ptr[(k + 2)]") + lines_of(cuda, "A_ptr[2] =") + lines_of(cuda, "A_ptr[3] =") == \
        [tx_line(UNROLLED, "A[k + 2] = acc")] * 2
    assert line_of(cuda, "A_ptr[(tx ")[1] == tx_line(UNROLLED, "A[tx % 8] = acc")


INLINE = '''from tvm.script import tirx as T

HELPER = r"""
// a comment line
__device__ __forceinline__ float twice(float x) {
    float y = x + x;
    return y;
}
"""

ESCAPED = "__device__ __forceinline__ float half_of(float x) {\\n    return x * 0.5f;\\n}\\n"


@T.prim_func
def inline(A: T.Buffer((64,), "float32")):
    T.device_entry()
    tx = T.thread_id([64])
    A[tx] = T.cuda.func_call("twice", A[tx], source_code=HELPER, return_type="float32")
    A[tx] = T.cuda.func_call("half_of", A[tx], source_code=ESCAPED, return_type="float32")
'''


def test_func_call_source_lines_count_as_their_lines_in_the_string():
    cuda = transpile(INLINE, "inline.tx", line_info=True).cuda
    for fragment in ("// a comment line", "float twice(float x) {", "float y = x + x;", "return y;"):
        assert line_of(cuda, fragment) == ("inline.tx", tx_line(INLINE, fragment)), fragment


def test_a_func_call_source_with_escapes_counts_from_its_first_call():
    """Its lines are not the file's lines, so they count from the line of the first call."""
    cuda = transpile(INLINE, "inline.tx", line_info=True).cuda
    call = tx_line(INLINE, '"half_of", A[tx]')
    assert line_of(cuda, "float half_of(float x) {")[1] == call
    assert line_of(cuda, "return x * 0.5f;")[1] == call + 1
    # and the kernel after it is mapped again
    assert line_of(cuda, "inline_kernel(")[1] == tx_line(INLINE, "def inline(")


@pytest.mark.parametrize("name, written", [
    ("kernels/saxpy.tx", '"kernels/saxpy.tx"'),
    ('we"ird\\dir/k.tx', '"we\\"ird\\\\dir/k.tx"'),
    ("tab\there??/k.tx", '"tab\\there?\\?/k.tx"'),
])
def test_the_file_name_is_escaped_for_c(name, written):
    cuda = transpile(SAXPY, name, line_info=True).cuda
    assert f"#line 12 {written}" in cuda


def test_the_file_name_is_the_path_as_given(tmp_path, monkeypatch):
    """Relative stays relative (determinism: no absolute paths), exactly as typed."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "saxpy.cu"
    with pytest.raises(SystemExit) as exit_:
        cli.main(["./samples/../samples/saxpy.tx", "-o", str(out), "--line-info"])
    assert exit_.value.code == 0
    text = out.read_text()
    assert '#line 12 "./samples/../samples/saxpy.tx"' in text and str(ROOT) not in text


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_nvcc_reports_an_error_in_inline_cuda_at_its_tx_line(tmp_path):
    cuda = transpile(BROKEN, "kernels/broken.tx", line_info=True).cuda
    path = tmp_path / "broken.cu"
    path.write_text(cuda)
    run = subprocess.run(["nvcc", "-arch=sm_80", "-c", str(path), "-o", str(tmp_path / "broken.o")],
                         capture_output=True, text=True)
    assert run.returncode != 0
    line = tx_line(BROKEN, "undefined_in_helper")
    assert f'kernels/broken.tx({line}): error: identifier "undefined_in_helper" is undefined' in run.stderr, \
        run.stderr
