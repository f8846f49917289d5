"""The part of CuPy the GPU tests use, on NumPy, so that tests/gpu's own test functions (their
arguments, oracles and tolerances) run under `tirxc sim` unchanged (test_gpu_tests_on_cpu.py):
an array "on the device" is a NumPy array (a copy, as a transfer makes one) with `.get()`; the
device calls are no-ops."""
from __future__ import annotations

import types

import numpy

__version__ = "tirxc-sim"


class ndarray(numpy.ndarray):
    """A NumPy array standing for a device array."""

    def get(self):
        return numpy.array(self)


def _device(array) -> ndarray:
    return numpy.array(array, copy=True).view(ndarray)


def asarray(a, dtype=None, order=None):
    return _device(numpy.asarray(a, dtype=dtype, order=order))


def array(a, dtype=None, order="K", copy=True):
    return _device(numpy.array(a, dtype=dtype, order=order))


def asnumpy(a):
    return numpy.array(a)


def _made(name):
    make = getattr(numpy, name)
    return lambda *args, **kwargs: _device(make(*args, **kwargs))


zeros, ones, full, empty, arange, zeros_like, ones_like, empty_like, full_like = map(
    _made, ("zeros", "ones", "full", "empty", "arange", "zeros_like", "ones_like", "empty_like", "full_like"))


class _Device:
    compute_capability = "90"  # tests that need a newer GPU skip; what sm_90 adds is refused by name (E0810)

    def __init__(self, index=0):
        self.id = index

    def synchronize(self):
        pass


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(deviceSynchronize=lambda: None, getDeviceCount=lambda: 1),
)


def __getattr__(name):  # dtypes and the rest of NumPy's namespace the tests name (cupy.float32 ...)
    return getattr(numpy, name)
