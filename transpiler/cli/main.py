"""The `tirxc` command: one click group parses every command line (docs/design.md,
decision 23), and this module owns the exit codes and the process-wide settings
of a run.

`tirxc KERNEL.tx [options]` compiles (the group's own parameters); when the
first word names a command, `tirxc run|sim|info|layout|migrate ...` runs that command
(its own module) instead. A kernel file named like a command is compiled as
`tirxc ./run` or `tirxc -- run`.

Exit codes: 0 success, 1 the input has errors, 2 usage errors (unknown flag,
missing or unreadable input, unwritable output), 3 an internal error (a bug in
tirxc: reported in one line, never as a traceback), 4 `tirxc run` or `tirxc sim`
on a machine that can run the kernels neither on a GPU nor under the CPU simulator (cli/run.py), 128 + N when stopped by
signal N (SIGINT 130, SIGTERM 143, SIGHUP 129; no output file is left changed
or half written).
"""
from __future__ import annotations

import gc
import os
import signal
import sys

import click

from transpiler import __version__
from transpiler.cli.files import compile_file, print_diagnostics, read_input, same_file, same_output, write_file, \
    write_stdout
from transpiler.diag.diagnostics import explain

EXAMPLES = """\b
Examples:
  tirxc kernel.tx -o kernel.cu           write CUDA
  tirxc kernel.tx                        CUDA to standard output
  tirxc kernel.tx --launcher kernel.py   CUDA to stdout, the CuPy launcher to kernel.py
  tirxc kernel.tx -o kernel.cu --header kernel.h   CUDA with C++ entry points, and their header
  tirxc kernel.tx --emit ast             print the syntax tree
  tirxc kernel.tx --check                check only; exit 1 on errors
  cat kernel.tx | tirxc - -o kernel.cu   read standard input
  tirxc --explain E0500                  explain a diagnostic code
  tirxc info kernel.tx                   what each kernel needs (tirxc info -h)
  tirxc sim kernel.tx --output out.npz   run it on the CPU, no GPU needed (tirxc sim -h)
  tirxc migrate a.tx -o b.tx             rewrite a.tx, in an older TIRx spelling, into b.tx

\b
A kernel file named like a command is compiled as `tirxc ./run` or `tirxc -- run`.

\b
Exit status: 0 success, 1 the input has errors, 2 usage error,
3 internal error (a bug in tirxc).
"""

# The commands besides compiling, in the order `tirxc --help` lists them; each is
# imported only when it runs or help is shown.
COMMANDS = ("run", "sim", "info", "layout", "migrate")
RECURSION_LIMIT = 10000  # the stages recurse once per level of nesting of the input


def _module_name(path: str | None) -> str | None:
    if not path or path == "-":
        return None
    return os.path.splitext(os.path.basename(path))[0]


def compile_kernel(kernel: str, output: str | None = None, emit: str = "cuda", launcher_path: str | None = None,
                   check_only: bool = False, arch: str | None = None, line_info: bool = False,
                   header_path: str | None = None, no_env: bool = False) -> None:
    """The compile command once its options are known; usage errors are click's UsageError."""
    if arch is not None:
        from transpiler.target.arch import BASE_ARCH, arch_name
        from transpiler.target.target import Target
        target = Target.parse(arch)
        if target is None:
            raise click.UsageError(f"unknown architecture '{arch}' (expected sm_80, sm_90, sm_90a, sm_100a ...)")
        if target.older_than_supported():
            raise click.UsageError(f"--arch {arch} is older than {arch_name(BASE_ARCH)}, the oldest architecture "
                                   f"tirxc (and CUDA 13) compiles for")
    for target in (output, launcher_path, header_path):
        if target and target != "-" and kernel != "-" and same_file(kernel, target):
            raise click.UsageError(f"refusing to overwrite the input file '{kernel}' with output")
    if output and launcher_path and output != "-" and same_output(output, launcher_path):
        raise click.UsageError(f"-o '{output}' and --launcher '{launcher_path}' name the same file: give each "
                               f"output its own path")
    if header_path and header_path != "-" and output and output != "-" and same_output(output, header_path):
        raise click.UsageError(f"-o '{output}' and --header '{header_path}' name the same file: give each "
                               f"output its own path")
    if header_path and launcher_path and same_output(launcher_path, header_path):
        raise click.UsageError(f"--launcher '{launcher_path}' and --header '{header_path}' name the same file: give "
                               f"each output its own path")
    if (header_path or emit == "header") and emit == "ast":
        raise click.UsageError("--header writes the C++ interface of the CUDA: not with --emit ast")
    if header_path == "-" and emit != "header":
        raise click.UsageError("--header - would write the header to standard output: use --emit header")
    name, data = read_input(kernel)
    until = "check" if check_only else emit if emit == "ast" else "launcher" if (emit == "launcher" or launcher_path) else "cuda"
    module_name = _module_name(launcher_path) or _module_name(output if emit == "launcher" else None) \
        or _module_name(kernel)
    header_options = {}
    if emit == "header" or header_path:
        from transpiler.codegen.host_cpp import module_name as cpp_module

        header_file = header_path if header_path and header_path != "-" else \
            output if emit == "header" and output and output != "-" else None
        stem = _module_name(header_file) or _module_name(output) or _module_name(kernel) or "kernels"
        header_options = dict(header_module=cpp_module(stem),
                              header_include=os.path.basename(header_file) if header_file else f"{stem}.h",
                              cu_name=output if emit != "header" and output and output != "-" else None)
    result = compile_file(name, data, until=until, arch=arch, launcher_name=module_name, line_info=line_info,
                          environment={} if no_env else None, **header_options)
    print_diagnostics(result)
    if not result.ok:
        sys.exit(1)
    if check_only:
        return
    if emit == "ast":
        from transpiler.syntax.ast import dump

        text = dump(result.module)
    elif emit == "launcher":
        text = result.launcher
    elif emit == "header":
        text = result.header
    else:
        text = result.cuda
    if launcher_path and emit != "launcher":
        write_file(launcher_path, result.launcher)
    if header_path and header_path != "-" and emit != "header":
        write_file(header_path, result.header)
    if output is None or output == "-":
        write_stdout(text)
    else:
        write_file(output, text)


