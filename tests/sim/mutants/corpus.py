"""The kernels the seeded-bug corpus is made from, with the launches each one is run with.

Two sources:

- every sample (samples/*.tx): each kernel launched with `tirxc sim`'s own arguments
  (transpiler/sim/inputs.py, seeded), at a size the launcher accepts;
- every kernel the GPU tests run under `tirxc sim` (tests/sim/gpu and
  tests/sim/test_samples_match_numpy.py): found by running those tests once with every
  simulated launch recorded (`record`): the kernel's text and each call's arguments as the
  test made them (its test size, its own values), and how long the call took (bench/sim_times.py
  reads those times).

A launch is kept as a `Launch`: arrays as copies of the allocations they view (so views of one
allocation, strides and offsets come back as the test made them) and scalars as they were.
`Launch.arguments(seed)` gives fresh arrays for a run: seed 0 the recorded values, any other
seed the same shapes with every floating-point buffer refilled from default_rng(seed).
"""
from __future__ import annotations

import ctypes
import os
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples"
GPU_TESTS = ["tests/sim/gpu", "tests/sim/test_samples_match_numpy.py"]
SAMPLE_SIZES = (256, 1024, 4096)  # symbolic extents tried in turn until the launcher's checks accept one
# samples whose synchronisation the first size accepted does not exercise, with the size that does
SIZE_FOR = {
    # two blocks: the last-ticket block sums a partial another block wrote (the fence before the ticket)
    "samples/global_workspace.tx": (512,),
    # K = 1024: 16 k-tiles through 4 (8) stages, so the producer waits on the "empty" barriers
    "samples/gemm_bf16_hopper.tx": (1024,),
    # K = 1024: 16 k-tiles through 4 stages, so the producer waits on the "empty" barriers
    "samples/gemm_bf16_blackwell.tx": (1024,),
    # K = 1024 likewise (and a refill overtakes a stage only once the ring wraps)
    "samples/gemm_bf16_hopper_persistent.tx": (1024,),
    "samples/gemm_fp8_hopper.tx": (1024,),
}
# the GPU tests whose kernels launch clusters (`score --clusters` records only these), and the small
# cluster kernels the CI slice of test_mutants.py draws from (each launched with sim's own arguments)
CLUSTER_TESTS = ["tests/sim/gpu/test_clusters.py", "tests/sim/gpu/test_remote_barrier.py",
                 "tests/sim/gpu/test_tile_tma_multicast.py", "tests/sim/gpu/test_gemm_fp8_hopper.py",
                 "tests/sim/gpu/test_gemm_bf16_decode.py"]
SMALL_CLUSTER_KERNELS = ["tests/cuda_helpers/kernels/dsmem.tx",
                         "tests/tile/cases/copy_async/tma_multicast_to_the_ctas_of_a_mask.tx"]


def launches_clusters(text: str) -> bool:
    """Whether a kernel file launches clusters of several CTAs (every one in the repository says
    so with `T.cta_id_in_cluster`)."""
    return "cta_id_in_cluster" in text


# of those, the ones whose recorded launches (the GPU tests') do not exercise it either once each
# launch is cut to its first blocks (global_workspace's test launches 4,096 blocks)
ALSO_WITH_RECORDED = {"samples/global_workspace.tx"}


@dataclass(frozen=True)
class ArraySlot:
    root: int  # index into Launch.roots
    offset: int  # bytes from the allocation's start
    shape: tuple
    strides: tuple
    dtype: object


@dataclass
class Launch:
    kernel: str
    roots: list  # bytes of each allocation the array arguments view
    args: list  # ArraySlot or a scalar, in call order
    seconds: float = 0.0  # wall time of the recorded call (0: not recorded)
    cpu_seconds: float = 0.0  # the simulator's CPU time (all its threads) for that call
    test: str = ""

    def arguments(self, seed: int = 0) -> list:
        import numpy

        buffers = [numpy.frombuffer(bytearray(raw), dtype=numpy.uint8) for raw in self.roots]
        out = []
        rng = numpy.random.default_rng(seed)
        for arg in self.args:
            if not isinstance(arg, ArraySlot):
                out.append(arg)
                continue
            view = numpy.ndarray(arg.shape, arg.dtype, buffer=buffers[arg.root], offset=arg.offset,
                                 strides=arg.strides)
            if seed and view.dtype.kind == "f" and view.size:
                view[...] = rng.uniform(-1.0, 1.0, size=view.shape).astype(view.dtype)
            out.append(view)
        return out

    @classmethod
    def of(cls, kernel: str, args) -> "Launch":
        """A launch from the arguments of a call (NumPy arrays and scalars), copied."""
        roots, slots, where = [], [], {}
        for arg in args:
            if not (hasattr(arg, "__array_interface__") and getattr(arg, "shape", ()) != ()):
                slots.append(arg)
                continue
            root = arg
            while hasattr(getattr(root, "base", None), "__array_interface__"):
                root = root.base
            start = root.__array_interface__["data"][0]
            if id(root) not in where:
                raw = bytearray(root.nbytes)
                if root.nbytes:
                    ctypes.memmove((ctypes.c_char * root.nbytes).from_buffer(raw), start, root.nbytes)
                where[id(root)] = len(roots)
                roots.append(bytes(raw))
            slots.append(ArraySlot(where[id(root)], arg.__array_interface__["data"][0] - start,
                                   tuple(arg.shape), tuple(arg.strides), arg.dtype))
        return cls(kernel, roots, slots)


