"""The wheel carries every package of the source tree: a package missing from pyproject.toml's
list installs without error and fails at the first import (as transpiler/target/ptx/ once did)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_package_of_the_tree_is_in_the_wheel():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"(transpiler(?:\.\w+)*)"', text.split("[tool.setuptools.package-dir]")[0]))
    packages = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "transpiler").rglob("__init__.py")}
    assert packages - listed == set()
