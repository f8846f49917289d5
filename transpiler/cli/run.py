"""`tirxc run`: transpile, launch on the GPU with deterministic random inputs, time.

Inputs (documented in `tirxc run --help`): buffer parameters are filled from
NumPy's default_rng(seed): floats uniform in [-1, 1), integers uniform in
[0, 100), bools at random; symbolic extents take --size; integer scalar
parameters take 1 and float scalars 1.5 unless given with --scalar NAME=VALUE.
Exit status 4 when the machine cannot run kernels (no CuPy, no CUDA driver or
GPU), 1 when the file has errors.
"""
from __future__ import annotations

import hashlib
import importlib.util
import statistics
import sys
from pathlib import Path

import click

from transpiler import cache_root
from transpiler.cli.files import compile_file, parse_scalars, print_diagnostics, read_input, write_atomic
from transpiler.target.arch import arch_name


def cache_dir() -> Path:
    return Path(cache_root())


# The exit status of a machine that cannot run kernels (no CuPy, no GPU or driver), which is
# not a fault of the input (1): docs/ci-guide.md's table of exit codes.
ENVIRONMENT_EXIT = 4


def _fail(message: str, status: int = 1) -> None:
    sys.stderr.write(f"tirxc run: {message}\n")
    sys.exit(status)


def _run_on_cpu_instead(reason: str, name: str, data: bytes, shown, **options) -> None:
    """No GPU: the same kernels, inputs and seed under `tirxc sim` (docs/sim.md), after a note.
    Status 4, an environment problem, only when the simulator cannot run here either."""
    try:
        import numpy  # noqa: F401  (the simulator's arrays)
    except ImportError:
        _fail(f"{reason}; and `tirxc sim`, the CPU fallback, needs NumPy (pip install numpy)", ENVIRONMENT_EXIT)
    from transpiler.cli.sim import run_on_cpu_instead

    run_on_cpu_instead(reason, name, data, shown, **options)


def _load_launcher(path: Path):
    spec = importlib.util.spec_from_file_location(f"tirxc_run_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_inputs(kernel, size: int, scalars: dict, seed: int):
    """Arguments in declaration order for one kernel of a generated launcher: device arrays made
    as `tirxc sim` makes its inputs (transpiler/sim/inputs.py, one rule for both commands)."""
    import cupy

    from transpiler.sim.inputs import launch_arguments

    return launch_arguments(kernel, {}, size, seed, scalars, xp=cupy)


def time_kernel(kernel, args, repeat: int) -> list[float]:
    import cupy
    for _ in range(3):
        kernel(*args)
    cupy.cuda.Device().synchronize()
    times = []
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(repeat):
        start.record()
        kernel(*args)
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
    return times


@click.command(context_settings={"help_option_names": ["-h", "--help"]}, epilog=__doc__.split("\n\n", 1)[1])
@click.argument("kernel_file", metavar="KERNEL.tx")
@click.option("--kernel", "kernel_name", metavar="NAME", help="Run only this kernel (default: all).")
@click.option("--repeat", default=100, show_default=True, type=click.IntRange(1, 100000),
              help="Timed launches per kernel (after 3 warm-up launches).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the random inputs.")
@click.option("--size", default=1 << 20, show_default=True, type=click.IntRange(1, None),
              help="Value of every symbolic extent.")
@click.option("--scalar", "scalar_args", multiple=True, metavar="NAME=VALUE", help="A scalar parameter's value.")
def run_command(kernel_file, kernel_name, repeat, seed, size, scalar_args):
    """Transpile KERNEL.tx, launch its kernels on the GPU, and report median times."""
    name, data = read_input(kernel_file)
    scalars = parse_scalars(scalar_args)
    stem = Path(name).stem if name != "<stdin>" else "stdin"
    # with #line directives, so that an NVRTC error names the .tx line (the launcher's CompileError)
    result = compile_file(name, data, until="launcher", launcher_name=stem, line_info=True)
    print_diagnostics(result)
    if not result.ok:
        sys.exit(1)
    digest = hashlib.sha256(result.launcher.encode()).hexdigest()[:16]
    folder = cache_dir() / digest
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(str(folder / f"{stem}.cu"), result.cuda)
    write_atomic(str(folder / f"{stem}.py"), result.launcher)
    module = _load_launcher(folder / f"{stem}.py")
    try:  # the launcher's own test and words: CuPy installed, a GPU and a driver CUDA can use
        module.require_gpu()
    except module.NoGPUError as err:
        return _run_on_cpu_instead(str(err), name, data, result.diagnostics,
                                   kernel_name=kernel_name, seed=seed, size=size, scalars=scalars)
    import cupy
    names = [k for k in module.KERNELS if kernel_name in (None, k)]
    if not names:
        raise click.UsageError(f"no kernel '{kernel_name}' in {name} (kernels: {', '.join(module.KERNELS)})")
    device = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(device.id)
    click.echo(f"{name} on {props['name'].decode()} ({arch_name(int(device.compute_capability))}), {repeat} launches, "
               f"seed {seed}")
    for kname in names:
        kernel = getattr(module, kname)
        try:
            args = make_inputs(kernel, size, scalars, seed)
            grid, block, shared = kernel.launch_config(*args)
        except (ArithmeticError, TypeError, ValueError) as err:  # the launcher's refusal of these inputs
            _fail(str(err))
        try:
            times = time_kernel(kernel, args, repeat)
        except module.CompileError as err:
            sys.stderr.write(f"{err}\n")
            sys.exit(1)
        median = statistics.median(times)
        moved = sum(a.nbytes for a in args if hasattr(a, "nbytes") and hasattr(a, "__cuda_array_interface__"))
        bandwidth = moved / median / 1e9 if median > 0 else float("inf")
        click.echo(f"  {kname}: grid {grid} block {block} dynamic shared {shared} B: median {median * 1e6:.2f} us "
                   f"(min {min(times) * 1e6:.2f}), {bandwidth:.1f} GB/s over {moved} bytes of buffers")