class TirxcGroup(click.Group):
    """The compile command, which also has subcommands.

    A command line whose first word names a command (`tirxc info k.tx`) runs that
    command; any other is the compile command's own (`tirxc k.tx -o k.cu`,
    `tirxc --explain E0100`, `tirxc -- run`), parsed as a plain click command
    would parse it. `tirxc --help` shows the compile options and the commands."""

    # A plain command's parsing (options anywhere, no extra words), not a group's.
    allow_extra_args = False
    allow_interspersed_args = True

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "run":
            from transpiler.cli.run import run_command
            return run_command
        if name == "sim":
            from transpiler.cli.sim import sim_command
            return sim_command
        if name == "info":
            from transpiler.cli.info import info_command
            return info_command
        if name == "layout":
            from transpiler.cli.layout_view import layout_command
            return layout_command
        if name == "migrate":
            from transpiler.cli.migrate import migrate_command
            return migrate_command
        return None

    @staticmethod
    def names_a_command(args: list[str]) -> bool:
        return bool(args) and args[0] in COMMANDS

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not self.names_a_command(args):
            return click.Command.parse_args(self, ctx, args)
        click.Command.parse_args(self, ctx, [])  # the compile options at their defaults
        ctx.args = list(args)  # the command and its words, for invoke
        return ctx.args

    def invoke(self, ctx: click.Context):
        if not ctx.args:
            return click.Command.invoke(self, ctx)
        name, command, args = self.resolve_command(ctx, ctx.args)
        ctx.invoked_subcommand = name
        with command.make_context(name, args, parent=ctx) as sub_ctx:
            return command.invoke(sub_ctx)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        if ctx.command is not self:
            # Asked for a command's usage line: `tirxc info [OPTIONS] ...`, without
            # the compile command's KERNEL.tx.
            params = [p for p in params if not isinstance(p, click.Argument)]
        return params

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return click.Command.collect_usage_pieces(self, ctx)  # [OPTIONS] KERNEL.tx

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Right under the usage line, on the help page only (a usage error shows the compile usage).
        formatter.write_usage(ctx.command_path, self.subcommand_metavar, prefix="   or: ")
        super().format_help_text(ctx, formatter)


