"""The compiled grammar tables shipped in grammar/tirx.tables.json (see
transpiler/parse.py): current, canonical, and only a cache.

Regenerate them after editing grammar/tirx.lark with
`python -m transpiler.parse --write-tables`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from transpiler import data_text, parse
from transpiler.diagnostics import Diagnostics
from transpiler.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


def test_shipped_tables_are_current():
    """A stale file would still work (it is rebuilt in memory), but slowly."""
    text = data_text("grammar", "tirx.lark")
    shipped = data_text("grammar", parse.TABLES_FILE)
    assert shipped == parse.tables_text(parse.build_tables(text)), \
        "grammar/tirx.tables.json is stale: run `python -m transpiler.parse --write-tables`"


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
    real = data_text

    def stale(package, name):
        text = real(package, name)
        if name == parse.TABLES_FILE:
            tables = json.loads(text)
            tables["grammar"] += "\n// edited"
            tables["states"] = []  # would break any parse if it were used
            return json.dumps(tables)
        return text

    monkeypatch.setattr(parse, "data_text", stale)
    tables = parse._load_tables()
    assert tables["states"] and not tables["grammar"].endswith("// edited")
    grammar = parse._Grammar(tables)
    monkeypatch.setattr(parse, "_grammar", lambda: grammar)
    diags = Diagnostics()
    module = parse.parse(SourceFile("k.tx", "x = 1\n"), diags)
    assert module is not None and not diags.has_errors


def test_missing_tables_are_rebuilt(monkeypatch):
    real = data_text

    def missing(package, name):
        if name == parse.TABLES_FILE:
            raise FileNotFoundError(name)
        return real(package, name)

    monkeypatch.setattr(parse, "data_text", missing)
    assert parse._load_tables()["states"]


def test_the_parser_does_not_import_lark():
    """Lark only compiles the grammar; a run with current tables never imports it."""
    code = ("import sys; from transpiler.driver import compile_source; from transpiler.source import SourceFile; "
            "r = compile_source(SourceFile('k.tx', open(sys.argv[1]).read())); "
            "assert r.ok and r.cuda; print('lark' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "samples" / "saxpy.tx")], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
