"""The CPU implementations of the PTX helpers tirxc emits (docs/sim.md, "PTX"). `cpu_helper(name,
source, mnemonic)` takes a helper's name and its CUDA source (the PTX table's, or a fixed helper's) and
gives the same function with a body for the CPU, or None when the simulator has none yet, which
the sim flavour of the printer (codegen/cuda_sim.py) refuses by name (E0810). The signature is
kept as the table writes it; only the body is this module's, so a helper cannot be called
differently under `sim`.

What each body does is the instruction's effect on values (the PTX ISA's): the warp-wide ones
(ldmatrix, stmatrix, mma.sync) are warp operations of the runtime (include/tirx_sim_ptx.h);
cp.async copies at once, so its commit and wait are no-ops for values (the race checker will
model the delay); cache hints and fences change no value.
"""
from __future__ import annotations

import re

_ASM_TEXT = re.compile(r'\basm\s*(?:volatile\s*)?\(\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_PARAMS = re.compile(r"\(([^()]*)\)\s*\{\s*$")


def _mnemonic(source: str) -> str | None:
    match = _ASM_TEXT.search(source)
    if match is None:
        return None
    words = match.group(1).replace("\\n", " ").replace("\\t", " ").split()
    words = [w for w in words if w not in ("{", "}") and not w.startswith((".reg", "{", "}"))]
    return words[0].rstrip(";") if words else None


def _signature(source: str) -> tuple[str, list[str]] | None:
    """The helper's text up to its body's `{` and its parameters' names."""
    head = source.split("{\n", 1)[0] + "{"
    match = _PARAMS.search(head)
    if match is None:
        return None
    names = [p.strip().split()[-1].lstrip("&*") for p in match.group(1).split(",") if p.strip()]
    return head, names


def _ldmatrix(mnemonic: str, names: list[str]) -> str | None:
    match = re.fullmatch(r"ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?(\.shared(::cta)?)?\.b16", mnemonic)
    count = int(match.group(1)) if match else 0
    if not match or names != [f"out{i}" for i in range(count)] + ["ptr0"]:
        return None
    regs = ", ".join(f"(unsigned int*)&out{i}" for i in range(count))
    return f"  tirx_sim::ldmatrix<{count}, {str(bool(match.group(2))).lower()}>(ptr0, {regs});"


def _stmatrix(mnemonic: str, names: list[str]) -> str | None:
    match = re.fullmatch(r"stmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?(\.shared(::cta)?)?\.b16", mnemonic)
    count = int(match.group(1)) if match else 0
    if not match or names != ["ptr0"] + [f"in{i}" for i in range(count)]:
        return None
    values = ", ".join(f"(unsigned int)in{i}" for i in range(count))
    return f"  tirx_sim::stmatrix<{count}, {str(bool(match.group(2))).lower()}>(ptr0, {values});"


def _mma(mnemonic: str, names: list[str]) -> str | None:
    match = re.fullmatch(r"mma\.sync\.aligned\.m16n8k(8|16)\.row\.col\.f32\.(f16|bf16)\.(f16|bf16)\.f32", mnemonic)
    if not match or match.group(2) != match.group(3):
        return None
    k = int(match.group(1))
    a, b = (4, 2) if k == 16 else (2, 1)
    if names != [f"out{i}" for i in range(4)] + [f"in{i}" for i in range(a + b + 4)]:
        return None
    half = "__half" if match.group(2) == "f16" else "__nv_bfloat16"
    regs = lambda first, n: ", ".join(f"in{first + i}" for i in range(n))  # noqa: E731
    return (f"  const unsigned int a[4] = {{{regs(0, a)}}};\n"
            f"  const unsigned int b[2] = {{{regs(a, b)}}};\n"
            f"  const float c[4] = {{{regs(a + b, 4)}}};\n"
            f"  tirx_sim::mma_sync<{k}, {half}>(&out0, &out1, &out2, &out3, a, b, c);")


_WIDTHS = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


class _Qualified:
    """An ld / st match read as (op, space, qualifiers, vector, width)."""

    def __init__(self, match):
        self._groups = (match.group(1), match.group(3), match.group(2) + match.group(4), match.group(5), match.group(6))

    def group(self, index):
        return self._groups[index - 1]


def _ld_st(mnemonic: str, names: list[str]) -> str | None:
    """ld / st of global or shared memory with cache hints: the hints change no value."""
    match = re.fullmatch(r"(ld|st)((?:\.[a-z]+)*?)\.(global|shared(?:::cta)?)((?:\.[A-Za-z0-9_:]+)*?)(?:\.v([248]))?"
                         r"\.[usbf](8|16|32|64)", mnemonic)
    if match is not None:  # (the ISA puts semantics before or after the state space: one list of qualifiers)
        match = _Qualified(match)
    if match is None or ".async" in match.group(3) or "::" in match.group(2) and match.group(2) != "shared::cta":
        return None
    count, size = int(match.group(4) or 1), _WIDTHS[match.group(5)]
    # a load with memory-order semantics may be a spin on a flag another thread sets: it is a
    # scheduling point, so that the others run (and --step-limit bounds a spin that never ends)
    ordered = any(q in match.group(3) for q in (".volatile", ".relaxed", ".acquire"))
    if match.group(1) == "ld":
        if names != [f"out{i}" for i in range(count)] + ["ptr0"]:
            return None
        lines = ["  tirx_sim::spin_point();"] if ordered else []
        lines += [f"  memset(&out{i}, 0, sizeof out{i}); memcpy(&out{i}, (const char*)ptr0 + {i * size}, {size});"
                  for i in range(count)]
        return "\n".join(lines)
    if names != ["ptr0"] + [f"in{i}" for i in range(count)]:
        return None
    return "\n".join(f"  memcpy((char*)ptr0 + {i * size}, &in{i}, {size});" for i in range(count))


def _cp_async(mnemonic: str, names: list[str]) -> str | None:
    if re.fullmatch(r"cp\.async\.c[ag]\.shared(::cta)?\.global(\.L2::(64|128|256)B)?(\.L2::cache_hint)?", mnemonic) \
            and names[:2] == ["ptr0", "ptr1"] and set(names[2:]) <= {"src_size", "cache_policy"}:
        # at once: the values a wait_group would make visible; past src_size, zeros
        read = "(src_size < (unsigned)bytes ? src_size : (unsigned)bytes)" if "src_size" in names else "bytes"
        return (f"  unsigned int read = {read};\n"
                f"  memcpy((void*)ptr0, ptr1, read);\n"
                f"  memset((char*)ptr0 + read, 0, bytes - read);")
    if mnemonic in ("cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all") and not names:
        return "  // the copies completed when they were issued"
    return None


def _fence(mnemonic: str, names: list[str]) -> str | None:
    if mnemonic.startswith(("fence.", "membar.")) and not names and "mbarrier" not in mnemonic:
        return "  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // orders, changes no value"
    return None


def _named_barrier(mnemonic: str, names: list[str], source: str) -> str | None:
    """`tirx_warpgroup_sync(barrier_id)` (bar.sync id, 128) and the table's bar.sync / bar.arrive."""
    match = re.fullmatch(r"(bar|barrier)(\.cta)?\.(sync|arrive)(\.aligned)?", mnemonic)
    if match is None:
        return None
    wait = "true" if match.group(3) == "sync" else "false"
    fixed = re.search(r'bar\.sync %0, (\d+);', source)
    if names == ["barrier_id"] and fixed:
        return f"  tirx_sim::named_barrier(barrier_id, {fixed.group(1)}, {wait});"
    if len(names) == 2:
        return f"  tirx_sim::named_barrier((int){names[0]}, (int){names[1]}, {wait});"
    return None


_BODIES = (_ldmatrix, _stmatrix, _mma, _ld_st, _cp_async, _fence)


def cpu_helper(name: str, source: str, mnemonic: str | None = None) -> str | None:
    """The CPU version of the helper `name` whose CUDA source is `source` (the PTX table's
    `mnemonic`, when it is one of the table's), or None."""
    mnemonic = mnemonic or _mnemonic(source)
    signature = _signature(source)
    if mnemonic is None or signature is None:
        return None
    head, names = signature
    guarded = bool(names) and names[-1] == "pred"  # the table's `pred=` forms: run where pred is non-zero
    if guarded:
        names = names[:-1]
    body = _named_barrier(mnemonic, names, source)
    for make in _BODIES:
        if body is not None:
            break
        body = make(mnemonic, names)
    if body is None:
        return None
    if guarded:  # (destinations not written keep their values: the `_keep` forms' meaning)
        body = "  if (pred) {\n" + "\n".join("  " + line for line in body.split("\n")) + "\n  }"
    return f"{head}\n{body}\n}}"
