"""Tile-primitive dispatch: between the checker and lowering, each `Tx.*` call becomes the
buffer-level code of one of its variants (dispatch.py; the variants by family: tile/copy/variants.py ...)."""
