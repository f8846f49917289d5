"""tests/gpu/test_remote_barrier.py under `tirxc sim` (tests/sim/gpu/conftest.py)."""
from tests.gpu.test_remote_barrier import *  # noqa: F401,F403

pytestmark = []  # not the GPU's mark: these run on the CPU
