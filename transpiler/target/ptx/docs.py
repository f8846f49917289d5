"""docs/ptx.md, generated from the table: `python -m transpiler.target.ptx.docs > docs/ptx.md`
(tests/ptx/test_table.py checks that the page is current)."""
from __future__ import annotations

from transpiler.target import ptx
from transpiler.target.arch import FEATURES, SPECIFIC

INTRO = """\
# The PTX table

`T.ptx` calls one PTX instruction. tirxc renders each instruction it is asked for as a
small `__device__ __forceinline__` helper wrapping `asm volatile`, pasted once into the
.cu. This page is generated from the table (transpiler/target/ptx/) by
`python -m transpiler.target.ptx.docs > docs/ptx.md`; tests/ptx/test_table.py checks that
it is current, and tests/ptx/test_nvcc.py compiles every form of every spelling below
with nvcc.

## Spelling a call

- `T.ptx["mbarrier.try_wait.parity.shared::cta.b64"](...)`, or the attribute path
  `T.ptx.mbarrier.try_wait.parity.shared__cta.b64(...)`: `__` stands for `::` and a
  trailing `_` escapes a Python keyword (`T.ptx.cp.async_.commit_group()`,
  `T.ptx.ld.global_.acquire.gpu.b32(...)`).
- Operands come in PTX order. A destination is an element of a local register buffer
  (`r[0]`); a vector operand (`{d0, d1, ...}`) is one argument per register
  (`*[acc[i] for i in range(64)]`); a memory operand is a pointer (`A.ptr_to([i])`,
  `bar.data`, `T.address_of(slot)`) into the space the instruction names; an immediate is
  a compile-time integer.
- Bit-size typing: a `.b32` operand takes any 32-bit value or register (int32, uint32,
  float32), `.b64` any 64-bit one, `.b16` any 16-bit one; `.u32`, `.s32`, `.f32` ... take
  exactly that dtype (integer literals adapt).
- A predicate operand (wgmma's scale-d, tcgen05.mma's enable-input-d) takes any integer
  or bool value, true when non-zero; a predicate destination (try_wait's waitComplete)
  any integer or bool register, set to 0 or 1.
- `pred=value` guards an instruction (`@p` in PTX): it runs where the value is non-zero.
  On an instruction with a destination it needs `preserve_dst=True` as well: the
  destination registers are then read and written (`"+"`), and keep their values where
  the instruction does not run.
- Several forms of one mnemonic (optional operands, a result returned or written to a
  register, wgmma's A by descriptor or in registers, tcgen05.mma's A by descriptor or in
  tensor memory) are told apart by the number of arguments and, where that is equal, by
  which arguments are addresses, registers, tensor-memory buffers and values, and their
  widths (a 64-bit A is a descriptor, a 32-bit one a tensor-memory address).
- A `cta_group::2` tcgen05 instruction works on a CTA pair: the kernel's cluster, declared
  before it, must have an even number of CTAs (E0606).

## Architectures

Each family needs the architecture of its row in transpiler/target/arch.py (`FEATURES`).
An arch-specific family (the `a` targets) runs only on the architectures listed; its
helpers compile the instruction under nvcc's feature macros (`__CUDA_ARCH_FEAT_SM90_ALL`,
the `__CUDA_ARCH_FAMILY_SPECIFIC__` family targets) and trap elsewhere, so a .cu builds
with plain `nvcc -arch=sm_90a` as well as with `-gencode arch=compute_90a,code=sm_90a`.
"""


def _arch(instr) -> str:
    if instr.suffix:
        archs = SPECIFIC[instr.feature][0]
        return " / ".join(f"sm_{a}a" for a in archs)
    return f"sm_{instr.min_arch}"


def _operands(instr) -> str:
    parts = []
    for op in instr.operands:
        role = {"out": "out ", "inout": "in/out ", "in": "", "addr": "", "imm": "imm "}[op.role]
        kind = op.kind if op.role in ("out", "inout", "in") else (op.space + " addr" if op.role == "addr" else "")
        name = op.name or ""
        text = f"{role}{kind}".strip()
        if op.choices:
            text += " {" + (", ".join(map(str, op.choices)) if len(op.choices) <= 4 else
                            f"{op.choices[0]}..{op.choices[-1]}") + "}"
        parts.append(f"{name}: {text}" if name else text)
    # runs of identical operands read better counted
    out, i = [], 0
    while i < len(parts):
        j = i
        while j < len(parts) and _strip(parts[j]) == _strip(parts[i]):
            j += 1
        out.append(parts[i] if j - i == 1 else f"{j - i} x {_strip(parts[i])}")
        i = j
    result = ", ".join(out) or "none"
    if instr.returns:
        result += f" -> returns {instr.returns}"
    return result


def _strip(part: str) -> str:
    """`d3: in/out f32` -> `in/out f32` when the name is a numbered register."""
    name, _, rest = part.partition(": ")
    return rest if rest and name.rstrip("0123456789") != name else part


def markdown() -> str:
    out = [INTRO]
    sections = (("Memory, barriers and conversions", ("memory", "misc")),
                ("Asynchronous copies and mbarriers", ("async_copy", "async_store")),
                ("Tensor cores", ("tensor_core", "mma_more", "mma_sparse")), ("tcgen05 (Blackwell)", ("tcgen05",)),
                ("Multimem, tensor maps and cluster launch control", ("multimem", "control")),
                ("Arithmetic, comparison and conversion", ("arith", "intmath", "half", "cvt", "fp_cvt")))
    for title, modules in sections:
        out.append(f"## {title}\n")
        out.append("| spelling | forms (operands) | needs | `pred=` |")
        out.append("|---|---|---|---|")
        for family in ptx.FAMILIES:
            if family.build.__module__.rsplit(".", 1)[1] not in modules:
                continue
            for mnemonic in family.examples:
                forms = ptx.forms(mnemonic)
                shown = "<br>".join(_operands(f) for f in forms)
                pred = "with `preserve_dst`" if all(f.has_dest for f in forms) else "yes"
                out.append(f"| `{mnemonic}` | {shown} | {_arch(forms[0])} | {pred} |")
            if family.summary:
                out.append(f"| ↳ *{family.summary}* | | | |")
        out.append("")
    out.append("## Families by architecture row\n")
    out.append("| FEATURES row | minimum | suffix |")
    out.append("|---|---|---|")
    for name, (arch, suffix) in FEATURES.items():
        out.append(f"| `{name}` | sm_{arch} | {suffix or '-'} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
