"""The compiled grammar tables shipped as transpiler/parse_tables.py (see
transpiler/parse.py): current, canonical, and only a cache.

Regenerate them after editing grammar/tirx.lark with
`python -m transpiler.syntax.parse --write-tables`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from transpiler import data_text

from transpiler.syntax import parse
from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


def test_shipped_tables_are_current():
    """A stale file would still work (it is rebuilt in memory), but slowly."""
    text = data_text("grammar", "tirx.lark")
    shipped = (Path(parse.__file__).parent / parse.TABLES_MODULE).read_text(encoding="utf-8")
    assert shipped == parse.tables_text(parse.build_tables(text)), \
        "transpiler/parse_tables.py is stale: run `python -m transpiler.syntax.parse --write-tables`"


def test_tables_do_not_depend_on_the_hash_seed():
    code = ("import hashlib, sys; from transpiler import data_text, parse; "
            "t = parse.tables_text(parse.build_tables(data_text('grammar', 'tirx.lark'))); "
            "print(hashlib.sha256(t.encode()).hexdigest())")
    digests = set()
    for seed in ("1", "2", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_stale_tables_are_rebuilt(monkeypatch):
    stale = dict(parse._shipped_tables())
    stale["grammar"] += "\n// edited"
    stale["states"] = []  # would break any parse if it were used
    monkeypatch.setattr(parse, "_shipped_tables", lambda: stale)
    tables = parse._load_tables()
    assert tables["states"] and not tables["grammar"].endswith("// edited")
    grammar = parse._Grammar(tables)
    monkeypatch.setattr(parse, "_grammar", lambda: grammar)
    diags = Diagnostics()
    module = parse.parse(SourceFile("k.tx", "x = 1\n"), diags)
    assert module is not None and not diags.has_errors


def test_missing_tables_are_rebuilt(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def without_tables(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "parse_tables" or name.endswith(".parse_tables"):
            raise ImportError(name)
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delitem(sys.modules, "transpiler.syntax.tables", raising=False)
    monkeypatch.setattr(builtins, "__import__", without_tables)
    assert parse._shipped_tables() is None
    assert parse._load_tables()["states"]


def test_the_parser_does_not_import_lark():
    """Lark only compiles the grammar; a run with current tables never imports it (nor json)."""
    code = ("import sys; from transpiler.driver import compile_source; from transpiler.syntax.source import SourceFile; "
            "r = compile_source(SourceFile('k.tx', open(sys.argv[1]).read())); "
            "assert r.ok and r.cuda; print('lark' in sys.modules, 'json' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "samples" / "saxpy.tx")], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"
