"""Safe outputs under hostile conditions (tests/cli and tests/emit/test_determinism.py
have the ordinary ones: exit codes 0-3, atomic replacement, hash seeds and working
directories for every sample):

* a signal in the middle of writing an output (SIGINT, SIGTERM, SIGHUP) exits with
  128 + N and leaves neither a changed output nor a temporary file;
* the outputs are byte-identical under every locale and I/O encoding, including an
  ASCII-only one, for a file with non-ASCII text, and so are the diagnostics' bytes;
  a non-ASCII file name that the locale cannot decode still gives whole outputs;
* two `make -j` runs over the same samples at once, into the same folder, leave every
  output whole and equal to what the library produces;
* an output path that is a symbolic link is written through: `-o link.cu` (or
  `--launcher link.py`) where the link names a file writes that file and leaves the
  link a link (relative links, chains of links, the target's mode kept);
  `-o /dev/stdout` writes standard output, whether it is a pipe or a file; a
  dangling link either gets its target created or is refused, never replaced; a
  link to a directory is refused with exit status 2 and a message saying so, and
  nothing is deleted.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.hostile._util import ok

UNICODE_KERNEL = '''# Ünïcödé comments: 中文, emoji 😀, bidi \u202e (in a comment)
from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, été: T.float32):
    A = T.match_buffer(A_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    核: T.float32 = A[tx] * été
    T.cuda.printf("é 中 😀 %f\\n", 核)
    assert tx < 1000, "message: ü"
    A[tx] = 核
'''
BROKEN = "from tvm.script import tirx as T\n# ü\nx = (1, 2]  # 中\n"


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONCOERCECLOCALE", "TIRXC_"))}
    env.pop("LANG", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                       if p])
    env.update(extra)
    return env


def _tirxc(args, cwd, env, stdin=None):
    return subprocess.run([sys.executable, "-m", "transpiler", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=120, input=stdin)


# ---- signals while writing ---------------------------------------------------------------------------------

_KILL_WHILE_WRITING = r'''
import os, signal, sys
from transpiler.cli import main as cli
real_fdopen = os.fdopen

class Half:
    """The output handle: writes half of the text, then the process gets the signal."""
    def __init__(self, handle):
        self.handle = handle
    def write(self, text):
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        self.handle.write(text[len(text) // 2:])
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return self.handle.__exit__(*exc)

os.fdopen = lambda *a, **k: Half(real_fdopen(*a, **k))
cli.main(sys.argv[2:])
'''


@pytest.mark.parametrize("name, status", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_a_signal_while_writing_leaves_no_partial_file(tmp_path, name, status, existing):
    target = tmp_path / "out.cu"
    if existing:
        target.write_text("// the previous output\n")
    proc = subprocess.run([sys.executable, "-c", _KILL_WHILE_WRITING, name, str(SAMPLES / "saxpy.tx"), "-o",
                           str(target)], env=_env(), capture_output=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == status, proc.stderr.decode()
    assert proc.stderr.decode().strip().endswith("tirxc: interrupted")
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.cu"] if existing else [])
    if existing:
        assert target.read_text() == "// the previous output\n"


def test_a_signal_between_the_two_outputs_leaves_each_whole(tmp_path):
    """With -o and --launcher, a signal after the first file is written: the second is
    not written at all, the first is complete."""
    proc = subprocess.run([sys.executable, "-c", _KILL_WHILE_WRITING.replace(
        "os.fdopen = lambda *a, **k: Half(real_fdopen(*a, **k))",
        "calls = []\nos.fdopen = lambda *a, **k: (calls.append(1), real_fdopen(*a, **k) if len(calls) == 1 "
        "else Half(real_fdopen(*a, **k)))[1]"),
        "SIGTERM", str(SAMPLES / "saxpy.tx"), "-o", str(tmp_path / "out.cu"), "--launcher", str(tmp_path / "out.py")],
        env=_env(), capture_output=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 143, proc.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.py"]
    expected = ok((SAMPLES / "saxpy.tx").read_text(), "saxpy.tx", launcher_name="out").launcher
    assert (tmp_path / "out.py").read_text() == expected


# ---- locales and encodings ---------------------------------------------------------------------------------

ENVIRONMENTS = {
    "default": {},
    "C": {"LC_ALL": "C"},
    "C.UTF-8": {"LC_ALL": "C.UTF-8"},
    "POSIX, no coercion, no UTF-8 mode (ASCII)": {"LC_ALL": "POSIX", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
    "latin-1 stdio": {"LC_ALL": "C", "PYTHONIOENCODING": "latin-1", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
    "missing ISO-8859-1 locale": {"LC_ALL": "de_DE.ISO-8859-1", "LANG": "de_DE.ISO-8859-1"},
    "UTF-8 mode, hash seed 1": {"PYTHONUTF8": "1", "PYTHONHASHSEED": "1"},
    "hash seed 4242": {"LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "4242"},
}


@pytest.fixture(scope="module")
def locale_runs(tmp_path_factory):
    """environment name -> (stdout .cu, -o .cu, launcher, stderr of the broken file, its status)."""
    folder = tmp_path_factory.mktemp("locales")
    (folder / "uni.tx").write_text(UNICODE_KERNEL, encoding="utf-8")
    (folder / "broken.tx").write_text(BROKEN, encoding="utf-8")

    def run(item):
        name, extra = item
        env = _env(**extra)
        out = folder / f"out-{abs(hash(name))}"
        out.mkdir()
        stdout = _tirxc(["uni.tx"], folder, env)
        to_file = _tirxc(["uni.tx", "-o", str(out / "uni.cu"), "--launcher", str(out / "uni.py")], folder, env)
        from_stdin = _tirxc(["-", "--emit", "launcher"], folder, env, stdin=UNICODE_KERNEL.encode("utf-8"))
        broken = _tirxc(["broken.tx"], folder, env)
        for proc in (stdout, to_file, from_stdin):
            assert proc.returncode == 0, (name, proc.stderr.decode(errors="replace"))
        return name, (stdout.stdout, (out / "uni.cu").read_bytes(), (out / "uni.py").read_bytes(), from_stdin.stdout,
                      broken.stderr, broken.returncode)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(run, ENVIRONMENTS.items()))


def test_outputs_are_byte_identical_in_every_locale(locale_runs):
    reference = ok(UNICODE_KERNEL, "uni.tx", launcher_name="uni")
    for name, (stdout, cu, launcher, from_stdin, _, _) in locale_runs.items():
        assert stdout == cu == reference.cuda.encode("utf-8"), name
        assert launcher == reference.launcher.encode("utf-8"), name
        assert b"CUDA_SOURCE" in from_stdin, name
    assert len({runs[3] for runs in locale_runs.values()}) == 1


def test_diagnostics_survive_every_locale(locale_runs):
    for name, (*_, stderr, status) in locale_runs.items():
        text = stderr.decode("utf-8", errors="replace")
        assert status == 1 and "broken.tx:3:10: error[E0104]" in text, (name, text)
        assert "Traceback" not in text and "internal error" not in text, (name, text)


def test_undecodable_file_name_under_an_ascii_locale(tmp_path):
    """The name's bytes are not ASCII: argv holds surrogate escapes; the header, the
    launcher's SOURCE_FILE and the diagnostics still come out whole."""
    name = "ker\u00e9.tx".encode("utf-8")
    (tmp_path / os.fsdecode(name)).write_bytes((SAMPLES / "saxpy.tx").read_bytes())
    env = _env(LC_ALL="POSIX", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0")
    proc = subprocess.run([sys.executable, "-m", "transpiler", name, "-o", b"out.cu", "--launcher", b"out.py"],
                          cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    cuda = (tmp_path / "out.cu").read_text(encoding="utf-8")
    assert cuda.splitlines()[0].startswith("// Generated by tirxc") and "saxpy_kernel" in cuda
    compile((tmp_path / "out.py").read_text(encoding="utf-8"), "out.py", "exec")


# ---- make -j ---------------------------------------------------------------------------------------------

# The samples with the largest outputs (the longest writes, where a torn one would show), as many as
# one `make -j8` starts at once: each run transpiles them all in parallel with the other run. Every
# sample goes through `make` in CI's `make -j4 demo`; the rule is one pattern for all of them.
RACED_SAMPLES = ("attention_hopper", "gemm_tx_hopper", "gemm_bf16_hopper", "gemm_fp8_hopper", "gemm_bf16_blackwell",
                 "sgemm_tiled", "mma_gemm_fp16", "softmax_tx")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_two_parallel_make_runs_into_one_folder(tmp_path):
    """`make -j8 samples` twice at once, writing the same files: each output is whole and
    what the library produces (the Makefile's own venv step is skipped with -o)."""
    build = tmp_path / "build"
    samples = [SAMPLES / f"{stem}.tx" for stem in RACED_SAMPLES]
    command = ["make", "-s", "-C", str(ROOT), "-j8", "-o", ".venv/bin/.installed", "samples", f"BUILD={build}",
               f"TIRXC={sys.executable} -m transpiler", "SAMPLES=" + " ".join(f"samples/{s.name}" for s in samples)]
    env = _env()
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda _: subprocess.run(command, env=env, capture_output=True, timeout=600), range(2)))
    for proc in runs:
        assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert sorted(p.name for p in build.iterdir()) == sorted(
        [f"{s.stem}.cu" for s in samples] + [f"{s.stem}.py" for s in samples])
    for sample in samples:
        result = ok(sample.read_text(encoding="utf-8"), f"samples/{sample.name}", launcher_name=sample.stem)
        assert (build / f"{sample.stem}.cu").read_text(encoding="utf-8") == result.cuda, sample.name
        assert (build / f"{sample.stem}.py").read_text(encoding="utf-8") == result.launcher, sample.name


