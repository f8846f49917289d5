"""`copy_async` (asynchronous copies: the caller completes them): every variant of
docs/tile-primitives.md's copy_async section, one module each, registered by importing them."""
from transpiler.tile.copy_async import tma as copy_async_tma  # noqa: F401
from transpiler.tile.copy_async import ldgsts as copy_async_ldgsts  # noqa: F401
from transpiler.tile.copy_async import dsmem as copy_async_dsmem  # noqa: F401
from transpiler.tile.copy_async import tcgen05 as copy_async_tcgen05  # noqa: F401
