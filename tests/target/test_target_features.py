"""The target object (transpiler/target/target.py): what `sm_90`, `sm_90a`, `sm_100a`, `sm_100f`,
`sm_120a` ... parse to, which instruction families each has (target/arch.py's FEATURES and
SPECIFIC tables), what a kernel using a family records as its minimum architecture, and the
no-target case (`Target.ANY`, dispatch's `Target.within`)."""
from __future__ import annotations

import pytest

from transpiler.target.target import Target


@pytest.mark.parametrize("text, number, suffix", [
    ("sm_90", 90, ""), ("sm_90a", 90, "a"), ("sm_100a", 100, "a"), ("sm_100f", 100, "f"),
    ("sm_120", 120, ""), ("sm_120a", 120, "a"), (" sm_80 ", 80, ""),
])
def test_parse(text, number, suffix):
    target = Target.parse(text)
    assert (target.number, target.suffix, target.named) == (number, suffix, True)
    assert target.name == text.strip()


@pytest.mark.parametrize("text", ["sm_90b", "90", "sm_", "compute_90", "sm_9", "sm_1000"])
def test_parse_refuses_what_names_no_architecture(text):
    assert Target.parse(text) is None


@pytest.mark.parametrize("target, tcgen05, wgmma, multicast, tma, clusters", [
    ("sm_80", False, False, False, False, False),
    ("sm_90", False, False, False, True, True),
    ("sm_90a", False, True, True, True, True),
    ("sm_100", False, False, False, True, True),
    ("sm_100a", True, False, True, True, True),
    ("sm_100f", True, False, True, True, True),
    ("sm_103a", True, False, True, True, True),
    ("sm_120", False, False, False, True, True),
    ("sm_120a", False, False, False, True, True),
])
def test_feature_questions(target, tcgen05, wgmma, multicast, tma, clusters):
    t = Target.parse(target)
    assert (t.tensor_memory, t.wgmma, t.tma_multicast, t.tma, t.clusters) == (tcgen05, wgmma, multicast, tma, clusters)
    assert t.has("tcgen05") == tcgen05 and t.allows("tcgen05") == tcgen05


def test_no_target_named_allows_every_family_and_surely_has_only_the_oldest():
    assert not Target.ANY.named and Target.ANY.name == ""
    assert Target.ANY.allows("tcgen05") and Target.ANY.allows("wgmma")
    assert not Target.ANY.has("f32x2") and Target.ANY.has("base")
    assert Target.ANY.refusal("tcgen05", "tensor memory") is None


def test_dispatch_keeps_to_what_the_kernel_needs_when_no_target_is_named():
    hopper = Target.within(90)
    assert hopper.allows("wgmma") and not hopper.allows("tcgen05")
    assert Target.within(100).allows("tcgen05") and not Target.within(100).allows("wgmma")
    assert hopper.refusal("tcgen05", "tcgen05") == (
        "tcgen05 needs sm_100a, sm_101a, sm_103a, sm_110a, sm_100f, sm_101f, sm_103f or sm_110f; "
        "the kernel otherwise needs only sm_90 (name the target with --arch)")


def test_requirement_is_the_target_itself_for_an_arch_specific_family_it_has():
    assert Target.parse("sm_103a").requirement("tcgen05") == (103, "a")
    assert Target.parse("sm_100f").requirement("tcgen05") == (100, "f")
    assert Target.parse("sm_120a").requirement("tcgen05") == (100, "a")  # lacks it: the table's row
    assert Target.ANY.requirement("tcgen05") == (100, "a")
    assert Target.parse("sm_120a").requirement("cluster") == (90, "")


def test_refusal_names_the_feature_and_the_target():
    assert Target.parse("sm_100a").refusal("wgmma", "wgmma") == "wgmma needs sm_90a; the target is sm_100a"
    assert Target.parse("sm_80").refusal("stmatrix", "stmatrix") == "stmatrix needs sm_90 or newer; the target is sm_80"


def test_limits():
    assert Target.parse("sm_120a").shared_opt_in == 99 * 1024
    assert Target.parse("sm_88").shared_opt_in == Target.parse("sm_87").shared_opt_in  # the newest listed before it
    assert Target.ANY.shared_opt_in == 227 * 1024
    assert Target.ANY.max_grid == (2 ** 31 - 1, 65535, 65535)
    assert (Target.ANY.tmem_lanes, Target.ANY.tmem_columns) == (128, 512)
