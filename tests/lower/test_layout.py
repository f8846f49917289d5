"""layout.py: TileLayout.apply, the grouping of shape dimensions with shard
iters, the order of terms in an index (linear_index), permute, memory span and
the XOR swizzle, checked on the seed's examples and against a brute-force
reference of the TIRx definition."""
from __future__ import annotations

import itertools
from math import prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.lower.evaluate import evaluate
from transpiler import ir
from transpiler.ir import layout as L
from transpiler.target.dtypes import INT32
from transpiler.codegen.cuda import CPrinter


def c(v: int) -> ir.IntImm:
    return ir.IntImm(INT32, v)


def v(name: str) -> ir.Var:
    return ir.Var(INT32, name)


def text(e: ir.Expr) -> str:
    """As printed inside `B_ptr[...]`."""
    return CPrinter().expr(e)


def S(extents, strides, offset=()):
    return L.tile_layout([c(x) for x in extents], [c(x) for x in strides], offset=offset)


def reference_m(extents, strides, shape, coord, offset=0) -> int:
    """The TIRx definition: flatten the coordinate row-major over the shape,
    split it across the shard extents (outermost first), sum component * stride."""
    flat = sum(x * s for x, s in zip(coord, [prod(shape[i + 1:]) for i in range(len(shape))]))
    total = offset
    for k, (extent, stride) in enumerate(zip(extents, strides)):
        inner = prod(extents[k + 1:])
        comp = flat // inner if k == 0 else (flat // inner) % extent
        total += comp * stride
    return total


def check_against_reference(extents, strides, shape, elem_offset=0):
    layout = S(extents, strides)
    names = [f"x{d}" for d in range(len(shape))]
    index = L.memory_index(layout, [v(n) for n in names], [c(s) for s in shape], c(elem_offset))
    for coord in itertools.product(*(range(s) for s in shape)):
        got = evaluate(index, dict(zip(names, coord)))
        assert got == reference_m(extents, strides, shape, coord, elem_offset), (coord, text(index))
    return index


# ---- the seed's four declarations of B (4, 8) -----------------------------------------------------------

@pytest.mark.parametrize("layout, elem_offset, expected", [
    (None, 0, "((i * 8) + j)"),
    (((4, 8), (1, 4)), 0, "((j * 4) + i)"),
    (None, 64, "(((i * 8) + j) + 64)"),
    (((4, 8), (16, 1)), 0, "((i * 16) + j)"),
], ids=["row_major", "col_major", "elem_offset", "stride16"])
def test_seed_declarations(layout, elem_offset, expected):
    lay = None if layout is None else S(*layout)
    index = L.memory_index(lay, [v("i"), v("j")], [c(4), c(8)], c(elem_offset))
    assert text(index) == expected
    if lay is not None:
        check_against_reference(*layout, (4, 8), elem_offset)


def test_apply_column_major_gives_per_axis_terms():
    out = L.apply(S((4, 8), (1, 4)), [v("i"), v("j")], [c(4), c(8)])
    assert list(out) == ["m"]
    (ci, si), (cj, sj) = out["m"]
    assert (ci, si.value, cj, sj.value) == (v("i"), 1, v("j"), 4)  # no div/mod chain: dims line up


def test_apply_offsets_are_unit_terms():
    lay = S((4, 8), (8, 1), offset=(("m", c(64)),))
    out = L.apply(lay, [v("i"), v("j")], [c(4), c(8)])
    assert out["m"][-1] == (c(1), c(64))
    assert text(L.memory_index(lay, [v("i"), v("j")], [c(4), c(8)], c(0))) == "(((i * 8) + j) + 64)"


# ---- grouping of dimensions and iters ------------------------------------------------------------------

@pytest.mark.parametrize("shape, extents, groups", [
    ((4, 8), (4, 8), [([1], [1]), ([0], [0])]),              # one to one, innermost first
    ((64, 4), (256,), [([0, 1], [0])]),                      # a view reshape: two dims, one iter
    ((256,), (64, 4), [([0], [0, 1])]),                      # one dim split over two iters
    ((2, 2, 8), (4, 8), [([2], [1]), ([0, 1], [0])]),
    ((4, 1, 8), (4, 8), [([2], [1]), ([0, 1], [0])]),        # unit extents join a group
    ((8, 4), (4, 8), [([0, 1], [0, 1])]),                    # sizes line up only as a whole
])
def test_groups(shape, extents, groups):
    assert L.dim_groups([c(s) for s in shape], [c(e) for e in extents]) == groups


def test_groups_none_when_sizes_never_line_up():
    assert L.dim_groups([c(3), c(5)], [c(4), c(4)]) is None


def test_groups_symbolic_extent_that_matches():
    n = v("n")
    assert L.dim_groups([n, c(4)], [n, c(4)]) == [([1], [1]), ([0], [0])]


def test_view_reshape_row_major():
    """A.view(64, 4) of a 256-element buffer: A2[tx, j] -> A_ptr[tx * 4 + j]."""
    index = L.memory_index(None, [v("tx"), c(3)], [c(64), c(4)], c(0))
    assert text(index) == "((tx * 4) + 3)"
    index = L.memory_index(None, [v("tx"), c(0)], [c(64), c(4)], c(0))
    assert text(index) == "(tx * 4)"


