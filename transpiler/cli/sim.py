"""`tirxc sim`: transpile, run each kernel once on the CPU (docs/sim.md), write what it wrote.

Inputs (documented in `tirxc sim --help`): `--inputs IN.npz` gives arguments by parameter name
(arrays, and 0-d arrays for scalars); the others are made as `tirxc run` makes them: buffers
from NumPy's default_rng(seed), floats uniform in [-1, 1), integers uniform in [0, 100), bools
at random; symbolic extents that no given array fixes take --size; integer scalar parameters
take 1 and float scalars 1.5 unless given with --scalar NAME=VALUE. The arguments are checked by
the CuPy launcher's own checks. `--output OUT.npz` writes every buffer a kernel may write, by
parameter name (`kernel.param` when the file has several kernels).

Checks (docs/sim.md): `--racecheck` reports data races in shared and global memory and reads of
memory an async copy has not been waited for (E0820-E0823); `--synccheck` reports broken barrier
and mbarrier protocols and deadlocks (E0830-E0837); `--schedules N` runs each launch under N
orders of the threads (thread order, reverse, then seeded random ones). Findings are printed as
compile diagnostics are, with both places in the .tx, and the exit status is 1.
"""
from __future__ import annotations

import sys
import time

import click

from transpiler.cli.files import compile_file, parse_scalars, print_diagnostics, read_input


# A machine that cannot run the simulator (no host C++ compiler): docs/ci-guide.md's exit status 4.
ENVIRONMENT_EXIT = 4


def _fail(message: str, status: int = 1) -> None:
    sys.stderr.write(f"tirxc sim: {message}\n")
    sys.exit(status)


def run_on_cpu_instead(reason: str, name: str, data: bytes, shown, **options) -> None:
    """`tirxc run` without a GPU: the same kernels, inputs and seed under `tirxc sim`, with a note
    that says so (values, no timings). `shown`: the diagnostics `run` already printed."""
    simulate(name, data, shown=shown, note=f"tirxc run: {reason}: running on the CPU with `tirxc sim` instead "
                                           f"(values only, no timings; docs/sim.md)", **options)


def simulate(name: str, data: bytes, *, kernel_name=None, inputs=None, output=None, grid_limit=None, seed=0,
             size=1024, scalars=None, arch=None, options=None, note: str | None = None, shown=()) -> None:
    """Transpile and run on the CPU: the command's work, also `tirxc run`'s fallback without a GPU."""
    try:
        import numpy
    except ImportError:  # (an optional extra: what is missing, in one line, as `tirxc run` says it)
        _fail("NumPy is not installed; the simulator needs it (`pip install numpy`, or this project's "
              "`[sim]` extra)", ENVIRONMENT_EXIT)

    from transpiler import sim
    from transpiler.sim.build import BuildError
    from transpiler.sim.inputs import arguments
    from transpiler.sim.ptx import cpu_helper

    result = compile_file(name, data, until="launcher", arch=arch, sim_helpers=cpu_helper)
    if shown:
        result.diagnostics = [d for d in result.diagnostics if d not in shown]
    print_diagnostics(result)
    if not result.ok:
        sys.exit(1)
    options = options or sim.Options(block_limit=grid_limit)
    module = sim.SimModule(result, options)
    names = [k for k in module.KERNELS if kernel_name in (None, k)]
    if not names:
        raise click.UsageError(f"no kernel '{kernel_name}' in {name} (kernels: {', '.join(module.KERNELS)})")
    unknown = sorted(n for n in scalars or {} if not any(n in module.kernels[k].args for k in names))
    if unknown:
        signatures = " or ".join(f"{k}({', '.join(module.kernels[k].args)})" for k in names)
        raise click.UsageError(f"--scalar {unknown[0]}: no parameter of that name in {signatures}")
    given = {}
    if inputs is not None:
        try:
            with numpy.load(inputs, allow_pickle=False) as archive:
                given = {key: archive[key] for key in archive.files}
        except (OSError, ValueError) as err:
            raise click.UsageError(f"--inputs {inputs}: {err}")
    if note:
        click.echo(note, err=True)
    click.echo(f"{name} on the CPU (tirxc sim), seed {seed}")
    written, findings = {}, []
    for kname in names:
        kernel = module.kernels[kname]
        mine = {k.split(".", 1)[1]: v for k, v in given.items() if k.startswith(kname + ".")}
        mine.update({k: v for k, v in given.items() if "." not in k and k in kernel.args})
        try:
            args = arguments(kernel, mine, size, seed, scalars)
            grid, block, shared = kernel.launch_config(*args)
        except (ArithmeticError, TypeError, ValueError) as err:  # the launcher's refusal of these inputs
            _fail(str(err))
        started = time.perf_counter()
        try:
            kernel(*args)
        except sim.SimFindings as err:
            findings += [d for d in err.diagnostics if d not in findings]
            click.echo(f"  {kname}: {len(err.diagnostics)} finding(s) of the checkers")
            continue
        except sim.SimError as err:
            _fail(str(err).removeprefix("tirxc sim: "))
        except BuildError as err:  # the host compiler is missing or refused the code
            _fail(str(err), ENVIRONMENT_EXIT)
        except OSError as err:
            _fail(f"cannot run the simulator: {err}", ENVIRONMENT_EXIT)
        seconds = time.perf_counter() - started
        blocks = grid[0] * grid[1] * grid[2]
        ran = blocks if grid_limit is None else min(blocks, grid_limit)
        limited = f", {ran} of {blocks} blocks (--grid-limit)" if ran < blocks else ""
        click.echo(f"  {kname}: grid {grid} block {block} dynamic shared {shared} B: {seconds:.2f} s{limited}")
        for pname, value in zip(kernel.args, args):
            if pname in kernel.written():
                written[f"{kname}.{pname}" if len(names) > 1 else pname] = value
                click.echo(f"    {pname}: {_summary(value)}")
    if output is not None:
        try:
            numpy.savez(output, **written)
        except OSError as err:
            raise click.UsageError(f"--output {output}: {err}")
    if findings:
        result.diagnostics = findings
        print_diagnostics(result)
        sys.exit(1)


