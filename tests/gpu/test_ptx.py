"""PTX forms on the GPU, checked against NumPy (the kernels of tests/ptx/kernels/gpu_forms.tx):
ld / st / red / atom with their qualifiers and `pred=`, mov.b64 packing and unpacking, packed
cvt, shared-memory vector stores, mbarrier arrive / test_wait / try_wait (parity and phase
state, count, `pred=`), elect.sync and named barriers (bar.arrive / bar.sync); and from
gpu_preserve_dst_b128_reductions_local.tx `preserve_dst=`, .b128, f16x2 and vector reductions, .local and `T.ptx.addr`. mapa needs a
cluster launch and f32x2 an sm_100 GPU: those are compiled only (tests/ptx/test_nvcc.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNELS = Path(__file__).resolve().parent.parent / "ptx" / "kernels"


@pytest.fixture(scope="module")
def module(launcher_for):
    return launcher_for("gpu_forms", (KERNELS / "gpu_forms.tx").read_text())


@pytest.fixture(scope="module")
def memory(module):
    import cupy

    rng = np.random.default_rng(17)
    a = rng.integers(-2**31, 2**31 - 1, 128, dtype=np.int32)
    f = rng.standard_normal(512).astype(np.float32)
    v = rng.integers(0, 2**63, 128, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    bufs = dict(A=cupy.asarray(a), F=cupy.asarray(f), O=cupy.full(384, -1, cupy.int32), P=cupy.zeros(256, cupy.float32),
                C=cupy.zeros(4, cupy.uint32), Q=cupy.zeros(640, cupy.uint32), U=cupy.zeros(256, cupy.uint64),
                V=cupy.asarray(v))
    module.memory(*bufs.values())
    cupy.cuda.Device().synchronize()
    out = {k: b.get() for k, b in bufs.items()}
    return a, f, v, out


def test_loads_with_semantics_and_vectors(memory):
    a, f, _, out = memory
    assert np.array_equal(out["O"][:128], a)  # ld.global.acquire.gpu.b32 into int32
    assert np.array_equal(out["P"][:128].view(np.uint32), f[:128].view(np.uint32))  # .b32 into float32
    q = f.reshape(128, 4)
    want = ((q[:, 0] + q[:, 1] * np.float32(2)) + q[:, 2] * np.float32(4)) + q[:, 3] * np.float32(8)
    assert np.allclose(out["P"][128:], want, rtol=1e-6)  # ld.global.v4.f32


def test_stores_with_pred_and_release(memory):
    _, f, _, out = memory
    bits = f.reshape(128, 4)[:, 3].view(np.int32)
    want = np.where(np.arange(128) % 2 == 0, bits, -1)
    assert np.array_equal(out["O"][128:256], want)  # st.global.b32 of a float32, pred=tx % 2 == 0
    assert np.array_equal(out["O"][256:], np.arange(128, dtype=np.int32) * 7)  # st.release.gpu.global.s32


def test_reductions_and_atomics(memory):
    _, _, _, out = memory
    c, q = out["C"], out["Q"]
    assert c[0] == 100  # red.relaxed.gpu.global.add.u32 with pred=tx < 100
    assert c[1] == 128 and np.array_equal(np.sort(q[:128]), np.arange(128))  # atom.add returns the old value
    olds = q[128:256]
    winner = int(c[2]) - 1  # atom.cas: exactly one thread swapped 0 for its tx + 1
    assert 0 <= winner < 128 and olds[winner] == 0
    assert np.count_nonzero(olds == 0) == 1 and np.all(np.delete(olds, winner) == c[2])


def test_mov_b64_packs_and_unpacks(memory):
    _, _, v, out = memory
    tx = np.arange(128, dtype=np.uint64)
    assert np.array_equal(out["U"][:128], (tx * np.uint64(3) << np.uint64(32)) | tx)
    assert np.array_equal(out["Q"][256:384], (v & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    assert np.array_equal(out["Q"][384:512], (v >> np.uint64(32)).astype(np.uint32))


def test_packed_cvt_puts_the_first_operand_high(memory):
    _, f, _, out = memory
    hi = f[:128].astype(np.float16).view(np.uint16).astype(np.uint32)
    lo = f[128:256].astype(np.float16).view(np.uint16).astype(np.uint32)
    assert np.array_equal(out["Q"][512:], (hi << 16) | lo)


def test_shared_vector_store_and_volatile_load(memory):
    _, f, _, out = memory
    smem = np.empty(256, np.float32)
    smem[0::2] = f[:128]
    smem[1::2] = f[1:129]
    assert np.array_equal(out["U"][128:].astype(np.uint32), smem[::-1][:128].view(np.uint32))


def test_mbarrier_phases_elect_and_named_barriers(module):
    import cupy

    R, E, S = cupy.full(16, -1, cupy.int32), cupy.zeros(64, cupy.uint32), cupy.zeros(32, cupy.float32)
    module.barriers(R, E, S)
    cupy.cuda.Device().synchronize()
    # test_wait / try_wait after each arrival (docs in the kernel): a pred=false arrive does not count
    assert list(R.get()[:9]) == [0, 0, 1, 1, 0, 0, 1, 0, 1]
    e = E.get()
    leader = int(e[0])
    assert 0 <= leader < 32 and np.all(e[:32] == leader)  # elect.sync's lane: the same in every lane
    assert np.array_equal(e[32:], (np.arange(32) == leader).astype(np.uint32))
    assert np.array_equal(S.get(), (63 - np.arange(32)).astype(np.float32) * np.float32(0.5))  # bar.arrive -> bar.sync


def test_wgmma_ss_with_a_runtime_zero_scale_then_rs_accumulating(module):
    """wgmma.mma_async m64n8k16: the ss form with scale_d a runtime 0 ignores the garbage
    accumulators; the rs form (A in four registers) with scale_d 1 adds: D = 2 * A @ B."""
    import cupy

    rng = np.random.default_rng(90)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    bt = rng.standard_normal((8, 16)).astype(np.float16)
    D = cupy.zeros((64, 8), cupy.float32)
    module.wgmma_forms(cupy.asarray(a), cupy.asarray(bt), D, 0)
    cupy.cuda.Device().synchronize()
    want = 2 * (a.astype(np.float32) @ bt.astype(np.float32).T)
    assert np.allclose(D.get(), want, rtol=1e-3, atol=1e-3)


def test_preserve_dst_keeps_the_destination_where_the_predicate_is_false(launcher_for):
    """`pred=` with `preserve_dst=True` on ld: threads whose predicate is false keep the
    register's earlier value (the destination is bound read-write)."""
    import cupy

    module = launcher_for("gpu_preserve_dst_b128_reductions_local", (KERNELS / "gpu_preserve_dst_b128_reductions_local.tx").read_text())
    a = np.arange(128, dtype=np.int32) * 11 + 3
    out = cupy.zeros(256, cupy.int32)
    module.keep(cupy.asarray(a), out)
    cupy.cuda.Device().synchronize()
    got = out.get()
    on = np.arange(128) % 3 == 0
    assert np.array_equal(got[:128], np.where(on, a, -5))
    assert np.array_equal(got[128:], np.where(~on, a, -7))


