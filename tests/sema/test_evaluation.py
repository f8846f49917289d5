"""The checker's evaluation discipline, seen in the CUDA it leads to (sema/expressions/effects.py,
sema/kernel/loops.py, sema/kernel/unrolled.py): a call with side effects is evaluated exactly once however
many times the C needs its value; a `range()` is evaluated once, and counts without wrapping
past INT_MAX; unrolled copies that would divide by a constant zero are refused before
lowering; identifiers are read NFKC-normalised. The diagnostics themselves, with their
positions, are in tests/check/cases/evaluation.tx and malformed_input.tx."""
from __future__ import annotations

import textwrap

from tests.conftest import transpile
from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.target.dtypes import dtype_alias, parse_dtype

HEADER = "from tvm.script import tirx as T\n\n"
ADD = "T.cuda.atomic_add(A.ptr_to([0]), 1)"


def kernel(body: str, params: str = "A_ptr: T.handle, n: T.int32") -> str:
    return (HEADER + f"@T.prim_func\ndef k({params}):\n    A = T.match_buffer(A_ptr, (64,), \"int32\")\n"
            "    T.device_entry()\n    tx = T.thread_id([64])\n" + textwrap.indent(textwrap.dedent(body), "    "))


def body_of(text: str) -> list[str]:
    result = transpile(text)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    cu = result.cuda
    return [line.strip() for line in cu[cu.index("_kernel("):].splitlines()[1:-1]]


def calls(lines: list[str], name: str = "atomicAdd(") -> int:
    return sum(line.count(name) for line in lines)


# ---- item 1: every expression with side effects is evaluated exactly once ---------------------------------------

def test_comparison_chain_evaluates_its_middle_operand_once():
    lines = body_of(kernel(f"""
        if 0 < {ADD} < 10:
            A[1] = 2
    """))
    assert calls(lines) == 1
    assert "int tmp = atomicAdd(&A_ptr[0], 1);" in lines
    assert "if ((0 < tmp) && (tmp < 10)) {" in lines


def test_comparison_chain_keeps_the_order_of_a_read_before_the_call():
    lines = body_of(kernel(f"""
        if A[5] < {ADD} < 10:
            A[1] = 2
    """))
    assert lines.index("int tmp = A_ptr[5];") < lines.index("int tmp_1 = atomicAdd(&A_ptr[0], 1);")


def test_last_operand_of_a_chain_stays_lazy():
    lines = body_of(kernel(f"""
        if 0 < tx < {ADD}:
            A[1] = 2
    """))
    assert "if ((0 < tx) && (tx < atomicAdd(&A_ptr[0], 1))) {" in lines


def test_ceildiv_evaluates_its_divisor_once():
    lines = body_of(kernel(f"A[1] = T.ceildiv(tx, {ADD})"))
    assert calls(lines) == 1 and "int tmp = atomicAdd(&A_ptr[0], 1);" in lines


def test_nested_ceildiv_leaves_no_extra_call():
    lines = body_of(kernel(f"A[1] = T.ceildiv(T.ceildiv(tx, {ADD}), 4)"))
    assert calls(lines) == 1


def test_while_condition_is_evaluated_once_per_test():
    lines = body_of(kernel(f"""
        while 0 < {ADD} < n:
            A[3] = 4
    """))
    assert calls(lines) == 1
    assert lines[lines.index("while (true) {") + 1] == "int tmp = atomicAdd(&A_ptr[0], 1);"
    assert "if (!((0 < tmp) && (tmp < n))) {" in lines


def test_augmented_store_computes_its_index_once():
    lines = body_of(kernel(f"A[{ADD} % 64] += 5"))
    assert calls(lines) == 1
    assert "A_ptr[idx] = A_ptr[idx] + 5;" in lines


def test_augmented_store_of_a_ceildiv_index_elaborates_it_once():
    lines = body_of(kernel(f"A[T.ceildiv(tx, {ADD}) % 64] += 5"))
    assert calls(lines) == 1


def test_folding_does_not_drop_a_call():
    lines = body_of(kernel(f"""
        A[1] = {ADD} * 0
        A[2] = T.truncmod({ADD}, 1)
    """))
    assert calls(lines) == 2
    assert "A_ptr[1] = 0;" in lines


