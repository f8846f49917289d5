"""Classes of a `.tx` file (sema/library/classes.py) and the library's PipelineState, run on the host
(tests/emit/hostc.py): each kernel's results are compared with what Python computes for the
same program."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

pytestmark = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")

A = [7, -3, 12, 5, 9, 4, -8, 2]

KERNEL = '''\
from tvm.script import tirx as T

SCALE = 3


@T.meta_class
class Counter:
    """A run-time counter with a compile-time step."""
    kind = "counter"
    twice_kind = kind + kind

    def __init__(self, step, start=0):
        self.value = T.local_scalar("int32")
        self.step = step * SCALE
        self.hits = 0
        self.init(start)

    @T.inline
    def init(self, start):
        self.value = start

    @T.inline
    def bump(self):
        self.value += self.step

    def note(self):
        self.hits += 1
        return self.hits

    @property
    def doubled(self):
        return self.step * 2

    @staticmethod
    def twice(x):
        return x * 2


class Fancy(Counter):
    def __init__(self, step):
        Counter.__init__(self, step, 5)
        self.extra = step

    @T.inline
    def bump(self):
        self.value += self.step + self.extra


class Pair:
    def __init__(self, buf, base):
        self.buf = buf
        self.base = base
        self.last = None

    @T.inline
    def put(self, i, v):
        self.buf[self.base + i] = v
        self.last = v

    @T.inline
    def get(self, i):
        return self.buf[self.base + i] * 10


def make(step):
    return Fancy(step)


@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    O = T.match_buffer(O_ptr, (12,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])

    class Local:
        def __init__(self, v):
            self.v = v

        def plus(self, w):
            return self.v + w

        def __call__(self, w):
            return self.v * w

    c = Counter(1)
    f = make(2)
    for i in range(A[0]):
        c.bump()
        f.bump()
    p = Pair(O, 4)
    assert p.last is None
    p.put(0, A[1])
    p.put(1, A[2] + 1)
    assert p.last is not None
    O[0] = c.value
    O[1] = f.value
    O[2] = p.get(0) + p.get(1)
    assert isinstance(f, Counter) and not isinstance(c, Fancy) and isinstance(c, (Fancy, Counter))
    c.note()
    O[3] = c.note() * 1000 + f.doubled * 100 + Counter.twice(4) + len(c.twice_kind)
    O[6] = Local(A[3]).plus(A[4])
    O[8] = Local(A[5])(3)
    O[7] = Counter.__name__ == "Counter"
'''


def test_classes_compute_what_python_does(tmp_path):
    result = transpile(KERNEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": A, "O": [0] * 12}, threads=1, workdir=tmp_path)["O"]
    expected = [0] * 12
    expected[0] = A[0] * 3  # Counter(1): step 3, A[0] bumps from 0
    expected[1] = 5 + A[0] * (6 + 2)  # Fancy(2): start 5, step 6 + extra 2
    expected[4], expected[5] = A[1], A[2] + 1
    expected[2] = A[1] * 10 + (A[2] + 1) * 10
    expected[3] = 2 * 1000 + 12 * 100 + 8 + 14
    expected[6] = A[3] + A[4]
    expected[7] = 1
    expected[8] = A[5] * 3
    assert out == expected


PIPELINE_STATE = '''\
from tvm.script import tirx as T
from tvm.tirx.lang.pipeline import PipelineState


@T.prim_func
def k(O_ptr: T.handle):
    O = T.match_buffer(O_ptr, (3, 20), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    s1 = PipelineState(1, 0)
    s3 = PipelineState(3, 1)
    s4 = PipelineState(4)
    s4.init(0)
    for i in range(20):
        O[0, i] = s1.stage * 10 + s1.phase
        O[1, i] = s3.stage * 10 + s3.phase
        O[2, i] = s4.stage * 10 + s4.phase
        s1.advance()
        s3.advance()
        s4.advance()
'''


def _python_pipeline(depth: int, phase: int, steps: int) -> list[int]:
    stage, out = 0, []
    for _ in range(steps):
        out.append(stage * 10 + phase)
        stage += 1
        if stage == depth:
            stage, phase = 0, phase ^ 1
    return out


def test_pipeline_state_advances_as_upstream(tmp_path):
    result = transpile(PIPELINE_STATE)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [0] * 60}, threads=1, workdir=tmp_path)["O"]
    assert out == _python_pipeline(1, 0, 20) + _python_pipeline(3, 1, 20) + _python_pipeline(4, 0, 20)


def test_instances_get_their_own_scalars_named_after_their_binding():
    """As TVMScript names a meta-class instance's resources `<name>_<attribute>`."""
    result = transpile(PIPELINE_STATE)
    assert result.ok
    for name in ("s1", "s3", "s4"):
        assert f"int {name}_stage_ptr[1];" in result.cuda and f"int {name}_phase_ptr[1];" in result.cuda


MODULE_LEVEL = '''\
from tvm.script import tirx as T


class Config:
    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols

    @property
    def size(self):
        return self.rows * self.cols

    def scaled(self, k):
        return Config(self.rows * k, self.cols)


CFG = Config(4, 8)
BIG = CFG.scaled(2)
N = BIG.size


class Only:
    """`with only:` runs its body for one thread, between two stores (tirxc's `with` protocol)."""

    def __init__(self, tid, which, log):
        self.tid = tid
        self.which = which
        self.log = log

    def __guard__(self):
        return self.tid == self.which

    @T.inline
    def __enter__(self):
        self.log[self.which] = self.log[self.which] + 1

    @T.inline
    def __exit__(self):
        self.log[self.which] = self.log[self.which] * 10


@T.prim_func
def k(A: T.Buffer((N,), "int32"), L: T.Buffer((4,), "int32")):
    T.device_entry()
    tx = T.thread_id([4])
    A[tx] = CFG.size + BIG.rows
    with Only(tx, 2, L) as only:
        L[only.which] = L[only.which] + 5
'''


def test_module_level_instances_and_the_with_protocol(tmp_path):
    result = transpile(MODULE_LEVEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": [0] * 64, "L": [0, 0, 0, 0]}, threads=4, workdir=tmp_path)
    assert out["A"] == [40] * 4 + [0] * 60
    assert out["L"] == [0, 0, (0 + 1 + 5) * 10, 0]
