"""Every form of every example spelling in the PTX table, called once from a kernel: one
.cu per architecture, so that nvcc (ptxas) judges each helper the table renders."""
from __future__ import annotations

from transpiler.target import ptx
from transpiler.target.arch import FEATURES


def instructions(max_arch: int, with_specific: bool = True):
    """Each form of each example needing at most sm_{max_arch}, and its `pred=` form."""
    seen = set()
    for family in ptx.FAMILIES:
        for mnemonic in family.examples:
            found = ptx.forms(mnemonic)
            assert isinstance(found, list), f"the example `{mnemonic}` is not a valid form: {found}"
            for instr in found:
                if instr.min_arch > max_arch or (instr.suffix and not with_specific):
                    continue
                if instr.helper in seen:
                    continue
                seen.add(instr.helper)
                yield instr
                # guarded by `pred=` (with `preserve_dst=True` where it writes registers)
                yield ptx.predicated(instr, instr.has_dest)
                for k in instr.sinkable:  # each operand the ISA lets be `_` (T.ptx.SINK)
                    yield ptx.sunk(instr, (k,))


def _imm(op) -> str:
    if op.choices:
        return str(op.choices[-1] if op.name == "bytes" else op.choices[0])
    return "0"


def call(instr, index: int) -> list[str]:
    """C statements calling the helper of instr with operands of the right kinds."""
    lines, args, imms = [], [], []
    for k, op in enumerate(instr.operands):
        name = f"v{index}_{k}"
        if k in instr.sinks:
            continue
        if op.role in ("out", "inout"):
            lines.append(f"  {op.ctype} {name} = ({op.ctype})seed;")
            args.append(name)
        elif op.role == "in":
            lines.append(f"  {op.ctype} {name} = ({op.ctype})seed;")
            args.append(name)
        elif op.role == "addr":
            args.append("smem" if op.space == "shared" else "gmem")
        else:
            imms.append(_imm(op))
    if instr.predicated:
        args.append("(unsigned int)seed")
    template = f"<{', '.join(imms)}>" if imms else ""
    result = f"sink[{index}] = (unsigned long long)" if instr.returns else ""
    lines.append(f"  {result}{instr.helper}{template}({', '.join(args)});")
    for k, op in enumerate(instr.operands):
        if op.role in ("out", "inout") and k not in instr.sinks:
            lines.append(f"  sink[{index}] += (unsigned long long)v{index}_{k};")
    return lines


# Calls per kernel: cicc's time grows much faster than linearly in the size of one function
# (the corpus of sm_80 as one kernel: 19 s of CPU; as kernels of 64 calls: 1.5 s). ptxas still
# judges every helper, whatever kernel calls it.
CALLS_PER_KERNEL = 64


def translation_unit(instrs) -> str:
    """The helpers and kernels calling them, CALLS_PER_KERNEL each (ptxas refuses a kernel that
    mixes tcgen05's `.cta_group::1` and `::2`: the pair forms get kernels of their own)."""
    helpers, bodies = [], {}
    for index, instr in enumerate(instrs):
        helpers.append(instr.source())
        family = "corpus_pair" if "cta_group::2" in instr.mnemonic else "corpus"
        body = bodies.setdefault(f"{family}_{index // CALLS_PER_KERNEL}", [])
        body.append(f"  if (seed == {index}) {{")
        body.extend("  " + line for line in call(instr, index))
        body.append("  }")
    kernels = [f"extern \"C\" __global__ void {name}(unsigned long long* sink, int* gmem, int seed) {{\n"
               "  __shared__ alignas(128) unsigned long long smem[64];\n"
               + "\n".join(body) + "\n  sink[0] += smem[seed & 63];\n}\n" for name, body in bodies.items()]
    return "\n\n".join(helpers) + "\n\n" + "\n".join(kernels)


def feature_of(instr) -> tuple[int, str]:
    return FEATURES[instr.feature]
