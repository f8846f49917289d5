"""tests/gpu/test_cluster_grid.py under `tirxc sim` (tests/sim/gpu/conftest.py)."""
from tests.gpu.test_cluster_grid import *  # noqa: F401,F403

pytestmark = []  # not the GPU's mark: these run on the CPU
