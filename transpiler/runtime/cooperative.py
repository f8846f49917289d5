"""A cooperative launch, for a kernel that synchronizes its whole grid (`T.cuda.grid_sync()`):
every block must be resident at once, so before a launch the grid is checked against the device's
occupancy for the kernel times its SMs (the description's `cooperative.resident` check), and the
kernel is launched through CUDA's cooperative launch (CuPy's `enable_cooperative_groups`)."""
from __future__ import annotations

from .program import refusal


class CooperativeFunction:
    """A CuPy kernel function called as the launcher calls any other, launched cooperatively."""
    __slots__ = ("name", "function", "device", "spec", "threads", "resident")

    def __init__(self, name: str, function, device: int, spec: dict):
        self.name, self.function, self.device, self.spec = name, function, device, spec
        self.threads = spec["block"][0] * spec["block"][1] * spec["block"][2]
        self.resident = {}  # dynamic shared bytes -> (blocks per SM, SMs)

    def __call__(self, grid, block, args, shared_mem=0):
        per_sm, sms = self.resident.get(shared_mem) or self._occupancy(shared_mem)
        blocks = grid[0] * grid[1] * grid[2]
        if blocks > per_sm * sms:
            raise refusal(self.name, "cooperative.resident", where=self.spec["cooperative"], blocks=blocks,
                          device=self.device, most=per_sm * sms, per_sm=per_sm, sms=sms, threads=self.threads,
                          shared=self.spec["static_shared"] + shared_mem)
        # a RawKernel passes its own `enable_cooperative_groups` (False) to its CUfunction: call that
        getattr(self.function, "kernel", self.function)(grid, block, args, shared_mem=shared_mem,
                                                         enable_cooperative_groups=True)

    def _occupancy(self, shared_mem: int):
        from cupy.cuda import runtime
        from cupy_backends.cuda.api import driver
        sms = runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, self.device)
        # a RawKernel holds its CUfunction in `kernel` (compiled for the current device on first use)
        kernel = getattr(self.function, "kernel", self.function)
        per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.ptr, self.threads, shared_mem)
        self.resident[shared_mem] = (per_sm, sms)
        return per_sm, sms
