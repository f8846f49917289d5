"""The launcher rejects bad arguments before anything reaches the GPU."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def saxpy(launcher_for):
    return launcher_for("saxpy").saxpy


def test_wrong_dtype_is_rejected(saxpy):
    import cupy
    x, y = cupy.zeros(128, cupy.float64), cupy.zeros(128, cupy.float32)
    with pytest.raises(TypeError, match=r"argument 'x' must have dtype float32.*'<f8'"):
        saxpy(2.0, x, y)


def test_inconsistent_extent_is_rejected(saxpy):
    import cupy
    with pytest.raises(ValueError, match=r"extent 'n' is 128 .* argument 'y' has shape \(127,\)"):
        saxpy(2.0, cupy.zeros(128, cupy.float32), cupy.zeros(127, cupy.float32))


def test_non_contiguous_is_rejected(saxpy):
    import cupy
    x = cupy.zeros(256, cupy.float32)[::2]
    with pytest.raises(ValueError, match=r"argument 'x' must be contiguous"):
        saxpy(2.0, x, cupy.zeros(128, cupy.float32))


def test_misaligned_is_rejected(launcher_for):
    import cupy
    copy = launcher_for("float4_copy").float4_copy
    a = cupy.zeros((9, 4), cupy.float32).ravel()[1:33].reshape(8, 4)
    with pytest.raises(ValueError, match=r"argument 'A' must be 16-byte aligned"):
        copy(a, cupy.zeros((8, 4), cupy.float32))


def test_host_array_is_rejected(saxpy):
    import cupy
    import numpy
    with pytest.raises(TypeError, match=r"argument 'x' must be a GPU array"):
        saxpy(2.0, numpy.zeros(8, numpy.float32), cupy.zeros(8, cupy.float32))


def test_torch_tensors_are_accepted(saxpy):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    y = torch.ones(1000, dtype=torch.float32, device="cuda")
    saxpy(2.0, x, y)
    torch.cuda.synchronize()
    assert torch.allclose(y, 2.0 * torch.arange(1000, dtype=torch.float32, device="cuda") + 1)


def test_large_dynamic_shared_memory_sets_the_attribute(launcher_for):
    kernel = launcher_for("dyn_smem_large").dyn_smem_large
    assert kernel.spec["dynamic_shared"] == 65536


def test_an_array_reshaped_in_place_is_checked_again(saxpy):
    """CuPy's `shape` can be set in place: the launcher's cached checks must see it."""
    import cupy
    x, y = cupy.ones(600, cupy.float32), cupy.zeros(600, cupy.float32)
    saxpy(2.0, x, y)
    x.shape = (2, 300)
    with pytest.raises(ValueError, match=r"argument 'x' must have 1 dimensions"):
        saxpy(2.0, x, y)
    cupy.cuda.runtime.deviceSynchronize()
    assert float(y.sum()) == 1200.0


def test_bfloat16_and_float8_scalars_arrive_as_their_bits(launcher_for):
    import cupy
    from tests.launcher.test_arguments import BITS_SCALARS
    scale = launcher_for("bits_scalars", BITS_SCALARS).scale
    a = cupy.full(256, 0x3F80, cupy.uint16)  # bfloat16 1.0
    scale(a, 0x4000, 0x38)                    # * 2.0 (bfloat16) + 1.0 (float8_e4m3fn)
    cupy.cuda.runtime.deviceSynchronize()
    assert (a == 0x4040).all()               # bfloat16 3.0


def test_with_two_devices_each_launches_on_its_own_and_mixed_arrays_are_refused(launcher_for):
    """The launcher's one-device shortcut must not apply with several devices: the current
    device is asked at every call, each device gets its own module, and an array on another
    device than the current one is refused."""
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices")
    saxpy = launcher_for("saxpy").saxpy
    for device in (0, 1, 0):
        with cupy.cuda.Device(device):
            x, y = cupy.arange(300, dtype=cupy.float32), cupy.ones(300, cupy.float32)
            saxpy(2.0, x, y)
            assert y.device.id == device and float(y[299]) == 599.0
    with cupy.cuda.Device(0):
        x = cupy.zeros(300, cupy.float32)
    with cupy.cuda.Device(1):
        y = cupy.zeros(300, cupy.float32)
        with pytest.raises(ValueError, match=r"argument 'x' is on device 0, but the current device is 1"):
            saxpy(2.0, x, y)
