"""One cost model: every compile-time operation that makes a large value is bounded before it is
made and charged to the file's one step budget, whatever spells it (`**` or `operator.pow`, `*`
or `math.prod`, `+` or `str.join`). Each hostile input ends quickly with a located error that
names the limit."""
from __future__ import annotations

import time

import pytest

from transpiler.evaluator import budget
from transpiler.evaluator.budget import STEP_BUDGET
from transpiler.evaluator.ops import INT_BITS, TEXT_CHARS

from ._util import errors

HEAD = "from tvm.script import tirx as T\nimport copy\nimport math\nimport operator\n"
KERNEL = """
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    T.device_entry()
    {body}
"""
SECONDS = 10  # what the issue allows a hostile input; each takes a fraction of it
SMALL_BUDGET = 10_000  # a lowered step budget: the same limit and code path, reached ten times sooner

_BIG_INTS = {
    "operator.pow": "operator.pow(10, 10**8)",
    "operator.lshift": "operator.lshift(1, 10**10)",
    "math.prod": "math.prod([10**1000] * 10)",
    "math.factorial": "math.factorial(10**6)",
    "math.comb": "math.comb(10**6, 5 * 10**5)",
}
_BIG_TEXTS = {
    "str.join": "'x'.join(['a' * 1000000] * 1000)",
    "str.replace": "('a' * 100000).replace('a', 'b' * 100)",
    "str.ljust": "'x'.ljust(10**9)",
    "str.rjust": "'x'.rjust(10**9, '*')",
    "str.center": "'x'.center(10**9)",
    "str.zfill": "'1'.zfill(10**9)",
    "str.expandtabs": "('\\t' * 100).expandtabs(10**8)",
    "str.translate": "('a' * 100000).translate({97: 'b' * 1000})",
}


@pytest.fixture
def small_budget(monkeypatch):
    """For inputs that run until the step budget is spent, whatever it is: the budget lowered
    (budget.py reads it at each charge), so the test does not pay for the default's 100,000 steps."""
    monkeypatch.setattr(budget, "STEP_BUDGET", SMALL_BUDGET)
    return SMALL_BUDGET


def _errors_in_time(text: str):
    start = time.process_time()
    found = errors(text)
    assert time.process_time() - start < SECONDS
    return found


@pytest.mark.parametrize("name", sorted(_BIG_INTS))
def test_integer_builtins_honour_the_bit_limit(name):
    found = _errors_in_time(HEAD + f"B = {_BIG_INTS[name]}\n")
    assert [(line, code) for line, code, _ in found] == [(5, "E0318")]
    named = {"operator.pow": "**", "operator.lshift": "<<"}.get(name, name)  # (`operator.pow(a, b)` is `a ** b`)
    assert f"`{named}`" in found[0][2] and f"{INT_BITS} bits" in found[0][2]


@pytest.mark.parametrize("name", sorted(_BIG_TEXTS))
def test_string_methods_honour_the_length_limit(name):
    found = _errors_in_time(HEAD + f"B = {_BIG_TEXTS[name]}\n")
    assert [(line, code) for line, code, _ in found] == [(5, "E0318")]
    assert f"`{name}`" in found[0][2] and str(TEXT_CHARS) in found[0][2]


def test_small_results_of_the_same_builtins_are_computed():
    text = HEAD + "B = operator.pow(2, 10) + math.comb(10**6, 2) + len('-'.join(['a'] * 5))\n" + \
        KERNEL.format(body="A[0] = T.float32(B)")
    assert errors(text) == []


def test_deepcopy_of_shared_sublists_is_linear():
    """Each level holds the one below twice: 2^40 paths, 41 objects; CPython's memo copies each
    object once, and so does tirxc's."""
    text = HEAD + "x = []\nfor i in range(40):\n    x = [x, x]\ny = copy.deepcopy(x)\nB = y[0] is y[1]\n" + \
        KERNEL.format(body="A[0] = T.float32(B)")
    assert _errors_in_time(text) == []


@pytest.mark.parametrize("decorator", ["inline", "macro"])
def test_doubling_device_helper_stops_at_the_step_budget(decorator, small_budget):
    text = HEAD + f"""
@T.{decorator}
def boom(A, n: T.int32):
    if n > 0:
        boom(A, n - 1)
        boom(A, n - 1)
    else:
        A[0] = A[0] + 1.0
""" + KERNEL.format(body="boom(A, 30)")
    found = _errors_in_time(text)
    assert {code for _, code, _ in found} == {"E0135"}
    assert f"more than {small_budget} steps" in found[0][2]