def test_index_through_a_splitting_layout_is_evaluated_once():
    text = (HEADER + "from tvm.tirx.layout import TileLayout, S\n\n"
            "@T.prim_func\ndef k(A_ptr: T.handle):\n"
            "    A = T.match_buffer(A_ptr, (32,), \"int32\", layout=TileLayout(S[(4, 8):(1, 4)]))\n"
            "    T.device_entry()\n    tx = T.thread_id([32])\n"
            f"    A[tx] = A[{ADD} % 32]\n")
    assert calls(body_of(text)) == 1


# ---- item 2: range() is evaluated once, and counts without wrapping -------------------------------------------

def test_range_over_a_mutable_scalar_is_read_once():
    lines = body_of(kernel("""
        m: T.int32 = n
        for i in range(m):
            m += 1
            A[i % 64] = i
    """))
    assert "int i_stop = m_ptr[0];" in lines
    assert "for (int i = 0; i < i_stop; ++i) {" in lines


def test_range_bound_with_a_call_is_not_in_the_loop_header():
    lines = body_of(kernel(f"""
        for i in range(0, {ADD}, 2):
            A[1] = i
        for j in range({ADD}, A[3]):
            A[2] = j
    """))
    headers = [line for line in lines if line.startswith("for (")]
    assert all("atomicAdd" not in h.split(";", 1)[1] and "A_ptr" not in h.split(";", 1)[1] for h in headers)
    assert calls(lines) == 2
    # the start is bound too when a later bound is, so that the call still comes first
    assert lines.index("int j_start = atomicAdd(&A_ptr[0], 1);") < lines.index("int j_stop = A_ptr[3];")


def test_invariant_ranges_keep_their_plain_form():
    lines = body_of(kernel("""
        for i in range(n):
            A[1] = i
        for k in range(0, 100, 7):
            A[2] = k
        for k in range(tx, 64, 32):
            A[k] = k
        for k in range(n, 0, -3):
            A[3] = k
        for k in range(tx, T.ceildiv(n, 256), 256):
            A[4] = k
    """))
    assert "for (int i = 0; i < n; ++i) {" in lines
    assert "for (int k = 0; k < 100; k += 7) {" in lines
    assert "for (int k = tx; k < 64; k += 32) {" in lines
    assert "for (int k = n; k > 0; k -= 3) {" in lines
    assert not any("long long" in line for line in lines)


def test_a_step_that_can_pass_int_max_counts_in_64_bits():
    lines = body_of(kernel("""
        for i in range(0, n, 1 << 30):
            A[0] = i
    """))
    assert "for (long long i_wide = 0LL; i_wide < ((long long)n); i_wide += 1073741824LL) {" in lines
    assert "int i = (int)i_wide;" in lines


# ---- item 3: identifiers are NFKC-normalised, spans keep the text as written ----------------------------------

def test_nfkc_names_are_one_variable():
    lines = body_of(kernel("""
        \ufb01: T.int32 = 1
        fi = 2
        A[0] = \ufb01
    """))
    assert "int fi_ptr[1];" in lines and "fi_ptr[0] = 2;" in lines


def test_nfkc_name_tokens_keep_their_source_columns():
    text = "x = \ufb01x + qq\n"
    module = parse(SourceFile("t.tx", text), Diagnostics())
    value = module.body[0].value
    assert value.left.id == "fix"
    assert (value.right.span.col, value.left.span.col, value.left.span.end_col) == (10, 5, 7)


# ---- item 4: tiny files that made an internal error -------------------------------------------------------------

def test_empty_unroll_compiles():
    lines = body_of(kernel("""
        for i in T.unroll(0):
            A[i] = 7 // i
        A[1] = 2
    """))
    assert lines[-1] == "A_ptr[1] = 2;"


def test_guarded_divisions_in_unrolled_copies_compile():
    lines = body_of(kernel("""
        for i in T.unroll(3):
            if i != 0:
                A[i] = 7 // i
            A[i + 4] = T.if_then_else(i > 0, 7 % i, 0)
    """))
    assert "A_ptr[1] = 7;" in lines and "A_ptr[4] = 0;" in lines


# ---- item 6: dtype strings ------------------------------------------------------------------------------------

def test_dtype_strings_are_matched_whole():
    assert parse_dtype("float32x4") is not None
    for text in ("float32\n", "float32x4\n", "float32x04", "float32x\uff14", "float32 "):
        assert parse_dtype(text) is None, text


def test_dtype_aliases_name_the_tirx_dtype():
    assert dtype_alias("fp32") == "float32"
    assert dtype_alias("bf16") == "bfloat16"
    assert dtype_alias("float32\n") == "float32"
    assert dtype_alias("fp16x2") == "float16x2"
    assert dtype_alias("no_such_type") is None
