"""The expected-CUDA format of the case files (filecheck.py) and its runner (case_files.py)."""
from __future__ import annotations

import pytest

from tests.check import filecheck
from tests.check.case_files import check_case_file
from tests.check.filecheck import Check, CheckFileError, match, parse
from tests.check.inline_expect import parse as parse_items

OUTPUT = """\
__global__ void k(float* A_ptr) {
  // Tx.warp.copy(Sm, A): gmem_smem
  for (int f = 0; f < 2; ++f) {
    *(float4*)(Sm_ptr + f) = *(const float4*)(A_ptr + f);
  }
  __syncthreads();
}"""


def checks(*pairs) -> list[Check]:
    return [Check(kind, 10 + n, fragment) for n, (kind, fragment) in enumerate(pairs)]


def test_directives_are_read_in_file_order():
    text = "# ARCH: sm_100a\nx = 1\n    # CHECK: a\n    # CHECK-NEXT:   b  c\n# CHECK-NOT: d\n# an ordinary comment\n"
    assert parse(text) == filecheck.Directives(
        (Check("CHECK", 3, "a"), Check("CHECK-NEXT", 4, "b  c"), Check("CHECK-NOT", 5, "d")), "sm_100a")


@pytest.mark.parametrize("text", ["# CHECK a", "# CHECK:", "# CHECK-NEXT: first", "# CHECK-SOME: x",
                                  "# CHECK: a\n# CHECK-NOT: b\n# CHECK-SAME: c",
                                  "# ARCH: sm_90a\n# ARCH: sm_100a"])
def test_malformed_directives_are_errors(text):
    with pytest.raises(CheckFileError):
        parse(text)


def test_a_passing_case():
    assert match(checks(("CHECK", "Tx.warp.copy(Sm, A): gmem_smem"),
                        ("CHECK-NEXT", "for (int f = 0;   f < 2; ++f)"),  # spacing does not matter
                        ("CHECK-NOT", "__syncwarp"),
                        ("CHECK", "__syncthreads();")), OUTPUT) == []


def test_a_missing_fragment_says_where_the_search_started():
    failure = match(checks(("CHECK", "gmem_smem"), ("CHECK", "float2")), OUTPUT, "copy.tx")
    assert failure[:2] == ["copy.tx, line 11: # CHECK: float2",
                           "  not found after output line 2 (the match of line 10: # CHECK: gmem_smem); "
                           "the output from there:"]
    assert failure[2] == "        3 |   for (int f = 0; f < 2; ++f) {"


def test_check_same_continues_on_the_matched_line():
    assert match(checks(("CHECK", "*(float4*)(Sm_ptr"), ("CHECK-SAME", "= *(const float4*)"), ("CHECK-SAME", "+ f);")),
                 OUTPUT) == []
    failure = match(checks(("CHECK", "= *(const float4*)"), ("CHECK-SAME", "Sm_ptr")), OUTPUT, "c.tx")
    assert failure[0] == "c.tx, line 11: # CHECK-SAME: Sm_ptr"
    assert failure[1].startswith("  not on output line 4 (the match of line 10: # CHECK: = *(const float4*)) after column")


def test_check_next_wants_the_very_next_line():
    failure = match(checks(("CHECK", "gmem_smem"), ("CHECK-NEXT", "__syncthreads")), OUTPUT, "copy.tx")
    assert failure[0] == "copy.tx, line 11: # CHECK-NEXT: __syncthreads"
    assert "not on the line after output line 2" in failure[1]


def test_check_not_between_two_matches_and_at_the_end():
    failure = match(checks(("CHECK", "gmem_smem"), ("CHECK-NOT", "float4"), ("CHECK", "__syncthreads")), OUTPUT, "c.tx")
    assert failure == ["c.tx, line 11: # CHECK-NOT: float4",
                       "  found at output line 4, between output line 2 (the match of line 10: # CHECK: gmem_smem) "
                       "and output line 6:",
                       "        4 |     *(float4*)(Sm_ptr + f) = *(const float4*)(A_ptr + f);"]
    assert match(checks(("CHECK", "__syncthreads"), ("CHECK-NOT", "}")), OUTPUT)[1].endswith(
        "and the end of the output:")


def test_two_checks_never_take_the_same_line():
    assert match(checks(("CHECK", "Sm_ptr"), ("CHECK", "A_ptr + f")), OUTPUT)[0].endswith("# CHECK: A_ptr + f")


def test_a_list_form_writes_out_every_item():
    assert filecheck.expand("ld({{r_ptr[i] for i in 2..4}}, t);") == "ld(r_ptr[2], r_ptr[3], r_ptr[4], t);"
    assert filecheck.expand("st({{f(i, x_i[i]) for i in 0..1}})") == "st(f(0, x_i[0]), f(1, x_i[1]))"  # whole words
    assert parse("# CHECK: a({{p[k] for k in 0..2}})\n").checks[0].fragment == "a(p[0], p[1], p[2])"
    full = match(checks(("CHECK", filecheck.expand("({{x[j] for j in 0..2}})"))), "f(x[0], x[1], x[2]);")
    gap = match(checks(("CHECK", filecheck.expand("({{x[j] for j in 0..2}})"))), "f(x[0], x[2], x[1]);")
    assert full == [] and gap[1].startswith("  not found")


@pytest.mark.parametrize("text", ["# CHECK: f({{x[i] for i in 3..1}})", "# CHECK: f({{x[i] for i in 0...2}})",
                                  "# CHECK: f({{x[i] for i in a..b}})"])
def test_malformed_list_forms_are_errors(text):
    with pytest.raises(CheckFileError):
        parse(text)


def test_directives_are_not_diagnostic_items():
    assert parse_items('# CHECK: #error "needs sm_90"\nx = 1  # note @1: first\n')[0].line == 2


KERNEL = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4), "float32")
    B = T.match_buffer(B_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((32, 4), "float32", scope="shared")
    Tx.warp.copy(Sm, A)
    # CHECK: // Tx.warp.copy(Sm, A): {variant}
    Tx.warp.copy(B, Sm)
'''


def test_the_runner_passes_a_true_case_and_reports_a_false_one(tmp_path):
    good = tmp_path / "good.tx"
    good.write_text(KERNEL.format(variant="gmem_smem"), encoding="utf-8")
    check_case_file(good)
    bad = tmp_path / "bad.tx"
    bad.write_text(KERNEL.format(variant="fallback"), encoding="utf-8")
    with pytest.raises(pytest.fail.Exception) as failed:
        check_case_file(bad)
    assert str(failed.value).startswith("bad.tx, line 14: # CHECK: // Tx.warp.copy(Sm, A): fallback\n  not found after "
                                        "the start of the output;")


def test_the_runner_wants_every_diagnostic_expected(tmp_path):
    case = tmp_path / "unexpected.tx"
    case.write_text(KERNEL.format(variant="gmem_smem").replace('(32, 4), "float32")\n    T.device', '(32, 5), '
                                                                "\"float32\")\n    T.device"), encoding="utf-8")
    with pytest.raises(pytest.fail.Exception) as failed:
        check_case_file(case)
    assert "reported, not expected" in str(failed.value)
