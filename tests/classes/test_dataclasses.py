"""`@dataclass` classes (sema/library/class_dataclass.py), as real kernel files write their configurations:
what the kernel stores, run on the host (tests/emit/hostc.py), equals what Python computes for
the same module text."""
from __future__ import annotations

import pytest

from tests.classes.pyrun import kernel_values, python_values
from tests.conftest import transpile
from tests.emit import hostc

MODULE = '''\
from dataclasses import asdict, dataclass, field, replace
import dataclasses


@dataclass(frozen=True)
class Config:
    seq_len: int = 32
    num_heads: int = 64
    dtype: str = "float32"
    extra: int | None = None

    @property
    def block_q(self) -> int:
        return 128 // self.num_heads

    def validate(self) -> None:
        if self.num_heads not in (32, 64):
            raise ValueError("num_heads must be 32 or 64")


@dataclasses.dataclass
class Point:
    x: int
    y: int = field(default=5)

    def __post_init__(self):
        self.norm = self.x + self.y


@dataclass
class Point3(Point):
    z: int = 0


@dataclass(kw_only=True)
class Options:
    stages: int
    swizzle: int = 128


def make_config(**kwargs):
    kwargs = {key: value for key, value in kwargs.items() if key != "label"}
    config = Config(**kwargs)
    config.validate()
    return config


config = make_config(seq_len=2048, num_heads=32, label="x")
WIDER = replace(config, num_heads=64)
D = asdict(config)
P = Point(1)
P3 = Point3(1, 2, z=3)
O3 = Options(stages=4)
'''

VALUES = ["config.block_q", "WIDER.block_q", "D['seq_len']", "P.norm", "P3.norm * 10 + P3.z", "len(D)",
          "int(config.extra is None)", "dataclasses.astuple(P3)[2]", "O3.stages * 1000 + O3.swizzle",
          "int(WIDER.seq_len == config.seq_len) + int(WIDER is not config) * 10"]


def test_python_gives_them():
    assert python_values(MODULE, VALUES) == [4, 2, 2048, 6, 33, 4, 1, 3, 4128, 11]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_values(tmp_path):
    assert kernel_values(MODULE, VALUES, tmp_path) == python_values(MODULE, VALUES)


GETATTR = MODULE + '''
from tvm.script import tirx as T
from dataclasses import fields

NAMES = [f.name for f in fields(Config)]
TOTAL = sum(getattr(config, name) for name in ("seq_len", "num_heads"))
MISSING = getattr(config, "nope", 7)
HAS = int(hasattr(config, "block_q")) * 10 + int(hasattr(config, "nope"))


@T.prim_func
def k(O: T.Buffer((4,), "int32")):
    T.device_entry()
    tx = T.thread_id([1])
    O[0] = len(NAMES) * 100 + int(NAMES[1] == "num_heads")
    O[1] = TOTAL
    O[2] = MISSING
    O[3] = HAS
    getattr(T.cuda, "cta_sync")()
'''


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_fields_getattr_and_hasattr(tmp_path):
    result = transpile(GETATTR)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "__syncthreads();" in result.cuda
    out = hostc.run(result.cuda, {"O": [0] * 4}, threads=1, workdir=tmp_path)
    assert out["O"] == [401, 2048 + 32, 7, 10]
