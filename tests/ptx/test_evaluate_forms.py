"""`T.evaluate(T.ptx.<op>(...))`, TIRx's spelling of a PTX call as a statement, checks as the
bare call does for every example spelling whose form takes registers only (destinations and
values): the instructions that write their destination, as `abs.f16x2` and `setp.gt.f16`."""
from __future__ import annotations

from tests.conftest import transpile
from transpiler.target import ptx
from transpiler.target.ptx.model import KINDS
from transpiler.target.target import Target

TARGETS = ("sm_90a", "sm_100a", "sm_120a")


def _register_forms():
    for mnemonic in ptx.EXAMPLES:
        instr = ptx.forms(mnemonic)[0]
        if instr.operands and all(op.role in ("out", "inout", "in") for op in instr.operands) \
                and any(op.is_dest for op in instr.operands):
            arch = next((a for a in TARGETS if Target.parse(a).allows(instr.feature)), None)
            if arch is not None:
                yield mnemonic, instr, arch


def _kernel(calls: list[str]) -> str:
    body = "\n".join(f"    {c}" for c in calls)
    dtypes = sorted({KINDS[k][1] for k in KINDS})
    buffers = "\n".join(f'    v_{d} = T.alloc_local((64,), "{d}")' for d in dtypes)
    return ("from tvm.script import tirx as T\n\n\n@T.prim_func\ndef k():\n    T.device_entry()\n"
            f"    tx = T.thread_id([32])\n{buffers}\n{body}\n")


def _call(mnemonic: str, instr) -> str:
    args = ", ".join(f"v_{KINDS[op.kind][1]}[{k}]" for k, op in enumerate(instr.operands))
    return f'T.ptx["{mnemonic}"]({args})'


def test_evaluate_of_a_register_instruction_checks_as_the_call_does():
    by_arch: dict[str, list[str]] = {}
    for mnemonic, instr, arch in _register_forms():
        by_arch.setdefault(arch, []).append(_call(mnemonic, instr))
    assert sum(map(len, by_arch.values())) > 100
    for arch, calls in by_arch.items():
        bare = transpile(_kernel(calls), "bare.tx", arch=arch, until="check")
        wrapped = transpile(_kernel([f"T.evaluate({c})" for c in calls]), "wrapped.tx", arch=arch, until="check")
        errors = lambda r: [(d.span.line, d.code) for d in r.diagnostics if d.severity == "error"]  # noqa: E731
        assert errors(wrapped) == errors(bare), arch
        assert not errors(bare), [d.message for d in bare.diagnostics][:5]
