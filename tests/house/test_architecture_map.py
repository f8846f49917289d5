"""docs/architecture.md is the map of the house: every module of transpiler/ and every folder
of tests/ is on it, and it names nothing that is gone. A module is named by its path under
transpiler/ in backticks (`sema/kernel/prim_func.py`), a test folder as `tests/<folder>/`."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "transpiler"


def _modules() -> set[str]:
    """Every module, except the empty `__init__.py` files that only mark a package."""
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
            if "__pycache__" not in p.parts and not (p.name == "__init__.py" and len(p.read_text().strip()) < 50)}


def _named_modules() -> set[str]:
    """The modules the page names: paths in backticks under one of the packages, or the top-level modules."""
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    tops = {p.name for p in PACKAGE.glob("*.py")}
    found = re.findall(r"`((?:[a-z_0-9]+/)*[a-z_0-9_]+\.py)`", PAGE)
    return {m for m in found if m.split("/")[0] in packages or m in tops}


def test_every_module_is_on_the_map():
    missing = sorted(m for m in _modules() if m not in _named_modules())
    assert missing == [], "add these to docs/architecture.md's module map"


def test_the_map_names_no_module_that_is_gone():
    modules = _modules() | {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("__init__.py")}
    gone = sorted(m for m in _named_modules() if m not in modules and not (ROOT / m).exists())
    assert gone == []


def test_every_test_folder_is_on_the_map():
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    named = set(re.findall(r"`tests/([a-z_0-9]+)/`", PAGE))
    assert sorted(folders - named) == [] and sorted(named - folders) == []
