"""The launcher's program, which `launch.load` sets: the .tx file it came from, the oldest
architecture (and its suffix, "a" for sm_90a) the CUDA needs, the CUDA source, each kernel's
entry, the target's limits, and the messages of the launch description's checks. The other
modules of the runtime read it here, and word every refusal of a check with `refusal`.
"""
from __future__ import annotations

SOURCE_FILE = ""
LINE_FILE = ""  # the path of SOURCE_FILE that tirxc's `#line` directives in the CUDA give ("" without them)
MIN_ARCH = 0
ARCH_SUFFIX = ""
CUDA_SOURCE = ""
# {name: {"symbol", "args", "keyed", "params", "grid", "block", "static_shared", "dynamic_shared",
# "overlaps"}}
KERNELS = {}
CALLABLES = {}  # {name: the kernel's callable (launch._Kernel)}, which the launcher exports

# From tirxc's target facts: the static shared memory a block has without opting in, the largest
# element index (the kernel indexes with C ints), the blocks a grid takes per dimension (x y z),
# the TMA limits and enumerations.
STATIC_SHARED_LIMIT = 0
INDEX_LIMIT = 0
GRID_LIMITS = ()
TENSOR_MAP_LIMITS = {}
# The launch description's messages: {"kind.case": (error, str.format template)}
MESSAGES = {}


def refusal(kernel: str, key: str, **holes) -> Exception:
    """The exception refusing a call by the check `key`: its message with the holes filled."""
    error, template = MESSAGES[key]
    return (TypeError if error == "type" else ValueError)(template.format(kernel=kernel, **holes))


def describe(value) -> str:
    """An argument's type as a message names it: `numpy.ndarray`."""
    return type(value).__module__.split(".")[0] + "." + type(value).__name__


class NoGPUError(RuntimeError):
    """A launch found no GPU to run on: CuPy is not installed, or CUDA sees no usable device (no
    driver, a driver older than CuPy's CUDA runtime, no device visible). The launcher raises it
    with its own message in place of CuPy's driver error."""


def no_gpu(reason: str) -> NoGPUError:
    return NoGPUError(f"{SOURCE_FILE}: cannot launch its kernels: {reason}")


# CUDA's runtime errors at device discovery, as a user reads them
_CUDA_REASONS = {
    "cudaErrorInsufficientDriver": "no CUDA driver is installed, or it is older than CuPy's CUDA runtime",
    "cudaErrorNoDevice": "CUDA sees no GPU (is CUDA_VISIBLE_DEVICES empty?)",
}


def cuda_reason(err: Exception) -> str:
    """Why CUDA found no device, from the error CuPy raised (`cudaErrorNoDevice: ...`)."""
    text = str(err)
    name = text.split(":", 1)[0].strip()
    return f"{_CUDA_REASONS[name]} ({name})" if name in _CUDA_REASONS else f"CUDA reports: {text}"
