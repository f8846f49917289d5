"""Every pure method of `str` and the methods of `dict`, `list` and `tuple` compute CPython's value
and type (CPython's own method, through the whitelist of evaluator/ops.py; dicts:
evaluator/dicts.py), each compared with CPython through the differential tester's harness."""
from __future__ import annotations

import pytest

from tests.pydiff import harness
from tests.pydiff.scenes import Scene

from tests.hostile._util import errors

PROGRAMS = {
    "str padding": ["s0_a = 'ab'.ljust(5, '*')", "s0_b = 'x'.rjust(3)", "s0_c = 'y'.center(6, '-')",
                    "s0_d = '-7'.zfill(4)", "s0_e = 'a\\tbc\\td'.expandtabs(4)"],
    "str search": ["s0_a = 'hello'.find('l')", "s0_b = 'hello'.rfind('l', 0, 3)", "s0_c = 'hello'.index('e')",
                   "s0_d = 'hello'.rindex('l')", "s0_e = 'banana'.count('an', 2)"],
    "str prefixes": ["s0_a = 'prefix'.startswith(('a', 'pr'))", "s0_b = 'x.tx'.endswith('.tx', 1)",
                     "s0_c = 'prefix'.removeprefix('pre')", "s0_d = 'file.tx'.removesuffix('.tx')"],
    "str case": ["s0_a = 'hi there'.title()", "s0_b = 'aBc'.swapcase()", "s0_c = 'ab c'.capitalize()",
                 "s0_d = 'Straße'.casefold()", "s0_e = 'MiXed'.lower() + 'MiXed'.upper()"],
    "str predicates": ["s0_a = ('12'.isdigit(), '1a'.isdigit(), 'ab'.isalpha(), 'a1'.isalnum())",
                       "s0_b = (' \\t'.isspace(), 'AB'.isupper(), 'ab'.islower(), 'Ab Cd'.istitle())",
                       "s0_c = ('x_1'.isidentifier(), '½'.isnumeric(), '3'.isdecimal(), 'é'.isascii())",
                       "s0_d = 'a\\n'.isprintable()"],
    "str split and partition": ["s0_a = 'a b c'.partition(' ')", "s0_b = 'a b c'.rpartition(' ')",
                                "s0_c = 'a,b,c'.rsplit(',', maxsplit=1)", "s0_d = 'a\\nb\\r\\nc'.splitlines()",
                                "s0_e = 'x y'.split(sep=' ')"],
    "str strip": ["s0_a = '  x  '.lstrip()", "s0_b = 'xxaxx'.rstrip('x')", "s0_c = '--a--'.strip('-')"],
    "str translate": ["s0_t = str.maketrans('ab', 'xy', 'c')", "s0_a = 'abcabc'.translate(s0_t)",
                      "s0_b = 'abc'.translate({97: 'AA', 98: None})", "s0_c = (len(s0_t), s0_t[97], s0_t[99])"],
    "dict setdefault get pop": ["s0_d = {'a': 1, 'b': [1, 2]}", "s0_a = s0_d.setdefault('c', 5)",
                                "s0_b = s0_d.setdefault('a', 7)", "s0_c = s0_d.pop('b')", "s0_c.append(3)",
                                "s0_e = (s0_d.pop('zz', 9), s0_d.get('a'), s0_d.get('q'), s0_d)"],
    "dict setdefault shares its value": ["s0_d = {}", "s0_d.setdefault('k', []).append(1)",
                                         "s0_d.setdefault('k', []).append(2)", "s0_a = s0_d"],
    "dict update copy clear": ["s0_d = {'a': 1}", "s0_d.update({'x': 1}, y=2)", "s0_d.update([('k', 4), (5, 6)])",
                               "s0_a = s0_d.copy()", "s0_a['q'] = 1", "s0_b = (s0_d, s0_a)",
                               "s0_c = s0_a.popitem()", "s0_a.clear()", "s0_e = s0_a"],
    "dict fromkeys": ["s0_a = dict.fromkeys(range(3), 0)", "s0_b = {}.fromkeys('ab')",
                      "s0_c = dict.fromkeys(['x', 'y'], [])", "s0_c['x'].append(1)", "s0_d = s0_c['y']"],
    "list and tuple index window": ["s0_a = [1, 2, 1, 2].index(1, 1)", "s0_b = (1, 2, 1).index(1, 1, 3)",
                                    "s0_c = [3, 4, 3].index(3, -1)"],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_method_agrees_with_cpython(name):
    statements = PROGRAMS[name]
    observed = tuple(n for n in ("s0_a", "s0_b", "s0_c", "s0_d", "s0_e") if any(n in s for s in statements))
    verdict = harness.check([Scene(0, "t", tuple(statements), observed)])
    assert verdict.probes and verdict.outcome == "agree", [f.detail for f in verdict.findings]


HEAD = "from tvm.script import tirx as T\nimport os\n"


@pytest.mark.parametrize("call, code", [
    ("'x'.index('y')", "E0137"), ("{}.pop('k')", "E0137"), ("{}.popitem()", "E0137"),
    ("'x'.encode()", "E0306"), ("'x'.format_map({})", "E0306"), ("{1: 2}.update([1])", "E0137"),
    ("dict.fromkeys(os.environ)", "E0344"), ("{}.update(os.environ)", "E0344"),
])
def test_failing_and_refused_methods_are_located_errors(call, code):
    found = errors(HEAD + f"B = {call}\n")
    assert [(line, c) for line, c, _ in found] == [(3, code)], found


def test_a_missing_key_is_not_shown():
    """`dict.pop` of a missing key names no key: it may be a value read from the environment."""
    found = errors(HEAD + "B = {}.pop(os.environ.get('TIRXC_SECRET', 'hidden'))\n")
    assert found and all("hidden" not in message for _, _, message in found)
