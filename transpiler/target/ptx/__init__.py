"""The PTX instruction table (docs/ptx.md; docs/design.md, decisions 15 and 16) and the fixed
helpers. Data and its rendering only: the checker (sema/calls/ptx.py) decides which form
a call means.

Each family file lists `Family`s: a regular expression over the mnemonic's modifier slots,
a builder that turns a match into the instruction's forms (operand lists with their
assembly text; several when operands are optional or the form is chosen by the operands,
as wgmma's ss / rs), the FEATURES row that says which architecture it needs, and example
spellings (the docs, "did you mean", and the nvcc test corpus).

Which wrapper a call's helper name stands for is the checker's result, not this table's: the
checker and the tile variants dispatch chooses record each instruction they call
(CheckedModule.ptx_instructions, by helper name), and the readers below take that record."""
from __future__ import annotations

import re
from functools import lru_cache

from transpiler.target.arch import FEATURES, guard_condition, guard_macro, specific_archs
from transpiler.target.ptx.helpers import HELPERS
from transpiler.target.ptx.model import KINDS, Family, Form, Instruction, Operand
from transpiler.target.ptx import arith, async_copy, async_store, control, cvt, fp_cvt, half, intmath, memory, warp_barrier_cache as misc, mma_shapes as mma_more, mma_sparse, multimem, tcgen05, tensor_core
from transpiler.target.ptx.tcgen05 import TMEM_OPERANDS

__all__ = ["HELPERS", "KINDS", "Family", "Instruction", "Operand", "FAMILIES", "EXAMPLES", "lookup", "forms",
           "instruction_of",
           "close_mnemonics", "from_attribute_path", "is_helper", "helper_source", "helper_arch", "family_of",
           "TMEM_OPERANDS", "sunk", "narrowed"]

FAMILIES: list[Family] = (tensor_core.FAMILIES + mma_more.FAMILIES + mma_sparse.FAMILIES + async_copy.FAMILIES
                          + control.FAMILIES + tcgen05.FAMILIES + async_store.FAMILIES
                          + misc.FAMILIES + memory.FAMILIES + multimem.FAMILIES + arith.FAMILIES
                          + intmath.FAMILIES + half.FAMILIES + cvt.FAMILIES
                          + fp_cvt.FAMILIES)
# lines of the ISA that ptxas does not assemble yet: (pattern, match -> why it is refused)
_NOT_YET = fp_cvt.NOT_YET + async_copy.NOT_YET


def _head(pattern: str) -> str | None:
    """The mnemonic's first word that a pattern spells out (`wgmma` of `wgmma\\.fence...`); None
    when it starts with a choice or a group (`(?:ld|st)...`), which may match any first word."""
    word = re.match(r"([A-Za-z0-9_]+)(?:\\\.|$)", pattern)
    return word.group(1) if word else None


# The families that may match a mnemonic, by its first word, in the table's order: a lookup
# compiles (once) the patterns of those only, not the whole table's at start-up.
_BY_HEAD: dict[str | None, list[int]] = {}
for _index, _family in enumerate(FAMILIES):
    _BY_HEAD.setdefault(_head(_family.pattern), []).append(_index)
_ANY_HEAD = _BY_HEAD.pop(None, [])


@lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern + r"$")


def _candidates(mnemonic: str):
    """(compiled pattern, family) of each family that may match `mnemonic`, in the table's order."""
    indices = sorted(_BY_HEAD.get(mnemonic.split(".", 1)[0], []) + _ANY_HEAD)
    return ((_compiled(FAMILIES[k].pattern), FAMILIES[k]) for k in indices)

# Spellings shown in "did you mean" help: every family's examples.
EXAMPLES: tuple[str, ...] = tuple(e for f in FAMILIES for e in f.examples)

_CACHE: dict[str, list[Instruction] | str | None] = {}


def _variant(form: Form, index: int) -> str:
    """Helper-name suffix of a mnemonic's forms after the first (which keeps the plain name)."""
    if index == 0:
        return ""
    return f"v{index}"


def forms(mnemonic: str) -> list[Instruction] | str | None:
    """Every form of an exact PTX mnemonic (first: the canonical one); a string saying why a
    spelling that matches a family is not a valid form; None when no family matches."""
    if mnemonic in _CACHE:
        return _CACHE[mnemonic]
    result: list[Instruction] | str | None = next(
        (why(m) for pattern, why in _NOT_YET if (m := _compiled(pattern).match(mnemonic))), None)
    for pattern, family in _candidates(mnemonic) if result is None else ():
        match = pattern.match(mnemonic)
        if not match:
            continue
        built = family.build(match)
        if isinstance(built, str):
            result = built
            break
        built = built if isinstance(built, list) else [built]
        result = []
        for index, form in enumerate(built):
            feature = form.feature or family.feature
            instr = Instruction(mnemonic, form.operands, form.asm, feature, form.returns, _variant(form, index),
                                clobbers_memory=family.clobbers_memory, specific=specific_archs(feature),
                                sinkable=form.sinkable)
            result.append(instr)
        break
    _CACHE[mnemonic] = result
    return result


