"""Memory and data-movement families: ld / st / red / atom with their semantics, scopes,
state spaces, cache operators and hints; mov; prefetch; barriers; elect.sync; mapa;
packed cvt and f32x2 arithmetic."""
from __future__ import annotations

from transpiler.target.arch import FEATURES
from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

# ld / st / red / atom modifiers are read as a set of slots: each token of the mnemonic
# after the opcode fills one slot, in any order ptxas accepts.
_SLOTS = {
    "sem": {"weak", "volatile", "relaxed", "acquire", "release", "acq_rel"},
    "scope": {"cta", "cluster", "gpu", "sys"},
    "space": {"global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"},
    "cop": {"ca", "cg", "cs", "lu", "cv", "wb", "wt"},
    "evict": {"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate"},
    "evict2": {"L2::evict_first", "L2::evict_last", "L2::evict_normal"},
    "hint": {"L2::cache_hint"},
    "size": {"L2::64B", "L2::128B", "L2::256B"},
    "vec": {"v2", "v4", "v8"},
    "nc": {"nc"},
    "mmio": {"mmio"},
    "noftz": {"noftz"},
    "op": {"and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max"},
    "type": {"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64", "b128",
             "f16", "bf16", "f16x2", "bf16x2"},
}
_REG = {"b8": "b32", "u8": "u32", "s8": "s32", "b16": "b16", "u16": "u16", "s16": "b16", "b32": "b32", "u32": "u32",
        "s32": "s32", "f32": "f32", "b64": "b64", "u64": "u64", "s64": "s64", "f64": "f64",
        "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}
_HALF = ("f16", "bf16", "f16x2", "bf16x2")
_SEMS = {"ld": {"weak", "volatile", "relaxed", "acquire"}, "st": {"weak", "volatile", "relaxed", "release"},
         "red": {"relaxed", "release"}, "atom": {"relaxed", "acquire", "release", "acq_rel"}}
_COPS = {"ld": {"ca", "cg", "cs", "lu", "cv"}, "st": {"wb", "cg", "cs", "wt"}, "red": set(), "atom": set()}


def _slots(opcode: str, tokens: list[str]) -> dict[str, str] | str:
    found: dict[str, str] = {}
    for token in tokens:
        slot = next((s for s, values in _SLOTS.items() if token in values), None)
        if slot is None:
            return f"`.{token}` is not a modifier of {opcode}"
        if slot in found:
            return f"two {slot} modifiers (`.{found[slot]}`, `.{token}`)"
        found[slot] = token
    if "type" not in found:
        return f"{opcode} needs a type"
    sem = found.get("sem")
    if sem and sem not in _SEMS[opcode]:
        return f"{opcode} has no `.{sem}`"
    if sem in ("relaxed", "acquire", "release", "acq_rel") and "scope" not in found and opcode in ("ld", "st"):
        # (red / atom without a scope are .gpu-scoped)
        return f"`.{sem}` needs a scope (.cta, .cluster, .gpu, .sys)"
    if "scope" in found and sem in (None, "weak", "volatile") and opcode in ("ld", "st"):
        return "a scope goes with .relaxed, .acquire or .release"
    if found.get("cop") and found["cop"] not in _COPS[opcode]:
        return f"{opcode} has no `.{found['cop']}`"
    if opcode in ("red", "atom") and "op" not in found:
        return f"{opcode} needs an operation (.add, .min, ...)"
    if opcode in ("ld", "st") and "op" in found:
        return f"{opcode} takes no operation"
    if "mmio" in found:  # ld / st.mmio.relaxed.sys{.global}.type: one scalar, no cache qualifiers
        if opcode not in ("ld", "st") or sem != "relaxed" or found.get("scope") != "sys":
            return "`.mmio` is an ld / st `.relaxed.sys`"
        if found.get("space", "global") != "global" or set(found) & {"cop", "evict", "evict2", "hint", "size", "nc", "vec"}:
            return "`.mmio` takes .global or generic addressing and no cache qualifier or vector"
    space, kind = found.get("space", ""), found["type"]
    if space in ("local", "const", "param"):
        if opcode in ("red", "atom"):
            return f"{opcode} works on global or shared memory, not .{space}"
        if opcode == "st" and space != "local":
            return f"st has no .{space} (it is read-only in a kernel)"
        if sem not in (None, "weak", "volatile") or (sem == "volatile" and space == "local"):
            return f"`.{sem}` works on global or shared memory, not .{space}"
        if "hint" in found or "evict" in found or "evict2" in found or "size" in found or "nc" in found:
            return f"the cache hints and `.nc` work on global memory, not .{space}"
    half = kind in _HALF
    if half and (opcode in ("ld", "st") or found.get("op") not in ("add", "min", "max")):
        return f"`.{kind}` is a red / atom type (add, min, max); load and store it as .b16 / .b32"
    if half and "noftz" not in found:
        return f"the {kind} {found['op']} is spelled `.{found['op']}.noftz`"
    if "noftz" in found and not half:
        return "`.noftz` goes with the f16 / bf16 types"
    if half and found["op"] != "add" and "vec" not in found:
        return f"the {kind} {found['op']} is a vector form (.v2, .v4{', .v8' if kind in ('f16', 'bf16') else ''})"
    if kind == "b128":
        if "vec" in found:
            return ".b128 has no vector forms"
        if opcode == "red" or (opcode == "atom" and found["op"] not in ("cas", "exch")):
            return ".b128 atomics are cas and exch"
        if "hint" in found and found.get("op") == "cas":
            return "the .b128 atom.cas takes no cache hint (ptxas)"
    if "vec" in found and opcode in ("red", "atom"):
        if found.get("space", "global") != "global" and space != "":
            return f"vector {opcode} works on global memory"
        if kind == "f32" and found["vec"] in ("v2", "v4"):
            pass
        elif kind in ("f16", "bf16", "f16x2", "bf16x2") and found["op"] in ("add", "min", "max"):
            pass
        else:
            return f"vector {opcode} is an f32 (.v2, .v4) or f16 / bf16 (.v2, .v4, .v8) add, min or max"
        if kind == "f32" and found["op"] != "add":
            return f"the vector f32 {opcode} is an add"
        if kind in ("f16x2", "bf16x2") and found["vec"] == "v8":
            return f"the {kind} vectors are .v2 and .v4"
    elif opcode in ("ld", "st") and _wide(found):  # the 256-bit lines (sm_100)
        if found.get("space", "global") != "global":
            return "a 256-bit access takes .global or generic addressing"
        if "hint" in found:
            return "the 256-bit lines take no `.L2::cache_hint`"
        if ("evict" in found or "evict2" in found) and (found.get("cop") or sem == "volatile"):
            return "eviction priorities go with neither a cache operator nor `.volatile`"
    elif found.get("vec") == "v8":
        return ".v8 is a vector of 16-bit red / atom values, or 256 bits of 32-bit ld / st values"
    if "evict" in found and "evict2" in found and not (opcode in ("ld", "st") and _wide(found)):
        return "the L1 and L2 eviction priorities go together only on the 256-bit ld / st lines"
    if "nc" in found and (opcode != "ld" or found.get("space") != "global" or found.get("sem") not in (None, "weak")):
        return "`.nc` is a weak global load"
    if "size" in found and opcode != "ld":
        return "prefetch sizes go with ld"
    if "vec" in found and tokens.index(found["vec"]) + 1 != tokens.index(found["type"]):
        return f"the vector `.{found['vec']}` is written just before the type"
    why = _operation(opcode, found) if opcode in ("red", "atom") else _access(found)
    if why:
        return why
    return found


# The types red / atom take for each operation (ptxas 13; the f16 / bf16 ones as `.noftz`).
_HALVES = {"f16", "f16x2", "bf16", "bf16x2"}
_OPERATION_TYPES = {
    "and": {"b32", "b64"}, "or": {"b32", "b64"}, "xor": {"b32", "b64"},
    "cas": {"b16", "b32", "b64", "b128"}, "exch": {"b32", "b64", "b128"},
    "add": {"u32", "s32", "u64", "f32", "f64"} | _HALVES, "inc": {"u32"}, "dec": {"u32"},
    "min": {"u32", "s32", "u64", "s64"} | _HALVES, "max": {"u32", "s32", "u64", "s64"} | _HALVES,
}
_SHARED_SPACES = ("shared", "shared::cta", "shared::cluster")


def _operation(opcode: str, found: dict[str, str]) -> str:
    """Why red / atom's operation, type and cache qualifiers do not go together ("" when they do)."""
    op, kind = found["op"], found["type"]
    if opcode == "red" and op in ("cas", "exch"):
        return f"red has no `.{op}` (atom has)"
    if kind not in _OPERATION_TYPES[op]:
        return f"`.{op}` takes " + ", ".join(f".{t}" for t in sorted(_OPERATION_TYPES[op]))
    if "evict" in found or "evict2" in found:
        return f"{opcode} takes no eviction priority (its cache qualifier is `.L2::cache_hint`)"
    if "hint" in found and op == "cas":
        return "atom.cas takes no cache hint (ptxas)"
    if "hint" in found and found.get("space") in _SHARED_SPACES:
        return "`.L2::cache_hint` works on global memory"
    return ""


def _access(found: dict[str, str]) -> str:
    """Why an ld / st's semantics, cache operator, eviction priorities and hints do not go
    together ("" when they do): a cache operator is a weak access's, the eviction priorities
    and hints are global memory's (and not `.volatile`'s), `.L2::evict_*` is the 256-bit lines'."""
    sem, space = found.get("sem"), found.get("space", "")
    evicts = "evict" in found or "evict2" in found
    if found.get("cop") and sem not in (None, "weak"):
        return f"a cache operator (`.{found['cop']}`) goes with a weak access, not `.{sem}`"
    if evicts and found.get("cop"):
        return "an eviction priority goes without a cache operator"
    if sem == "volatile" and (evicts or "hint" in found):
        return "`.volatile` takes no eviction priority or cache hint"
    if sem == "volatile" and space in ("const", "param"):
        return f"`.volatile` works on global, shared or generic memory, not .{space}"
    if space in _SHARED_SPACES and (evicts or "hint" in found or "size" in found):
        return "eviction priorities, cache hints and prefetch sizes work on global memory"
    if "evict2" in found and not _wide(found):
        return "`.L2::evict_*` goes with the 256-bit lines (.v8 of 32-bit, .v4 of 64-bit values)"
    return ""


def _wide(found: dict[str, str]) -> bool:
    """The 256-bit ld / st lines: .v8 of a 32-bit type or .v4 of a 64-bit one (sm_100)."""
    vec, kind = found.get("vec"), _REG.get(found["type"], "")
    return (vec == "v8" and kind in ("b32", "u32", "s32", "f32")) or \
        (vec == "v4" and kind in ("b64", "u64", "s64", "f64"))


def _address(found: dict[str, str]) -> Operand:
    space = found.get("space", "")
    if space == "shared::cluster":
        return Operand("in", "u32", name="cluster_addr")  # a shared::cluster address (from mapa)
    if space in ("const", "param"):
        return Operand("in", "u64", name=f"{space}_addr")  # an address in that window
    if space.startswith("shared"):
        return Operand("addr", space="shared")
    if space == "local":
        return Operand("addr", space="local")
    return Operand("addr", space="global" if space == "global" else "generic")


def _feature(found: dict[str, str]) -> str | None:
    """The newest FEATURES row the access needs (a 256-bit load at cluster scope: sm_100)."""
    needs = []
    if found.get("scope") == "cluster" or found.get("space") == "shared::cluster":
        needs.append("cluster")
    if (found["type"] == "b128" and "op" in found) or (found.get("vec") and "op" in found) \
            or found["type"] in ("bf16", "bf16x2"):
        needs.append("atom.sm90")
    if "op" not in found and _wide(found) and not found["type"].endswith("8"):  # (.v8 of bytes: 64 bits)
        needs.append("ld256")
    if "hint" in found or "size" in found or "evict" in found or "evict2" in found:
        needs.append("cache.hint")
    return max(needs, key=lambda f: FEATURES[f][0], default=None)


_Q = "{\n.reg .b128 tirx_q0, tirx_q1, tirx_q2;\n"  # .b128 values, moved from / to two 64-bit halves


def _b128(opcode: str, mnemonic: str, addr: Operand) -> Form:
    """A .b128 load, store or atomic, its 128-bit values as (low, high) 64-bit halves."""
    half = lambda role, name: regs(role, "b64", 2, name)  # noqa: E731
    if opcode == "ld":
        return Form(half("out", "d") + (addr,), _Q + "mov.b128 tirx_q0, {$0, $1};\n"
                    f"{mnemonic} tirx_q0, [$2];\nmov.b128 {{$0, $1}}, tirx_q0;\n}}")
    if opcode == "st":
        return Form((addr,) + half("in", "b"), _Q + f"mov.b128 tirx_q1, {{$1, $2}};\n{mnemonic} [$0], tirx_q1;\n}}")
    cas = ".cas." in mnemonic
    ops = half("out", "d") + (addr,) + half("in", "b") + (half("in", "c") if cas else ())
    text = _Q + "mov.b128 tirx_q0, {$0, $1};\nmov.b128 tirx_q1, {$3, $4};\n" + \
        ("mov.b128 tirx_q2, {$5, $6};\n" if cas else "") + \
        f"{mnemonic} tirx_q0, [$2], tirx_q1{', tirx_q2' if cas else ''};\nmov.b128 {{$0, $1}}, tirx_q0;\n}}"
    return Form(ops, text)


def _b128_scalar(opcode: str, mnemonic: str, addr: Operand) -> Form:
    """A .b128 load, store or atomic whose 128-bit values are 128-bit scalars (TIRx's uint128)."""
    one = lambda role, name: Operand(role, "b128", name=name)  # noqa: E731
    if opcode == "ld":
        return Form((one("out", "d"), addr), f"{mnemonic} $0, [$1];")
    if opcode == "st":
        return Form((addr, one("in", "b")), f"{mnemonic} [$0], $1;")
    cas = ".cas." in mnemonic
    ops = (one("out", "d"), addr, one("in", "b")) + ((one("in", "c"),) if cas else ())
    return Form(ops, f"{mnemonic} $0, [$1], $2{', $3' if cas else ''};")


def _memory(m):
    opcode, *tokens = m[0].split(".")
    tokens = _merge(tokens)
    found = _slots(opcode, tokens)
    if isinstance(found, str):
        return found
    addr = _address(found)
    if found["type"] == "b128":  # the values as 64-bit halves, or (later forms) as 128-bit scalars
        form = _b128(opcode, m[0], addr)
        scalar = _b128_scalar(opcode, m[0], addr)
        if "hint" in found:  # the cache policy after the values
            n = len(form.operands)
            form = Form(form.operands + (Operand("in", "u64", name="cache_policy"),),
                        form.asm.replace(";\nmov.b128 {$0", f", ${n};\nmov.b128 {{$0", 1) if opcode != "st"
                        else form.asm.replace("tirx_q1;\n}", f"tirx_q1, ${n};\n}}"))
            scalar = Form(scalar.operands + (Operand("in", "u64", name="cache_policy"),),
                          scalar.asm[:-1] + f", ${len(scalar.operands)};")
        halves = _integer_addresses(Form(form.operands, form.asm, feature=_feature(found)), found)
        scalars = _integer_addresses(Form(scalar.operands, scalar.asm, feature=_feature(found)), found)
        return (halves if isinstance(halves, list) else [halves]) + \
            (scalars if isinstance(scalars, list) else [scalars])
    kind = _REG[found["type"]]
    lanes = int(found.get("vec", "v1")[1:])
    hint = (Operand("in", "u64", name="cache_policy"),) if "hint" in found else ()
    if opcode == "ld":
        ops = regs("out", kind, lanes) + (addr,) + hint
        dst = vec(0, lanes) if lanes > 1 else "$0"
        text = f"{m[0]} {dst}, [${lanes}]" + (f", ${lanes + 1}" if hint else "") + ";"
    elif opcode == "st":
        ops = (addr,) + regs("in", kind, lanes) + hint
        src = vec(1, lanes) if lanes > 1 else "$1"
        text = f"{m[0]} [$0], {src}" + (f", ${lanes + 1}" if hint else "") + ";"
    elif opcode == "red":
        ops = (addr,) + regs("in", kind, lanes) + hint
        text = f"{m[0]} [$0], {vec(1, lanes) if lanes > 1 else '$1'}" + (f", ${lanes + 1}" if hint else "") + ";"
    elif lanes > 1:  # a vector atom: the old values and the operands, lane by lane
        ops = regs("out", kind, lanes) + (addr,) + regs("in", kind, lanes) + hint
        text = f"{m[0]} {vec(0, lanes)}, [${lanes}], {vec(lanes + 1, lanes)}" + \
            (f", ${2 * lanes + 1}" if hint else "") + ";"
    else:
        values = 2 if found["op"] == "cas" else 1
        ops = (Operand("out", kind), addr) + regs("in", kind, values) + hint
        text = f"{m[0]} $0, [$1], " + ", ".join(f"${2 + i}" for i in range(values + len(hint))) + ";"
    sinkable = ()
    if opcode in ("ld", "st") and _wide(found):  # the ISA's `_` for lanes not read / not written
        sinkable = tuple(range(lanes)) if opcode == "ld" else tuple(range(1, lanes + 1))
    return _integer_addresses(Form(ops, text, feature=_feature(found), sinkable=sinkable), found)


def _integer_addresses(form: Form, found: dict[str, str]) -> Form | list[Form]:
    """A shared::cta access also takes its address as a shared-window offset held in a 32- or
    64-bit integer (TIRx's `st.shared` of an address computed by hand): the forms after the
    pointer one, told apart by the argument (a pointer, or an integer of either width)."""
    if found.get("space") not in ("shared", "shared::cta"):
        return form
    at = next(k for k, op in enumerate(form.operands) if op.role == "addr")
    return [form] + [Form(form.operands[:at] + (Operand("in", width, name="shared_addr"),) + form.operands[at + 1:],
                          form.asm, feature=form.feature, sinkable=form.sinkable) for width in ("u32", "u64")]


def _merge(tokens: list[str]) -> list[str]:
    """`shared::cta` and `L2::cache_hint` are single tokens already; nothing to merge but
    the empty token a trailing dot would leave."""
    return [t for t in tokens if t]


def _mov(m):
    t = m["t"]
    if t == "b128":
        return _mov128(m[0])
    if t == "b64":  # a plain move, or packing / unpacking two 32-bit halves ({lo, hi}) or four 16-bit ones
        return [Form((Operand("out", "b64"), Operand("in", "b64")), f"{m[0]} $0, $1;"),
                Form((Operand("out", "b64"), Operand("in", "b32"), Operand("in", "b32")), f"{m[0]} $0, {{$1, $2}};"),
                Form((Operand("out", "b32"), Operand("out", "b32"), Operand("in", "b64")), f"{m[0]} {{$0, $1}}, $2;",
                     sinkable=(0, 1)),
                Form((Operand("out", "b64"),) + regs("in", "b16", 4), f"{m[0]} $0, {vec(1, 4)};"),
                Form(regs("out", "b16", 4) + (Operand("in", "b64"),), f"{m[0]} {vec(0, 4)}, $4;",
                     sinkable=(0, 1, 2, 3))]
    if t == "b32":
        return [Form((Operand("out", "b32"), Operand("in", "b32")), f"{m[0]} $0, $1;"),
                Form((Operand("out", "b32"), Operand("in", "b16"), Operand("in", "b16")), f"{m[0]} $0, {{$1, $2}};"),
                Form((Operand("out", "b16"), Operand("out", "b16"), Operand("in", "b32")), f"{m[0]} {{$0, $1}}, $2;",
                     sinkable=(0, 1))]
    if t == "pred":  # predicates as integers (0 / 1)
        return Form((Operand("out", "pred"), Operand("in", "pred")), "{\n.reg .pred tirx_d, tirx_a;\n"
                    f"setp.ne.b32 tirx_a, $1, 0;\n{m[0]} tirx_d, tirx_a;\nselp.u32 $0, 1, 0, tirx_d;\n}}")
    kind = {"s16": "b16"}.get(t, t)
    return Form((Operand("out", kind), Operand("in", kind)), f"{m[0]} $0, $1;")


def _mov128(mnemonic: str) -> list[Form]:
    """mov.b128 packs and unpacks. A .b128 value is its (low, high) 64-bit halves, as for ld / st /
    atom .b128, so packing two .b64 and unpacking into two .b64 are one form (the halves through a
    .b128 register); four .b32 pack into, or unpack from, the halves. The later forms take the value
    as one 128-bit scalar (TIRx's uint128): copied, packed from two .b64 or four .b32, unpacked."""
    q = "{\n.reg .b128 tirx_q;\n"
    return [Form(regs("out", "b64", 2) + regs("in", "b64", 2),
                 q + f"{mnemonic} tirx_q, {{$2, $3}};\n{mnemonic} {{$0, $1}}, tirx_q;\n}}", sinkable=(0, 1)),
            Form(regs("out", "b64", 2) + regs("in", "b32", 4),
                 q + f"{mnemonic} tirx_q, {vec(2, 4)};\n{mnemonic} {{$0, $1}}, tirx_q;\n}}"),
            Form(regs("out", "b32", 4) + regs("in", "b64", 2),
                 q + f"{mnemonic} tirx_q, {{$4, $5}};\n{mnemonic} {vec(0, 4)}, tirx_q;\n}}", sinkable=(0, 1, 2, 3)),
            # a 128-bit scalar (TIRx's uint128) moved, packed from and unpacked into its parts
            Form((Operand("out", "b128"), Operand("in", "b128")), f"{mnemonic} $0, $1;"),
            Form((Operand("out", "b128"),) + regs("in", "b64", 2), f"{mnemonic} $0, {{$1, $2}};"),
            Form(regs("out", "b64", 2) + (Operand("in", "b128"),), f"{mnemonic} {{$0, $1}}, $2;", sinkable=(0, 1)),
            Form((Operand("out", "b128"),) + regs("in", "b32", 4), f"{mnemonic} $0, {vec(1, 4)};"),
            Form(regs("out", "b32", 4) + (Operand("in", "b128"),), f"{mnemonic} {vec(0, 4)}, $4;",
                 sinkable=(0, 1, 2, 3))]


def _bar(m):
    op = m["op"]
    if ".aligned" in m[0] and m[0].startswith("bar."):
        return "`.aligned` is written on `barrier` (bar is aligned already)"
    if op == "arrive":
        return Form((Operand("in", "u32", name="barrier"), Operand("in", "u32", name="threads")), f"{m[0]} $0, $1;")
    return [Form((Operand("in", "u32", name="barrier"),), f"{m[0]} $0;"),
            Form((Operand("in", "u32", name="barrier"), Operand("in", "u32", name="threads")), f"{m[0]} $0, $1;")]


def _elect(m):
    mask = Operand("in", "u32", name="membermask")
    return [Form((mask,), "{\n.reg .pred p;\nelect.sync _|p, $0;\nselp.u32 $r, 1, 0, p;\n}", returns="u32"),
            Form((Operand("out", "pred", name="elected"), mask), "{\n.reg .pred p;\nelect.sync _|p, $1;\nselp.u32 $0, 1, 0, p;\n}"),
            Form((Operand("out", "u32", name="lane"), Operand("out", "pred", name="elected"), mask),
                 "{\n.reg .pred p;\nelect.sync $0|p, $2;\nselp.u32 $1, 1, 0, p;\n}")]


def _mapa(m):
    rank = Operand("in", "u32", name="cta_rank")
    if m["space"]:  # `.u64`: the shared::cta address and the result are 64-bit registers
        width = "u64" if m[0].endswith(".u64") else "u32"
        return Form((Operand("out", width), Operand("addr", width, space="shared"), rank), f"{m[0]} $0, $1, $2;")
    if m[0].endswith(".u32"):
        return "generic addresses are 64-bit: `mapa.u64` (a 32-bit one is not supported)"
    return Form((Operand("out", "u64"), Operand("addr", space="generic"), rank), f"{m[0]} $0, $1, $2;")


def _cvt_pack(m):
    dst, src = m["dst"], m["src"]
    mods = [t for t in m["mods"].split(".") if t]
    if len(set(mods)) != len(mods):
        return "`.relu` and `.satfinite` are written at most once"
    sat = "satfinite" in mods
    if m["rnd"] == "rz" and (src != "f32" or dst not in ("f16x2", "bf16x2")):
        return "`.rz` rounds f32 pairs to .f16x2 / .bf16x2 only"
    if src == "f32":  # two f32 values -> one packed pair (a in the upper half)
        if dst in ("e4m3x2", "e5m2x2") and mods[:1] == ["relu"]:
            return "the fp8 lines are spelled `.satfinite{.relu}`"
        if dst in ("e4m3x2", "e5m2x2") and not sat:
            return "conversions to fp8 pairs are `.satfinite`"
        kind = "b16" if dst in ("e4m3x2", "e5m2x2") else "b32"
        return Form((Operand("out", kind), Operand("in", "f32"), Operand("in", "f32")), f"{m[0]} $0, $1, $2;",
                    feature="cvt.fp8" if kind == "b16" else None)
    if dst != "f16x2" or sat:
        return "fp8 pairs widen to `.f16x2`"
    return Form((Operand("out", "b32"), Operand("in", "b16")), f"{m[0]} $0, $1;", feature="cvt.fp8")


def _f32x2(m):
    if ".sat." in m[0]:
        return "the .f32x2 lines take no `.sat`"
    if m["op"] == "fma" and not m["rnd"]:
        return "fma.f32x2 needs a rounding mode (.rn, .rz, .rm, .rp)"
    n = 3 if m["op"] == "fma" else 2
    return Form((Operand("out", "b64"),) + regs("in", "b64", n), f"{m[0]} $0, " + ", ".join(f"${i + 1}" for i in range(n)) + ";")


def _fixed(asm: str, *operands: Operand):
    return lambda m: Form(tuple(operands), asm.replace("@", m[0]))


_TOKENS = r"(?:\.(?:[A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*))+"
FAMILIES = [
    Family(rf"(?:ld|st|red|atom){_TOKENS}", _memory, "memory",
           ("ld.global.acquire.gpu.b32", "ld.acquire.gpu.global.b32", "ld.relaxed.cta.shared::cta.u32",
            "ld.global.v4.f32", "ld.global.nc.L1::no_allocate.v2.b32", "ld.global.L2::cache_hint.b64",
            "ld.global.L2::128B.f32", "ld.volatile.shared.s32", "st.global.b32", "st.release.gpu.global.u32",
            "st.shared::cta.v2.f32", "st.global.L2::cache_hint.u64", "red.relaxed.gpu.global.add.u32",
            "red.release.sys.global.add.u64", "red.global.min.s32", "atom.global.add.u32", "atom.acq_rel.gpu.global.cas.b32",
            "atom.shared.exch.b64", "atom.global.add.f32", "ld.shared::cluster.u32", "ld.local.b32",
            "st.local.v2.f32", "ld.const.f32", "ld.param.u64", "ld.global.b128", "st.shared::cta.b128",
            "atom.global.cas.b128", "atom.acq_rel.gpu.shared.exch.b128", "ld.global.L2::cache_hint.b128",
            "st.global.L2::cache_hint.b128", "atom.global.exch.L2::cache_hint.b128", "red.global.add.noftz.f16",
            "red.relaxed.gpu.global.add.noftz.bf16x2", "atom.global.add.noftz.f16x2",
            "red.global.add.v4.f32", "atom.release.global.min.u64", "red.global.max.noftz.v8.bf16", "atom.global.v2.f32.add",
            "atom.global.add.noftz.v4.f16x2", "ld.global.v8.f32", "ld.global.L1::evict_first.L2::evict_last.v4.b64",
            "ld.relaxed.gpu.v8.u32", "st.global.v8.b32", "st.global.L1::no_allocate.L2::evict_first.v4.f64", "ld.mmio.relaxed.sys.global.u32",
            "st.mmio.relaxed.sys.b64"),
           "loads, stores, reductions and atomics with their qualifiers; `.b128` values as (low, high) "
           "64-bit halves or as one uint128 scalar; the 256-bit vectors (.v8 of 32-bit, .v4 of 64-bit values; sm_100) take `_` "
           "(T.ptx.SINK) for lanes not read / written; `.local` takes a local-buffer pointer, `.const` / `.param` a 64-bit address "
           "in that space"),
    Family(r"mov\.(?P<t>b16|b32|b64|b128|u16|u32|u64|s16|s32|s64|f32|f64|pred)", _mov, "memory",
           ("mov.b64", "mov.b32", "mov.u32", "mov.f32", "mov.b128", "mov.u16", "mov.s64", "mov.pred"),
           "move; .b64 / .b32 also pack and unpack halves (.b64: or four 16-bit quarters); .b128 packs two "
           ".b64 or four .b32 into its (low, high) halves or into one uint128 scalar, and unpacks them",
           clobbers_memory=False),
    Family(r"prefetch(?:\.(?:global|local))?\.(?:L1|L2|L2::evict_last|L2::evict_normal)",
           lambda m: "the eviction priorities work on global memory" if ".local." in m[0] and "evict" in m[0] else Form((Operand("addr", space="global" if ".global" in m[0] else "generic"),), f"{m[0]} [$0];",
                          feature="cache.hint" if "evict" in m[0] else None),
           "memory", ("prefetch.global.L2", "prefetch.global.L1", "prefetch.L2", "prefetch.global.L2::evict_last"),
           "prefetch a line into a cache level"),
    Family(r"prefetch\.tensormap", _fixed("@ [$0];", Operand("addr", space="generic")), "bulk", ("prefetch.tensormap",)),
    Family(r"prefetch\.(?P<space>const|param)\.tensormap",
           lambda m: Form((Operand("in", "u64", name=f"{m['space']}_addr"),), f"{m[0]} [$0];"), "bulk",
           ("prefetch.const.tensormap", "prefetch.param.tensormap"), "prefetch a tensor map at a .const / .param address"),
    Family(r"(?:bar|barrier)(?:\.cta)?\.(?P<op>sync|arrive)(?:\.aligned)?", _bar, "memory",
           ("bar.sync", "bar.arrive", "barrier.sync", "barrier.sync.aligned", "barrier.arrive", "bar.cta.sync",
            "barrier.cta.arrive.aligned"),
           "named barriers: wait (sync) or only arrive"),
    Family(r"bar\.warp\.sync", _fixed("@ $0;", Operand("in", "u32", name="membermask")), "memory", ("bar.warp.sync",)),
    Family(r"barrier\.cluster\.(?:arrive(?:\.release|\.relaxed)?|wait(?:\.acquire)?)(?:\.aligned)?", _fixed("@;"),
           "cluster", ("barrier.cluster.arrive", "barrier.cluster.wait", "barrier.cluster.arrive.release.aligned",
                       "barrier.cluster.wait.acquire")),
    Family(r"elect\.sync", _elect, "cluster", ("elect.sync",), "elect one lane of the member mask"),
    Family(r"mapa(?P<space>\.shared::cluster)?\.(?:u32|u64)", _mapa, "cluster", ("mapa.u64", "mapa.shared::cluster.u32"),
           "the address of the same variable in another CTA of the cluster"),
    Family(r"cvt\.(?P<rnd>rn|rz)(?P<mods>(?:\.(?:relu|satfinite))*)\.(?!bf16x2\.e)(?P<dst>f16x2|bf16x2|e4m3x2|e5m2x2)"
           r"\.(?P<src>f32|e4m3x2|e5m2x2)",
           _cvt_pack, "cvt.packed",
           ("cvt.rn.f16x2.f32", "cvt.rn.bf16x2.f32", "cvt.rn.relu.f16x2.f32", "cvt.rn.satfinite.e4m3x2.f32",
            "cvt.rn.satfinite.e5m2x2.f32", "cvt.rn.f16x2.e4m3x2", "cvt.rz.relu.satfinite.f16x2.f32",
            "cvt.rz.bf16x2.f32", "cvt.rn.relu.satfinite.bf16x2.f32"),
           "packed conversions (two values in one register)", clobbers_memory=False),
    Family(r"(?P<op>add|sub|mul|fma)(?:\.(?P<rnd>rn|rz|rm|rp))?(?:\.ftz)?(?:\.sat)?\.f32x2", _f32x2, "f32x2",
           ("add.rn.f32x2", "sub.f32x2", "mul.rz.ftz.f32x2", "fma.rn.f32x2"), "arithmetic on f32 pairs held in .b64",
           clobbers_memory=False),
    Family(r"createpolicy\.fractional\.L2::(?:evict_last|evict_normal|evict_first|evict_unchanged)"
           r"(?:\.L2::(?:evict_unchanged|evict_first))?\.b64",
           lambda m: [Form((Operand("out", "b64", name="policy"),), f"{m[0]} $0;", feature="cache.hint"),
                      Form((Operand("out", "b64", name="policy"), Operand("in", "f32", name="fraction")),
                           f"{m[0]} $0, $1;", feature="cache.hint")], "memory",
           ("createpolicy.fractional.L2::evict_last.b64", "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64"),
           "a cache policy for the `.L2::cache_hint` forms (fraction: of the accesses it applies to, default 1.0)",
           clobbers_memory=False),
    Family(r"createpolicy\.range(?P<g>\.global)?\.L2::(?:evict_last|evict_normal|evict_first|evict_unchanged)"
           r"(?:\.L2::(?:evict_unchanged|evict_first))?\.b64",
           lambda m: Form((Operand("out", "b64", name="policy"), Operand("addr", space="global" if m["g"] else "generic"),
                           Operand("in", "u32", name="primary_size"), Operand("in", "u32", name="total_size")),
                          f"{m[0]} $0, [$1], $2, $3;", feature="cache.hint"), "memory",
           ("createpolicy.range.global.L2::evict_last.L2::evict_first.b64", "createpolicy.range.L2::evict_normal.b64"),
           "a cache policy for an address range (primary_size bytes from the address get the first priority, the "
           "rest of total_size the second)", clobbers_memory=False),
    Family(r"createpolicy\.cvt\.L2\.b64",
           lambda m: Form((Operand("out", "b64", name="policy"), Operand("in", "b64", name="access_property")),
                          f"{m[0]} $0, $1;", feature="cache.hint"), "memory", ("createpolicy.cvt.L2.b64",),
           "a cache policy from a CUDA access property (cudaAccessPolicyWindow's)", clobbers_memory=False),
    Family(r"griddepcontrol\.(?:wait|launch_dependents)", _fixed("@;"), "cluster",
           ("griddepcontrol.wait", "griddepcontrol.launch_dependents")),
    Family(r"nanosleep\.u32", _fixed("@ $0;", Operand("in", "u32", name="ns")), "memory", ("nanosleep.u32",)),
]
