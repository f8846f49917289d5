"""The `tirxc` command: wires the stages together, owns file I/O and exit codes.

Exit codes: 0 success, 1 the input has errors, 2 usage errors (unknown flag,
missing or unreadable input, unwritable output), 3 an internal error (a bug in
tirxc: reported in one line, never as a traceback), 128 + N when stopped by
signal N (SIGINT 130, SIGTERM 143, SIGHUP 129; no output file is left changed
or half written).

The plain command lines (`tirxc K.tx -o K.cu --launcher K.py` and the like)
are read by `_plain_options` without importing click, which costs a small
run more time than compiling its kernel; every other command line, and every
usage error, goes through click (`_click_command`), so that help, messages and
exit codes have one source.
"""
from __future__ import annotations

import gc
import os
import signal
import stat
import sys

from transpiler import __version__
from transpiler.diag.diagnostics import Renderer, explain, use_colour

EXAMPLES = """\b
Examples:
  tirxc kernel.tx -o kernel.cu           write CUDA
  tirxc kernel.tx                        CUDA to standard output
  tirxc kernel.tx --launcher kernel.py   CUDA to stdout, the CuPy launcher to kernel.py
  tirxc kernel.tx --emit ast             print the syntax tree
  tirxc kernel.tx --check                check only; exit 1 on errors
  cat kernel.tx | tirxc - -o kernel.cu   read standard input
  tirxc --explain E0500                  explain a diagnostic code

\b
Exit status: 0 success, 1 the input has errors, 2 usage error,
3 internal error (a bug in tirxc).
"""


def _usage_error(message: str) -> Exception:
    """A usage error found while running (unreadable input, unwritable output ...):
    click's UsageError, with click imported only on this path."""
    import click

    return click.UsageError(message)


