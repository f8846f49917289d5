"""The launcher's tensor maps (transpiler/runtime/tensormap.py, docs/design.md decision 24) without a
GPU: the fields computed and checked per argument shape, what reaches the driver's encoder (a fake
one here), the per-address cache, and the caller's maps of `T.TensorMap()` parameters."""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.test_launch import FakeArray, buffer, fresh_runtime, kernel_of
from transpiler.target import tma


def _entry(strides=(lambda v: v["m"] * 4,)):
    mapped = {"name": "A_map", "c_name": "A_map", "kind": "tensormap", "dtype": "uint64", "buffer": "A",
              "data_type": 7, "dims": (128, "m"), "strides": strides, "box": (32, 16), "element_strides": (1, 1),
              "interleave": 0, "swizzle": 0, "l2_promotion": 0, "oob_fill": 0}
    return {"symbol": "k_kernel", "args": ["A"], "keyed": [], "grid": lambda v: (1, 1, 1), "block": (32, 1, 1),
            "static_shared": 0, "dynamic_shared": 0, "overlaps": [],
            "params": [buffer("A", ("m", 128), align=4), {"name": "m", "c_name": "m", "kind": "extent",
                                                           "dtype": "int32"}, mapped]}


def _runtime():
    runtime = fresh_runtime()
    runtime.TENSOR_MAP_LIMITS.update(tma.limits())
    return runtime


def test_the_fields_follow_the_arguments_extents(monkeypatch):
    runtime = _runtime()
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    values, _, _ = kernel._bind((FakeArray((40, 128)),))
    fields = runtime.tensor_map_fields(kernel, kernel.spec["params"][2], values)
    assert fields == (7, 2, (128, 40), (512,), (32, 16), (1, 1), 0, 0, 0, 0)


def test_a_stride_tma_cannot_take_is_refused_naming_the_map():
    runtime = _runtime()
    kernel = kernel_of(runtime, _entry())
    values, _, _ = kernel._bind((FakeArray((33, 128)),))
    with pytest.raises(ValueError, match="tensor map 'A_map' would have the byte stride 132 in dimension 1"):
        runtime.tensor_map_fields(kernel, kernel.spec["params"][2], values)


def test_an_empty_extent_is_refused():
    runtime = _runtime()
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    values, _, _ = kernel._bind((FakeArray((0, 128)),))
    with pytest.raises(ValueError, match="extent 0 in dimension 1"):
        runtime.tensor_map_fields(kernel, kernel.spec["params"][2], values)


class _FakeEncoder:
    """Records the driver call and writes a recognisable map."""

    def __init__(self, result=0):
        self.calls, self.result = [], result

    def __call__(self, out, data_type, rank, address, dims, strides, box, element_strides, *enums):
        import ctypes
        self.calls.append((data_type, rank, address.value, list(dims), list(strides)[:rank - 1], list(box),
                           list(element_strides), enums))
        ctypes.memset(out.value, len(self.calls), 128)
        return self.result


def test_a_map_is_encoded_once_per_address():
    runtime = _runtime()
    encoder = runtime._ENCODER[0] = _FakeEncoder()
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    param = kernel.spec["params"][2]
    fields = (7, 2, (128, 40), (512,), (32, 16), (1, 1), 0, 3, 2, 0)

    class Plan:
        tensor_maps = [(2, 0, param, fields, {})]

    for address in (1 << 20, 1 << 20, 2 << 20):
        values = [np.uint64(address), None, None]
        runtime.attach_tensor_maps(kernel, Plan, values)
        assert isinstance(values[2], np.void) and values[2].nbytes == 128
    assert [call[2] for call in encoder.calls] == [1 << 20, 2 << 20]
    assert encoder.calls[0] == (7, 2, 1 << 20, [128, 40], [512], [32, 16], [1, 1], (0, 3, 2, 0))


def test_a_refusal_of_the_driver_is_an_error_naming_the_map():
    runtime = _runtime()
    runtime._ENCODER[0] = _FakeEncoder(result=1)
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    with pytest.raises(ValueError, match=r"the CUDA driver refused tensor map 'A_map' \(CUresult 1\)"):
        runtime.encode_tensor_map(kernel, kernel.spec["params"][2], (7, 2, (128, 40), (512,), (32, 16), (1, 1),
                                                                      0, 0, 0, 0), 1 << 20)


def test_a_misaligned_address_is_refused_before_the_driver_sees_it():
    runtime = _runtime()
    encoder = runtime._ENCODER[0] = _FakeEncoder()
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    with pytest.raises(ValueError, match="data pointer 0x100004 is not 16-byte aligned"):
        runtime.encode_tensor_map(kernel, kernel.spec["params"][2], (7, 2, (128, 40), (512,), (32, 16), (1, 1),
                                                                      0, 0, 0, 0), (1 << 20) + 4)
    assert not encoder.calls


def test_a_callers_map_is_its_128_bytes():
    runtime = _runtime()
    kernel = kernel_of(runtime, _entry(strides=(512,)))
    param = {"name": "tmap", "c_name": "tmap", "kind": "tensormap", "dtype": "uint64"}
    raw = bytes(range(128))
    for value in (raw, bytearray(raw), np.frombuffer(raw, dtype=np.dtype((np.void, 128)))[0]):
        assert bytes(runtime.tensor_map_argument(kernel, param, value)) == raw
    for wrong in (b"short", 7, None):
        with pytest.raises(TypeError, match="argument 'tmap' must be an encoded tensor map"):
            runtime.tensor_map_argument(kernel, param, wrong)


def test_tensor_map_reads_the_arrays_interface_outermost_first():
    runtime = _runtime()
    encoder = runtime._ENCODER[0] = _FakeEncoder()
    array = FakeArray((32, 64), typestr="<u2", address=1 << 20)
    encoded = runtime.tensor_map(array, (8, 16), dtype="bfloat16", swizzle=1)
    assert encoded.nbytes == 128
    # the driver's order: innermost dimension first, byte strides of dimensions 1.., bfloat16 = 9
    assert encoder.calls == [(9, 2, 1 << 20, [64, 32], [128], [16, 8], [1, 1], (0, 1, 0, 0))]
    with pytest.raises(ValueError, match="a box is 1 to 256 elements per dimension, not 300"):
        runtime.tensor_map(array, (300, 16))
    with pytest.raises(ValueError, match="the box \\(8,\\) has 1 dimensions, the array 2"):
        runtime.tensor_map(array, (8,))
