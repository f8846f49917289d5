"""File and stream helpers shared by the `tirxc` commands: reading the input,
writing outputs atomically, printing diagnostics.

A path that cannot be read or written is a usage error (click's UsageError,
exit status 2), raised here so that every command words it the same way.
"""
from __future__ import annotations

import errno
import os
import stat
import sys

import click

from transpiler.diag.diagnostics import Renderer, use_colour


def write_atomic(path: str, text: str) -> None:
    """Write via a temporary file in the same folder and rename, so that readers
    (and `make`) never see a partial file and a failed run leaves the old one.

    A symbolic link is written through, and stays a link: the temporary file goes next
    to the file the link leads to, and replaces that file. A dangling link, or a link to
    a directory, is an error that changes nothing. A device or FIFO (`-o /dev/null`,
    `-o /dev/stdout` on a terminal or pipe, `-o >(...)`) is written in place: renaming
    over it would replace the device node with a plain file; so is a file that a link
    reaches only through /proc (an open file of this process that has no path)."""
    try:
        existing = os.stat(path).st_mode  # through links
    except (FileNotFoundError, NotADirectoryError):
        existing = None
    link = os.path.islink(path)
    if link and existing is None:
        raise _output_error(path, f"it is a symbolic link to '{os.readlink(path)}', which does not exist")
    if link and stat.S_ISDIR(existing):
        raise _output_error(path, f"it is a symbolic link to the directory '{os.path.realpath(path)}'")
    target = path
    in_place = existing is not None and not stat.S_ISREG(existing) and not stat.S_ISDIR(existing)
    if link and stat.S_ISREG(existing):
        target = os.path.realpath(path)
        in_place = not same_file(target, path)  # no path leads to the file: write it in place
    if in_place:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = _temporary_file(directory)
    try:
        # The temporary file is private (0600); give it the mode the file it
        # replaces had, or what a plain open() would have given it.
        os.chmod(tmp, existing & 0o7777 if existing is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _output_error(path: str, why: str) -> OSError:
    """An OSError whose strerror is `why` (write_file words it as "cannot write 'path': why")."""
    return OSError(errno.EINVAL, why, path)


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


def read_input(path: str) -> tuple[str, bytes]:
    """The display name and bytes of a .tx file, or of standard input for '-'."""
    if path == "-":
        try:
            return "<stdin>", sys.stdin.buffer.read()
        except (AttributeError, OSError, ValueError):  # no usable standard input (closed)
            raise click.UsageError("cannot read standard input")
    try:
        with open(path, "rb") as handle:
            return path, handle.read()
    except IsADirectoryError:
        raise click.UsageError(f"'{path}' is a directory, not a .tx file")
    except FileNotFoundError:
        raise click.UsageError(f"no such file: '{path}'")
    except OSError as err:
        raise click.UsageError(f"cannot read '{path}': {err.strerror}")


def write_file(path: str, text: str) -> None:
    """Write an output file atomically; a path that cannot be written is a usage error."""
    try:
        write_atomic(path, text)
    except OSError as err:
        raise click.UsageError(f"cannot write '{path}': {err.strerror or err}")


def write_stdout(text: str) -> None:
    """Write to standard output as UTF-8 bytes, whatever the locale says."""
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        sys.stdout.write(text)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one existing file (an output that would overwrite the input)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def compile_file(name: str, data: bytes, **options):
    """driver.compile_file, where a grid, shape or stride that the launcher cannot compute on the
    host (which the checker lets through) is an error of the input at its place (E0325), not an
    internal error of tirxc."""
    from transpiler import driver
    try:
        return driver.compile_file(name, data, **options)
    except Exception as err:
        from transpiler.codegen.launcher import HostExprError  # (a compile that writes no launcher never loads it)
        if not isinstance(err, HostExprError):
            raise
        from transpiler.diag.diagnostics import Diagnostic
        from transpiler.syntax.source import SourceFile
        result = driver.Result(SourceFile.from_bytes(name, data)[0])
        span = err.span if err.span is not None else result.source.span(1, 1)
        result.diagnostics = [Diagnostic("E0325", "error", str(err), span,
                                         help="compute extents and grids from constants, symbolic extents and "
                                              "integer scalar parameters, with integer operations")]
        return result


def same_output(a: str, b: str) -> bool:
    """Whether two output paths name one file however they are spelled (`k.py`, `./k.py`,
    `d/../k.py`, a symbolic link to it), whether or not it exists yet; a device or FIFO
    (`/dev/null`, `/dev/stdout` on a terminal) takes both outputs, so it does not count."""
    try:
        if not stat.S_ISREG(os.stat(a).st_mode) and not stat.S_ISDIR(os.stat(a).st_mode):
            return False
    except OSError:
        pass
    return same_file(a, b) or os.path.realpath(a) == os.path.realpath(b)


def print_diagnostics(result) -> None:
    """Print a compile result's diagnostics to standard error."""
    if result.diagnostics:
        renderer = Renderer(result.source, colour=use_colour(sys.stderr))
        sys.stderr.write(renderer.render_all(result.diagnostics))


def parse_scalars(items) -> dict:
    """`--scalar NAME=VALUE` of `tirxc run` and `tirxc sim`: an int (any base Python reads), else a float."""
    scalars = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.UsageError(f"--scalar takes NAME=VALUE, got '{item}'")
        try:
            scalars[key] = int(value, 0)
        except ValueError:
            try:
                scalars[key] = float(value)
            except ValueError:
                raise click.UsageError(f"--scalar {key}: '{value}' is not a number")
    return scalars
