"""`--line-info` on a GPU: NVRTC's real error for a broken `T.cuda.func_call` body, raised
by the generated launcher as CompileError at the .tx line (tests/launcher/test_compile_errors.py
checks the same mapping on captured logs, without a GPU)."""
from __future__ import annotations

import pytest

from tests.hostile._util import load_launcher, ok
from tests.launcher.test_compile_errors import BROKEN

pytestmark = pytest.mark.gpu


def test_nvrtc_errors_point_into_the_tx_file(tmp_path, monkeypatch):
    import cupy
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "broken.tx").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    result = ok(BROKEN, "kernels/broken.tx", until="launcher", launcher_name="broken", line_info=True)
    module = load_launcher(tmp_path, result.launcher, "broken")
    with pytest.raises(module.CompileError) as caught:
        module.uses_broken(cupy.zeros((64,), dtype=cupy.float32))
    message = str(caught.value)
    assert message.startswith('kernels/broken.tx:6: error: identifier "undefined_in_helper" is undefined\n'
                              "  6 |     return y + undefined_in_helper;\n"), message
    assert caught.value.errors == [("kernels/broken.tx", 6, 'identifier "undefined_in_helper" is undefined')]
