"""float6 and float4 buffers take uint8 arrays of one element per byte (tirxc stores sub-byte
elements one to a byte, in the byte's low bits); a dtype that packs two elements to a byte is
refused with that reason. The facts come from the launch description (target/dtypes.py
HOST_ARRAYS): the runtime keeps no dtype table of its own."""
from __future__ import annotations

import pytest

from tests.launcher.test_arguments import FakeArray, _module

SUB_BYTE = '''from tvm.script import tirx as T


@T.prim_func
def narrow(A: T.Buffer((8,), "float4_e2m1fn"), B: T.Buffer((8,), "float6_e2m3fn"),
           C: T.Buffer((8,), "float6_e3m2fn"), D: T.Buffer((8,), "float4_e2m1fn")):
    T.device_entry()
    tx = T.thread_id([8])
    D[tx] = A[tx]
    B[tx] = C[tx]
'''


@pytest.fixture
def narrow(tmp_path):
    return _module(tmp_path, SUB_BYTE, "narrow").narrow


def _args(**changed):
    args = {name: FakeArray((8,), "|u1") for name in "ABCD"}
    args.update(changed)
    return [args[name] for name in "ABCD"]


def test_one_element_per_byte_arrays_are_accepted(narrow):
    assert narrow.launch_config(*_args()) == ((1, 1, 1), (8, 1, 1), 0)


@pytest.mark.parametrize("name", ["A", "B", "C", "D"])
@pytest.mark.parametrize("typestr", ["<f2", "<u2", "|i1", "<f4"])
def test_other_element_types_are_refused(narrow, name, typestr):
    with pytest.raises(TypeError, match=rf"argument '{name}' must have dtype float[46]_e\w+ \(typestr '<u1'\)"):
        narrow.launch_config(*_args(**{name: FakeArray((8,), typestr)}))


class _PackedDtype:
    def __str__(self):
        return "torch.float4_e2m1fn_x2"


class PackedTensor:
    """A tensor of a dtype that packs two fp4 elements into a byte, whose library (as PyTorch's)
    offers no __cuda_array_interface__ for it."""
    dtype = _PackedDtype()

    @property
    def __cuda_array_interface__(self):
        raise TypeError("dtype float4_e2m1fn_x2 has no typestr")


def test_a_packed_fp4_dtype_is_refused_with_its_reason(narrow):
    with pytest.raises(TypeError, match=r"argument 'A' must hold float4_e2m1fn elements, got dtype "
                                        r"float4_e2m1fn_x2: it packs two elements per byte; tirxc stores one "
                                        r"element per byte"):
        narrow.launch_config(*_args(A=PackedTensor()))


def test_the_launch_description_carries_the_element_facts():
    from tests.hostile._util import ok
    launch = ok(SUB_BYTE, "narrow.tx").program.kernels[0].launch
    facts = {p.name: (p.element.dtype, p.element.itemsize, p.element.typestr, bool(p.element.refused))
             for p in launch.params}
    assert facts == {"A": ("float4_e2m1fn", 1, "u1", True), "B": ("float6_e2m3fn", 1, "u1", False),
                     "C": ("float6_e3m2fn", 1, "u1", False), "D": ("float4_e2m1fn", 1, "u1", True)}
