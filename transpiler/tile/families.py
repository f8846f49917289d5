"""Every family of variants, imported so that each registers its lowerings in variants.VARIANTS."""
from transpiler.tile import copy  # noqa: F401
from transpiler.tile import gemm  # noqa: F401
from transpiler.tile import copy_async  # noqa: F401
from transpiler.tile import gemm_async  # noqa: F401
from transpiler.tile import permute  # noqa: F401
from transpiler.tile import elementwise  # noqa: F401
from transpiler.tile import reduction  # noqa: F401
from transpiler.tile import reduction_packed  # noqa: F401
from transpiler.tile import fused  # noqa: F401
from transpiler.tile import gemm_tcgen05  # noqa: F401
from transpiler.tile import aliases  # noqa: F401  (TIRx's variant names; after the variants they name)
