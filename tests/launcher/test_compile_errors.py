"""When NVRTC rejects the embedded CUDA, the launcher raises CompileError whose message
leads with `kernel.tx:LINE: error: ...` (from the `#line` directives of --line-info)
and quotes the .tx line, instead of CuPy's wall of text. Pure Python: the logs below
were captured from NVRTC 13 (libnvrtc.so.13) compiling the CUDA tirxc generates for
BROKEN, with and without --line-info."""
from __future__ import annotations

import sys
import types

import pytest

from tests.hostile._util import load_launcher, ok

BROKEN = '''from tvm.script import tirx as T

SRC = r"""
__device__ __forceinline__ float broken(float x) {
    float y = x * 2.0f;
    return y + undefined_in_helper;
}
"""


@T.prim_func
def uses_broken(A: T.Buffer((64,), "float32")):
    T.device_entry()
    tx = T.thread_id([64])
    A[tx] = T.cuda.func_call("broken", A[tx], source_code=SRC, return_type="float32")
'''

# NVRTC's log for the --line-info CUDA of BROKEN named kernels/broken.tx (program "broken.tx.cu")
LOG_MAPPED = ('kernels/broken.tx(6): error: identifier "undefined_in_helper" is undefined\n'
              '      return y + undefined_in_helper;\n'
              '                 ^\n'
              '\n'
              '1 error detected in the compilation of "broken.tx.cu".\n')

# ... and for the plain CUDA (no #line): the line is one of the generated file
LOG_PLAIN = ('broken.tx.cu(6): error: identifier "undefined_in_helper" is undefined\n'
             '      return y + undefined_in_helper;\n'
             '                 ^\n'
             '\n'
             '1 error detected in the compilation of "broken.tx.cu".\n')

SUMMARY = "broken.tx: NVRTC rejected the generated CUDA (1 error; NVRTC's log is the `log` attribute)"


def _launcher(tmp_path, name="kernels/broken.tx", line_info=True):
    result = ok(BROKEN, name, until="launcher", launcher_name="broken", line_info=line_info)
    return load_launcher(tmp_path, result.launcher, "broken")


def test_an_error_is_reported_at_its_tx_line_with_the_line_quoted(tmp_path, monkeypatch):
    module = _launcher(tmp_path)
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "broken.tx").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    error = module.compile_error(LOG_MAPPED)
    assert isinstance(error, RuntimeError)
    assert str(error).split("\n") == [
        'kernels/broken.tx:6: error: identifier "undefined_in_helper" is undefined',
        "  6 |     return y + undefined_in_helper;",
        SUMMARY,
    ]
    assert error.errors == [("kernels/broken.tx", 6, 'identifier "undefined_in_helper" is undefined')]
    assert error.log == LOG_MAPPED


def test_without_the_tx_file_the_location_is_still_given(tmp_path, monkeypatch):
    module = _launcher(tmp_path)
    monkeypatch.chdir(tmp_path)  # no kernels/broken.tx here
    assert str(module.compile_error(LOG_MAPPED)).split("\n") == [
        'kernels/broken.tx:6: error: identifier "undefined_in_helper" is undefined', SUMMARY]


def test_without_line_info_the_generated_line_is_quoted(tmp_path):
    module = _launcher(tmp_path, line_info=False)
    error = module.compile_error(LOG_PLAIN)
    assert str(error).split("\n") == [
        'broken.tx (generated CUDA, line 6): error: identifier "undefined_in_helper" is undefined',
        "  6 |     return y + undefined_in_helper;",
        SUMMARY,
    ]
    assert error.errors == [(None, 6, 'identifier "undefined_in_helper" is undefined')]