# ---- symbolic links -----------------------------------------------------------------------------------

SAXPY = SAMPLES / "saxpy.tx"


@pytest.fixture(scope="module")
def saxpy_outputs():
    result = ok(SAXPY.read_text(encoding="utf-8"), "saxpy.tx", launcher_name="real")
    return result.cuda, result.launcher


def _no_temporary_files(*folders):
    for folder in folders:
        stray = [p.name for p in folder.iterdir() if p.name.startswith(".tirxc-")]
        assert not stray, f"temporary files left in {folder}: {stray}"


def _link_status(link, target: str):
    assert link.is_symlink(), f"{link.name} is no longer a symbolic link"
    assert os.readlink(link) == target, f"{link.name} now points at {os.readlink(link)!r}"


def test_output_through_a_symlink_writes_the_target(tmp_path, saxpy_outputs):
    cuda, _ = saxpy_outputs
    real = tmp_path / "real.cu"
    real.write_text("// old\n")
    real.chmod(0o640)
    link = tmp_path / "link.cu"
    link.symlink_to("real.cu")
    proc = _tirxc([str(SAXPY), "-o", str(link)], tmp_path, _env())
    assert proc.returncode == 0, proc.stderr.decode()
    _link_status(link, "real.cu")
    assert real.read_text(encoding="utf-8") == cuda
    assert real.stat().st_mode & 0o777 == 0o640, "the target's mode changed"
    _no_temporary_files(tmp_path)


