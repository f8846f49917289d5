"""Every sample's `.cu` compiles with nvcc, warnings as errors, for sm_80 and
sm_90a, or for sm_100a when its header says it needs Blackwell (marker `nvcc`;
skipped without nvcc on PATH).

Dead declarations, sign-compare and narrowing problems, unused helpers and
the like are nvcc warnings, so `-Werror all-warnings` makes them failures.
The compiles are object-only (`-c`) and run in parallel once per session, the
files of an architecture together in a few nvcc runs (tests/nvcc_batch.py: a
file that fails there is compiled alone); each (sample, arch) pair is then its
own test with nvcc's message on failure.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import SAMPLES, has_nvcc, transpile
from tests.build_cache import compile_cuda
from tests.nvcc_batch import compile_many
from tests.emit.test_golden import generate

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

ARCHS = ("sm_80", "sm_90a", "sm_100a")
SAMPLE_FILES = sorted(SAMPLES.glob("*.tx"))
FLAGS = ("-std=c++17", "-Werror", "all-warnings", "-c")


# Printer and lowering corners no sample reaches (literals of every kind, bit
# casts, printf, descending and sign-unknown loops, floor helpers, unrolled
# lets, dropped calls with side effects, typed arena views, vector registers,
# vector reads of read-only parameters through `const` casts):
# the C they produce must compile too.
FEATURES = '''\
from tvm.script import tirx as T

SRC = r"""
__device__ __forceinline__ int bump(int* p) { return atomicAdd(p, 1); }
"""

SRC64 = r"""
__device__ __forceinline__ int32_t add64(uint64_t* p, int32_t k) {
  atomicAdd(p, (uint64_t)k);
  return k + int32_t(1) + (int32_t)uint64_t(2);
}
"""


@T.prim_func
def literals(F_ptr: T.handle, D_ptr: T.handle, H_ptr: T.handle, B_ptr: T.handle, U_ptr: T.handle, L_ptr: T.handle):
    F = T.match_buffer(F_ptr, (64,), "float32")
    D = T.match_buffer(D_ptr, (64,), "float64")
    H = T.match_buffer(H_ptr, (64,), "float16")
    B = T.match_buffer(B_ptr, (64,), "bfloat16")
    U = T.match_buffer(U_ptr, (64,), "uint32")
    L = T.match_buffer(L_ptr, (64,), "int64")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    F[tx] = F[tx] * T.float32(0.1) + T.float32(1e-30) - T.float32(3.4028234663852886e38) + T.float32("inf")
    F[tx] = T.max(F[tx], T.float32("-inf")) + T.float32("nan") + T.float32(1e39)
    D[tx] = D[tx] * T.float64(0.1) + T.float64(1e300) + T.float64("-inf")
    H[tx] = H[tx] * T.float16(0.1) + T.float16("inf") + T.max(H[tx], T.float16(0)) + T.exp(H[tx])
    B[tx] = B[tx] * T.bfloat16(0.5) + T.cast(H[tx], "bfloat16")
    U[tx] = (U[tx] & T.uint32(0xFFFF0000)) | T.uint32(7) | T.reinterpret("uint32", F[tx] * T.float32(2))
    L[tx] = L[tx] * T.int64(3) - T.int64(5) + T.cast(tx, "int64") // T.int64(4) + T.int64(-9223372036854775807) - T.int64(1)
    F[tx] = T.reinterpret("float32", U[tx] + T.uint32(1)) + T.sigmoid(F[tx]) + T.float32(T.isnan(F[tx]))
    H[tx] = T.sigmoid(H[tx])


@T.prim_func
def control(A_ptr: T.handle, C_ptr: T.handle, m: T.int32, step: T.int32):
    A = T.match_buffer(A_ptr, (64,), "int32")
    C = T.match_buffer(C_ptr, (1,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    warp = T.warp_id([2])
    lane = T.lane_id([32])
    s: T.int32 = 0
    for k in range(10, 0, -1):
        s += k
    for k in range(m, 0, -2):
        s += k // 2 + k % 4
    for k in range(0, m, step):
        s += k // 3 - tx // 3 + (tx - 64) // 4 + s // 2 + (tx - 64) // 3 + k % m
    for k in T.unroll(3):
        t: T.let = tx - 1 + k
        s += A[t % 64]
    unused: T.let = T.cuda.func_call("bump", C.ptr_to([0]), source_code=SRC, return_type="int32")
    A[tx] = s + warp + lane
    T.cuda.printf("tx=%d s=%d\\n", tx, s)
    assert tx < 64, "tx out of range"


@T.prim_func
def memory(A_ptr: T.handle, H_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "float32", align=16)
    H = T.match_buffer(H_ptr, (64,), "float16", align=4)
    C = T.match_buffer(C_ptr, (256,), "float32", align=16)
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    arena = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    As = T.decl_buffer((64,), "float32", data=arena.data, scope="shared.dyn")
    Hs = T.decl_buffer((64,), "float16", data=arena.data, byte_offset=256, scope="shared.dyn", align=128)
    Vs = T.decl_buffer((256,), "float32", data=arena.data, scope="shared.dyn")
    r = T.alloc_local((4,), "float32", align=16)
    r.vstore([0], A.vload([tx * 4], dtype="float32x4"))
    As[tx] = r[0] + r[3]
    h2 = T.alloc_local((2,), "float16", align=4)
    h2.vstore([0], H.vload([tx // 2 * 2], dtype="float16x2"))
    Hs[tx] = h2[tx % 2]
    T.cuda.cta_sync()
    C[tx] = As[tx] + T.cast(Hs[tx], "float32")
    T.cuda.cta_sync()
    Vs.vstore([tx * 4], r.vload([0], dtype="float32x4"))
    T.cuda.cta_sync()
    C.vstore([tx * 4], Vs.vload([(63 - tx) * 4], dtype="float32x4"))
'''


NARROW = '''\
@T.prim_func
def narrow(A_ptr: T.handle, S_ptr: T.handle, H_ptr: T.handle, U_ptr: T.handle, Q_ptr: T.handle, L_ptr: T.handle,
           I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "uint8")
    S = T.match_buffer(S_ptr, (64,), "int8")
    H = T.match_buffer(H_ptr, (64,), "uint16")
    U = T.match_buffer(U_ptr, (64,), "uint32")
    Q = T.match_buffer(Q_ptr, (64,), "uint64")
    L = T.match_buffer(L_ptr, (64,), "uint64")
    I = T.match_buffer(I_ptr, (64,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    A[tx] = (A[tx] + A[tx + 1]) // T.uint8(2) + ((~A[tx]) >> 4) + T.min(A[tx] * A[tx], A[tx + 2])
    S[tx] = T.truncdiv(S[tx], S[tx + 1]) + (S[tx] << 2) + T.abs(S[tx] - S[tx + 1]) - (S[tx] // S[tx + 1])
    H[tx] = H[tx] * H[tx + 1] + T.Select(H[tx] - H[tx + 1] > H[tx], H[tx] ^ H[tx + 1], H[tx])
    I[tx] = T.clz(A[tx]) + T.popcount(S[tx]) + T.clz(H[tx]) + T.int32(U[tx]) // 3 + T.int32(T.abs(U[tx]))
    Q[tx] = T.abs(Q[tx]) + T.uint64(T.cuda.func_call("add64", L.ptr_to([tx]), I[tx], source_code=SRC64,
                                                      return_type="int32"))


@T.prim_func
def fp8(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, F_ptr: T.handle, P_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float8_e4m3fn")
    B = T.match_buffer(B_ptr, (64,), "float8_e5m2")
    C = T.match_buffer(C_ptr, (64,), "int32")
    F = T.match_buffer(F_ptr, (64,), "float32")
    P = T.match_buffer(P_ptr, (64,), "float4_e2m1fn")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    A[tx] = A[tx] + A[tx] * A[tx + 1] - T.max(A[tx], A[tx + 1]) / T.min(A[tx], T.float8_e4m3fn(0.3))
    A[tx + 1] = -A[tx] + T.abs(A[tx]) + T.exp(A[tx])
    B[tx] = T.cast(A[tx], "float8_e5m2") + T.float8_e5m2(1.5)
    P[tx] = T.cast(B[tx], "float4_e2m1fn") + P[tx]
    if A[tx] < A[tx + 1] and B[tx] != T.float8_e5m2(0.0):
        C[tx] = T.int32(A[tx])
    F[tx] = T.float32(A[tx]) + T.float32(B[tx]) + T.sigmoid(F[tx])
'''


def targets(cuda: str) -> tuple[str, ...]:
    """The architectures a file is compiled for: sm_80 and sm_90a where its recorded minimum
    allows them, sm_100a for Blackwell-only files."""
    match = re.search(r"// Minimum architecture: sm_(\d+)", cuda)
    minimum = int(match.group(1)) if match else 0
    if minimum >= 100:
        return ("sm_100a",)
    return tuple(arch for arch in ("sm_80", "sm_90a") if int(arch[3:].rstrip("a")) >= minimum)


def nvcc(cu_path, arch: str, out_dir=None) -> tuple[int, str]:
    """`arch` "sm_90a": `-gencode arch=compute_90a,code=sm_90a`; "sm_90a plain": `-arch=sm_90a`, whose
    extra generic compute_90 pass the arch-specific helpers must survive (they trap there). Results
    are cached by content (tests/build_cache.py); out_dir is not needed any more."""
    arch, _, plain = arch.partition(" ")
    number = arch[3:]  # arch-specific targets (sm_90a, sm_100a) need the matching virtual architecture
    target = [f"-arch={arch}"] if plain else ["-gencode", f"arch=compute_{number},code=sm_{number}"]
    return compile_cuda(Path(cu_path).read_text(encoding="utf-8"), [*target, *FLAGS], name=Path(cu_path).stem)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(sample stem, arch) -> (return code, nvcc output), compiled in parallel."""
    out_dir = tmp_path_factory.mktemp("nvcc")
    jobs = []
    for sample in SAMPLE_FILES:
        cu = out_dir / f"{sample.stem}.cu"
        cuda = generate(sample)
        cu.write_text(cuda, encoding="utf-8")
        # an arch-specific file compiles with the plain `-arch=` only: its passes are the
        # `-gencode` compile's (the same preprocessing, cicc, ptxas and host passes, same flags)
        # plus the generic one, so its success is the `-gencode` test's too (test_sample_compiles)
        specific = re.search(r"// Minimum architecture: sm_\d+a", cuda) is not None
        jobs.extend((sample.stem, cu, f"{arch} plain" if specific and arch.endswith("a") else arch)
                    for arch in targets(cuda))
    features = transpile(FEATURES + NARROW, name="features.tx")
    assert features.ok, [(d.span.line, d.code, d.message) for d in features.diagnostics]
    cu = out_dir / "features.cu"
    cu.write_text(features.cuda, encoding="utf-8")
    jobs.extend(("features", cu, arch) for arch in ("sm_80", "sm_90a"))
    # the `-gencode` compiles of an architecture: a few nvcc runs for all files (tests/nvcc_batch.py)
    by_arch: dict[str, dict[str, str]] = {}
    for stem, cu, arch in jobs:
        if not arch.endswith(" plain"):
            by_arch.setdefault(arch, {})[stem] = cu.read_text(encoding="utf-8")
    plain = [job for job in jobs if job[2].endswith(" plain")]

    def run(task):
        if isinstance(task, str):  # an architecture's batch
            number = task[3:]
            flags = ["-gencode", f"arch=compute_{number},code=sm_{number}", *FLAGS]
            return {(stem, task): result for stem, result in compile_many(by_arch[task], flags).items()}
        stem, cu, arch = task
        return {(stem, arch): nvcc(cu, arch, out_dir)}

    tasks = [*by_arch, *plain]
    with ThreadPoolExecutor(max_workers=max(2, min(len(tasks), os.cpu_count() or 2))) as pool:
        return {key: result for done in pool.map(run, tasks) for key, result in done.items()}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_sample_compiles(compiled, sample, arch, tmp_path):
    if (sample.stem, arch) in compiled:
        code, output = compiled[(sample.stem, arch)]
    elif (sample.stem, f"{arch} plain") in compiled:
        code, output = compiled[(sample.stem, f"{arch} plain")]
        if code != 0:  # the generic pass alone may have failed: the `-gencode` compile decides
            cu = tmp_path / f"{sample.stem}.cu"
            cu.write_text(generate(sample), encoding="utf-8")
            code, output = nvcc(cu, arch)
    else:
        pytest.skip(f"{sample.stem} is not built for {arch} (its minimum architecture)")
    assert code == 0, f"nvcc -arch={arch} {' '.join(FLAGS)} {sample.stem}.cu failed:\n{output}"


