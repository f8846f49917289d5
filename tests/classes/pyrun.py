"""The harness of the tests that compare a module's classes with Python (test_dataclasses.py,
test_enums.py): the module text run by Python, and the same text as a `.tx` file whose kernel
stores each expression, run on the host (tests/emit/hostc.py)."""
from __future__ import annotations

from tests.conftest import transpile
from tests.emit import hostc

KERNEL = '''
from tvm.script import tirx as T


@T.prim_func
def k(O: T.Buffer((%d,), "int32")):
    T.device_entry()
    tx = T.thread_id([1])
%s
'''


def python_values(module: str, values: list[str]) -> list:
    namespace: dict = {}
    exec(module, namespace)  # (the test's own text, not a .tx file)
    return [eval(value, namespace) for value in values]


def kernel_values(module: str, values: list[str], workdir) -> list:
    text = module + KERNEL % (len(values), "\n".join(f"    O[{i}] = {v}" for i, v in enumerate(values)))
    result = transpile(text)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    return hostc.run(result.cuda, {"O": [0] * len(values)}, threads=1, workdir=workdir)["O"]
