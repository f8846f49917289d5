"""The kernels of the tile case files (tests/tile/cases/<family>/*.tx) for the tests that run
them: on the host (tests/tile/test_*.py) and on the GPU (tests/gpu/test_tile_*.py)."""
from __future__ import annotations

from pathlib import Path

from tests.check.filecheck import parse

CASES = Path(__file__).resolve().parent / "cases"


def kernel_case(family: str, kernel: str) -> Path:
    """The case file of family that defines the kernel function `kernel`."""
    found = [p for p in sorted((CASES / family).glob("*.tx"))
             if f"\ndef {kernel}(" in p.read_text(encoding="utf-8")]
    assert len(found) == 1, f"{len(found)} case files of {family} define `{kernel}`: {found}"
    return found[0]


def kernel_source(family: str, kernel: str) -> str:
    return kernel_case(family, kernel).read_text(encoding="utf-8")


def case_source(family: str, name: str) -> str:
    """The text of the case file tests/tile/cases/<family>/<name>.tx (for kernels that keep a
    short name, such as `k`, several files share)."""
    return (CASES / family / f"{name}.tx").read_text(encoding="utf-8")


def transpiling_cases(family: str) -> list[Path]:
    """The case files of family that transpile (those with CHECK lines; the others state refusals)."""
    return [p for p in sorted((CASES / family).glob("*.tx")) if parse(p.read_text(encoding="utf-8")).checks]
