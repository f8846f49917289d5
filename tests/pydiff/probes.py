"""Observation: scalar probe expressions that pin a CPython value down exactly.

A kernel can store only numbers, so each observed value becomes a list of probes, each a
Python expression over the program's names whose value is an int (stored in the int64
buffer) or a float (in the float64 buffer). The structure of the value (decided here, in
CPython) chooses the probes; their expected values come from CPython evaluating the very
same expressions, so no probe re-implements Python:

* a kind mask per value: `pydiff_kind(x)` (scenes.PROGRAM_IMPORTS: one bit per `isinstance`
  against bool, int, float, str, tuple, list, dict, set, and `x is None`; tirxc has no `type`),
  and `isinstance` against each class of the scene;
* ints in int64 stored as they are; others as sign, bit length and 60-bit chunks;
* floats stored as they are (compared bitwise), with `math.copysign(1.0, x)` for zeros and
  `x != x` for nan;
* strings: `len` and equality with the literal; tuples and lists: `len` and each item;
  dicts: `len`, each key in order (`list(d)[i]`) and the value at each key; sets: `len` and
  membership of each element; dataclass instances: each field; enum members: identity;
* identity: for mutable objects (lists, dicts, sets, instances) reached by two paths,
  `int(p is q)` (1: the sharing that aliasing makes; 0: an equal copy that must stay apart)."""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from .literals import literal

INT64 = (-2 ** 63, 2 ** 63)
CHUNK_BITS = 60
MAX_PROBES_PER_RESULT = 60
MAX_IDENTITY_PROBES = 8


@dataclass(frozen=True)
class Probe:
    expr: str  # a Python expression over the program's names
    buffer: str  # "i": int64 buffer, "f": float64 buffer
    expected: int | float
    scene: int  # index of the scene whose result it observes
    what: str  # kind | value | len | str | key | member | field | enum | identity | sign | nan | bits | chunk


class _Walker:
    def __init__(self, namespace: dict, scene: int, classes: list[str]):
        self.namespace = namespace
        self.scene = scene
        self.classes = classes
        self.probes: list[Probe] = []
        self.mutable_paths: list[tuple[str, object]] = []
        self.budget = 0

    def emit(self, expr: str, what: str, buffer: str = "i") -> None:
        if self.budget <= 0:
            return
        self.budget -= 1
        value = eval(expr, self.namespace)  # noqa: S307 -- our own generated expression over our own program
        if buffer == "i":
            value = int(value)
            if not INT64[0] <= value < INT64[1]:
                raise ValueError(f"probe `{expr}` is outside int64")
        self.probes.append(Probe(expr, buffer, value, self.scene, what))

    def kind_mask(self, path: str) -> None:
        self.emit(f"pydiff_kind({path})", "kind")
        for name in self.classes:
            self.emit(f"int(isinstance({path}, {name}))", "kind")

    def walk(self, path: str, v, depth: int = 0) -> None:
        if depth > 5 or self.budget <= 0 or not _observable(v):
            return
        self.kind_mask(path)
        if isinstance(v, enum.Enum):
            self.emit(f"int({path} is {type(v).__name__}.{v.name})", "enum")
        elif v is None:
            pass
        elif type(v) is bool:
            self.emit(f"int({path})", "value")
        elif type(v) is int:
            self.integer(path, v)
        elif type(v) is float:
            self.emit(path, "value", "f")
            if v == 0:
                self.emit(f"math.copysign(1.0, {path})", "sign", "f")
            if v != v:
                self.emit(f"int({path} != {path})", "nan")
        elif type(v) is str:
            self.emit(f"len({path})", "len")
            self.emit(f"int({path} == {literal(v)})", "str")
        elif type(v) in (list, tuple):
            self.mutable(path, v)
            self.emit(f"len({path})", "len")
            for i, item in enumerate(v):
                self.walk(f"{path}[{i}]", item, depth + 1)
        elif type(v) is dict:
            self.mutable(path, v)
            self.emit(f"len({path})", "len")
            for i, key in enumerate(v):
                self.walk(f"list({path})[{i}]", key, depth + 1)
                text = literal(key)
                if text is not None:
                    self.walk(f"{path}[{text}]", v[key], depth + 1)
        elif type(v) is set:
            self.mutable(path, v)
            self.emit(f"len({path})", "len")
            for text in sorted(t for t in map(literal, v) if t is not None):
                self.emit(f"int({text} in {path})", "member")
        elif dataclasses.is_dataclass(v):
            self.mutable(path, v)
            for f in dataclasses.fields(v):
                self.walk(f"{path}.{f.name}", getattr(v, f.name), depth + 1)

    def integer(self, path: str, v: int) -> None:
        if INT64[0] <= v < INT64[1]:
            self.emit(path, "value")
            return
        self.emit(f"int({path} < 0)", "sign")
        self.emit(f"{path}.bit_length()", "bits")
        for i in range((v.bit_length() + 1 + CHUNK_BITS - 1) // CHUNK_BITS):
            self.emit(f"({path} >> {CHUNK_BITS * i}) & {(1 << CHUNK_BITS) - 1}", "chunk")

    def mutable(self, path: str, v) -> None:
        if type(v) is not tuple:
            self.mutable_paths.append((path, v))


def _observable(v) -> bool:
    if v is None or type(v) in (bool, int, float, str, list, tuple, dict, set):
        return True
    return isinstance(v, enum.Enum) or (dataclasses.is_dataclass(v) and not isinstance(v, type))


def observe(namespace: dict, scene: int, results: tuple[str, ...], classes: list[str]) -> list[Probe]:
    """The probes of one scene's results, CPython's values filled in."""
    walker = _Walker(namespace, scene, classes)
    for name in results:
        if name in namespace:
            walker.budget = MAX_PROBES_PER_RESULT
            walker.walk(name, namespace[name])
    walker.budget = MAX_IDENTITY_PROBES
    first_path: dict[int, str] = {}
    for path, obj in walker.mutable_paths:
        if id(obj) in first_path:
            walker.emit(f"int({first_path[id(obj)]} is {path})", "identity")
        else:
            first_path[id(obj)] = path
    distinct = [(p, o) for p, o in walker.mutable_paths if first_path[id(o)] == p]
    for i, (p, o) in enumerate(distinct):
        for q, other in distinct[i + 1:]:
            if type(o) is type(other) and _equal(o, other):
                walker.emit(f"int({p} is {q})", "identity")
    return walker.probes


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def scene_classes(namespace: dict, prefix: str) -> list[str]:
    """The classes a scene defines (names with its prefix), for the kind mask."""
    return sorted(n for n, v in namespace.items() if n.startswith(prefix) and isinstance(v, type))
