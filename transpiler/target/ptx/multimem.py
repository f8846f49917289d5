"""Multimem (a load-reduce, store or reduction on every GPU copy of a multicast address, sm_90)
and the tensor-map families: tensormap.replace (sm_90a) and the tensormap proxy's acquire fence."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

_INT_OPS = {"min": ("u32", "u64", "s32", "s64"), "max": ("u32", "u64", "s32", "s64"), "add": ("u32", "u64", "s32"),
            "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64")}
# the element types a vector width goes with (the whole value is 32, 64 or 128 bits)
_VEC_TYPES = {"": ("f16x2", "bf16x2", "f32", "f64"), "v2": ("f16", "f16x2", "bf16", "bf16x2", "f32"),
              "v4": ("f16", "f16x2", "bf16", "bf16x2", "f32"), "v8": ("f16", "bf16")}
_SEMS = {"ld_reduce": ("weak", "relaxed", "acquire"), "st": ("weak", "relaxed", "release"), "red": ("relaxed", "release")}
_KIND = {"b32": "b32", "u32": "u32", "s32": "s32", "b64": "b64", "u64": "u64", "s64": "s64", "f16": "b16", "e4m3x2": "b16", "e5m2x2": "b16", "e4m3x4": "b32", "e5m2x4": "b32",
         "bf16": "b16", "f16x2": "b32", "bf16x2": "b32", "f32": "f32", "f64": "f64"}


# the packed fp8 types (sm_100a and the later `a` / `f` targets; ptxas refuses the unpacked
# .e4m3 / .e5m2 and a multimem.red of fp8): the vector widths each goes with
_FP8_VEC = {"e4m3x2": ("v2", "v4", "v8"), "e5m2x2": ("v2", "v4", "v8"), "e4m3x4": ("", "v2", "v4"),
            "e5m2x4": ("", "v2", "v4")}


def _check_fp8(m) -> str | None:
    what, t, v = m["what"], m["type"], m["vec"] or ""
    if what == "red":
        return "multimem.red has no fp8 types (ld_reduce and st have)"
    if v not in _FP8_VEC[t]:
        return f".{t} goes with " + " / ".join(("." + x) if x else "no vector" for x in _FP8_VEC[t])
    if m["acc"] == ".acc::f32":
        return "the fp8 types accumulate with `.acc::f16`"
    return None


def _check(m) -> str | None:
    if m["type"] in _FP8_VEC:
        return _check_fp8(m) or _check_common(m)
    if m["acc"] == ".acc::f16":
        return "`.acc::f16` goes with the fp8 types (.e4m3x2, .e4m3x4, .e5m2x2, .e5m2x4)"
    return _check_common(m)


def _check_common(m) -> str | None:
    what, sem, scope, op, t, v = m["what"], m["sem"], m["scope"], m["op"], m["type"], m["vec"] or ""
    if sem and sem not in _SEMS[what]:
        return f"multimem.{what} has no `.{sem}`"
    if sem == "weak" and scope:
        return "`.weak` takes no scope"
    if sem and sem != "weak" and not scope:
        return f"`.{sem}` needs a scope (.cta, .cluster, .gpu, .sys)"
    if scope and not sem:
        return "a scope goes with .relaxed, .acquire or .release"
    if what == "st" and op:
        return "multimem.st takes no operation"
    if what != "st" and not op:
        return f"multimem.{what} needs an operation (.add, .min, ...)"
    if m["acc"] and (what != "ld_reduce" or op != "add" or t in ("f32", "f64", "u32", "s32", "u64", "s64")):
        return f"`{m['acc']}` raises the precision of a half-precision or fp8 ld_reduce add"
    if t in ("b32", "b64", "u32", "u64", "s32", "s64"):
        if v:
            return "the integer forms have no vectors"
        if op and t not in _INT_OPS.get(op, ()):
            return f"`.{op}` takes " + " / ".join("." + x for x in _INT_OPS.get(op, ())) if op in _INT_OPS \
                else f"`.{op}` is not a floating-point operation"
        return None
    if t in _FP8_VEC:
        return None if op not in ("and", "or", "xor") else f"`.{op}` is an integer operation"
    if t not in _VEC_TYPES[v]:
        return f"{'.' + v if v else 'the scalar form'} takes " + " / ".join("." + x for x in _VEC_TYPES[v])
    if op and op not in ("add", "min", "max"):
        return f"`.{op}` is an integer operation"
    if op in ("min", "max") and t in ("f32", "f64"):
        return f"`.{op}` is half-precision only"
    if what == "red" and op != "add":
        return "the floating-point multimem.red is an add"
    return None


def _multimem(m):
    why = _check(m)
    if why:
        return why
    kind = _KIND[m["type"]]
    lanes = int(m["vec"][1:]) if m["vec"] else 1
    addr = Operand("addr", space="generic", name="mc_addr")
    values = vec(0, lanes) if lanes > 1 else "$0"
    feature = "multimem.fp8" if m["type"] in _FP8_VEC else None
    if m["what"] == "ld_reduce":
        return Form(regs("out", kind, lanes) + (addr,), f"{m[0]} {values}, [${lanes}];", feature=feature)
    values = vec(1, lanes) if lanes > 1 else "$1"
    return Form((addr,) + regs("in", kind, lanes), f"{m[0]} [$0], {values};", feature=feature)


_ORD = Operand("imm", name="ord", choices=(0, 1, 2, 3, 4))
_FIELD3 = {"elemtype": tuple(range(13)), "interleave_layout": (0, 1, 2), "swizzle_mode": (0, 1, 2, 3),
           "fill_mode": (0, 1), "swizzle_atomicity": (0, 1, 2, 3)}


def _tensormap_replace(m):
    field, t, space = m["field"], m["type"], m["space"]
    addr = Operand("addr", space={"global": "global", "shared::cta": "shared"}.get(space or "", "generic"),
                   name="tensormap")
    want = "b64" if field in ("global_address", "global_stride") else "b32"
    if t != want:
        return f"`.{field}` is replaced as .{want}"
    if field in _FIELD3:  # an immediate from the field's table
        return Form((addr, Operand("imm", name="new_val", choices=_FIELD3[field])), f"{m[0]} [$0], $1;",
                    feature="tensormap.sm100" if field == "swizzle_atomicity" else None)
    if field in ("global_address", "rank"):
        return Form((addr, Operand("in", want, name="new_val")), f"{m[0]} [$0], $1;")
    return Form((addr, _ORD, Operand("in", want, name="new_val")), f"{m[0]} [$0], $1, $2;")


FAMILIES = [
    Family(r"multimem\.(?P<what>ld_reduce|st|red)(?:\.(?P<sem>weak|relaxed|acquire|release))?"
           r"(?:\.(?P<scope>cta|cluster|gpu|sys))?(?:\.global)?(?:\.(?P<op>min|max|add|and|or|xor))?"
           r"(?P<acc>\.acc::f(?:32|16))?(?:\.(?P<vec>v2|v4|v8))?"
           r"\.(?P<type>b32|b64|u32|u64|s32|s64|f16x2|bf16x2|f16|bf16|f32|f64|e4m3x2|e4m3x4|e5m2x2|e5m2x4)", _multimem, "multimem",
           ("multimem.ld_reduce.relaxed.sys.global.add.u32", "multimem.ld_reduce.global.min.s64",
            "multimem.ld_reduce.acquire.gpu.global.add.acc::f32.v4.bf16x2", "multimem.ld_reduce.weak.global.max.v8.f16",
            "multimem.st.relaxed.sys.global.b64", "multimem.st.global.v4.f32", "multimem.red.release.sys.global.add.u64",
            "multimem.red.global.xor.b32", "multimem.red.relaxed.gpu.global.add.v2.f32",
            "multimem.red.global.add.f16x2", "multimem.ld_reduce.global.add.acc::f16.e4m3x4",
            "multimem.ld_reduce.relaxed.gpu.global.max.v8.e5m2x2", "multimem.st.global.v4.e4m3x4"),
           "on every GPU's copy of a multicast address: reduce the copies into registers (ld_reduce), "
           "write them all (st), reduce into them all (red); the packed fp8 types (sm_100a) in ld_reduce and st, "
           "`.acc::f16` their higher-precision add"),
    Family(r"tensormap\.replace\.tile\.(?P<field>global_address|rank|box_dim|global_dim|global_stride|element_stride"
           r"|elemtype|interleave_layout|swizzle_mode|swizzle_atomicity|fill_mode)(?:\.(?P<space>global|shared::cta))?\.b1024"
           r"\.(?P<type>b32|b64)", _tensormap_replace, "tensormap",
           ("tensormap.replace.tile.global_address.global.b1024.b64",
            "tensormap.replace.tile.rank.shared::cta.b1024.b32", "tensormap.replace.tile.box_dim.b1024.b32",
            "tensormap.replace.tile.global_stride.global.b1024.b64",
            "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32", "tensormap.replace.tile.elemtype.b1024.b32",
            "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32"),
           "overwrite one field of a 1024-bit tensor map in memory (`ord`: the dimension; the layout fields "
           "take an immediate; `swizzle_atomicity` needs sm_100a)"),
    Family(r"fence\.proxy\.tensormap::generic\.acquire\.(?:cta|cluster|gpu|sys)",
           lambda m: Form((Operand("addr", space="generic", name="tensormap"),
                           Operand("imm", name="size", choices=(128,))), f"{m[0]} [$0], $1;"), "bulk",
           ("fence.proxy.tensormap::generic.acquire.gpu", "fence.proxy.tensormap::generic.acquire.sys"),
           "make a tensor map written through the generic proxy visible to the tensormap proxy (size: 128)"),
]
