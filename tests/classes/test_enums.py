"""Enum and IntEnum classes (sema/library/class_enum.py), as real kernel files name GEMM kinds and majors:
what the kernel stores, run on the host (tests/emit/hostc.py), equals what Python computes for the
same module text."""
from __future__ import annotations

import pytest

from tests.classes.pyrun import kernel_values, python_values
from tests.emit import hostc

MODULE = '''\
from enum import Enum, IntEnum
import enum
from dataclasses import dataclass


class GemmType(IntEnum):
    NORMAL = 0
    MASKED = 2
    BATCHED = 4
    ALIAS = 2

    @property
    def is_masked(self) -> bool:
        return self in (GemmType.MASKED,)

    def doubled(self):
        return self.value * 2


class Mode(enum.Enum):
    A = "a"
    B = "b"


@dataclass(frozen=True)
class Spec:
    gemm_type: GemmType = GemmType.NORMAL
    mode: Mode = Mode.B


spec = Spec(GemmType.MASKED)
'''

VALUES = ["int(spec.gemm_type is GemmType.MASKED) + int(spec.gemm_type.is_masked) * 10",
          "int(GemmType.ALIAS is GemmType.MASKED)", "int(spec.mode == Mode.B) + int(Mode('a') is Mode.A) * 10",
          "int(spec.gemm_type == 2) + int(Mode.A != Mode.B) * 10 + int(GemmType(4) is GemmType.BATCHED) * 100",
          "spec.gemm_type.value * 10 + len(Mode.B.name)", "GemmType.BATCHED.doubled()",
          "int(Spec().mode is Mode.B) + int(isinstance(Mode.A, Mode)) * 10"]


def test_python_gives_them():
    assert python_values(MODULE, VALUES) == [11, 1, 11, 111, 21, 8, 11]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_values(tmp_path):
    assert kernel_values(MODULE, VALUES, tmp_path) == python_values(MODULE, VALUES)