def test_b128_half_precision_and_vector_reductions_and_local_memory(launcher_for):
    """ld / st .b128 as (low, high) halves (stored swapped), an f16x2 add.noftz reduction, a .v4.f32
    reduction, a store and load through .local, and a store to `T.ptx.addr(P.ptr_to([tx]), 8)`."""
    import cupy

    module = launcher_for("gpu_preserve_dst_b128_reductions_local", (KERNELS / "gpu_preserve_dst_b128_reductions_local.tx").read_text())
    u = np.arange(256, dtype=np.uint64) * np.uint64(0x100000001) + np.uint64(7)
    bufs = [cupy.asarray(u), cupy.zeros(256, cupy.uint64), cupy.zeros(4, cupy.uint32), cupy.zeros(4, cupy.float32),
            cupy.zeros(128, cupy.uint32), cupy.zeros(130, cupy.uint32)]
    module.wide(*bufs)
    cupy.cuda.Device().synchronize()
    v, h, f, o, p = (b.get() for b in bufs[1:])
    assert np.array_equal(v.reshape(128, 2), u.reshape(128, 2)[:, ::-1])
    assert h[0] == 0x58005400  # 128 x (1.0 high, 0.5 low) in f16: 128.0 and 64.0
    assert np.array_equal(f, np.array([128, 256, 384, 512], np.float32))
    assert np.array_equal(o, np.arange(128, dtype=np.uint32) * 3)
    assert np.array_equal(p, np.concatenate([[0, 0], np.arange(1, 129)]).astype(np.uint32))
