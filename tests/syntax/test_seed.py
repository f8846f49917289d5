"""Every code example of the seed chapter ("Buffer 与内存") parses.

tests/syntax/seed/ holds each Python example of the chapter as a `.tx` file,
verbatim (comments included), one file per code block. Most are fragments of
a kernel body, so they are only parsed, not checked. The CUDA blocks of the
chapter are outputs, not inputs, and the address formula
`addr(buffer[coord]) = ... layout.apply(*coord, ...)` is pseudo-code (its
`*coord` is outside the subset; see the last test).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from transpiler.syntax import ast

from ._util import parse_ok, parse_text, sx

SEED = Path(__file__).resolve().parent / "seed"
FILES = sorted(SEED.glob("*.tx"))


def test_all_examples_are_here():
    assert len(FILES) == 18


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_parses_cleanly(path):
    module = parse_ok(path.read_text(encoding="utf-8"))
    assert module.body


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_emit_ast_on_the_command_line(path):
    result = subprocess.run([sys.executable, "-m", "transpiler", str(path), "--emit", "ast"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b""
    out = result.stdout.decode()
    assert out.startswith("Module @1:1-")
    module = parse_ok(path.read_text(encoding="utf-8"))
    # One line per statement of the module body, at the first indentation level.
    top = [line for line in out.splitlines() if line.startswith("    ") and not line.startswith("     ")]
    assert len(top) == len(module.body)


def body(name: str):
    return parse_ok((SEED / name).read_text(encoding="utf-8")).body


def test_declarations_keep_keyword_arguments():
    stmts = body("01_declare_buffers.tx")
    assert sx(stmts[0]) == "(Assign A (call T.match_buffer A_ptr (tuple M K) 'float16' align=16))"
    assert sx(stmts[3]) == "(Assign view (call T.decl_buffer (tuple BM BK) 'float16' data=As.data))"


def test_buffer_region_and_pointers():
    stmts = body("02_buffer_access.tx")
    assert [sx(s.value) for s in stmts] == [
        "(sub A [i j])", "(sub A [(slice m0 (+ m0 BM) _) (slice 0 BK _)])", "(call A.ptr_to (list i j))", "A.data"]


def test_layouts_are_slices_of_tuples():
    stmts = body("03_layout_metadata.tx")
    assert isinstance(stmts[0], ast.ImportFrom)
    assert [a.name for a in stmts[0].names] == ["TileLayout", "S", "laneid"]
    layout = stmts[2].value.keywords[0]
    assert layout.name == "layout"
    assert sx(layout.value) == "(call TileLayout (sub S [(slice (tuple 4 8) (tuple 1 4) _)]))"
    assert sx(stmts[4].value.keywords[0].value) == "(call TileLayout (sub S [(slice (tuple 4 8) (tuple 16 1) _)]))"


def test_lane_axis_in_a_layout_uses_matmul():
    stmts = body("17_local_registers.tx")
    layout = stmts[0].value.keywords[1].value
    assert sx(layout) == "(call TileLayout (sub S [(slice (tuple 32 8) (tuple (@ 1 laneid) 1) _)]))"


def test_static_shared_memory_kernel():
    (kernel,) = body("04_static_shared_memory.tx")
    assert isinstance(kernel, ast.FunctionDef) and kernel.name == "smem_demo"
    assert sx(kernel.decorators[0]) == "T.prim_func"
    assert [(p.name, sx(p.annotation)) for p in kernel.params] == [("A_ptr", "T.handle"), ("B_ptr", "T.handle")]
    assert len(kernel.body) == 9
    assert sx(kernel.body[-1]) == "(Assign (sub B [tx]) (* (sub sm [tx]) (call T.float32 2.0)))"


def test_launch_params_fragment_is_an_annotated_statement():
    stmts = body("06_dyn_shared_launch_params.tx")
    assert sx(stmts[0]) == ("(AnnAssign 'tirx.kernel_launch_params' "
                            "(list 'blockIdx.x' 'threadIdx.x' 'tirx.use_dyn_shared_memory') _)")
    assert sx(stmts[1]) == "(ExprStmt (call T.call_packed 'dyn_kernel' A.data B.data C.data 1 64 512))"


def test_loops_and_scalars():
    (loop,) = body("08_registers.tx")[1:]
    assert sx(loop) == "(For k (call T.unroll 4) [(Assign (sub r [k]) (sub A [tx k]))])"
    stmts = body("10_scalar_syntax.tx")
    assert sx(stmts[0]) == "(AnnAssign phase T.int32 0)"
    assert sx(stmts[1]) == "(While (cmp phase < 4) [(Assign acc (+ acc (sub A [tx phase]))) (AugAssign phase + 1)])"
    assert sx(stmts[3]) == "(AnnAssign acc T.float32 0.0)"


def test_let_bindings():
    assert [sx(s) for s in body("11_let.tx")] == ["(AnnAssign n T.let (* M K))",
                                                  "(AnnAssign half (sub T.let [T.int32]) (// N 2))"]


def test_call_continued_on_the_next_line():
    stmts = body("12_tensor_memory.tx")
    acc = stmts[2]
    assert (acc.span.line, acc.span.end_line) == (6, 7)
    assert [k.name for k in acc.value.keywords] == ["scope", "allocated_addr", "layout"]
    assert sx(stmts[3].body[1]) == "(ExprStmt (call T.ptx.tcgen05.dealloc (sub addr [0]) n_cols=512 cta_group=cta_group))"


def test_two_statements_per_line():
    stmts = body("16_view_permute.tx")
    assert [(s.span.line, s.span.col) for s in stmts] == [(3, 1), (3, 25), (4, 1), (4, 25)]
    assert sx(stmts[3]) == "(Assign z (sub At [i j]))"


def test_the_address_formula_is_pseudo_code():
    formula = 'addr(buffer[coord]) = buffer.data + elem_offset + layout.apply(*coord, shape=shape)["m"]\n'
    _, diags = parse_text(formula)
    # `*coord` in a call is syntax the parser accepts (the checker expands it: evaluator/core.py)
    assert [(d.code, d.span.col, d.message) for d in diags] == []