def test_the_error_reference_states_the_limits_of_the_code():
    from transpiler.diag.codes import CODES
    from transpiler.evaluator.ops import ITEMS
    assert f"{STEP_BUDGET:,} steps" in CODES["E0135"][1]
    text = CODES["E0318"][1]
    assert f"{INT_BITS} bits" in text and f"{TEXT_CHARS:,} characters" in text and f"{ITEMS:,} items" in text


def test_comparing_a_large_list_again_and_again_draws_from_the_budget():
    """Each `==` converts both lists to CPython's: one step per 64 items, not one per comparison."""
    text = HEAD + "xs = [0] * 60000\nB = [xs == xs for _ in range(50000)]\n" + KERNEL.format(body="A[0] = 1.0")
    assert {code for _, code, _ in _errors_in_time(text)} == {"E0135"}


def test_hashing_a_tuple_built_by_repetition_is_charged_by_its_items(small_budget):
    """`(t,) * 1000` three times over holds 10^9 items for a few thousand steps of construction; a set
    item or dict key is hashed through every one of them, so making it is charged so."""
    for use in ("B = {t3: 1}", "B = len({t3})", "B = t3 in {1: 2}"):
        text = HEAD + "t1 = (0,) * 1000\nt2 = (t1,) * 1000\nt3 = (t2,) * 1000\n" + use + "\n"
        assert {code for _, code, _ in _errors_in_time(text)} == {"E0135"}, use


def test_printing_a_tuple_built_by_repetition_is_bounded_before_it_is_made():
    for use in ("B = str(t3)", "B = f'{t3}'", "B = repr([t3])"):
        found = _errors_in_time(HEAD + "t1 = (0,) * 1000\nt2 = (t1,) * 1000\nt3 = (t2,) * 1000\n" + use + "\n")
        assert [code for _, code, _ in found] == ["E0318"] and str(TEXT_CHARS) in found[0][2], use


def test_keys_of_instances_are_charged_by_their_fields():
    """A frozen dataclass instance is a dict key through its stand-in, hashed by its fields' tuple:
    each key made draws its fields' items from the budget."""
    text = HEAD + "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass C:\n    x: tuple\n" \
        "t = tuple(range(50000))\nB = [{C(t): 1} for _ in range(100000)]\n" + KERNEL.format(body="A[0] = 1.0")
    assert {code for _, code, _ in _errors_in_time(text)} == {"E0135"}


def test_set_operations_draw_their_operands_from_the_budget():
    text = HEAD + "s = set(range(50000))\nB = [len(s | s) for _ in range(1000)]\n" + KERNEL.format(body="A[0] = 1.0")
    assert {code for _, code, _ in _errors_in_time(text)} == {"E0135"}


@pytest.mark.parametrize("text", [
    "B = dict.fromkeys(range(10**9))",
    "B = {}.fromkeys('x' * 1000000, 0)",
    "d = {}\nd.update(zip(range(10**9), range(10**9)))",
    "d = dict.fromkeys(range(50000))\nB = [len(d.copy()) for _ in range(100000)]",
    "d = {}\nfor i in range(10**9):\n    d.setdefault(i, [])",
])
def test_dict_methods_draw_their_items_from_the_budget(text):
    assert {code for _, code, _ in _errors_in_time(HEAD + text + "\n")} == {"E0135"}


def test_string_searches_draw_the_string_from_the_budget():
    """`s.count(x)` makes a small integer but reads all of s: each call is charged by s's length."""
    for use in ("s.count('b')", "s.find('b')", "s.isdigit()", "s.rpartition('b')[0] == ''"):
        text = HEAD + f"s = 'a' * 1000000\nB = [{use} for _ in range(100000)]\n"
        assert {code for _, code, _ in _errors_in_time(text)} == {"E0135"}, use


@pytest.mark.parametrize("kind, seed", [("string", "'ab'"), ("tuple", "(1, 2)")])
def test_doubling_by_plus_stops_at_the_length_limit_of_one_value(kind, seed):
    # `s = s + s` in a loop: the 21st doubling would make 2**21 items, past the limit of one value
    # (before the per-file budget of `+`); the length taken after it must not make a value per item
    text = HEAD + f"s = {seed}\nfor i in range(25):\n    s = s + s\nB = len(s)\n"
    found = _errors_in_time(text)
    assert (7, "E0318") in [(line, code) for line, code, _ in found]
    assert f"{TEXT_CHARS}" in found[0][2]


@pytest.mark.parametrize("text", ["B = {1} * 2", "B = 2 * {1}", "B = [1] + {2}", "B = {1} + [2]"])
def test_a_set_does_not_repeat_or_join_as_a_sequence(text):
    # CPython raises TypeError: a set is no sequence
    assert [code for _, code, _ in errors(HEAD + text + "\n")] == ["E0306"]