@click.group("tirxc", cls=TirxcGroup, invoke_without_command=True, subcommand_metavar="COMMAND [ARGS]...",
             context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
@click.argument("kernel", required=False, metavar="KERNEL.tx")
@click.option("-o", "--output", metavar="PATH", help="Write the main output here ('-' or none: standard output).")
@click.option("--emit", type=click.Choice(("cuda", "launcher", "header", "ast")), default="cuda", show_default=True,
              help="What to write to the output.")
@click.option("--launcher", "launcher_path", metavar="PATH", help="Also write the CuPy launcher module here.")
@click.option("--header", "header_path", metavar="PATH",
              help="Also write the C++ header of the kernels' entry points here; the CUDA then holds them "
                   "(docs/cpp.md).")
@click.option("--check", "check_only", is_flag=True, help="Parse and check only; write nothing.")
@click.option("--arch", metavar="SM", help="Target architecture to enforce, e.g. sm_80, sm_90a, sm_100a.")
@click.option("--line-info", is_flag=True, help="Emit #line directives pointing into the .tx file.")
@click.option("--no-env", is_flag=True,
              help="Every `os.environ` read of the file sees an empty environment (the defaults): for "
                   "services that compile files they do not trust.")
@click.option("--explain", "explain_code", metavar="CODE", help="Explain a diagnostic code and exit.")
@click.version_option(__version__, "--version", prog_name="tirxc", message="%(prog)s %(version)s")
def tirxc(kernel, output, emit, launcher_path, header_path, check_only, arch, line_info, no_env, explain_code):
    """Transpile a TIRx kernel file (.tx) to CUDA (.cu) and a CuPy launcher."""
    if explain_code:
        text = explain(explain_code)
        if text is None:
            raise click.UsageError(f"unknown diagnostic code '{explain_code}'")
        click.echo(text, nl=False)
        return
    if kernel is None:
        raise click.UsageError("missing KERNEL.tx (use '-' for standard input)")
    compile_kernel(kernel, output, emit, launcher_path, check_only, arch, line_info, header_path, no_env)


class _Signalled(BaseException):
    """Raised by the handlers of SIGINT, SIGTERM and SIGHUP: a BaseException that click does
    not turn into "Aborted!" (exit 1, the status of an input error), and that unwinds
    through write_atomic, which then removes its temporary file."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum, frame):
    raise _Signalled(signum)


def _handle_signals() -> dict:
    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            previous[number] = signal.signal(number, _on_signal)
        except (ValueError, OSError):  # not the main thread, or not allowed here
            pass
    return previous


def main(argv=None) -> None:
    """The `tirxc` command; ends with SystemExit, as a click command does
    (SystemExit(0) on success).

    The process-wide settings of a run are made here and nowhere else in tirxc:
    a recursion limit deep enough for deeply nested input; the cyclic garbage
    collector paused for the run (the stages build many small objects and no
    cycles worth collecting: collecting would walk the syntax tree and IR again
    and again, 0.8 s of a 20,000-statement file), then resumed; handlers for
    SIGINT, SIGTERM and SIGHUP. Called without argv, as the `tirxc` script and
    `python -m transpiler` call it, the compile command owns the process: once
    the standard streams are flushed it ends the process at once (`_exit_now`),
    without the interpreter's teardown, which frees every object of the run one
    by one and takes a tenth of a small run. Output files are closed by then."""
    args = list(sys.argv[1:] if argv is None else argv)
    owns_process = argv is None and not TirxcGroup.names_a_command(args)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    collecting = gc.isenabled()
    gc.disable()
    previous = _handle_signals()
    try:
        _main(args)
    except SystemExit as exit_:
        if owns_process:
            _exit_now(exit_.code)
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if collecting:
            gc.enable()


def _exit_now(code) -> None:
    """os._exit(code) after flushing stdout and stderr; returns, leaving the exit to
    the interpreter, when the code is a message or a stream cannot be flushed."""
    if code is None:
        code = 0
    if not isinstance(code, int):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _main(args: list) -> None:
    try:
        tirxc.main(args=args, prog_name="tirxc", standalone_mode=True)
    except (KeyboardInterrupt, _Signalled) as err:  # 128 + the signal, as a shell reports it
        sys.stderr.write("tirxc: interrupted\n")
        sys.exit(128 + getattr(err, "signum", signal.SIGINT))
    except BrokenPipeError:
        # The reader went away (`tirxc k.tx | head`): not worth a message.
        # Point stdout at /dev/null so that the interpreter's final flush is quiet.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        sys.exit(1)
    except Exception as err:  # the last resort: a bug in tirxc, not in the input
        _internal_error(err)
        sys.exit(3)


def _internal_error(err: Exception) -> None:
    """One line on stderr; the traceback only when TIRXC_DEBUG is set."""
    if os.environ.get("TIRXC_DEBUG"):
        import traceback
        traceback.print_exception(type(err), err, err.__traceback__)
    message = " ".join(str(err).split())
    if len(message) > 200:
        message = message[:197] + "..."
    detail = f"{type(err).__name__}: {message}" if message else type(err).__name__
    try:
        sys.stderr.write(f"tirxc: internal error: {detail} (please report this bug; "
                         "set TIRXC_DEBUG=1 for a traceback)\n")
    except Exception:  # stderr itself is broken: nothing more can be said
        pass