def test_launcher_through_symlinks_relative_and_chained(tmp_path, saxpy_outputs):
    """`--launcher out/link.py` -> ../real/hop.py -> real.py (a relative link to another
    folder, then a chain): the last file is written, both links stay."""
    _, launcher = saxpy_outputs
    (tmp_path / "out").mkdir()
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "real.py"
    real.write_text("# old\n")
    (tmp_path / "real" / "hop.py").symlink_to("real.py")
    link = tmp_path / "out" / "link.py"
    link.symlink_to("../real/hop.py")
    proc = _tirxc([str(SAXPY), "--launcher", str(link), "-o", str(tmp_path / "out" / "k.cu")], tmp_path, _env())
    assert proc.returncode == 0, proc.stderr.decode()
    _link_status(link, "../real/hop.py")
    _link_status(tmp_path / "real" / "hop.py", "real.py")
    text = real.read_text(encoding="utf-8")
    compile(text, "real.py", "exec")
    assert "CUDA_SOURCE" in text and text.count("\n") == launcher.count("\n")
    _no_temporary_files(tmp_path / "out", tmp_path / "real")


def test_output_to_dev_stdout_through_a_pipe(tmp_path, saxpy_outputs):
    cuda, _ = saxpy_outputs
    before = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    proc = _tirxc([str(SAXPY), "-o", "/dev/stdout"], tmp_path, _env())
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode("utf-8") == cuda
    assert before is None or os.readlink("/dev/stdout") == before


