"""Scenes: the units a generated program is made of.

A scene is a few module-level statements of one construct family, written as a template
(scenes_values.py, scenes_objects.py) whose placeholders are filled at random:

* `$a` ... `$h` (one lower-case letter): the scene's variables, each observed at the end;
* `$F`, `$C` ... (one capital): helpers and classes of the scene, not observed;
* `$int`, `$ilist`, `$fmt` ... (literals.GENERATORS): a fresh random literal at each use;
  with a digit (`$int1`) the same literal at each use within the scene.

Names get the scene's prefix (`s3_a`), so scenes of one program never share a name, and a
diagnostic's line tells which scene it is about. A template whose instance CPython cannot run
(a `ZeroDivisionError`, a format spec that does not fit the value) is drawn again."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from . import literals

_PLACEHOLDER = re.compile(r"\$([A-Za-z]+)(\d?)")


@dataclass(frozen=True)
class Scene:
    number: int  # the scene's place in its program: its names have the prefix `s{number}_`
    tag: str  # family:variant, with the operand kinds where they matter (the failure signature's root)
    statements: tuple[str, ...]  # module-level statements, each possibly several lines
    results: tuple[str, ...]  # the observed variables, in order

    @property
    def text(self) -> str:
        return "\n".join(self.statements) + "\n"


def prefix(number: int) -> str:
    return f"s{number}_"


def instantiate(tag: str, template: list[str], number: int, rng: random.Random) -> Scene:
    """The template's statements with every placeholder filled."""
    prefix_text = prefix(number)
    cache: dict[str, str] = {}
    results: list[str] = []

    def fill(match: re.Match) -> str:
        name, digit = match.group(1), match.group(2)
        if len(name) == 1:
            full = f"{prefix_text}{name}"
            if name.islower() and full not in results:
                results.append(full)
            return full + digit
        key = name + digit
        if digit and key in cache:
            return cache[key]
        generator = literals.GENERATORS[name]
        text = generator(rng)
        if digit:
            cache[key] = text
        return text

    statements = tuple(_PLACEHOLDER.sub(fill, s) for s in template)
    return Scene(number, tag, statements, tuple(results))


def family_tables():
    from . import scenes_objects, scenes_values
    return {**scenes_values.TEMPLATES, **scenes_objects.TEMPLATES}


_TABLES = None

PROGRAM_IMPORTS = ("import copy\nimport math\nimport operator\nimport functools\n"
                   "from dataclasses import dataclass, field, replace, asdict, astuple, fields\n"
                   "from enum import Enum, IntEnum\n"
                   "\n\n"
                   "def pydiff_kind(x):\n"  # the kind mask of probes.py, one bit per builtin type and None
                   "    return (int(isinstance(x, bool)) + 2 * int(isinstance(x, int)) + 4 * int(isinstance(x, float))\n"
                   "            + 8 * int(isinstance(x, str)) + 16 * int(isinstance(x, tuple)) + 32 * int(isinstance(x, list))\n"
                   "            + 64 * int(isinstance(x, dict)) + 128 * int(isinstance(x, set)) + 256 * int(x is None))\n")


def runs_in_cpython(scene: Scene) -> bool:
    """Whether CPython runs the scene alone without an exception (or a warning), to values of the subset."""
    import warnings
    namespace = {"__name__": "pydiff_scene"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(PROGRAM_IMPORTS + scene.text, "<scene>", "exec", dont_inherit=True), namespace)
    except Exception:
        return False
    # a complex number (`(-8) ** 0.5`) is outside the subset: tirxc refusing it is right
    return not any(isinstance(namespace.get(name), complex) for name in scene.results)


def random_scene(rng: random.Random, number: int, tries: int = 30) -> Scene:
    """A scene CPython runs: a construct drawn uniformly (`arith:/`), then one of its templates
    (`arith:/ int,big`), filled at random."""
    global _TABLES
    if _TABLES is None:
        grouped: dict[str, list] = {}
        for tag, template in sorted(family_tables().items()):
            grouped.setdefault(tag.split(" ")[0], []).append((tag, template))
        _TABLES = sorted(grouped.items())
    for _ in range(tries):
        tag, template = rng.choice(rng.choice(_TABLES)[1])
        scene = instantiate(tag, template, number, rng)
        if runs_in_cpython(scene):
            return scene
    return instantiate("trivial:int", ["$a = $small"], number, rng)
