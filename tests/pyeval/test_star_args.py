"""`*` unpacking in calls is expanded once, before any handler sees the arguments (evaluator/core.py):
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


def test_star_inside_a_tuple_index_and_a_layout_tuple():
    """`A[(bx, *rest)]` (a tuple display as the index, with slices among the unpacked items) and
    `S[shape : (*strides,)]` expand as Python expands the tuple display: the same CUDA as with the
    items written out."""
    text = ("from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n"
            "from tvm.tirx.layout import S, TileLayout\n\n"
            "STRIDES = (1, 2)\nSL = (slice(0, 2), slice(0, 4))\n"
            "L = TileLayout(S[(2, 4) : (*STRIDES,)])\n\n@T.prim_func\n"
            "def k(A: T.Buffer((3, 2, 4), \"float32\"), B: T.Buffer((2, 4), \"float32\")):\n"
            "    T.device_entry()\n    bx = T.cta_id([1])\n    T.thread_id([1])\n"
            "    R = T.alloc_buffer((2, 4), \"float32\", scope=\"shared\", layout=L)\n"
            "    Tx.copy(R[:, :], A[(bx + 1, *SL)])\n    Tx.copy(B[:, :], R[:, :])\n")
    written = text.replace("A[(bx + 1, *SL)]", "A[bx + 1, 0:2, 0:4]").replace("(*STRIDES,)", "(1, 2)")
    result, plain = transpile(text), transpile(written)
    assert result.ok and plain.ok, [(d.code, d.message) for d in result.diagnostics + plain.diagnostics]
    assert result.cuda == plain.cuda
    assert "R_ptr[" in result.cuda and "(bx * 8) + 8" in result.cuda
    row_major = transpile(written.replace("(1, 2)", "(4, 1)"))
    assert row_major.ok and row_major.cuda != result.cuda  # the strides reach the code
