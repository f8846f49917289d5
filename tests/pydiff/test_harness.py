"""Unit tests of the differential tester itself: reading constants back from the `.cu`,
the probes that pin a value down, the outcome classes, the generator's determinism."""
from __future__ import annotations

import math

import pytest

from . import cuda_values, harness, probes, program
from .scenes import Scene


@pytest.mark.parametrize("text, value", [
    ("5LL", 5), ("(-5LL)", -5), ("-5LL", -5), ("0LL", 0), ("9223372036854775807LL", 2 ** 63 - 1),
    ("(-9223372036854775807LL - 1)", -2 ** 63), ("-9223372036854775807LL - 1", -2 ** 63), ("7", 7),
])
def test_parse_int(text, value):
    assert cuda_values.parse_int(text) == value


@pytest.mark.parametrize("text", ["9223372036854775808LL", "((long long)x)", "tx", "1.0", "5u", ""])
def test_parse_int_refuses_what_is_not_an_int64_constant(text):
    assert cuda_values.parse_int(text) is cuda_values.UNPARSED


@pytest.mark.parametrize("text, value", [
    ("0.1", 0.1), ("(-0.5)", -0.5), ("-0.0", -0.0), ("0.0", 0.0), ("1.0e300", 1e300), ("5.0e-324", 5e-324),
    ("1.7976931348623157e308", 1.7976931348623157e308), ("CUDART_INF", math.inf), ("-CUDART_INF", -math.inf),
    ("(-CUDART_INF)", -math.inf), ("0.30000000000000004", 0.30000000000000004), ("1.0e16", 1e16),
])
def test_parse_float(text, value):
    assert cuda_values.same_float(cuda_values.parse_float(text), value)


def test_parse_float_nan_and_signed_zero():
    assert math.isnan(cuda_values.parse_float("CUDART_NAN"))
    assert math.copysign(1.0, cuda_values.parse_float("-0.0")) == -1.0
    assert not cuda_values.same_float(0.0, -0.0)
    assert cuda_values.same_float(math.nan, -math.nan)
    for text in ("CUDART_NAN_F", "1.5f", "((double)x)", "1"):
        assert cuda_values.parse_float(text) is cuda_values.UNPARSED


def test_stores_read_every_store():
    cuda = "  out_ptr[0] = 3LL;\n  outf_ptr[0] = -0.0;\n  out_ptr[2] = (-9223372036854775807LL - 1);\n"
    found = cuda_values.stores(cuda)
    assert found[("i", 0)] == [3] and found[("i", 2)] == [-2 ** 63] and ("i", 1) not in found
    assert math.copysign(1.0, found[("f", 0)][0]) == -1.0


def _probes(source: str, names: tuple[str, ...]) -> list[probes.Probe]:
    namespace = program.run_cpython([Scene(0, "t", (source,), names)])
    return probes.observe(namespace, 0, names, probes.scene_classes(namespace, "s0_"))


def test_probes_of_floats_pin_sign_and_nan():
    found = _probes("s0_z = -0.0\ns0_n = math.nan", ("s0_z", "s0_n"))
    kinds = [(p.expr, p.expected) for p in found]
    assert ("s0_z", -0.0) in kinds and ("math.copysign(1.0, s0_z)", -1.0) in kinds
    assert ("int(s0_n != s0_n)", 1) in kinds
    assert ("pydiff_kind(s0_z)", 4) in kinds


@pytest.mark.parametrize("value", [2 ** 200 + 12345, -(2 ** 100) - 7, 2 ** 63, -(2 ** 63) - 1])
def test_probes_of_huge_ints_recover_the_value(value):
    found: dict[str, list[int]] = {}
    for p in _probes(f"s0_a = {value}", ("s0_a",)):
        found.setdefault(p.what, []).append(p.expected)
    assert found["sign"] == [int(value < 0)] and found["bits"] == [value.bit_length()]
    rebuilt = sum(chunk << (probes.CHUNK_BITS * i) for i, chunk in enumerate(found["chunk"]))
    if value < 0:
        rebuilt -= 1 << (probes.CHUNK_BITS * len(found["chunk"]))
    assert rebuilt == value
    assert all(-2 ** 63 <= v < 2 ** 63 for vs in found.values() for v in vs)