def test_warnings_and_remarks_are_left_out_and_every_error_kept(tmp_path):
    """The shape of a real NVRTC log with two errors and a warning (file names as NVRTC
    prints them: unescaped), for a file name that needs C escapes in the `#line`."""
    name = 'my kernels/we"ird.tx'
    module = _launcher(tmp_path, name)
    assert '#line 4 "my kernels/we\\"ird.tx"' in module.CUDA_SOURCE
    log = (f'{name}(6): error: identifier "undefined_in_helper" is undefined\n'
           '      return y + undefined_in_helper;\n'
           '                 ^\n\n'
           f'{name}(5): warning #177-D: variable "y" was declared but never referenced\n'
           '      float y = x * 2.0f;\n'
           '            ^\n\n'
           f'{name}(15): error: expected a ";"\n'
           '  }\n'
           '  ^\n\n'
           'Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"\n\n'
           '2 errors detected in the compilation of "we\\"ird.tx.cu".\n')
    error = module.compile_error(log)
    assert [line for line in str(error).split("\n") if not line.startswith("  ")] == [
        f'{name}:6: error: identifier "undefined_in_helper" is undefined',
        f'{name}:15: error: expected a ";"',
        'we"ird.tx: NVRTC rejected the generated CUDA (2 errors; NVRTC\'s log is the `log` attribute)',
    ]


def test_a_log_in_another_format_is_passed_on_whole(tmp_path):
    module = _launcher(tmp_path)
    error = module.compile_error("nvrtc: something unexpected\n")
    assert str(error) == "broken.tx: NVRTC rejected the generated CUDA:\nnvrtc: something unexpected\n"
    assert error.errors == []


def test_the_compile_path_raises_compile_error(tmp_path, monkeypatch):
    """compiled_module turns CuPy's CompileException into CompileError (a stub CuPy whose
    RawModule fails as NVRTC does)."""
    module = _launcher(tmp_path)

    class CompileException(Exception):
        def get_message(self):
            return LOG_MAPPED

    class RawModule:
        def __init__(self, code, options):
            self.code = code

        def compile(self):
            raise CompileException()

    stub = types.ModuleType("cupy")
    stub.RawModule = RawModule
    stub.cuda = types.SimpleNamespace(Device=lambda device: types.SimpleNamespace(compute_capability="90"),
                                      compiler=types.SimpleNamespace(CompileException=CompileException))
    monkeypatch.setitem(sys.modules, "cupy", stub)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(module.CompileError, match=r'^kernels/broken\.tx:6: error: identifier "undefined_in_helper"'):
        module.compiled_module(0)


STEALS = '''from tvm.script import tirx as T

SRC = r"""
#line 1 "SECRET"
__device__ __forceinline__ float steal(float x) {
    return x + not_declared;
}
"""


@T.prim_func
def steals(A: T.Buffer((64,), "float32")):
    T.device_entry()
    tx = T.thread_id([64])
    A[tx] = T.cuda.func_call("steal", A[tx], source_code=SRC, return_type="float32")
'''


@pytest.mark.parametrize("line_info", [True, False])
def test_a_line_directive_in_inline_cuda_cannot_make_compile_error_read_a_file(tmp_path, monkeypatch, line_info):
    """A `#line` in a func_call source names any file it likes, and NVRTC reports its errors
    there: CompileError gives that file's name and line but reads only the .tx file itself."""
    secret = tmp_path / "secret.txt"
    secret.write_text("token = s3cr3t\nsecond\n")
    (tmp_path / "steals.tx").write_text(STEALS)
    monkeypatch.chdir(tmp_path)
    text = STEALS.replace("SECRET", str(secret))
    module = load_launcher(tmp_path, ok(text, "steals.tx", until="launcher", launcher_name="steals",
                                        line_info=line_info).launcher, "steals")
    assert module.LINE_FILE == ("steals.tx" if line_info else "")
    log = f'{secret}(3): error: identifier "not_declared" is undefined\n'
    error = module.compile_error(log)
    assert str(error).split("\n") == [f'{secret}:3: error: identifier "not_declared" is undefined',
                                      "steals.tx: NVRTC rejected the generated CUDA (1 error; NVRTC's log is the "
                                      "`log` attribute)"]
    assert error.errors == [(str(secret), 3, 'identifier "not_declared" is undefined')]
    quoted = module.compile_error('steals.tx(14): error: something\n')
    assert ("  14 |     tx = T.thread_id([64])" in str(quoted)) == line_info  # the .tx file itself: quoted
