"""`*` unpacking in calls is expanded once, before any handler sees the arguments (sema/pyeval.py):
a kernel written with `*[... for ...]` and `*(...)` makes the same CUDA, byte for byte, as the
same kernel with the arguments written out (samples/mma_gemm_fp16.tx, whose `T.ptx[...]` calls
take 14 and 5 operands)."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import transpile

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "mma_gemm_fp16.tx"

REWRITES = [
    ("""                        acc[i, j, 0], acc[i, j, 1], acc[i, j, 2], acc[i, j, 3],
                        a_frag[i, 0], a_frag[i, 1], a_frag[i, 2], a_frag[i, 3],
                        b_frag[j, 0], b_frag[j, 1],
                        acc[i, j, 0], acc[i, j, 1], acc[i, j, 2], acc[i, j, 3])""",
     """                        *[acc[i, j, k] for k in range(4)],
                        *(a_frag[i, k] for k in range(4)), *[b_frag[j, 0], b_frag[j, 1]],
                        *[acc[i, j, k] for k in [0, 1, 2, 3] if k >= 0])"""),
    ("""                    a_frag[i, 0], a_frag[i, 1], a_frag[i, 2], a_frag[i, 3],
                    As.ptr_to""",
     """                    *[a_frag[i, k] for k in range(len((1, 2, 3, 4)))],
                    As.ptr_to"""),
]


def test_starred_ptx_operands_make_the_same_cuda():
    text = SAMPLE.read_text(encoding="utf-8")
    starred = text
    for old, new in REWRITES:
        assert old in starred
        starred = starred.replace(old, new)
    plain, unpacked = transpile(text, "mma.tx"), transpile(starred, "mma.tx")
    assert plain.ok and unpacked.ok, [(d.span.line, d.code, d.message) for d in unpacked.diagnostics]
    assert unpacked.cuda == plain.cuda


def test_star_of_a_module_constant_into_a_dialect_call():
    text = ("from tvm.script import tirx as T\n\nIDX = (1, 2)\nKW = {'dtype': 'float32'}\n\n@T.prim_func\n"
            "def k(A: T.Buffer((4, 4), \"float32\")):\n    T.device_entry()\n    tx = T.thread_id([4])\n"
            "    A[tx, 0] = A[*IDX] + T.cast(A[1, 1], **KW)\n")
    result = transpile(text)  # `A[*IDX]` is `A[IDX[0], IDX[1]]` (Python 3.11, as TVMScript evaluates it)
    written = transpile(text.replace("A[*IDX]", "A[IDX[0], IDX[1]]"))
    assert result.ok and written.ok, [(d.code, d.message) for d in result.diagnostics + written.diagnostics]
    assert "A_ptr[(tx * 4)] = A_ptr[6] + A_ptr[5];" in written.cuda
    assert result.cuda == written.cuda
