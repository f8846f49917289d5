"""File and stream helpers shared by the `tirxc` commands: reading the input,
writing outputs atomically, printing diagnostics.

A path that cannot be read or written is a usage error (click's UsageError,
exit status 2), raised here so that every command words it the same way.
"""
from __future__ import annotations

import os
import stat
import sys

import click

from transpiler.diag.diagnostics import Renderer, use_colour


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


def print_diagnostics(result) -> None:
    """Print a compile result's diagnostics to standard error."""
    if result.diagnostics:
        renderer = Renderer(result.source, colour=use_colour(sys.stderr))
        sys.stderr.write(renderer.render_all(result.diagnostics))
