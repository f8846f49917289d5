"""The one Jinja environment that renders both output files from templates/."""
from __future__ import annotations

import os
from functools import lru_cache

from transpiler import cache_root, data_text


@lru_cache(maxsize=None)
def environment():
    import jinja2  # imported when a file is rendered, not when tirxc starts

    loader = jinja2.FunctionLoader(lambda name: data_text("templates", name))
    return jinja2.Environment(loader=loader, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              bytecode_cache=_bytecode_cache(jinja2))


def _bytecode_cache(jinja2):
    """Compiling the kernel's template takes about 8 ms of every run: Jinja keeps the compiled
    code in the user's cache (cache_root()/jinja), one file per template, and uses it only while
    the template's text has the checksum it was compiled from (and the Python version is the
    same), so the output never depends on it. A cache that cannot be read or written is left
    alone: the template is compiled as if there were none."""

    class Cache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, EOFError, ValueError, TypeError):
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                os.makedirs(self.directory, mode=0o700, exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass

    return Cache(os.path.join(cache_root(), "jinja"))