ARCH_SPECIFIC = [p for p in SAMPLE_FILES if re.search(r"// Minimum architecture: sm_\d+a", generate(p))]


@pytest.mark.parametrize("sample", ARCH_SPECIFIC, ids=lambda p: p.stem)
def test_arch_specific_sample_compiles_with_plain_arch(compiled, sample):
    """`nvcc -arch=sm_90a` (or sm_100a) also runs a generic pass without the family's instructions."""
    for (stem, arch), (code, output) in compiled.items():
        if stem == sample.stem and arch.endswith(" plain"):
            assert code == 0, f"nvcc -arch={arch.split()[0]} {' '.join(FLAGS)} {stem}.cu failed:\n{output}"
            return
    pytest.fail(f"{sample.stem} was not compiled with a plain -arch")


@pytest.mark.parametrize("arch", ("sm_80", "sm_90a"))
def test_feature_kernels_compile(compiled, arch):
    code, output = compiled[("features", arch)]
    assert code == 0, f"nvcc -arch={arch} {' '.join(FLAGS)} features.cu failed:\n{output}"


def test_nvcc_rejects_a_warning(tmp_path):
    """The flags have teeth: an unused variable (what dead-declaration removal
    prevents) fails the build."""
    cu = tmp_path / "probe.cu"
    cu.write_text('extern "C" __global__ void probe(float* p) {\n  int unused = ((int)threadIdx.x);\n'
                  '  p[0] = 1.0f;\n}\n', encoding="utf-8")
    code, output = nvcc(cu, "sm_80", tmp_path)
    assert code != 0 and "177" in output, output
