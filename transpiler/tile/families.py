"""Every family of variants, imported so that each registers its lowerings in registry.VARIANTS:
each family's variants.py (which also registers TIRx's names of its variants, tile/aliases.py)."""
from transpiler.tile.copy import variants as copy  # noqa: F401
from transpiler.tile.gemm import variants as gemm  # noqa: F401
from transpiler.tile.copy_async import variants as copy_async  # noqa: F401
from transpiler.tile.gemm_async import variants as gemm_async  # noqa: F401
from transpiler.tile.permute import variants as permute  # noqa: F401
from transpiler.tile.elementwise import variants as elementwise  # noqa: F401
from transpiler.tile.reduction import variants as reduction  # noqa: F401
from transpiler.tile.fused import variants as fused  # noqa: F401
