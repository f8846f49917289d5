"""The generated documentation matches the code: regenerating changes nothing,
and the construct table covers every T.* call tirxc knows."""
from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from tests.conftest import ROOT

GEN = ROOT / "docs" / "gen_docs.py"


@pytest.fixture(scope="module")
def gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", GEN)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_docs"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_regenerating_changes_nothing(gen_docs):
    for path, text in gen_docs.pages().items():
        assert path.read_text(encoding="utf-8") == text, \
            f"{path.relative_to(ROOT)} is stale: run `make docs` (python docs/gen_docs.py) and review the diff"


def test_every_handler_has_a_snippet(gen_docs):
    from transpiler.sema.registry import HANDLERS
    used = set()
    for snippet in gen_docs.all_snippets():
        own = snippet.text.split("\n")[snippet.line - 1:]
        used.update(re.findall(r"\bT\.([A-Za-z_][\w.]*)\s*\(", "\n".join(own)))
    missing = sorted(set(HANDLERS) - used)
    assert not missing, f"T.* calls without a row in docs/constructs/*.tx: {missing}"


def test_shown_lines_come_from_the_generated_cuda(gen_docs):
    """A supported row with `# show` marks quotes at least one line, and only lines of the .cu."""
    for snippet in gen_docs.all_snippets():
        row = gen_docs.build_row(snippet)
        marked = any(line.rstrip().endswith(gen_docs.SHOW_MARK) for line in snippet.text.split("\n"))
        if row.status.startswith("supported") and (marked or snippet.also):
            assert row.cuda, f"{snippet.file}:{snippet.line} quotes no CUDA"
            result = gen_docs.compile_snippet(snippet.file, snippet.text)
            body = {line.strip() for line in result.cuda.split("\n")}
            assert set(row.cuda) <= body


def test_status_is_derived_from_the_diagnostic(gen_docs):
    good = gen_docs.compile_snippet("a.tx", "from tvm.script import tirx as T\n\n@T.prim_func\n"
                                    "def k(A: T.Buffer((32,), \"float32\")):\n    T.device_entry()\n"
                                    "    tx = T.thread_id([32])\n    A[tx] = 1.0  # show\n")
    assert gen_docs.status_of(good) == "supported"
    bad = gen_docs.compile_snippet("b.tx", "from tvm.script import tirx as T\n\n@T.prim_func\n"
                                   "def k(A: T.Buffer((32,), \"float32\")):\n    T.device_entry()\n"
                                   "    tx = T.thread_id([32])\n    T.print_buffer(A)\n")
    assert gen_docs.status_of(bad) == "unsupported (E0518)"


def test_splice_rewrites_only_between_its_markers(gen_docs):
    page = "intro\n<!-- BEGIN GENERATED t -->\nold\n<!-- END GENERATED t -->\noutro\n"
    out = gen_docs.splice(page, "t", "new")
    assert out.startswith("intro\n<!-- BEGIN GENERATED t -->\n") and out.endswith("<!-- END GENERATED t -->\noutro\n")
    assert "new" in out and "old" not in out
    assert gen_docs.splice(out, "t", "new") == out
    with pytest.raises(SystemExit):
        gen_docs.splice("no markers", "t", "x")