def lookup(mnemonic: str) -> Instruction | None:
    """The canonical form of an exact PTX mnemonic, or None when tirxc does not know it."""
    found = forms(mnemonic)
    return found[0] if isinstance(found, list) else None


def sunk(instr: Instruction, sinks: tuple[int, ...]) -> Instruction:
    """The form with the operands at `sinks` written as the sink symbol `_` (T.ptx.SINK)."""
    return instr.with_sinks(sinks)


def narrowed(instr: Instruction, outs: tuple[int, ...]) -> Instruction:
    """The form whose destinations at `outs` are narrower integers than their registers."""
    return instr.with_narrowed(outs)


def predicated(instr: Instruction, preserve_dst: bool = False) -> Instruction:
    """The form guarded by a `pred=` value (with `preserve_dst`, its destinations keep their
    values where the predicate is false)."""
    return instr.with_pred(preserve_dst)


def family_of(mnemonic: str) -> Family | None:
    return next((f for pattern, f in _candidates(mnemonic) if pattern.match(mnemonic)), None)


def close_mnemonics(mnemonic: str) -> list[str]:
    from difflib import get_close_matches  # an error path only

    return get_close_matches(mnemonic, EXAMPLES, n=3, cutoff=0.5)


# TIRx's attribute names of the instructions whose base name has a dot (`T.ptx.st_async...`)
_DOTTED = {"cvt_pack": "cvt.pack", "elect_sync": "elect.sync", "multimem_ld_reduce": "multimem.ld_reduce",
           "multimem_red": "multimem.red", "multimem_st": "multimem.st", "red_async": "red.async",
           "redux_sync": "redux.sync", "shfl_sync": "shfl.sync", "st_async": "st.async", "st_bulk": "st.bulk",
           "tensormap_cp_fenceproxy": "tensormap.cp_fenceproxy", "tensormap_replace": "tensormap.replace",
           "vote_sync": "vote.sync"}


def from_attribute_path(parts) -> str:
    """`T.ptx.tcgen05.wait__ld.sync.aligned` -> "tcgen05.wait::ld.sync.aligned" (`__` is `::`,
    a trailing `_` escapes a Python keyword such as `async_`; TIRx's `st_async`,
    `multimem_ld_reduce`... name the dotted base names `st.async`, `multimem.ld_reduce`...)."""
    parts = tuple(parts)
    if parts and parts[0] in _DOTTED:
        parts = (_DOTTED[parts[0]],) + parts[1:]
    return ".".join(p.rstrip("_") if p.endswith("_") and not p.endswith("__") else p for p in parts).replace("__", "::")


def instruction_of(helper: str, instructions: dict[str, Instruction]) -> Instruction | None:
    """The instruction whose wrapper a helper name (as a call names it) is, if it is one of
    `instructions` (the module's record, CheckedModule.ptx_instructions)."""
    return instructions.get(helper.split("<", 1)[0])


def is_helper(name: str, instructions: dict[str, Instruction]) -> bool:
    return name in HELPERS or name.split("<", 1)[0] in instructions


def helper_source(name: str, instructions: dict[str, Instruction]) -> str:
    base = name.split("<", 1)[0]
    if base in HELPERS:
        return HELPERS[base].source
    return instructions[base].source()


def guard_definitions(helpers, instructions: dict[str, Instruction]) -> list[tuple[str, str, str]]:
    """(family, macro, condition) of each arch-specific family the helpers use, in first-use
    order: the .cu defines each macro once, where nvcc compiles for an architecture that has the
    family, and the family's helpers trap elsewhere (docs/design.md, decision 16)."""
    out = {}
    for name in helpers:
        instr = instructions.get(name.split("<", 1)[0])
        if instr is not None and guard_macro(instr.feature) and instr.feature not in out:
            out[instr.feature] = (instr.feature, guard_macro(instr.feature), guard_condition(instr.feature))
    return list(out.values())


def helper_arch(name: str, instructions: dict[str, Instruction]) -> tuple[int, str]:
    base = name.split("<", 1)[0]
    if base in HELPERS:
        return FEATURES[HELPERS[base].feature][0], ""
    instr = instructions[base]
    return instr.min_arch, instr.suffix
