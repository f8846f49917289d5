"""The compiled grammar tables shipped as transpiler/syntax/tables.py (see
transpiler/syntax/tables_gen.py): current, canonical, and only a cache.

Regenerate them after editing grammar/tirx.lark with
`python -m transpiler.syntax.tables_gen --write-tables`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from transpiler import data_text

from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax import grammar, parse, tables_gen
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


def test_shipped_tables_are_current():
    """A stale file would still work (it is rebuilt in memory), but slowly."""
    text = data_text("grammar", "tirx.lark")
    shipped = (Path(tables_gen.__file__).parent / tables_gen.TABLES_MODULE).read_text(encoding="utf-8")
    assert shipped == tables_gen.tables_text(tables_gen.build_tables(text)), \
        f"transpiler/syntax/tables.py is stale: run `{tables_gen.WRITE_COMMAND}`"


def test_tables_say_they_are_generated():
    shipped = (Path(tables_gen.__file__).parent / tables_gen.TABLES_MODULE).read_text(encoding="utf-8")
    assert shipped.startswith("# Generated ") and tables_gen.WRITE_COMMAND in shipped.splitlines()[0]


def test_tables_do_not_depend_on_the_hash_seed():
    code = ("import hashlib, sys; from transpiler import data_text; from transpiler.syntax import tables_gen; "
            "t = tables_gen.tables_text(tables_gen.build_tables(data_text('grammar', 'tirx.lark'))); "
            "print(hashlib.sha256(t.encode()).hexdigest())")
    digests = set()
    for seed in ("1", "2", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_stale_tables_are_rebuilt(monkeypatch):
    stale = dict(grammar.shipped_tables())
    stale["grammar"] += "\n// edited"
    stale["states"] = []  # would break any parse if it were used
    monkeypatch.setattr(grammar, "shipped_tables", lambda: stale)
    tables = grammar.load_tables()
    assert tables["states"] and not tables["grammar"].endswith("// edited")
    rebuilt = grammar.Grammar(tables)
    monkeypatch.setattr(parse, "compiled_grammar", lambda: rebuilt)
    diags = Diagnostics()
    module = parse.parse(SourceFile("k.tx", "x = 1\n"), diags)
    assert module is not None and not diags.has_errors


def test_missing_tables_are_rebuilt(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def without_tables(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "transpiler.syntax.tables":
            raise ImportError(name)
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delitem(sys.modules, "transpiler.syntax.tables", raising=False)
    monkeypatch.setattr(builtins, "__import__", without_tables)
    assert grammar.shipped_tables() is None
    assert grammar.load_tables()["states"]


def test_the_parser_does_not_import_lark():
    """Lark only compiles the grammar; a run with current tables never imports it."""
    code = ("import sys; from transpiler.driver import compile_source; from transpiler.syntax.source import SourceFile; "
            "r = compile_source(SourceFile('k.tx', open(sys.argv[1]).read())); "
            "assert r.ok and r.cuda; print('lark' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "samples" / "saxpy.tx")], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_tables_lex_as_lark_does():
    """The lexer's side of the tables is derived from Lark's serialised
    terminals as its basic lexer derives it (priority order, keywords,
    ignored terminals, line counting): check it against Lark's own lexer."""
    from lark import Lark

    from transpiler.syntax.lexer import Lexer

    text = data_text("grammar", "tirx.lark")
    lark = Lark(text, parser="lalr", lexer="basic", maybe_placeholders=True, start="start")
    compiled = grammar.Grammar(tables_gen.build_tables(text))
    files = sorted(ROOT.glob("samples/*.tx")) + sorted(ROOT.glob("tests/syntax/seed/*.tx"))
    assert files
    for path in files:
        source = path.read_text(encoding="utf-8")
        theirs = [(t.type, t.value, t.start_pos, t.line, t.column, t.end_line, t.end_column)
                  for t in lark.lex(source)]
        lexer = Lexer(compiled, source, path.name)
        ours = [(t.type, t.value, t.start_pos, t.line, t.col, t.end_line, t.end_col) for t in lexer.raw_tokens()]
        assert not lexer.problems, path
        assert ours == theirs, path
