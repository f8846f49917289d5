"""The target: the GPU a kernel is compiled for (`--arch`), and every question a stage asks
about it. The checker, tile dispatch, lowering and the CLI ask a `Target`; none of them
compares architecture numbers itself (tests/house/test_literals.py holds them to it).

A target is an architecture number and a suffix: `sm_90` (plain: that architecture and every
later one), `sm_90a` (arch-specific: exactly that architecture, with its arch-specific
instruction families), `sm_100f` (family-specific: that architecture's family, with the
families it shares). Which families a target has comes from target/arch.py's FEATURES
(minimum architecture, suffix) and SPECIFIC (the architectures an arch-specific family
exists on) tables.

No target named (no `--arch`) is a target too, `Target.ANY`: every family is allowed, and a
kernel's minimum architecture records what it uses. Tile dispatch first keeps to what a
kernel needs anyway, `Target.within(sm)`, an unnamed target that has the families of that
architecture with the `a` suffix (with no target named the kernel's minimum records the suffix).
"""
from __future__ import annotations

from dataclasses import dataclass

from transpiler.target.arch import (
    BASE_ARCH, FEATURES, MAX_CLUSTER_CTAS, MAX_GRID, MAX_REGISTERS_PER_THREAD, MAX_THREADS_PER_BLOCK,
    MIN_REGISTERS_PER_THREAD, SHARED_OPT_IN_MAX, SPECIFIC, STATIC_SHARED_LIMIT, TMEM_COLUMNS, TMEM_LANES,
    TMEM_MIN_ALLOC_COLUMNS, arch_name, limits, parse_arch)


@dataclass(frozen=True)
class Target:
    number: int  # 90 for sm_90; for an unnamed target, the architecture it keeps to (0: none)
    suffix: str = ""  # "" plain, "a" arch-specific, "f" family-specific
    named: bool = True  # False: no `--arch` (ANY, or dispatch's within())

    # -- making one ----------------------------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Target | None:
        """`sm_100a` -> Target(100, "a"); None when the text names no architecture."""
        parsed = parse_arch(text)
        return None if parsed is None else Target(*parsed)

    @staticmethod
    def within(number: int) -> Target:
        """No target named, keeping to the families sm_{number} has (dispatch's first try)."""
        return Target(max(number, BASE_ARCH), "", named=False)

    # -- naming it -----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """`sm_100a`; "" for no target named."""
        return arch_name(self.number, self.suffix) if self.named else ""

    def describe(self) -> str:
        """How a refusal names the target: "the target is sm_120a"."""
        if self.named:
            return f"the target is {self.name}"
        if self.number:
            return (f"the kernel otherwise needs only {arch_name(self.number)} "
                    f"(name the target with --arch)")
        return "no target is named"

    def older_than_supported(self) -> bool:
        return self.number < BASE_ARCH

    # -- feature questions ---------------------------------------------------------------------
    def has(self, feature: str) -> bool:
        """Whether code for this target surely has the instruction family `feature` (a FEATURES
        row). An unnamed target has what its architecture has with the `a` suffix; Target.ANY
        only what every architecture has."""
        number, suffix = FEATURES[feature]
        if not suffix:
            return max(self.number, BASE_ARCH) >= number
        specific, families = SPECIFIC[feature]
        if not self.named or self.suffix == "a":
            return self.number in specific
        if self.suffix == "f":
            return self.number in families
        return False

    def allows(self, feature: str) -> bool:
        """Whether a kernel for this target may use `feature`: Target.ANY allows every family (the
        kernel's minimum architecture then records it); any other target, what it has."""
        return self.has(feature) or (not self.named and not self.number)

    def requirement(self, feature: str) -> tuple[int, str]:
        """The (architecture, suffix) a kernel using `feature` needs, as its minimum architecture
        records it: an arch-specific family on a named target that has it, the target itself
        (sm_103a's tcgen05 needs sm_103a); otherwise the FEATURES row."""
        number, suffix = FEATURES[feature]
        if suffix and self.named and self.has(feature):
            return self.number, self.suffix
        return number, suffix

    @staticmethod
    def needed(feature: str) -> str:
        """What `feature` needs, in words: "sm_90 or newer", "sm_90a", "sm_100a, sm_101a ... or
        the sm_100f ... families"."""
        number, suffix = FEATURES[feature]
        if not suffix:
            return f"{arch_name(number)} or newer"
        specific, families = SPECIFIC[feature]
        names = [arch_name(a, "a") for a in specific] + [arch_name(a, "f") for a in families]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    def refusal(self, feature: str, what: str) -> str | None:
        """None when a kernel for this target may use `feature`; otherwise why not, naming the
        feature (`what`) and the target."""
        if self.allows(feature):
            return None
        return f"{what} needs {self.needed(feature)}; {self.describe()}"

    # -- named questions the stages ask often ---------------------------------------------------
    @property
    def tensor_memory(self) -> bool:
        return self.has("tcgen05")

    @property
    def wgmma(self) -> bool:
        return self.has("wgmma")

    @property
    def tma(self) -> bool:
        return self.has("bulk")

    @property
    def tma_multicast(self) -> bool:
        return self.has("bulk.multicast")

    @property
    def clusters(self) -> bool:
        return self.has("cluster")

    # -- limits --------------------------------------------------------------------------------
    @property
    def shared_opt_in(self) -> int:
        """The most shared memory (static + dynamic) one block may use after opting in: the
        target's, or with no target named the most any architecture allows."""
        return limits(self.number).shared_opt_in if self.named else SHARED_OPT_IN_MAX

    static_shared = STATIC_SHARED_LIMIT
    max_threads_per_block = MAX_THREADS_PER_BLOCK
    max_grid = MAX_GRID
    max_cluster_ctas = MAX_CLUSTER_CTAS
    registers_per_thread = (MIN_REGISTERS_PER_THREAD, MAX_REGISTERS_PER_THREAD)
    tmem_lanes = TMEM_LANES
    tmem_columns = TMEM_COLUMNS
    tmem_min_alloc_columns = TMEM_MIN_ALLOC_COLUMNS


Target.ANY = Target(0, "", named=False)
