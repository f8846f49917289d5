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
it is current, tests/ptx/test_nvcc.py compiles every form of every spelling below
with nvcc, and ptxas assembles every spelling the table accepts (below).

## Spelling a call

- `T.ptx["mbarrier.try_wait.parity.shared::cta.b64"](...)`, or the attribute path
  `T.ptx.mbarrier.try_wait.parity.shared__cta.b64(...)`: `__` stands for `::` and a
  trailing `_` escapes a Python keyword (`T.ptx.cp.async_.commit_group()`,
  `T.ptx.ld.global_.acquire.gpu.b32(...)`). Tensor-memory management also has a keyword
  form: `T.ptx.tcgen05.alloc(ptr, n_cols=512, cta_group=1)`, `relinquish_alloc_permit`,
  `dealloc`.
- TIRx's printed form is read too: `T.ptx.cp(dst, src, n, "async", "bulk", "", "",
  "global", "shared::cta", "bulk_group", "", "")`, the operands first and the mnemonic's
  modifier slots as trailing strings ("" for a slot left out); a shared address written
  `T.cuda.cvta_generic_to_shared(T.address_of(x))` is the address of `x`.
- Every mnemonic is looked up in the table, which is data: each family is a pattern over
  the mnemonic's modifier slots and a builder that returns the instruction's forms
  (operands, assembly text) or says why a spelling is not a valid instruction (E0603).
  An unknown mnemonic is E0601, with close spellings; wrong operands are E0602.
- Operands come in PTX order: destinations, values, addresses and compile-time
  immediates. A destination is an lvalue: an element of a local register buffer (`r[0]`),
  a scalar, or, as TIRx's inline asm binds any lvalue, an element of a global or shared
  buffer, stored after the instruction (the buffer is then written, not `const`); a vector operand (`{d0, d1, ...}`) is one argument per register
  (`*[acc[i] for i in range(64)]`); a memory operand is a pointer (`A.ptr_to([i])`,
  `bar.data`, `T.address_of(slot)`) into the space the instruction names, converted to the
  shared window where the instruction wants one (a tensor map's `T.address_of` is a generic
  address; a shared::cta ld / st / red / atom also takes the window's address held in a 32-
  or 64-bit integer); an immediate is a compile-time integer, checked against the values the ISA
  allows (E0605).
- Bit-size typing: a `.b32` operand takes any 32-bit value or register (int32, uint32,
  float32), `.b64` any 64-bit one, `.b16` any 16-bit one; `.u32`, `.s32`, `.f32` ... take
  exactly that dtype (integer literals adapt). A bit-size operand's value is reinterpreted,
  not converted. An 8- or 16-bit integer passed to a 32-bit integer operand widens as C
  promotes it, and a narrower integer destination of a bit-size register (a uint8 for cvt's
  `.e2m1x2` byte, which lives in a 16-bit register, or a uint8 for `ld.shared.b8`) gets the
  register's value converted to it after the instruction.
- A predicate operand (wgmma's scale-d, tcgen05.mma's enable-input-d) takes any integer
  or bool value, constant or not, true when non-zero; a predicate destination (try_wait's waitComplete)
  any integer or bool register, set to 0 or 1.
- `pred=value` guards an instruction (`@p` in PTX): it runs where the value is non-zero.
  On an instruction with a destination it needs `preserve_dst=True` as well: the
  destination registers are then read and written (`"+"`), and keep their values where
  the instruction does not run (E0604 without it).
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

## Assembled by ptxas

Every spelling the table accepts assembles with ptxas for every architecture the table
claims it for: `python -m tests.ptx.assemble --all` enumerates the spellings of each
family (every string its pattern matches, its free tokens taking the table's own words and
numbers; ld / st / red / atom, whose modifiers are a set, as a seeded sample of 60,000 drawn
spellings), renders each form's helper as a .cu gets it, calls it from a kernel of its own,
and assembles the kernels through `nvcc --ptx` and ptxas for sm_80, 86, 89, 90, 90a, 100,
100a, 100f, 103a, 110a, 120, 120a and 121a (sm_101a is sm_110a in CUDA 13). With ptxas 13.0:
7,234 spellings of the 148 families, 9,143 forms, 90,734 assemblies, 0 refused (5-10 minutes
on two busy cores). `--beyond` assembles what the table refuses on each target instead, to
find forms it could allow there. A kernel ptxas refuses is named with its spelling and ptxas's message (`--arch`,
`--family`, `--limit N` and `--spellings FILE` narrow a run). tests/ptx/test_assemble.py
assembles a seeded sample in CI. Lines of the ISA that this ptxas does not assemble
(bf16x2 from a narrow pair, s2f6x2, narrow pairs from bf16x2, fp6 from f16x2) are refused
as not supported yet.

## What the table covers

ld / st / red / atom with their semantics, scopes, cache hints and prefetch sizes (modifiers
accepted in the orders real kernels write them), mov, prefetch, bar / barrier /
barrier.cluster, every fence, elect.sync, mapa, packed cvt, f32x2 arithmetic, cp.async and
cp.async.bulk (plain and tensor, loads, stores, prefetches) with their groups, every mbarrier
form (init, arrive with a count, expect_tx, complete_tx, try_wait / test_wait with parity,
suspend hint and result), ldmatrix / stmatrix, mma.sync, wgmma (fence, mma_async in its `ss`
and `rs` forms for every shape and type, commit, wait), setmaxnreg and the tcgen05 family
(alloc, dealloc, relinquish, ld, st, cp, shift, mma of every kind including block-scaled ones,
commit, fences, waits); and the families listed under the next heading.

## Where tirxc differs from TIRx

- TIRx makes wgmma's scale-d a compile-time immediate and wants `T.ptx.pred(x)` around
  integer predicates; tirxc also accepts run-time values there (and accepts `T.ptx.pred`).
- TIRx's wgmma s8 shapes stop at N = 224; ptxas accepts 240 and 256, so tirxc does too.
- TIRx lets `pred=` guard an instruction with a destination without `preserve_dst=True` (the
  destination then undefined where it does not run); tirxc asks for `preserve_dst=True`.
- `T.ptx.addr(base, byte_offset)` adds the offset to the pointer in C rather than writing
  `[base+offset]` (the same address; the offset a multiple of the element size).
- `T.ptx.SINK` writes the ISA's `_` (the halves of a `mov` unpack so far; E0608 elsewhere).
- TIRx's dotted family names (`T.ptx.st_async...`, `T.ptx.multimem_ld_reduce...`) name
  `st.async`, `multimem.ld_reduce`.
- Forms TIRx's table leaves out, each compiled by ptxas: tcgen05.mma's `.collector::a::*`
  (`.ws`: `::b0`..`::b3`) and `.ashift` qualifiers and its `scale-input-d` immediate
  (kind::f16 / tf32), multimem's packed fp8 types and `.acc::f16`, and `tensormap.replace`'s
  `swizzle_atomicity` (these two sm_100a).
- The arithmetic and warp families of upstream's table are there too: min / max with `.relu`,
  `.NaN`, `.xorsign.abs`, packed 16-bit and half types, and the three-input f32 line as a
  second form of sm_100; integer and floating div / rem, mul24 / mad24, sad, bfe / bfi / bfind /
  fns, dp4a / dp2a, shf, slct, set, testp, copysign; half-precision add / sub / mul / fma / neg /
  abs and setp's `p|q` on f16x2 / bf16x2; general `cvt` with the ISA's rounding rules;
  activemask, match.sync, f32 redux.sync (sm_100a), bar.red / barrier.red, getctarank, ldu,
  prefetchu, applypriority, discard, st.bulk, mbarrier's `.noComplete` arrives and
  pending_count; mma.sync's integer, tf32, fp8 (f32 accumulator), f64 and m8n8k4 f16 shapes;
  cvt's fp8 pairs from f16x2 / bf16x2, fp6 / fp4 pairs to and from f32 / f16x2, the ue8m0x2
  lines and `.rs` to f16x2 / bf16x2; cvt.pack, cnot, bmsk, szext, mad.f32 / f64,
  half-precision ex2 / tanh, mbarrier.arrive_drop, and `cp.reduce.async.bulk.tensor`.
- And the rest of upstream's table: cvt to bf16x2 from fp8 / fp6 / fp4 / s2f6 pairs
  (`.scaled::n2::ue8m0` with its scale pair), `.rs` to the x4 types, s2f6x2, `.rz` f16x2 /
  bf16x2 and the `.rn` / `.rz` tf32 lines; `mov.b128` packs (a `.b128` value is its (low,
  high) 64-bit halves, as for ld / st / atom `.b128`, or one `uint128` scalar, CUDA's
  `unsigned __int128` bound with the "q" constraint, as TIRx passes it) and
  mov.b64's 16-bit quarters; `tensormap.cp_fenceproxy`; `clusterlaunchcontrol` (the response
  as its halves or one uint128); lop3's `.or` / `.and` predicate form and `.pred` logic; createpolicy's range
  / cvt lines; `mma.sp` (`::ordered_metadata`) and mma.sync's fp8 m16n8k16 / f16-accumulating
  and single-bit lines; the b8 ldmatrix / stmatrix forms (sm_100a); the 256-bit ld / st vectors
  (sm_100, `T.ptx.SINK` for unused lanes); TMA `.multicast::cluster` (arch-specific: ptxas
  advises against it elsewhere), `.tile::gather4` / `scatter4`, `.cta_group` and bulk
  `.cp_mask`; mbarrier, ldmatrix and `tcgen05.alloc`'s slot without a state space (generic
  addresses); `fence.acquire` / `.release`; `bar.cta`; the half-precision `set` lines and the
  mixed f32 / f16 add / sub / fma (sm_100).
- Not supported: `st.async.b128`, bulk `.ignore_oob`, `ld` / `st.volatile.local` and `cvt.rm`
  / `.rp` to f16x2 / bf16x2, which ptxas 13 refuses; cp.async's `ignore-src` predicate (the
  same operands as its `src-size`, which tirxc has); and mma.sync's sm_120a block-scaled
  lines, which TIRx's table leaves out too.
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
    sections = (("Memory, barriers and conversions", ("memory", "warp_barrier_cache")),
                ("Asynchronous copies and mbarriers", ("async_copy", "async_store")),
                ("Tensor cores", ("tensor_core", "mma_shapes", "mma_sparse")), ("tcgen05 (Blackwell)", ("tcgen05",)),
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
