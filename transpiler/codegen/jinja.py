"""The one Jinja environment that renders both output files from templates/."""
from __future__ import annotations

from functools import lru_cache

from transpiler import data_text


@lru_cache(maxsize=None)
def environment():
    import jinja2  # imported when a file is rendered, not when tirxc starts

    loader = jinja2.FunctionLoader(lambda name: data_text("templates", name))
    return jinja2.Environment(loader=loader, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, autoescape=False)
