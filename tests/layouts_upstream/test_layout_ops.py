"""TIRx's layout algebra in ir/layout_ops.py: Canonicalize, tiling of a swizzled layout, group,
permute_by_groups, storage, direct_sum, pack / unpack / broadcast -- the iters TIRx's C++ and
Python give for the same inputs, worked out by hand from upstream's code (cited per case)."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts, layout_ops

c = layouts.c


def lay(*iters, replica=(), offset=(), swizzle=None):
    return ir.Layout(tuple(layouts.Iter(c(e), c(s), a) for e, s, a in iters),
                     tuple(layouts.Iter(c(e), c(s), a) for e, s, a in replica),
                     tuple((a, c(v)) for a, v in offset), swizzle)


def its(layout):
    return [(it.extent.value, it.stride.value, it.axis) for it in layout.shard]


def test_canonicalize_drops_units_and_zero_offsets_and_fuses():
    # RemoveUnitIters, RemoveZeroOffsets, FuseContiguousShardIters (tile_canonicalize.cc)
    got = layout_ops.canonicalize(lay((1, 7, "m"), (4, 16, "m"), (2, 8, "m"), (8, 1, "m"), offset=(("m", 0),)))
    assert its(got) == [(64, 1, "m")] and got.offset == ()
    # different axes never fuse; a lone unit iter is kept as 1:1
    assert its(layout_ops.canonicalize(lay((4, 8, "laneid"), (8, 1, "m")))) == [(4, 8, "laneid"), (8, 1, "m")]
    assert its(layout_ops.canonicalize(lay((1, 5, "m"), (1, 9, "m")))) == [(1, 1, "m")]


def test_tile_of_a_bare_swizzle_uses_the_identity_over_the_inner_shape():
    # ComposeLayoutNode::Tile: a trivial tile becomes IdentityTileLayout(inner_shape), the swizzle is kept
    atom = lay((512, 1, "m"), swizzle=(3, 3, 3, True))
    got = layout_ops.tile_to_any(atom, [32, 64], [8, 64])
    assert its(got) == [(2048, 1, "m")] and got.swizzle == (3, 3, 3, True)  # 4 atoms down the rows, fused
    wide = layout_ops.tile_to_any(atom, [8, 128], [8, 64])
    assert its(wide) == [(8, 64, "m"), (2, 512, "m"), (64, 1, "m")]


def test_group_and_permute_by_groups():
    # TileLayout.group / permute_by_groups: the mma m16n8k16 A fragment transposed (test_gemm_mma_m16n8k_)
    frag = lay((2, 2, "m"), (8, 4, "laneid"), (4, 1, "laneid"), (2, 1, "m"))
    grouped, seps = layout_ops.grouped(frag, [16, 8])
    assert seps == [0, 2, 4]
    assert its(layout_ops.permute_by_groups(grouped, seps, [1, 0])) == [
        (4, 1, "laneid"), (2, 1, "m"), (2, 2, "m"), (8, 4, "laneid")]
    assert layout_ops.grouped(frag, [3, 7]) is None


def test_storage_keeps_memory_iters():
    got = layout_ops.storage(lay((2, 2, "m"), (8, 4, "laneid"), (2, 1, "m"), offset=(("laneid", 3), ("m", 1))))
    assert its(got) == [(2, 2, "m"), (2, 1, "m")] and [(a, v.value) for a, v in got.offset] == [("m", 1)]


def test_direct_sum():
    # TileLayoutNode::DirectSum: per dimension the left's iters then the right's, then canonicalized
    atom = lay((32, 1, "TLane"), (2, 1, "TCol"), replica=((4, 32, "TLane"),))
    outer = lay((4, 4, "TCol"), (3, 16, "TCol"))
    got = layout_ops.direct_sum(atom, outer, [4, 3], [32, 2])
    assert its(got) == [(4, 4, "TCol"), (32, 1, "TLane"), (3, 16, "TCol"), (2, 1, "TCol")]
    assert [(it.extent.value, it.stride.value, it.axis) for it in got.replica] == [(4, 32, "TLane")]


def test_pack_unpack_broadcast():
    # Layout.unpack / pack / broadcast (python/tvm/tirx/layout.py)
    base = lay((8, 64, "m"), (64, 1, "m"), swizzle=(3, 3, 3, True))
    up = layout_ops.unpack(base, 2)
    assert its(up) == [(8, 128, "m"), (64, 2, "m"), (2, 1, "m")] and up.swizzle == (4, 3, 3, True)
    down = layout_ops.pack(base, 2)
    assert its(down) == [(8, 32, "m"), (32, 1, "m")] and down.swizzle == (2, 3, 3, True)
    assert isinstance(layout_ops.pack(base, 16), str)  # a 2^3-element unit cannot shrink by 16
    assert its(layout_ops.broadcast(lay((4, 1, "m")), 3)) == [(4, 1, "m"), (3, 0, "m")]
    assert its(layout_ops.broadcast(lay((4, 1, "m")), 3, 0, "TCol")) == [(3, 0, "TCol"), (4, 1, "m")]