def write_atomic(path: str, text: str) -> None:
    """Write via a temporary file in the same folder and rename, so that readers
    (and `make`) never see a partial file and a failed run leaves the old one.
    A device or FIFO (`-o /dev/null`, `-o >(...)`) is written in place: renaming
    over it would replace the device node with a plain file."""
    try:
        existing = os.stat(path).st_mode
    except OSError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing) and not stat.S_ISDIR(existing):
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = _temporary_file(directory)
    try:
        # The temporary file is private (0600); give it the mode the file it
        # replaces had, or what a plain open() would have given it.
        os.chmod(tmp, existing & 0o7777 if existing is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _temporary_file(directory: str) -> tuple[int, str]:
    """A new private (0600) file with an unpredictable name, as tempfile.mkstemp
    makes it (O_EXCL: never an existing file or link), without importing tempfile."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f".tirxc-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary file name in '{directory}'")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _read_input(path: str) -> tuple[str, bytes]:
    if path == "-":
        try:
            return "<stdin>", sys.stdin.buffer.read()
        except (AttributeError, OSError, ValueError):  # no usable standard input (closed)
            raise _usage_error("cannot read standard input")
    try:
        with open(path, "rb") as handle:
            return path, handle.read()
    except IsADirectoryError:
        raise _usage_error(f"'{path}' is a directory, not a .tx file")
    except FileNotFoundError:
        raise _usage_error(f"no such file: '{path}'")
    except OSError as err:
        raise _usage_error(f"cannot read '{path}': {err.strerror}")


def _write(path: str, text: str) -> None:
    """Write an output file atomically; a path that cannot be written is a usage error."""
    try:
        write_atomic(path, text)
    except OSError as err:
        raise _usage_error(f"cannot write '{path}': {err.strerror or err}")


def _write_stdout(text: str) -> None:
    # Bytes, so that the output is UTF-8 whatever the locale says.
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        sys.stdout.write(text)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _report(result) -> None:
    if result.diagnostics:
        renderer = Renderer(result.source, colour=use_colour(sys.stderr))
        sys.stderr.write(renderer.render_all(result.diagnostics))


def _module_name(path: str | None) -> str | None:
    if not path or path == "-":
        return None
    return os.path.splitext(os.path.basename(path))[0]


def compile_kernel(kernel: str, output: str | None = None, emit: str = "cuda", launcher_path: str | None = None,
                   check_only: bool = False, arch: str | None = None, line_info: bool = False) -> None:
    """The compile command once its options are known; usage errors are click's UsageError."""
    from transpiler.driver import compile_file

    if arch is not None:
        from transpiler.target.arch import parse_arch
        if parse_arch(arch) is None:
            raise _usage_error(f"unknown architecture '{arch}' (expected sm_80, sm_90, sm_90a, sm_100a ...)")
    for target in (output, launcher_path):
        if target and target != "-" and kernel != "-" and _same_file(kernel, target):
            raise _usage_error(f"refusing to overwrite the input file '{kernel}' with output")
    name, data = _read_input(kernel)
    until = "check" if check_only else emit if emit == "ast" else "launcher" if (emit == "launcher" or launcher_path) else "cuda"
    module_name = _module_name(launcher_path) or _module_name(output if emit == "launcher" else None) \
        or _module_name(kernel)
    result = compile_file(name, data, until=until, arch=arch, launcher_name=module_name, line_info=line_info)
    _report(result)
    if not result.ok:
        sys.exit(1)
    if check_only:
        return
    if emit == "ast":
        from transpiler.syntax.ast import dump

        text = dump(result.module)
    elif emit == "launcher":
        text = result.launcher
    else:
        text = result.cuda
    if launcher_path and emit != "launcher":
        _write(launcher_path, result.launcher)
    if output is None or output == "-":
        _write_stdout(text)
    else:
        _write(output, text)


_PLAIN_VALUES = {"-o": "output", "--output": "output", "--launcher": "launcher_path", "--emit": "emit",
                 "--arch": "arch"}
_PLAIN_FLAGS = {"--check": "check_only", "--line-info": "line_info"}
_EMIT_CHOICES = ("cuda", "launcher", "ast")


def _plain_options(args: list) -> dict | None:
    """compile_kernel's arguments for a plain command line: one KERNEL.tx, the
    options above each written as a separate word (a later one wins, as in
    click), values that do not look like options. None for anything else
    (help, --version, --explain, `--opt=value`, unknown or missing words ...),
    which click then parses."""
    options: dict = {}
    words = iter(args)
    for word in words:
        if word in _PLAIN_FLAGS:
            options[_PLAIN_FLAGS[word]] = True
        elif word in _PLAIN_VALUES:
            value = next(words, None)
            if value is None or not _plain_word(value):
                return None
            options[_PLAIN_VALUES[word]] = value
        elif _plain_word(word) and "kernel" not in options:
            options["kernel"] = word
        else:
            return None
    if "kernel" not in options or options.get("emit", "cuda") not in _EMIT_CHOICES:
        return None
    return options


def _plain_word(word: str) -> bool:
    return word == "-" or (word != "" and not word.startswith("-"))


def _click_command():
    """The compile command as click parses it: every form of the command line, help,
    --version, --explain and the usage errors."""
    import click

    @click.command(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
    @click.argument("kernel", required=False, metavar="KERNEL.tx")
    @click.option("-o", "--output", metavar="PATH", help="Write the main output here ('-' or none: standard output).")
    @click.option("--emit", type=click.Choice(_EMIT_CHOICES), default="cuda", show_default=True,
                  help="What to write to the output.")
    @click.option("--launcher", "launcher_path", metavar="PATH", help="Also write the CuPy launcher module here.")
    @click.option("--check", "check_only", is_flag=True, help="Parse and check only; write nothing.")
    @click.option("--arch", metavar="SM", help="Target architecture to enforce, e.g. sm_80, sm_90a, sm_100a.")
    @click.option("--line-info", is_flag=True, help="Emit #line directives pointing into the .tx file.")
    @click.option("--explain", "explain_code", metavar="CODE", help="Explain a diagnostic code and exit.")
    @click.version_option(__version__, "--version", prog_name="tirxc", message="%(prog)s %(version)s")
    def compile_command(kernel, output, emit, launcher_path, check_only, arch, line_info, explain_code):
        """Transpile a TIRx kernel file (.tx) to CUDA (.cu) and a CuPy launcher."""
        if explain_code:
            text = explain(explain_code)
            if text is None:
                raise click.UsageError(f"unknown diagnostic code '{explain_code}'")
            click.echo(text, nl=False)
            return
        if kernel is None:
            raise click.UsageError("missing KERNEL.tx (use '-' for standard input)")
        compile_kernel(kernel, output, emit, launcher_path, check_only, arch, line_info)

    return compile_command


def _plain_compile(args: list, options: dict) -> None:
    """Run a plain command line without click; exits as click's standalone mode does."""
    try:
        compile_kernel(**options)
    except Exception as error:
        import click  # already loaded if this is a usage error

        if not isinstance(error, click.UsageError):
            raise
        # Shown with click's usage line, as click shows the errors of the commands it runs.
        context = _click_command().make_context("tirxc", list(args))
        click.UsageError(error.format_message(), context).show()
        sys.exit(error.exit_code)
    sys.exit(0)


# Subcommands live in their own modules; `tirxc FILE` stays the plain compile
# command, as users of nvcc-like tools expect.
SUBCOMMANDS = {
    "run": "transpiler.cli.run:run_command",
    "info": "transpiler.cli.info:info_command",
    "layout": "transpiler.cli.layout_view:layout_command",
}


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
    """The `tirxc` command; ends with SystemExit, as a click command does.

    Called without argv, as the `tirxc` script and `python -m transpiler` call
    it, the compile command owns the process: once the standard streams are
    flushed it ends the process at once (`_exit_now`), without the
    interpreter's teardown, which frees every object of the run one by one and
    takes a tenth of a small run. Output files are closed by then."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    args = list(sys.argv[1:] if argv is None else argv)
    owns_process = argv is None and not (args and args[0] in SUBCOMMANDS)
    if owns_process:
        # The run is short and ends with os._exit: the cyclic collector would only walk the
        # syntax tree and IR once the stages are done (0.8 s of a 20,000-statement file).
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
        if args and args[0] in SUBCOMMANDS:
            import importlib
            module, _, attr = SUBCOMMANDS[args[0]].partition(":")
            command = getattr(importlib.import_module(module), attr)
            prog = f"tirxc {args.pop(0)}"
        else:
            options = _plain_options(args)
            if options is not None:
                _plain_compile(args, options)
            command, prog = _click_command(), "tirxc"
        command.main(args=args, prog_name=prog, standalone_mode=True)
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
