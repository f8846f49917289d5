"""tests/gpu/test_validation.py under `tirxc sim` (tests/sim/gpu/conftest.py)."""
from tests.gpu.test_validation import *  # noqa: F401,F403

pytestmark = []  # not the GPU's mark: these run on the CPU

# The simulator takes NumPy arrays: a host array is what it runs on, not a refusal.
del test_host_array_is_rejected  # noqa: F821