def _summary(array) -> str:
    import numpy

    text = f"{array.dtype} {tuple(array.shape)}"
    if array.size and array.dtype.kind in "fiub":
        values = array.astype(numpy.float64)
        text += f", min {values.min():.6g} max {values.max():.6g} sum {values.sum():.6g}"
    return text


@click.command(context_settings={"help_option_names": ["-h", "--help"]}, epilog=__doc__.split("\n\n", 1)[1])
@click.argument("kernel_file", metavar="KERNEL.tx")
@click.option("--kernel", "kernel_name", metavar="NAME", help="Run only this kernel (default: all).")
@click.option("--inputs", metavar="IN.npz", help="Arguments by parameter name (arrays; 0-d arrays for scalars).")
@click.option("--output", metavar="OUT.npz", help="Write every buffer the kernels may write here, by parameter name.")
@click.option("--grid-limit", type=click.IntRange(0, None), metavar="N", help="Run only the first N blocks.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the random inputs.")
@click.option("--size", default=1024, show_default=True, type=click.IntRange(1, None),
              help="Value of every symbolic extent no input fixes.")
@click.option("--scalar", "scalar_args", multiple=True, metavar="NAME=VALUE", help="A scalar parameter's value.")
@click.option("--arch", metavar="SM", help="Target architecture to check against, e.g. sm_80.")
@click.option("--jobs", type=click.IntRange(1, None), metavar="N", help="OS threads that run blocks (default: CPUs).")
@click.option("--step-limit", default=0, show_default=True, type=click.IntRange(0, None), metavar="N",
              help="Scheduling points one block may take (0: no limit).")
@click.option("--time-limit", default=600.0, show_default=True, type=click.FloatRange(0, None, min_open=True),
              metavar="S", help="Seconds one kernel may run.")
@click.option("--stack-kib", default=64, show_default=True, type=click.IntRange(16, None), metavar="K",
              help="Stack of each simulated thread.")
@click.option("--racecheck", is_flag=True, help="Report data races and unwaited async copies (E0820-E0823).")
@click.option("--synccheck", is_flag=True, help="Report broken barrier protocols and deadlocks (E0830-E0837).")
@click.option("--schedules", default=1, show_default=True, type=click.IntRange(1, None), metavar="N",
              help="Run each launch under N thread orders: in order, reversed, then random (from --seed).")
def sim_command(kernel_file, kernel_name, inputs, output, grid_limit, seed, size, scalar_args, arch, jobs, step_limit,
                time_limit, stack_kib, racecheck, synccheck, schedules):
    """Transpile KERNEL.tx and run its kernels on the CPU (docs/sim.md)."""
    from transpiler.sim import Options

    name, data = read_input(kernel_file)
    options = Options(block_limit=grid_limit, step_limit=step_limit, jobs=jobs, stack_kib=stack_kib,
                      timeout=time_limit, racecheck=racecheck, synccheck=synccheck, schedules=schedules, seed=seed)
    simulate(name, data, kernel_name=kernel_name, inputs=inputs, output=output, grid_limit=grid_limit, seed=seed,
             size=size, scalars=parse_scalars(scalar_args), arch=arch, options=options)
