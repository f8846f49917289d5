"""Identifiers that are C, C++ or CUDA keywords, built-ins, functions the printer
calls, macros of the C library and CUDA headers, tirxc's own generated names,
names from inline CUDA, or not ASCII: in every role a source name can play
(kernel, handle, scalar, symbolic extent, buffer, thread id, `T.let`, scalar
variable, shared and register arrays, loop variable) they are renamed, never
broken C; the `.cu` compiles with nvcc (marker `nvcc`). A kernel may take any
ASCII name but a `__dunder__` (E0203): the launcher's own names live in its
runtime's namespace, apart from the kernels'."""
from __future__ import annotations

import re

import pytest

from tests.fuzz.harness import nvcc_check
from transpiler.target.cnames import RESERVED, c_name, is_safe, source_code_names

from ._util import FakeArray, declared_c_names, errors, load_launcher, nvcc_mark, ok

NAMES = [
    # C / C++ keywords and alternative tokens (Python keywords cannot reach the checker)
    "int", "float", "char", "double", "void", "long", "short", "unsigned", "signed", "const", "static", "struct",
    "union", "enum", "typedef", "sizeof", "goto", "switch", "case", "default", "do", "auto", "register",
    "volatile", "extern", "inline", "restrict", "new", "delete", "this", "template", "typename", "namespace",
    "operator", "friend", "virtual", "using", "asm", "typeof", "decltype", "nullptr", "constexpr", "xor",
    "bitand", "not_eq", "compl", "or_eq", "char8_t", "concept", "requires", "co_await", "_Bool", "_Pragma",
    "_Alignas", "bool", "true", "false",
    # CUDA types and built-in variables
    "float4", "float2", "int4", "uint4", "double2", "char4", "uchar4", "longlong2", "dim3", "half", "half2",
    "nv_bfloat16", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "uint32_t", "size_t",
    # functions the printer emits, and the inline function of the kernel below
    "printf", "main", "min", "max", "abs", "expf", "exp", "sqrtf", "sqrt", "fmaxf", "atomicAdd",
    "__syncthreads", "__trap", "my_relu", "fabsf", "hexp",
    # macros (C library, CUDA headers, GNU predefined)
    "NULL", "EOF", "INFINITY", "NAN", "CHAR_BIT", "INT_MAX", "FLT_MAX", "CUDART_INF_F", "linux", "unix",
    "errno", "stdout", "offsetof", "alloca", "cudaStreamDefault",
    # tirxc's helper names
    "tirx_floordiv", "tirx_floormod", "tirx_bits", "tirx_elect_sync", "__x",
    # not ASCII (NVRTC rejects such identifiers)
    "\u00e9t\u00e9", "\u6838", "\u03b1",
]
# Names that look like the ones tirxc derives (`smem` -> `smem_ptr`, a second `tx` -> `tx_1`): they
# may be used as they are, but never twice in one scope (nvcc would reject a redeclaration).
LOOKALIKES = ["A_ptr", "X_ptr", "smem_ptr", "regs_ptr", "acc_ptr", "kern_kernel", "tx_1", "regs_ptr_1", "i_1",
              "bx", "n_1"]

DEFAULTS = dict(kname="kern", handle="X_ptr", scalar="s", fscalar="f", ext="n", buf="X", tid="tx", let="i",
                acc="acc", sh="smem", loc="regs", loop="j")
ROLES = [r for r in DEFAULTS if r != "kname"]

KERNEL = '''
@T.prim_func
def {kname}({handle}: T.handle, {scalar}: T.int32, {fscalar}: T.float32):
    {ext} = T.int32()
    {buf} = T.match_buffer({handle}, ({ext},), "float32")
    T.device_entry()
    bx = T.cta_id([T.ceildiv({ext}, 128)])
    {tid} = T.thread_id([128])
    {let}: T.let = bx * 128 + {tid}
    {acc}: T.float32 = 0.0
    {sh} = T.alloc_shared((128,), "float32")
    {loc} = T.alloc_local((4,), "float32")
    for {loop} in range(4):
        {loc}[{loop}] = T.float32({loop}) * {fscalar}
        {acc} = {acc} + {loc}[{loop}]
    {sh}[{tid}] = {acc} + T.float32(T.floordiv({let}, {scalar}) + T.floormod({let}, 7))
    T.cuda.cta_sync()
    if {let} < {ext}:
        {buf}[{let}] = T.cuda.func_call("my_relu", {sh}[({tid} + 1) % 128], source_code=SRC,
                                        return_type="float32") + T.exp({acc}) + T.sqrt({acc}) + T.max({acc}, 1.0)
'''
HEADER = '''from tvm.script import tirx as T

SRC = r"""
__device__ __forceinline__ float my_relu(float x) { return x > 0.f ? x : 0.f; }
"""
'''


