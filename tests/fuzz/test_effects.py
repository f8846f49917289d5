"""The side-effect invariant (tests/fuzz/effects.py) on hand-made CUDA: it reports a call
written twice and a call in a `for` condition, counts T.unroll copies, and stays
silent where its bound would not be sound. The real pipeline meets it through
harness.check_input (every fuzz input and tests/fuzz/regressions/side_effect*.tx)."""
from __future__ import annotations

from transpiler.driver import compile_file

from . import effects

HEADER = "from tvm.script import tirx as T\n\n\n@T.prim_func\ndef k(C: T.Buffer((8,), \"int32\"), n: T.int32):\n" \
         "    T.device_entry()\n    tx = T.thread_id([32])\n"
ADD = "T.cuda.atomic_add(C.ptr_to([0]), 1)"


def module(body: str, prefix: str = ""):
    text = prefix + HEADER + "".join(f"    {line}\n" for line in body.split("\n"))
    result = compile_file("k.tx", text.encode(), until="ast")
    assert result.module is not None
    return result.module


def cuda(body: str) -> str:
    return f'// Generated\n\nextern "C" __global__ void __launch_bounds__(32)\nk_kernel(int* __restrict__ C_ptr) {{\n' \
           f"{body}\n}}\n"


def test_a_call_written_twice_is_reported():
    tree = module(f"if 0 < {ADD} < 10:\n    C[1] = 1")
    twice = cuda("  if ((0 < atomicAdd(&C_ptr[0], 1)) && (atomicAdd(&C_ptr[0], 1) < 10)) {\n    C_ptr[1] = 1;\n  }")
    once = cuda("  int t = atomicAdd(&C_ptr[0], 1);\n  if ((0 < t) && (t < 10)) {\n    C_ptr[1] = 1;\n  }")
    assert "`atomicAdd` appears 2 times" in effects.check(tree, twice)
    assert effects.check(tree, once) is None
    assert effects.check(tree, cuda("  C_ptr[1] = 1;")) is None  # fewer is allowed (dead code goes)


def test_ceildiv_min_max_func_call_and_printf():
    src = 'SRC = """\n__device__ int bump(int* p) { return (*p)++; }\n"""\n\n\n'
    tree = module(f"C[1] = T.ceildiv(n, T.cuda.func_call(\"bump\", C.ptr_to([0]), source_code=SRC, "
                  f"return_type=\"int32\"))\nT.cuda.printf(\"%d\", T.max({ADD}, n))", prefix=src)
    bad = cuda("  C_ptr[1] = ((n + bump(&C_ptr[0])) - 1) / bump(&C_ptr[0]);\n"
               "  printf(\"%d\", (atomicAdd(&C_ptr[0], 1) > n) ? atomicAdd(&C_ptr[0], 1) : n);")
    sources = ("__device__ int bump(int* p) { return (*p)++; }",)
    assert "`atomicAdd` appears 2 times" in effects.check(tree, bad, sources)
    good = cuda("  int d = bump(&C_ptr[0]);\n  C_ptr[1] = ((n + d) - 1) / d;\n"
                "  printf(\"%d atomicAdd(\", max(atomicAdd(&C_ptr[0], 1), n));  // printf( atomicAdd(")
    assert effects.check(tree, good, sources) is None  # strings, comments and the pasted source do not count
    assert "`bump` appears 2 times" in effects.check(tree, bad.replace("atomicAdd(&C_ptr[0], 1)", "0"), sources)


def test_unrolled_copies_are_counted():
    tree = module(f"for u in T.unroll(3):\n    for v in T.unroll(1, 3):\n        {ADD}")
    assert effects.check(tree, cuda("\n".join(["  atomicAdd(&C_ptr[0], 1);"] * 6))) is None
    assert "appears 7 times" in effects.check(tree, cuda("\n".join(["  atomicAdd(&C_ptr[0], 1);"] * 7)))
    constant = module(f"for u in T.unroll(N // 2):\n    {ADD}", prefix="N = 4\n\n\n")
    assert effects.check(constant, cuda("\n".join(["  atomicAdd(&C_ptr[0], 1);"] * 2))) is None


def test_a_call_in_a_for_condition_is_reported():
    tree = module(f"for i in range({ADD}):\n    C[1] = i")
    reread = cuda("  for (int i = 0; i < atomicAdd(&C_ptr[0], 1); ++i) {\n    C_ptr[1] = i;\n  }")
    hoisted = cuda("  int stop = atomicAdd(&C_ptr[0], 1);\n  for (int i = 0; i < stop; ++i) {\n    C_ptr[1] = i;\n  }")
    assert "`for` condition" in effects.check(tree, reread)
    assert effects.check(tree, hoisted) is None
    init = cuda("  for (int i = atomicAdd(&C_ptr[0], 1); i < 4; ++i) {\n    C_ptr[1] = i;\n  }")
    assert effects.check(module(f"for i in range({ADD}, 4):\n    C[1] = i"), init) is None


def test_no_sound_bound_no_check():
    doubled = cuda("  atomicAdd(&C_ptr[0], 1);\n  atomicAdd(&C_ptr[0], 1);")
    assert effects.check(module(f"x = T.meta_var({ADD})\nC[1] = x + x"), doubled) is None
    assert effects.check(module(f"for u in T.unroll(n):\n    {ADD}"), doubled) is None
    alias = 'SRC = """\n__device__ int min(int a, int b) { return a; }\n"""\n\n\n'
    tree = module("C[1] = T.cuda.func_call(\"min\", 1, 2, source_code=SRC, return_type=\"int32\")", prefix=alias)
    assert effects.check(tree, cuda("  C_ptr[1] = min(1, 2) + min(n, 3);")) is None
