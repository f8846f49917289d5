"""Where outputs go: through symbolic links (the link stays a link, the file it leads to is
replaced atomically), never onto a dangling link or a link to a directory (exit 2, nothing
changed), in place on devices and on files a link reaches only through /proc; two outputs
that name one file, and an --arch older than tirxc supports, are usage errors; `make demo`
installs tirxc alone."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import click
import pytest

from transpiler.cli import files

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "smem_demo.tx"
POOL = ROOT / "samples" / "smem_pool.tx"

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")


def run(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TIRXC_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "transpiler", *map(str, args)], capture_output=True, env=env,
                          cwd=cwd, timeout=120)


def listing(folder: Path) -> dict[str, str]:
    """Each entry of `folder`: `-> target` for a link, else its kind."""
    out = {}
    for entry in sorted(folder.iterdir()):
        out[entry.name] = f"-> {os.readlink(entry)}" if entry.is_symlink() else "dir" if entry.is_dir() else "file"
    return out


# ---- write_atomic ----------------------------------------------------------------------------------------

def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.cu"
    target.write_text("old")
    target.chmod(0o640)
    (tmp_path / "out.cu").symlink_to("real/out.cu")
    files.write_atomic(str(tmp_path / "out.cu"), "new")
    assert listing(tmp_path) == {"out.cu": "-> real/out.cu", "real": "dir"}
    assert listing(tmp_path / "real") == {"out.cu": "file"}  # the temporary file went next to the target
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_chain_of_links_is_followed_to_its_end(tmp_path):
    (tmp_path / "end.cu").write_text("old")
    (tmp_path / "middle.cu").symlink_to("end.cu")
    (tmp_path / "start.cu").symlink_to(tmp_path / "middle.cu")
    files.write_atomic(str(tmp_path / "start.cu"), "new")
    assert listing(tmp_path) == {"end.cu": "file", "middle.cu": "-> end.cu", "start.cu": f"-> {tmp_path}/middle.cu"}
    assert (tmp_path / "end.cu").read_text() == "new"


@pytest.mark.parametrize("kind", ["dangling", "directory"])
def test_a_dangling_link_or_a_link_to_a_directory_is_refused_and_nothing_changes(tmp_path, kind):
    if kind == "directory":
        (tmp_path / "folder").mkdir()
    (tmp_path / "out.cu").symlink_to("folder" if kind == "directory" else "missing/out.cu")
    before = listing(tmp_path)
    with pytest.raises(OSError) as caught:
        files.write_atomic(str(tmp_path / "out.cu"), "new")
    expected = "which does not exist" if kind == "dangling" else "a symbolic link to the directory"
    assert expected in caught.value.strerror and "symbolic link" in caught.value.strerror
    assert listing(tmp_path) == before
    if kind == "directory":
        assert listing(tmp_path / "folder") == {}
    with pytest.raises(click.UsageError, match=r"cannot write '.*out\.cu': it is a symbolic link"):
        files.write_file(str(tmp_path / "out.cu"), "new")


def test_a_file_reached_only_through_proc_is_written_in_place(tmp_path):
    """`-o /dev/stdout` with standard output on a file that was deleted: /proc names no path
    for it (`... (deleted)`), so the file is written where it is."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd here")
    path = tmp_path / "gone.txt"
    with open(path, "w+") as handle:
        path.unlink()
        files.write_atomic(f"/proc/self/fd/{handle.fileno()}", "written")
        handle.seek(0)
        assert handle.read() == "written"
    assert listing(tmp_path) == {}


def test_a_device_is_still_written_in_place(tmp_path):
    files.write_atomic(os.devnull, "nothing")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    (tmp_path / "null").symlink_to(os.devnull)
    files.write_atomic(str(tmp_path / "null"), "nothing")
    assert listing(tmp_path) == {"null": f"-> {os.devnull}"}


# ---- the commands ------------------------------------------------------------------------------------

def test_every_output_option_writes_through_a_link(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    for name in ("k.cu", "k.py", "info.svg", "layout.svg"):
        (real / name).write_text("old")
        (tmp_path / name).symlink_to(f"real/{name}")
    assert run(SAMPLE, "-o", tmp_path / "k.cu", "--launcher", tmp_path / "k.py").returncode == 0
    assert run("info", POOL, "--svg", tmp_path / "info.svg").returncode == 0
    assert run("layout", "S[(4, 8):(1, 4)]", "--svg", tmp_path / "layout.svg").returncode == 0
    assert listing(tmp_path) == {"info.svg": "-> real/info.svg", "k.cu": "-> real/k.cu", "k.py": "-> real/k.py",
                                 "layout.svg": "-> real/layout.svg", "real": "dir"}
    assert "smem_demo_kernel" in (real / "k.cu").read_text() and "CUDA_SOURCE" in (real / "k.py").read_text()
    assert all((real / name).read_text().startswith("<svg") for name in ("info.svg", "layout.svg"))


@pytest.mark.parametrize("option", [["-o"], ["--launcher"], ["info", "--svg"], ["layout", "--svg"]])
def test_a_dangling_output_link_is_a_usage_error(tmp_path, option):
    (tmp_path / "out").symlink_to("nowhere/out")
    if option[0] == "info":
        args = ["info", POOL, option[1], tmp_path / "out"]
    elif option[0] == "layout":
        args = ["layout", "S[8]", option[1], tmp_path / "out"]
    else:
        args = [SAMPLE, *option, tmp_path / "out"]
    result = run(*args)
    assert result.returncode == 2
    assert "it is a symbolic link to 'nowhere/out', which does not exist" in result.stderr.decode()
    assert listing(tmp_path) == {"out": "-> nowhere/out"}


@pytest.mark.parametrize("spelling", ["k.cu", "./k.cu", "sub/../k.cu", "link.cu"])
def test_one_file_for_both_outputs_is_a_usage_error(tmp_path, spelling):
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.cu").symlink_to("k.cu")
    result = run(SAMPLE, "-o", "k.cu", "--launcher", spelling, cwd=tmp_path)
    assert result.returncode == 2
    assert f"-o 'k.cu' and --launcher '{spelling}' name the same file" in result.stderr.decode()
    assert not (tmp_path / "k.cu").exists()


def test_a_device_may_take_both_outputs():
    result = run(SAMPLE, "-o", os.devnull, "--launcher", os.devnull)
    assert (result.returncode, result.stderr) == (0, b"")


def test_an_arch_older_than_tirxc_supports_is_a_usage_error():
    for arch in ("sm_50", "sm_70", "sm_72"):
        result = run(SAMPLE, "--arch", arch, "--check")
        assert result.returncode == 2
        assert f"--arch {arch} is older than sm_75, the oldest architecture tirxc" in result.stderr.decode()
    assert run(SAMPLE, "--arch", "sm_75", "--check").returncode == 0


# ---- the Makefile ----------------------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_installs_the_package_alone_and_make_test_the_test_extras():
    def commands(target):
        result = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), target], capture_output=True, text=True,
                                timeout=60)
        assert result.returncode == 0, result.stderr
        return [line for line in result.stdout.splitlines() if "pip install" in line]

    assert [line.split("install", 1)[1].strip() for line in commands("demo")] == ["--quiet --upgrade pip",
                                                                                 "--quiet -e ."]
    assert any("-e '.[test]'" in line for line in commands("test"))
