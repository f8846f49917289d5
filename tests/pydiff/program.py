"""A generated program: scenes, run by CPython for the expected probes, and the `.tx` text
whose kernel stores each probe into `out[k]` (int64) or `outf[k]` (float64).

Program `index` of seed `seed` is a pure function of (seed, index): its scenes come from
`random.Random(f"{seed}:{index}")`. The Python part is plain Python: CPython runs it as
it is (scenes.PROGRAM_IMPORTS, no stub needed), tirxc reads it with the TIRx import and
the kernel around it."""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass

from . import probes as probes_mod
from .scenes import PROGRAM_IMPORTS, Scene, prefix, random_scene

HEADER = "from tvm.script import tirx as T\n" + PROGRAM_IMPORTS
KERNEL_HEAD = """

@T.prim_func
def pydiff_kernel(out_ptr: T.handle, outf_ptr: T.handle):
    out = T.match_buffer(out_ptr, ({ints},), "int64")
    outf = T.match_buffer(outf_ptr, ({floats},), "float64")
    T.device_entry()
"""
BUFFERS = {"i": "out", "f": "outf"}


@dataclass
class Built:
    """The `.tx` text, its probes, and which scene each line belongs to."""
    text: str
    probes: list[probes_mod.Probe]
    slots: list[tuple[str, int]]  # (buffer, index) of probe k
    line_scene: dict[int, int]  # 1-based line -> scene index (scene lines and the probe stores)
    kernel_line: int  # the kernel's `def` line: the probe stores come after it


def random_scenes(seed: int, index: int, count: tuple[int, int] = (3, 7)) -> list[Scene]:
    rng = random.Random(f"{seed}:{index}")
    return [random_scene(rng, i) for i in range(rng.randint(*count))]


def run_cpython(scenes: list[Scene]) -> dict:
    """The namespace after CPython ran the program's Python part (raises what it raises)."""
    namespace = {"__name__": "pydiff_program"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(PROGRAM_IMPORTS + "".join(s.text for s in scenes), "<program>", "exec", dont_inherit=True), namespace)
    return namespace


def build(scenes: list[Scene]) -> Built:
    """The `.tx` of the scenes with its probes."""
    namespace = run_cpython(scenes)
    lines = HEADER.splitlines()
    line_scene: dict[int, int] = {}
    probes: list[probes_mod.Probe] = []
    for scene in scenes:
        number = scene.number
        lines.append("")
        for statement in scene.statements:
            for line in statement.splitlines():
                lines.append(line)
                line_scene[len(lines)] = number
        classes = probes_mod.scene_classes(namespace, prefix(number))
        probes += probes_mod.observe(namespace, number, scene.results, classes)
    counts = {"i": 0, "f": 0}
    slots = []
    for p in probes:
        slots.append((p.buffer, counts[p.buffer]))
        counts[p.buffer] += 1
    kernel_line = len(lines) + 3
    lines += KERNEL_HEAD.format(ints=max(1, counts["i"]), floats=max(1, counts["f"])).splitlines()
    for p, (buffer, k) in zip(probes, slots):
        lines.append(f"    {BUFFERS[buffer]}[{k}] = {p.expr}")
        line_scene[len(lines)] = p.scene
    return Built("\n".join(lines) + "\n", probes, slots, line_scene, kernel_line)