def test_reshaped_coordinates_over_a_column_major_layout():
    """A (2, 2, 8) view of a column-major (4, 8) layout: i = 2a + b, m = j * 4 + i."""
    index = check_against_reference((4, 8), (1, 4), (2, 2, 8))
    assert "floordiv" not in repr(index) and "floormod" not in repr(index)


def test_one_dimension_split_across_iters_uses_div_and_mod():
    index = check_against_reference((4, 8), (1, 4), (32,))
    ops = {e.op for e in ir.walk_expr(index) if isinstance(e, ir.BinOp)}
    assert {"floordiv", "floormod"} <= ops


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3, 4, 8]), min_size=1, max_size=3),
       st.data())
def test_apply_matches_the_definition(extents, data):
    """Random shard extents and strides against random shapes of the same size."""
    strides = data.draw(st.lists(st.integers(0, 40), min_size=len(extents), max_size=len(extents)))
    total = prod(extents)
    # a random factorisation of the element count as the buffer shape
    shape, rest = [], total
    while rest > 1 and len(shape) < 3:
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = data.draw(st.sampled_from(divisors))
        shape.append(d)
        rest //= d
    if rest > 1 or not shape:
        shape.append(rest)
    check_against_reference(extents, strides, tuple(shape))


# ---- linear_index: the order of terms --------------------------------------------------------------------

def test_linear_index_order_symbolic_then_large_to_small_then_constant():
    i, j, k, n = v("i"), v("j"), v("k"), v("n")
    terms = [(j, c(1)), (k, n), (i, c(8)), (c(2), c(8))]
    assert text(L.linear_index(terms, c(64))) == "((((k * n) + (i * 8)) + j) + 80)"


def test_linear_index_equal_strides_keep_dimension_order():
    a, b = v("a"), v("b")
    assert text(L.linear_index([(a, c(4)), (b, c(4))])) == "((a * 4) + (b * 4))"
    assert text(L.linear_index([(b, c(4)), (a, c(4))])) == "((b * 4) + (a * 4))"


def test_linear_index_pulls_constants_out_of_terms():
    tx = v("tx")
    plus = ir.binop("+", tx, c(16))
    minus = ir.binop("-", tx, c(1))
    assert text(L.linear_index([(plus, c(1024))])) == "((tx * 1024) + 16384)"
    assert text(L.linear_index([(minus, c(4))])) == "((tx * 4) - 4)"


def test_linear_index_drops_zero_strides_and_folds_constants():
    assert text(L.linear_index([(v("i"), c(0)), (c(3), c(8))], c(1))) == "25"
    assert L.linear_index([]) == c(0)


def test_linear_index_symbolic_offset():
    off = v("off")
    assert text(L.linear_index([(v("i"), c(8)), (v("j"), c(1))], off)) == "(((i * 8) + j) + off)"


# ---- permute, span, swizzle ---------------------------------------------------------------------------------

def test_permute_row_major_swaps_strides():
    layout, shape = L.permuted(None, [c(64), c(4)], [1, 0])
    assert [e.value for e in shape] == [4, 64]
    # At[i, j] of A2 = A.view(64, 4) -> A_ptr[j * 4 + i]
    assert text(L.memory_index(layout, [v("i"), v("j")], shape, c(0))) == "((j * 4) + i)"


def test_permute_of_a_layout_permutes_its_iters():
    layout, shape = L.permuted(S((4, 8), (1, 4)), [c(4), c(8)], [1, 0])
    assert text(L.memory_index(layout, [v("j"), v("i")], shape, c(0))) == "((j * 4) + i)"


def test_permute_refuses_a_layout_that_does_not_follow_the_dims():
    assert L.permuted(S((32,), (1,)), [c(4), c(8)], [1, 0]) == (None, None)


@pytest.mark.parametrize("extents, strides, span", [
    ((4, 8), (8, 1), 32), ((4, 8), (1, 4), 32), ((4, 8), (16, 1), 56), ((4,), (0,), 1),
])
def test_memory_span(extents, strides, span):
    assert L.memory_span(S(extents, strides)) == span


@pytest.mark.parametrize("length, per_element, atom", [(3, 3, 3), (2, 4, 3), (1, 0, 2), (3, 0, 4)])
def test_swizzle_is_cutlass_swizzle(length, per_element, atom):
    """ComposeLayout's swizzle equals CUTLASS Swizzle<B, M, S>: x ^ ((x & (mask << (M + S))) >> S)."""
    m = v("m")
    expr = L.swizzle(m, (per_element, length, atom, True))
    mask = ((1 << length) - 1) << (per_element + atom)
    size = 1 << (per_element + atom + length)
    seen = set()
    for x in range(size):
        got = evaluate(expr, {"m": x})
        assert got == x ^ ((x & mask) >> atom), x
        seen.add(got)
    assert seen == set(range(size))  # a permutation of the tile


def test_swizzle_identity_without_parameters():
    m = v("m")
    assert L.swizzle(m, None) is m
