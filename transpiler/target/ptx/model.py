"""The shape of one PTX instruction tirxc can emit, and the `__device__ __forceinline__`
helper that wraps it in `asm volatile` (docs/design.md, decisions 15 and 16; /tmp/notes/ptx.md).

An instruction's operands are listed in the caller's order (the PTX operand order). Its
assembly text names operand k as `$k` and the guard predicate as `$p`; rendering turns
them into the asm operand numbers (outputs first, as C requires)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from transpiler.target.arch import FEATURES, guard_macro

# register kind -> (C type, tirx dtype of the C type, asm constraint, accepted dtypes)
# A `.bN` operand takes any N-bit value: the helper sees its bits.
KINDS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    # a .b8 value (cvt's .e2m1x2 byte) carried in the low byte of a 16-bit register: an 8-bit
    # destination gets the register converted to it after the instruction (Instruction.narrowed)
    "b8": ("unsigned short", "uint16", "h", ("uint16", "int16")),
    "u16": ("unsigned short", "uint16", "h", ("uint16",)),
    "b16": ("unsigned short", "uint16", "h", ("uint16", "int16", "float16", "bfloat16")),
    "u32": ("unsigned int", "uint32", "r", ("uint32",)),
    "s32": ("int", "int32", "r", ("int32",)),
    "b32": ("unsigned int", "uint32", "r", ("uint32", "int32", "float32")),
    "f32": ("float", "float32", "f", ("float32",)),
    "u64": ("unsigned long long", "uint64", "l", ("uint64",)),
    "s64": ("long long", "int64", "l", ("int64",)),
    "b64": ("unsigned long long", "uint64", "l", ("uint64", "int64", "float64")),
    "f64": ("double", "float64", "d", ("float64",)),
    # a .b128 value held in one 128-bit scalar (TIRx's uint128; the "q" constraint, nvcc 12.4 on)
    "b128": ("unsigned __int128", "uint128", "q", ("uint128", "int128")),
    # a predicate: given as any integer or bool value (non-zero is true), set from a
    # destination into any integer or bool register
    "pred": ("unsigned int", "uint32", "r", ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                              "int64", "uint64")),
}


@dataclass(frozen=True)
class Operand:
    role: str  # out (written), inout (read and written), in (a value), addr (a memory address), imm (compile time)
    kind: str = "u32"  # register kind of out/inout/in (KINDS); of a shared addr: "u64" for a 64-bit register
    space: str = ""  # addr: shared (a 32-bit shared-window address), local (64-bit local window), global or generic
    name: str = ""
    choices: tuple[int, ...] = ()  # imm: the values the ISA allows (empty: any)

    @property
    def ctype(self) -> str:
        return KINDS[self.kind][0]

    @property
    def dtype(self) -> str:
        return KINDS[self.kind][1]

    @property
    def accepts(self) -> tuple[str, ...]:
        return KINDS[self.kind][3]

    @property
    def is_dest(self) -> bool:
        return self.role in ("out", "inout")

    def describe(self) -> str:
        if self.name:
            return self.name
        if self.role == "addr":
            return f"{self.space} address"
        if self.role == "imm":
            return "immediate"
        return f"{'' if self.role == 'in' else self.role + ' '}{self.kind}".strip()


@dataclass(frozen=True)
class Instruction:
    mnemonic: str
    operands: tuple[Operand, ...]
    asm: str  # PTX text; operand k is `$k`, the guard predicate `$p`
    feature: str  # the FEATURES row: which architecture it needs
    returns: str | None = None  # register kind of a returned value (try_wait's predicate as u32)
    variant: str = ""  # distinguishes the helpers of one mnemonic (arity, `pred=`)
    predicated: bool = False  # takes a trailing `pred` value: the instruction runs where it is non-zero
    preserve_dst: bool = False  # predicated with destinations bound read-write ("+"): kept where it does not run
    clobbers_memory: bool = True
    specific: tuple[int, ...] = field(default=())  # arch-specific: the architectures it exists on
    sinkable: tuple[int, ...] = ()  # operands the ISA lets be the sink `_` (T.ptx.SINK)
    sinks: tuple[int, ...] = ()  # operands written `_`: no helper parameter
    narrowed: tuple[int, ...] = ()  # destinations bound to a narrower integer (a uint8 for a .b16 register)

    @property
    def min_arch(self) -> int:
        return FEATURES[self.feature][0]

    @property
    def suffix(self) -> str:
        return FEATURES[self.feature][1]

    @property
    def has_dest(self) -> bool:
        return self.returns is not None or any(op.is_dest for op in self.operands)

    @property
    def helper(self) -> str:
        return ("tirx_ptx_" + "".join(c if c.isalnum() else "_" for c in self.mnemonic).strip("_")
                + (f"_{self.variant}" if self.variant else "") + ("_pred" if self.predicated else "")
                + ("_keep" if self.preserve_dst else "")
                + ("_sink" + "_".join(str(k) for k in self.sinks) if self.sinks else "")
                + ("_narrow" + "_".join(str(k) for k in self.narrowed) if self.narrowed else ""))

    def with_pred(self, preserve_dst: bool = False) -> "Instruction":
        return replace(self, predicated=True, preserve_dst=preserve_dst)

    def with_sinks(self, sinks: tuple[int, ...]) -> "Instruction":
        """The operands at `sinks` written as the sink symbol `_` (they take no argument)."""
        return replace(self, sinks=tuple(sorted(sinks)))

    def with_narrowed(self, narrowed: tuple[int, ...]) -> "Instruction":
        """The destinations at `narrowed` bound to narrower integers: the instruction writes a
        register of its width, converted to the argument's type after it."""
        return replace(self, narrowed=tuple(sorted(narrowed)))

    # -- rendering ----------------------------------------------------------------------------
    def source(self) -> str:
        params, imms, types = [], [], []
        numbers: dict[str, int] = {}
        after: list[str] = []  # statements after the asm (predicate results)
        before: list[str] = []  # declarations before the asm
        staged: list[str] = []  # registers of narrowed destinations, declared where the asm is
        counts = {"out": 0, "inout": 0, "in": 0, "addr": 0, "imm": 0}
        prefix = {"out": "out", "inout": "acc", "in": "in", "addr": "ptr", "imm": "value"}
        out_refs, in_refs = [], []  # (key, constraint text)
        if self.returns:
            ctype, _, constraint, _ = KINDS[self.returns]
            out_refs.append(("r", f'"{"+" if self.preserve_dst else "="}{constraint}"(result)'))
        for k, op in enumerate(self.operands):
            name = op.name or f"{prefix[op.role]}{counts[op.role]}"
            counts[op.role] += 1
            if k in self.sinks:
                continue
            if op.role in ("out", "inout"):
                sign = "=" if op.role == "out" and not self.preserve_dst else "+"
                constraint = KINDS[op.kind][2]
                if op.kind in ("b8", "b16", "b32", "b64", "pred"):
                    # any register of the width: the helper takes it by reference and sees its bits
                    tname = f"R{len(types)}"
                    types.append(f"typename {tname}")
                    params.append(f"{tname}& {name}")
                    if k in self.narrowed:  # a register of the instruction's width, converted after it
                        staged.append(f"  {op.ctype} {name}_bits" + (f" = ({op.ctype}){name};" if sign == "+" else ";"))
                        out_refs.append((str(k), f'"{sign}{constraint}"({name}_bits)'))
                        after.append(f"  {name} = ({tname}){name}_bits;")
                    elif op.kind == "pred":
                        before.append(f"  unsigned int {name}_bits = "
                                      + (f"{name} ? 1u : 0u;" if self.preserve_dst else "0;"))
                        out_refs.append((str(k), f'"{sign}r"({name}_bits)'))
                        after.append(f"  {name} = ({tname}){name}_bits;")
                    else:  # the checker has made sure the register has the operand's width
                        out_refs.append((str(k), f'"{sign}{constraint}"(*reinterpret_cast<{op.ctype}*>(&{name}))'))
                else:
                    params.append(f"{op.ctype}& {name}")
                    out_refs.append((str(k), f'"{sign}{constraint}"({name})'))
            elif op.role == "in":
                params.append(f"{op.ctype} {name}")
                in_refs.append((str(k), f'"{KINDS[op.kind][2]}"({name})'))
            elif op.role == "addr":
                params.append(f"const void* {name}")
                if op.space == "shared" and op.kind == "u64":  # a shared-window address in a 64-bit register
                    in_refs.append((str(k), f'"l"((unsigned long long)__cvta_generic_to_shared({name}))'))
                elif op.space == "shared":
                    in_refs.append((str(k), f'"r"((unsigned int)__cvta_generic_to_shared({name}))'))
                elif op.space == "local":  # a local-window address
                    in_refs.append((str(k), f'"l"((unsigned long long)__cvta_generic_to_local({name}))'))
                else:
                    in_refs.append((str(k), f'"l"({name})'))
            else:
                imms.append(f"int {name}")
                in_refs.append((str(k), f'"n"({name})'))
        text = self.asm
        for k in self.sinks:
            text = re.sub(rf"\${k}(?!\d)", "_", text)
        if self.predicated:
            params.append("unsigned int pred")
            in_refs.append(("p", '"r"(pred)'))
            guarded = text.replace(self.mnemonic, "@tirx_p " + self.mnemonic, 1)
            text = "{\n.reg .pred tirx_p;\nsetp.ne.b32 tirx_p, $p, 0;\n" + guarded + "\n}"
        for number, (key, _) in enumerate(out_refs + in_refs):
            numbers[key] = number
        if self.returns:
            text = text.replace("$r", f"%{numbers['r']}")
        text = re.sub(r"\$(\d+|p)", lambda m: f"%{numbers[m.group(1)]}", text)
        result = "void"
        body = []
        if self.returns:
            result = KINDS[self.returns][0]
            body.append(f"  {result} result = 0;")
        body += before
        clobber = ' : "memory"' if self.clobbers_memory else ""
        text = text.replace("\n", "\\n\\t")
        sections = "".join(" :" + (" " + ", ".join(c for _, c in group) if group else "")
                           for group in (out_refs, in_refs))
        asm = f'  asm volatile("{text}"{sections}{clobber});'
        guard = guard_macro(self.feature)
        if guard:
            body += [f"#ifdef {guard}", *staged, asm, *after, "#else", "  __trap();", "#endif"]
        else:
            body += [*staged, asm, *after]
        if self.returns:
            body.append("  return result;")
        template = f"template <{', '.join(imms + types)}>\n" if imms or types else ""
        return (f"{template}__device__ __forceinline__ {result} {self.helper}({', '.join(params)}) {{\n"
                + "\n".join(body) + "\n}")


# -- building blocks for the family files ---------------------------------------------------------
def regs(role: str, kind: str, count: int, name: str = "") -> tuple[Operand, ...]:
    return tuple(Operand(role, kind, name=f"{name}{i}" if name else "") for i in range(count))


def refs(start: int, count: int) -> str:
    return ", ".join(f"${i}" for i in range(start, start + count))


def vec(start: int, count: int) -> str:
    return "{" + refs(start, count) + "}"


@dataclass(frozen=True)
class Form:
    """One operand list of an instruction and its assembly text."""
    operands: tuple[Operand, ...]
    asm: str
    returns: str | None = None
    feature: str | None = None  # a FEATURES row of its own, when the form is newer than its family
    sinkable: tuple[int, ...] = ()  # operands the ISA lets be the sink `_` (not all of them at once)


@dataclass(frozen=True)
class Family:
    """A set of mnemonics (a regular expression over modifier slots) sharing one builder."""
    pattern: str
    build: object  # match -> Form | list[Form] | str (why this spelling is not a valid form)
    feature: str
    examples: tuple[str, ...]  # valid spellings: the docs, "did you mean", and the nvcc test corpus
    summary: str = ""
    clobbers_memory: bool = True