def kernel(role: str, name: str, kname: str = "kern") -> str:
    values = dict(DEFAULTS, kname=kname)
    values[role] = name
    return KERNEL.format(**values)


@pytest.mark.parametrize("role", ROLES)
def test_hostile_names_are_renamed_in_every_role(role):
    text = HEADER + "".join(kernel(role, name, f"kern{i}") for i, name in enumerate(NAMES))
    result = ok(text)
    declared = declared_c_names(result.cuda)
    assert declared, "no declarations found: the pattern of declared_c_names is out of date"
    for name in NAMES:
        assert name not in declared, f"`{name}` is declared in C as it is ({role})"
    for name in declared:
        assert name.isascii() and re.fullmatch(r"[A-Za-z_]\w*", name), name
        assert name not in RESERVED and not name.startswith("tirx_"), name


def test_hostile_names_compile_with_nvcc(request):
    """Every name in three different roles (kernels whose every role has a hostile name),
    in one file: one nvcc run."""
    for m in nvcc_mark:
        request.applymarker(m)
    kernels = []
    per_kernel = len(ROLES)
    for rotation in range(3):
        for j in range(-(-len(NAMES) // per_kernel)):
            values = dict(DEFAULTS, kname=f"k{rotation}_{j}")
            for k, role in enumerate(ROLES):
                values[role] = NAMES[(j * per_kernel + k + rotation * 5) % len(NAMES)]
            kernels.append(KERNEL.format(**values))
    cuda = ok(HEADER + "".join(kernels)).cuda
    message = nvcc_check(cuda)
    assert message is None, message


# (role, name) pairs that are source-level errors: the name is bound twice in the .tx file itself
_CLASHES = {("handle", "X_ptr"), ("buf", "X_ptr"), ("ext", "X_ptr"), ("scalar", "X_ptr"), ("fscalar", "X_ptr"),
            ("let", "X_ptr"), ("acc", "X_ptr"), ("sh", "X_ptr"), ("loc", "X_ptr"), ("loop", "X_ptr"),
            ("tid", "X_ptr"), ("let", "bx"), ("acc", "bx"), ("sh", "bx"), ("loc", "bx"), ("loop", "bx"),
            ("tid", "bx"), ("ext", "bx"), ("scalar", "bx"), ("fscalar", "bx"), ("handle", "bx"), ("buf", "bx")}


@pytest.mark.parametrize("role", ROLES)
def test_lookalike_names_are_never_declared_twice(role):
    names = [n for n in LOOKALIKES if (role, n) not in _CLASHES]
    cuda = ok(HEADER + "".join(kernel(role, name, f"kern{i}") for i, name in enumerate(names))).cuda
    for body in cuda.split("extern \"C\"")[1:]:
        declared = re.findall(r"(?:\b(?:int|float)\*?\s+(?:__restrict__\s+)?|float\s+)([A-Za-z_]\w*)\s*(?=[=;\[,)])",
                              body)
        assert len(declared) == len(set(declared)), sorted(declared)


_REJECTED = re.compile(r"kernel name `.*` is not ASCII|a kernel cannot be named")


@pytest.mark.parametrize("name", NAMES)
def test_hostile_kernel_names_work_or_are_rejected_by_name(name, tmp_path):
    text = HEADER + kernel("buf", "X", name)
    expect_rejection = not name.isascii() or (name.startswith("__") and name.endswith("__"))
    if expect_rejection:
        found = errors(text)
        assert found and found[0][1] == "E0203" and _REJECTED.search(found[0][2]), found
        return
    result = ok(text)
    assert f"{name}_kernel(" in result.cuda
    module = load_launcher(tmp_path, result.launcher)
    kernel_object = getattr(module, name)
    assert kernel_object.name == name and module.__all__ == [name]
    assert kernel_object.launch_config(FakeArray((300,)), 3, 1.5) == ((3, 1, 1), (128, 1, 1), 0)


@pytest.mark.parametrize("name", ["__all__", "__name__", "__init__", "__getattr__", "__tirxc_runtime__",
                                  "\u6838"])
def test_dunder_and_non_ascii_kernel_names_are_rejected(name):
    found = errors(HEADER + kernel("buf", "X", name))
    assert [code for _, code, _ in found] == ["E0203"], found


@pytest.mark.parametrize("name", ["max", "min", "sum", "abs", "copy", "add", "main", "kernel", "gemm", "relu",
                                  "self", "args", "stream", "values", "float4", "threadIdx",
                                  # the launcher's own names once, which its runtime's namespace keeps apart
                                  "os", "len", "int", "tuple", "KERNELS", "_Kernel", "_module", "SOURCE_FILE",
                                  "CUDA_SOURCE", "threading", "annotations", "CALLABLES", "load", "types",
                                  "exec", "compile", "vars", "module_getattr", "_tirxc_runtime"])
def test_ordinary_kernel_names_are_accepted(name, tmp_path):
    result = ok(HEADER + kernel("buf", "X", name))
    module = load_launcher(tmp_path, result.launcher)
    assert getattr(module, name).launch_config(FakeArray((300,)), 3, 1.5)[0] == (3, 1, 1)


def test_kernel_symbol_declared_by_inline_cuda_is_rejected():
    src = 'SRC = r"""\n__device__ float f_kernel(float x) { return x; }\n"""\n'
    text = HEADER + src + kernel("buf", "X", "f").replace('"my_relu"', '"f_kernel"')
    found = errors(text)
    assert any(code == "E0203" and "declares `f_kernel`" in message for _, code, message in found), found


def test_kernel_symbol_declared_by_a_positional_source_is_rejected():
    # the newer spelling passes the source as the last positional argument
    src = 'SRC = r"""\n__device__ float f_kernel(float x) { return x; }\n"""\n'
    text = HEADER + src + kernel("buf", "X", "f").replace('"my_relu"', '"f_kernel"').replace(
        "], source_code=SRC,", "], SRC,")
    assert "], SRC," in text
    found = errors(text)
    assert any(code == "E0203" and "declares `f_kernel`" in message for _, code, message in found), found


def test_a_local_named_like_the_inline_function_is_renamed():
    result = ok(HEADER + kernel("let", "my_relu"))
    assert "int my_relu_ = (bx * 128) + tx;" in result.cuda
    assert "my_relu(smem_ptr[" in result.cuda


def test_names_declared_by_inline_cuda():
    names = source_code_names('''
#define SCALE 2
// not_a_function(
__device__ __forceinline__ float twice(float v) { return v * SCALE; /* inner( */ }
typedef struct { int a; } Pair;
__device__ int counter = 0;
template <typename T> __device__ T third(T x, int k) { return x; }
''')
    assert {"SCALE", "twice", "Pair", "counter", "third"} <= names
    assert "not_a_function" not in names and "inner" not in names and "float" not in names


@pytest.mark.parametrize("name, expected", [
    ("x", "x"), ("int", "int_"), ("NULL", "NULL_"), ("N", "N"), ("BM", "BM"), ("TILE", "TILE_"),
    ("_Bool", "u_Bool_"), ("__x", "__x_"), ("tirx_floordiv", "utirx_floordiv_"), ("\u00e9t\u00e9", "u00e9tu00e9"),
    ("float4", "float4_"), ("linux", "linux_"), ("cudaMalloc", "cudaMalloc_"), ("acc", "acc"),
])
def test_c_name_rule(name, expected):
    assert c_name(name) == expected
    assert is_safe(name) == (name == expected)


def test_renamed_names_stay_unique():
    """`int` becomes `int_`; a source name `int_` next to it gets a counter, not the same name."""
    text = HEADER + kernel("acc", "int").replace("    T.cuda.cta_sync()\n",
                                                 "    int_: T.float32 = 1.0\n    T.cuda.cta_sync()\n"
                                                 "    smem[tx] = smem[tx] + int_\n")
    cuda = ok(text).cuda
    assert "float int_ptr[1];" in cuda and "float int__ptr[1];" in cuda
    text = HEADER + kernel("let", "int").replace("    T.cuda.cta_sync()\n",
                                                 "    int_: T.let = int + 1\n    T.cuda.cta_sync()\n"
                                                 "    smem[tx] = smem[tx] + T.float32(int_)\n")
    cuda = ok(text).cuda
    assert "int int_ = (bx * 128) + tx;" in cuda and "int int__1 = int_ + 1;" in cuda
