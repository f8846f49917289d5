"""A `T.ptx` call checked inside a small kernel (for the PTX tests that assert on one statement
beside a table property; whole behaviours are case files, tests/ptx/cases/)."""
from __future__ import annotations

import textwrap

from tests.conftest import transpile

HEADER = "from tvm.script import tirx as T\n\n\n"
PRELUDE = """\
@T.prim_func
def k(A_ptr: T.handle, U_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "int32")
    U = T.match_buffer(U_ptr, (128,), "uint64")
    T.device_entry()
    tx = T.thread_id([128])
    warp_id = T.warp_id([4])
    bar = T.alloc_shared((1,), "uint64")
    r = T.alloc_local((4,), "uint32")
    f = T.alloc_local((64,), "float32")
    b = T.alloc_local((2,), "int8")
    u = T.alloc_local((2,), "uint64")
"""
FIRST = 16  # the line of the body's first statement


def check(body: str, arch: str | None = None):
    text = HEADER + PRELUDE + textwrap.indent(textwrap.dedent(body), "    ")
    options = {"until": "check"}
    if arch:
        options["arch"] = arch
    result = transpile(text, "ptx.tx", **options)
    return result, [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"]


def messages(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]