def _stdout_to_file(tmp_path, output: str):
    """Run tirxc with `-o output` and standard output redirected to a regular file."""
    captured = tmp_path / "captured.txt"
    with open(captured, "wb") as handle:
        proc = subprocess.run([sys.executable, "-m", "transpiler", str(SAXPY), "-o", output], cwd=tmp_path,
                              env=_env(), stdout=handle, stderr=subprocess.PIPE, timeout=120)
    return proc, captured


def test_output_to_a_link_to_standard_output_in_a_file(tmp_path, saxpy_outputs):
    """`-o out` where out -> /proc/self/fd/1 (what /dev/stdout is) and standard output is
    a regular file: the file gets the CUDA, the link stays a link."""
    cuda, _ = saxpy_outputs
    link = tmp_path / "stdout-link"
    link.symlink_to("/proc/self/fd/1")
    proc, captured = _stdout_to_file(tmp_path, str(link))
    assert proc.returncode == 0, proc.stderr.decode()
    _link_status(link, "/proc/self/fd/1")
    assert captured.read_text(encoding="utf-8") == cuda
    _no_temporary_files(tmp_path)


def test_output_to_dev_stdout_in_a_file(tmp_path, saxpy_outputs):
    """The same with /dev/stdout itself. Guarded: run only once a private link of the
    same shape is written through, so that a CLI that replaces links never gets to
    replace /dev/stdout (tests may run as root)."""
    cuda, _ = saxpy_outputs
    canary = tmp_path / "canary"
    canary.symlink_to("/proc/self/fd/1")
    proc, _ = _stdout_to_file(tmp_path, str(canary))
    if proc.returncode != 0 or not canary.is_symlink():
        pytest.fail("a link to standard output is not written through (see the test above): "
                    "not trying /dev/stdout")
    before = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    proc, captured = _stdout_to_file(tmp_path, "/dev/stdout")
    assert proc.returncode == 0, proc.stderr.decode()
    assert captured.read_text(encoding="utf-8") == cuda
    if before is not None:
        assert os.path.islink("/dev/stdout") and os.readlink("/dev/stdout") == before
    assert not [p for p in os.listdir("/dev") if p.startswith(".tirxc-")]


def test_output_to_a_dangling_link(tmp_path, saxpy_outputs):
    """Either the link's target is created (as `echo > link` does) or the path is refused
    (exit 2, naming it); the link itself is never replaced by a file."""
    cuda, _ = saxpy_outputs
    link = tmp_path / "dangling.cu"
    link.symlink_to("made.cu")
    proc = _tirxc([str(SAXPY), "-o", str(link)], tmp_path, _env())
    _link_status(link, "made.cu")
    if proc.returncode == 0:
        assert (tmp_path / "made.cu").read_text(encoding="utf-8") == cuda
    else:
        assert proc.returncode == 2, proc.stderr.decode()
        assert "dangling.cu" in proc.stderr.decode() and not (tmp_path / "made.cu").exists()
    assert "Traceback" not in proc.stderr.decode()
    _no_temporary_files(tmp_path)


@pytest.mark.parametrize("option", ["-o", "--launcher"])
def test_output_to_a_link_to_a_directory_is_refused(tmp_path, option):
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep\n")
    link = tmp_path / "out"
    link.symlink_to("folder")
    args = [str(SAXPY), option, str(link)] + (["-o", str(tmp_path / "k.cu")] if option == "--launcher" else [])
    proc = _tirxc(args, tmp_path, _env())
    stderr = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, stderr)
    assert "directory" in stderr and "out" in stderr and "Traceback" not in stderr, stderr
    _link_status(link, "folder")
    assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]
    assert (folder / "keep.txt").read_text() == "keep\n"
    _no_temporary_files(tmp_path, folder)


def test_output_to_a_directory_is_refused(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    proc = _tirxc([str(SAXPY), "-o", str(folder)], tmp_path, _env())
    assert proc.returncode == 2 and "directory" in proc.stderr.decode(), proc.stderr.decode()
    assert folder.is_dir() and not list(folder.iterdir())
    _no_temporary_files(tmp_path)
