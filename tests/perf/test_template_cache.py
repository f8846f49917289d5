"""Jinja keeps the compiled templates in tirxc's cache (transpiler/codegen/jinja.py): a run that
finds them compiles no template and writes the same files, and a cache that cannot be written
changes nothing."""
from __future__ import annotations

from pathlib import Path

import jinja2

from transpiler.codegen.jinja import environment
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


def _cuda(cache: Path, monkeypatch) -> str:
    monkeypatch.setenv("TIRXC_CACHE", str(cache))
    environment.cache_clear()
    try:
        text = (ROOT / "samples" / "saxpy.tx").read_text(encoding="utf-8")
        result = compile_source(SourceFile("saxpy.tx", text))
        assert result.ok
        return result.cuda
    finally:
        environment.cache_clear()


def test_cached_templates_render_the_same(tmp_path, monkeypatch):
    first = _cuda(tmp_path, monkeypatch)
    assert list((tmp_path / "jinja").iterdir())

    def no_compiling(self, *args, **kwargs):
        raise AssertionError("a cached template was compiled again")

    with monkeypatch.context() as patched:
        patched.setattr(jinja2.Environment, "compile", no_compiling)
        assert _cuda(tmp_path, patched) == first


def test_a_cache_that_cannot_be_written_is_left_alone(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert _cuda(blocked, monkeypatch) == _cuda(tmp_path / "fresh", monkeypatch)