def test_probes_of_containers_and_aliasing():
    found = {p.expr: p.expected for p in _probes("s0_x = [1, 'ab']\ns0_y = s0_x\ns0_d = {2: [s0_x], 'k': {3}}",
                                                  ("s0_x", "s0_y", "s0_d"))}
    assert found["pydiff_kind(s0_x)"] == 32 and found["len(s0_x)"] == 2 and found["s0_x[0]"] == 1
    assert found["int(s0_x[1] == 'ab')"] == 1 and found["pydiff_kind(s0_x[0])"] == 2
    assert found["int(s0_x is s0_y)"] == 1 and found["int(s0_x is s0_d[2][0])"] == 1
    assert found["int(list(s0_d)[1] == 'k')"] == 1
    assert found["int(3 in s0_d['k'])"] == 1 and found["len(s0_d['k'])"] == 1


def test_probes_of_equal_copies_check_they_stay_apart():
    found = {p.expr: p.expected for p in _probes("s0_x = [1]\ns0_y = list(s0_x)", ("s0_x", "s0_y"))}
    assert found["int(s0_x is s0_y)"] == 0


def test_probes_of_classes():
    source = ("@dataclass\nclass s0_C:\n    x: int\nclass s0_E(Enum):\n    R = 1\n"
              "s0_a = s0_C(2)\ns0_b = s0_E.R")
    found = {p.expr: p.expected for p in _probes(source, ("s0_a", "s0_b"))}
    assert found["int(isinstance(s0_a, s0_C))"] == 1 and found["s0_a.x"] == 2
    assert found["int(s0_b is s0_E.R)"] == 1 and found["int(isinstance(s0_b, s0_C))"] == 0


def _check(*statements: str) -> harness.Verdict:
    scene = Scene(0, "t", statements, tuple(sorted({w for s in statements for w in s.split() if w.startswith("s0_")})))
    return harness.check([scene])


def test_outcome_agree():
    verdict = _check("s0_a = [1, 2.5, 'x', None, (2 ** 70, -0.0)]")
    assert verdict.outcome == "agree" and verdict.probes > 10


def test_none_key_keeps_the_stores():
    """`None in d` once dropped every store that used it (a silently wrong kernel): None is a key."""
    assert _check("s0_a = None in {1: 2}").outcome == "agree"
    assert _check("s0_a = '{}'.format(None)").outcome == "agree"


def _plant_error(monkeypatch, name: str = "min") -> None:
    """Make tirxc's builtin `name` fail with an error that is not a refusal by name (a wrong error)."""
    from transpiler.evaluator import builtins
    run, low, high, keywords = builtins._TABLE[name]
    monkeypatch.setitem(builtins._TABLE, name, (lambda st, node, args, kwargs: builtins._fail(st, node, "planted"),
                                                low, high, keywords))


def test_outcome_refused_and_wrong_error(monkeypatch):
    assert _check("s0_a = 'ab'.encode()").outcome == "refused"
    assert _check("s0_a = list({'ab', 'c', 'd'})").outcome == "refused"  # (CPython's order changes per run)
    _plant_error(monkeypatch)
    assert _check("s0_a = min(6, 4)").outcome == "wrong-error"


def test_difference_behind_an_error_is_found(monkeypatch):
    """A difference planted in tirxc (`abs` off by one) is found behind another scene's error."""
    from transpiler.evaluator import builtins
    run, low, high, keywords = builtins._TABLE["abs"]
    planted = (lambda st, node, args, kwargs: builtins.PyConst(run(st, node, args, kwargs).value + 1), low, high,
               keywords)
    monkeypatch.setitem(builtins._TABLE, "abs", planted)
    _plant_error(monkeypatch)
    scenes = [Scene(0, "t", ("s0_a = min(6, 4)",), ("s0_a",)), Scene(1, "u", ("s1_a = abs(-3)",), ("s1_a",))]
    verdict = harness.check(scenes)
    assert verdict.outcome == "wrong-error" and verdict.hidden_differences
    assert {f.signature.split(" ")[0] for f in verdict.findings} == {"wrong-error", "differ"}


def test_generator_is_deterministic_and_valid_python():
    for index in range(30):
        scenes = program.random_scenes(5, index)
        assert scenes == program.random_scenes(5, index)
        built = program.build(scenes)
        compile(built.text, "<tx>", "exec")
        assert all(isinstance(p.expected, (int, float)) for p in built.probes)