@dataclass
class Source:
    """One kernel file of the corpus: where it comes from, its text, its launches."""
    name: str  # a repository path, or `<test module>::<stem>.tx` for a text a test wrote
    text: str
    launches: list = field(default_factory=list)
    recorded: bool = False  # from the GPU tests: no launch means the tests did not run it


def sample_sources() -> list[Source]:
    return [Source(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted(SAMPLES.glob("*.tx"))]


def sample_launches(module, seed: int = 0, sizes=SAMPLE_SIZES) -> list[Launch]:
    """A launch of each kernel of a SimModule with `tirxc sim`'s arguments (inputs.py), at the
    first of `sizes` its launcher accepts."""
    from transpiler.sim.inputs import arguments

    launches = []
    for name, kernel in module.kernels.items():
        for size in sizes:
            try:
                args = arguments(kernel, {}, size, seed)
                kernel.launch_config(*args)
            except Exception:  # the launcher's checks refuse this size: try the next
                continue
            launches.append(Launch.of(name, args))
            break
    return launches


_FILES: dict[str, str] = {}  # the repository's .tx files by text, read once


def _repository_name(text: str, stem: str, test: str) -> str:
    """The repository file holding exactly `text` (a sample, a tile case, a docs example), else
    the test's module and the stem it gave the text."""
    if not _FILES:
        for path in sorted(SAMPLES.glob("*.tx")) + sorted((ROOT / "tests").rglob("*.tx")):
            _FILES.setdefault(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return _FILES.get(text) or f"{test.split('::')[0]}::{stem}.tx"


class Recorder:
    """A pytest plugin that records every simulated launch of the tests it runs."""

    def __init__(self):
        self.sources: dict[str, Source] = {}  # by text
        self.test = ""
        self.outcomes: dict[str, str] = {}

    def pytest_runtest_setup(self, item):
        self.test = item.nodeid

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.outcomes.setdefault(report.nodeid, report.outcome)

    def wrap(self, call):
        recorder = self

        def recorded(kernel, *args, **kwargs):
            if kwargs:
                args = list(args) + [kwargs[n] for n in kernel.args[len(args):] if n in kwargs]
            launch = Launch.of(kernel.name, args)
            kernel._module.executable()  # the build (cached) is not the run's time
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            try:
                return call(kernel, *args)
            finally:
                launch.seconds = time.perf_counter() - started
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                launch.cpu_seconds = (after.ru_utime + after.ru_stime) - (usage.ru_utime + usage.ru_stime)
                launch.test = recorder.test
                recorder.source(kernel._module.result.source).launches.append(launch)

        return recorded

    def source(self, source_file) -> Source:
        """The Source of a SourceFile the tests loaded, made on its first load."""
        text = source_file.text
        if text not in self.sources:
            name = _repository_name(text, Path(source_file.name).stem, self.test)
            self.sources[text] = Source(name, text, recorded=True)
        return self.sources[text]

    def wrap_load(self, load, from_path: bool):
        """sim.load / sim.load_source, also noting the text of a kernel the simulator refuses."""
        recorder = self

        def loading(source, *args, **kwargs):
            from transpiler.syntax.source import SourceFile

            if from_path:
                path = Path(source)
                recorder.source(SourceFile(path.name, path.read_text(encoding="utf-8")))
            else:
                recorder.source(source)
            return load(source, *args, **kwargs)

        return loading


def record(tests=None, extra_args=()) -> tuple[list[Source], dict]:
    """Run the GPU tests under `tirxc sim` (pytest, in this process) and return the sources they
    launched, with every launch, and each test's outcome."""
    import pytest

    from transpiler.sim.launch import SimKernel

    from transpiler import sim

    recorder = Recorder()
    call, load, load_source = SimKernel.__call__, sim.load, sim.load_source
    SimKernel.__call__ = recorder.wrap(call)
    sim.load, sim.load_source = recorder.wrap_load(load, True), recorder.wrap_load(load_source, False)
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", *extra_args,
                     *[str(ROOT / t) for t in (tests or GPU_TESTS)]], plugins=[recorder])
    finally:
        SimKernel.__call__, sim.load, sim.load_source = call, load, load_source
    return list(recorder.sources.values()), recorder.outcomes


def quiet_env():
    """The build cache the tests use, for a run outside pytest (so builds are shared)."""
    if "TIRXC_CACHE" not in os.environ:
        setting = os.environ.get("TIRXC_TEST_CACHE")
        if setting != "off":
            os.environ["TIRXC_CACHE"] = setting or str(ROOT / "build" / "test-cache")
