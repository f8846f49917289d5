"""The library's tile schedulers (transpiler/sema/library/tile_scheduler.tx) run on the host
(tests/emit/hostc.py): every tile each one visits, in order, against a Python model of the
upstream formulas."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

pytestmark = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")

STEPS = 40

KERNEL = '''\
from tvm.script import tirx as T
from tvm.tirx.lang.tile_scheduler import (GroupMajor3D, FlashAttentionLinearScheduler, FlashAttentionLPTScheduler,
                                          IndexedTripleTileScheduler, ClusterPersistentScheduler2D)

STEPS = 40


@T.inline
def record(O, row, sched, a, b, c):
    i: T.int32 = 0
    while sched.valid() and i < STEPS:
        O[row, i] = a * 10000 + b * 100 + c
        sched.next_tile()
        i = i + 1


@T.prim_func
def k(O_ptr: T.handle, B_ptr: T.handle, H_ptr: T.handle, Q_ptr: T.handle, P_ptr: T.handle, m: T.int32):
    O = T.match_buffer(O_ptr, (10, STEPS), "int32")
    B = T.match_buffer(B_ptr, (8,), "int32")
    H = T.match_buffer(H_ptr, (8,), "int32")
    Q = T.match_buffer(Q_ptr, (8,), "int32")
    P = T.match_buffer(P_ptr, (8,), "int32")
    T.device_entry()
    tx = T.thread_id([1])
    g = GroupMajor3D("g", 7, 3, 2, 3, step=2)
    g.init(1)
    record(O, 0, g, g.m_idx, g.n_idx, g.k_idx)
    r = GroupMajor3D("r", m, 2, 2, 4)
    r.init(0)
    record(O, 1, r, r.m_idx, r.n_idx, r.k_idx)
    f = FlashAttentionLinearScheduler("f", 2, 3, 4, 5)
    f.init(2)
    record(O, 2, f, f.batch_idx, f.head_idx, f.m_block_idx)
    p = FlashAttentionLPTScheduler("p", 2, 3, 4, 4, num_ctas=3)
    p.init(1)
    record(O, 3, p, p.batch_idx, p.head_idx, p.m_block_idx)
    q = FlashAttentionLPTScheduler("q", 1, 2, 3, 2)
    q.init(4)
    record(O, 4, q, q.batch_idx, q.head_idx, q.m_block_idx)
    x = IndexedTripleTileScheduler("x", B, H, Q, P)
    x.init(1)
    record(O, 5, x, x.b_idx, x.h_idx, x.q_idx)
    c = ClusterPersistentScheduler2D("c", 3, 4, 2, l2_group_size=8)
    c.init(1)
    record(O, 6, c, c.m_idx, c.n_idx, c.tile_count)
    d = ClusterPersistentScheduler2D("d", m, 5, 3, l2_group_size=2, cluster_m=2, cluster_n=1)
    d.init(2)
    record(O, 7, d, d.m_idx, d.n_idx, d.tile_idx)
    e = ClusterPersistentScheduler2D("e", m, 5, 3, l2_group_size=2, cluster_m=2, serpentine=True)
    e.init(0)
    record(O, 8, e, e.m_idx, e.n_idx, 0)
    f2 = ClusterPersistentScheduler2D("f2", 8, 6, 1, l2_group_size=2, cluster_n=2, serpentine=True)
    f2.init(0)
    record(O, 9, f2, f2.m_idx, f2.n_idx, f2.work_idx)
'''


def _group_major(m_tiles, n_tiles, k_tiles, g, start, step):
    groups, final = m_tiles // g, m_tiles - (m_tiles // g) * g
    safe, size, full_bound = max(final, 1), g * n_tiles * k_tiles, (m_tiles // g) * g * n_tiles * k_tiles
    out, lin = [], start
    while lin < m_tiles * n_tiles * k_tiles and len(out) < STEPS:
        if groups > 0 and lin < full_bound:
            m, n, k = lin // size * g + lin % g, (lin // g) % n_tiles, (lin % size) // (g * n_tiles)
        elif final > 0:
            rest = lin - full_bound
            m, n, k = groups * g + rest % safe, (rest // safe) % n_tiles, rest // (safe * n_tiles)
        else:
            m = n = k = 0
        out.append(m * 10000 + n * 100 + k)
        lin += step
    return out


def _fa_linear(b, h, mb, ctas, start):
    out, lin = [], start
    while lin < b * h * mb and len(out) < STEPS:
        out.append((lin // (h * mb)) * 10000 + ((lin % (h * mb)) // mb) * 100 + lin % mb)
        lin += ctas
    return out


def _fa_lpt(b, h, mb, swz, ctas, start):
    hb_count, major = b * h, swz * mb
    out, lin = [], start
    while lin < b * h * mb and len(out) < STEPS:
        group, within = lin // major, lin % major
        width = max(hb_count % swz, 1)
        full = group < hb_count // swz
        m_block = within // swz if full else within // width
        hb = group * swz + (within % swz if full else within % width)
        out.append((hb // h) * 10000 + (hb % h) * 100 + (mb - 1 - m_block))
        lin = b * h * mb if ctas is None else lin + ctas
    return out


def _cluster_persistent(m, n, clusters, g, cm, cn, serpentine, start, third):
    """Upstream's ClusterPersistentScheduler2D: (m_idx, n_idx) of each work item, and `third`
    ("count": tiles taken so far, "work": the work index, None: 0)."""
    rows, cols = (m + cm - 1) // cm, (n + cn - 1) // cn
    full_groups = rows // g
    tail = rows - full_groups * g
    m_blocks, n_blocks = rows // g, cols // g
    full_block_tiles, res_n, res_m = m_blocks * n_blocks * g * g, cols - n_blocks * g, rows - m_blocks * g
    out, work, count = [], start, 0
    while work < rows * cols * cm * cn and len(out) < STEPS:
        m_off, n_off, block = work % cm, (work // cm) % cn, (work // cm) // cn
        row = col = 0
        if not serpentine:
            span = g * cols
            if full_groups > 0 and block < full_groups * span:
                row, col = (block // span) * g + (block % span) % g, (block % span) // g
            elif tail > 0:
                rest = block - full_groups * span
                row, col = full_groups * g + rest % tail, rest // tail
        elif m_blocks > 0 and n_blocks > 0 and block < full_block_tiles:
            square, within = block // (g * g), block % (g * g)
            square_col, down = square // m_blocks, square % m_blocks
            square_row = down if square_col % 2 == 0 else m_blocks - 1 - down
            row, col = square_row * g + within // g, square_col * g + within % g
        elif res_n > 0:
            rest = block - full_block_tiles
            if rest < rows * res_n:
                row, col = rest // res_n, n_blocks * g + rest % res_n
        elif res_m > 0:
            rest = block - full_block_tiles
            if rest < res_m * (n_blocks * g):
                row, col = m_blocks * g + rest % res_m, rest // res_m
        extra = count if third == "count" else work if third == "work" else 0
        out.append((row * cm + m_off) * 10000 + (col * cn + n_off) * 100 + extra)
        work, count = work + clusters, count + 1
    return out


def _indexed(table, sm):
    lo, hi = table[3][sm], table[3][sm + 1]
    return [table[0][i] * 10000 + table[1][i] * 100 + table[2][i] for i in range(lo, hi)][:STEPS]


@pytest.mark.parametrize("m", [0, 4, 9, 13])
def test_tile_schedulers_visit_the_upstream_order(tmp_path, m):
    result = transpile(KERNEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    table = [[3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8], [1, 4, 1, 4, 2, 1, 3, 5], [0, 2, 7, 8, 0, 0, 0, 0]]
    out = hostc.run(result.cuda, {"O": [-1] * (10 * STEPS), "B": table[0], "H": table[1], "Q": table[2], "P": table[3]}, threads=1,
                    scalars={"m": m}, workdir=tmp_path)["O"]
    rows = [out[i * STEPS:(i + 1) * STEPS] for i in range(10)]
    expected = [_group_major(7, 3, 2, 3, 1, 2), _group_major(m, 2, 2, 4, 0, 1), _fa_linear(2, 3, 4, 5, 2),
                _fa_lpt(2, 3, 4, 4, 3, 1), _fa_lpt(1, 2, 3, 2, None, 4), _indexed(table, 1),
                _cluster_persistent(3, 4, 2, 8, 1, 1, False, 1, "count"),
                _cluster_persistent(m, 5, 3, 2, 2, 1, False, 2, "count"),
                _cluster_persistent(m, 5, 3, 2, 2, 1, True, 0, None),
                _cluster_persistent(8, 6, 1, 2, 1, 2, True, 0, "work")]
    for row, want in zip(rows, expected):
        assert row == want + [-1] * (STEPS - len(want))
