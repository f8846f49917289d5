"""tirxc's own version of TIRx's helper library (`tvm.tirx.lang.pipeline`, `.warp_role`, ...):
`.tx` sources shipped in transpiler/sema/library/, written in the dialect tirxc checks, with the
upstream API. An `import` of such a module never runs anything: the source is parsed once per
process and its module level (imports, constants, functions, classes) evaluated once per checked
file, in a module state of its own; the names it defines are what the import binds. Methods and
functions of the library see the library's names (their scopes), not the user's. Errors reached
inside it are reported at the user's call (classes.relocate)."""
from __future__ import annotations

from dataclasses import replace

from functools import lru_cache

from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax import ast
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.sema.library import classes, macros
from transpiler.sema.expressions import expr
from transpiler.sema.state import ModuleState, at_module_level
from transpiler.evaluator.values import POISON, Binding
from transpiler.sema.values import Namespace

# the modules of TIRx's library tirxc implements -> their source in transpiler/sema/library/
SOURCES = {"pipeline": "pipeline.tx", "tile_scheduler": "tile_scheduler.tx", "warp_role": "warp_role.tx",
           "bench": "bench.tx"}
_PACKAGES = ("tvm.tirx.lang", "tvm.backend.cuda.lang")


@lru_cache(maxsize=None)
def parsed(short: str):
    """The library module's source and syntax tree (parsed once per process)."""
    from importlib import resources  # (with pathlib, tempfile, shutil...: only for a file that imports the library)

    text = resources.files("transpiler.sema.library").joinpath(SOURCES[short]).read_text(encoding="utf-8")
    source = SourceFile(classes.LIBRARY_PREFIX + SOURCES[short], text)
    diags = Diagnostics()
    module = parse(source, diags)
    if module is None or diags.has_errors:  # a bug of tirxc's own source; tests/classes/test_library.py
        raise RuntimeError(f"tirxc's library module {short} does not parse: {diags.items[0].message}")
    return source, module


def _short(module: str, name: str) -> str | None:
    """The library module (of SOURCES) that defines `name` for an import from `module`."""
    if module == "tvm.tirx.bench":  # (a module of its own upstream, beside the `lang` package)
        return "bench" if name in _names("bench") else None
    for package in _PACKAGES:
        if module == package:  # `from tvm.tirx.lang import MBarrier`: any module of the package
            for short in SOURCES:
                if name in _names(short):
                    return short
            return None
        if module.startswith(package + "."):
            short = module[len(package) + 1:]
            return short if short in SOURCES else None
    return None


@lru_cache(maxsize=None)
def _names(short: str) -> frozenset:
    _, module = parsed(short)
    return frozenset(s.name for s in module.body if isinstance(s, (ast.ClassDef, ast.FunctionDef)))


def lookup(ms: ModuleState, module: str, name: str):
    """The value `from <module> import <name>` binds, or None when tirxc's library lacks it."""
    short = _short(module, name)
    if short is None or name.startswith("_"):
        return None
    binding = evaluated(ms, short).get(name)
    return None if binding is None else binding.value


def evaluated(ms: ModuleState, short: str) -> dict:
    """The library module's names (name -> Binding), evaluated once for the checked file `ms`."""
    cache = ms.__dict__.setdefault("library_modules", {})
    if short in cache:
        return cache[short]
    source, module = parsed(short)
    lib = ModuleState(source, ms.diags, None, ms.host)
    lib.target = ms.target
    lib.__dict__["library_modules"] = cache
    cache[short] = lib.globals
    st = at_module_level(lib)
    scopes = (lib.globals,)
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "tvm.script":
            for alias in stmt.names:
                lib.globals[alias.asname or alias.name] = Binding(Namespace(("T",)), "namespace", alias.span)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                lib.globals[alias.asname or alias.name] = evaluated(ms, _short(stmt.module, alias.name))[alias.name]
        elif isinstance(stmt, ast.ClassDef):
            lib.globals[stmt.name] = Binding(classes.define(st, stmt, scopes), "const", stmt.name_span)
        elif isinstance(stmt, ast.FunctionDef):
            helper = macros.define(st, stmt, macros.decorator_kind(st, stmt))
            if helper is not None:
                helper = replace(helper, scopes=scopes)
            lib.globals[stmt.name] = Binding(helper if helper is not None else POISON, "const", stmt.name_span)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
            lib.globals[stmt.target.id] = Binding(expr.elab(st, stmt.value), "const", stmt.target.span)
        elif not (isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant)):
            raise RuntimeError(f"tirxc's library module {short}: unexpected {type(stmt).__name__} statement")
    return lib.globals
