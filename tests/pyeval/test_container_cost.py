"""No list or dict operation escapes the one cost model: each hostile input below (a huge
repetition, a repeated copy, sort or search of a large list, a deep copy of a shared lattice)
ends quickly with a located error naming the step budget, or, where CPython's memo keeps the
work linear, with no error at all."""
from __future__ import annotations

import resource
import time

import pytest

from tests.hostile._util import errors

HEAD = "from tvm.script import tirx as T\nimport copy\n"
SECONDS = 10  # what a hostile input may take; each takes a fraction of it
MEMORY = 1 << 30  # bytes of peak memory a hostile input may reach

_OVER_BUDGET = {
    "repeat": "B = [0] * 10**9",
    "repeat again and again": "xs = [0] * 1000\nB = [xs * 10**6 for _ in range(100)]",
    "repeat in place": "xs = [0]\nxs *= 10**9",
    "repeat in place in a loop": "xs = [0] * 1000\nfor _ in range(10**6):\n    xs *= 1",
    "sorted again and again": "xs = [0] * 1000000\nB = [sorted(xs) for _ in range(1000)]",
    "sort in place again and again": "xs = list(range(1000000))\nfor _ in range(1000):\n    xs.sort(reverse=True)",
    "copy again and again": "xs = [0] * 100000\nfor _ in range(10**6):\n    ys = xs.copy()",
    "slice again and again": "xs = [0] * 100000\nfor _ in range(10**6):\n    ys = xs[:]",
    "deepcopy again and again": "xs = [[0] * 1000]\nfor _ in range(10**6):\n    ys = copy.deepcopy(xs)",
    "str again and again": "xs = list(range(100000))\nB = [str(xs) for _ in range(100000)]",
    "index again and again": "xs = list(range(100000))\nB = [xs.index(99999) for _ in range(100000)]",
    "in again and again": "xs = list(range(100000))\nB = [99999 in xs for _ in range(100000)]",
    "reverse again and again": "xs = [0] * 100000\nfor _ in range(10**6):\n    xs.reverse()",
    "insert at the front again and again": "xs = [0] * 100000\nfor _ in range(10**6):\n    xs.insert(0, 1)",
    "dict == again and again": "d = dict.fromkeys(range(100000))\nB = [d == d for _ in range(100000)]",
}


def _found(text: str):
    start = time.process_time()
    found = errors(HEAD + text + "\n")
    assert time.process_time() - start < SECONDS
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 < MEMORY
    return found


@pytest.mark.parametrize("name", sorted(_OVER_BUDGET))
def test_list_and_dict_operations_stop_at_the_step_budget(name):
    found = _found(_OVER_BUDGET[name])
    assert [code for _, code, _ in found] == ["E0135"]
    assert found[0][0] > 2  # (located on a line of the program, after the imports)


def test_deepcopy_of_a_shared_dict_lattice_is_linear():
    """Each level holds the one below twice: 2^40 paths, 41 objects, each copied once (the memo)."""
    assert _found("x = {}\nfor i in range(40):\n    x = {'a': x, 'b': x}\ny = copy.deepcopy(x)\n"
                  "B = y['a'] is y['b']") == []


def test_an_instance_whose_field_holds_it_compares_without_recursing_for_ever():
    """The conversion of a list goes through each list once, through the fields of the instances it
    holds too (their stand-ins share the memo)."""
    assert _found("from dataclasses import dataclass\n@dataclass\nclass P:\n    x: list\np = P([])\np.x.append(p)\n"
                  "q = [p]\nB = (q == q, p == p, [p] == [P([])])") == []
