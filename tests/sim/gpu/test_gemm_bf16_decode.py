"""tests/gpu/test_gemm_bf16_decode.py under `tirxc sim` (tests/sim/gpu/conftest.py)."""
from tests.gpu.test_gemm_bf16_decode import *  # noqa: F401,F403

pytestmark = []  # not the GPU's mark: these run on the CPU
