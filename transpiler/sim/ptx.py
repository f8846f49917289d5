"""The CPU implementations of the PTX helpers tirxc emits (docs/sim.md, "PTX"). `cpu_helper(name,
source, mnemonic)` takes a helper's name and its CUDA source (the PTX table's, or a fixed helper's) and
gives the same function with a body for the CPU, or None when the simulator has none yet, which
the sim flavour of the printer (codegen/cuda_sim.py) refuses by name (E0810). The signature is
kept as the table writes it; only the body is this module's, so a helper cannot be called
differently under `sim`.

What each body does is the instruction's effect on values (the PTX ISA's): the warp-wide ones
(ldmatrix, stmatrix, mma.sync) are warp operations of the runtime (include/tirx_sim_ptx.h);
cp.async copies at once, so its commit and wait are no-ops for values (the race checker models
the delay: ptx_hooks.py); cache hints and fences change no value.
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


def _mbarrier(mnemonic: str, names: list[str], returns: bool) -> str | None:
    """mbarrier on this CTA's shared memory (include/tirx_sim_ptx.h keeps its state in its 8 bytes)."""
    match = re.fullmatch(r"mbarrier\.(init|inval|arrive|arrive_drop|expect_tx|complete_tx|try_wait|test_wait)"
                         r"((?:\.[a-z_:]+)*?)(\.shared(?:::cta)?)?\.b64", mnemonic)
    if match is None or "::cluster" in mnemonic or ".noComplete" in mnemonic or names[:1] != ["ptr0"]:
        return None
    op, qualifiers, rest = match.group(1), match.group(2), set(names[1:])
    if op == "init" and names == ["ptr0", "count"]:
        return "  tirx_sim::mbarrier_init(ptr0, count);"
    if op == "inval" and not rest:
        return "  memset((void*)ptr0, 0, 8);"
    if op in ("arrive", "arrive_drop") and rest <= {"count", "tx_bytes", "state"}:
        count = "count" if "count" in rest else "1"
        tx = "(long long)tx_bytes" if "tx_bytes" in rest else "0"
        call = f"tirx_sim::mbarrier_arrive(ptr0, {count}, {tx}, {str(op == 'arrive_drop').lower()})"
        return f"  state = (decltype(state)){call};" if "state" in rest else f"  {call};"
    if op in ("expect_tx", "complete_tx") and rest == {"tx_bytes"}:
        sign = "" if op == "expect_tx" else "-"
        return f"  tirx_sim::mbarrier_tx(ptr0, {sign}(long long)tx_bytes);"
    if op in ("try_wait", "test_wait") and rest - {"suspend_hint", "done"} in ({"parity"}, {"state"}):
        phase = "parity" if "parity" in rest else "(unsigned int)state"
        call = f"tirx_sim::mbarrier_try_wait_parity(ptr0, {phase}, true)"
        if returns:
            return f"  return {call};"
        return f"  done = (decltype(done)){call};" if "done" in rest else None
    return None


def _elect(mnemonic: str, names: list[str], returns: bool) -> str | None:
    if mnemonic == "elect.sync" and names == ["membermask"] and returns:
        return "  return tirx_sim::elect_one_of(membermask);"
    return None


# the fixed helpers (target/ptx/helpers.py, target/cuda_lib.py) that wrap PTX, by name
_FIXED = {
    "tirx_elect_sync": "  return tirx_sim::elect_one_of(0xffffffffu);",
    "tirx_cuda_mbarrier_wait": "  while (!tirx_sim::mbarrier_try_wait_parity(bar, (unsigned int)phase, true)) {}",
    "tirx_cuda_mbarrier_wait_u32":
        "  while (!tirx_sim::mbarrier_try_wait_parity(tirx_sim::shared_at(bar_addr), (unsigned int)phase, true)) {}",
    "tirx_cuda_mbarrier_wait_acquire_cluster":
        "  while (!tirx_sim::mbarrier_try_wait_parity(bar, (unsigned int)phase, true)) {}",
}

_ATOMIC_TYPES = {"u32": "unsigned int", "s32": "int", "b32": "unsigned int", "u64": "unsigned long long",
                 "s64": "long long", "b64": "unsigned long long", "f32": "float", "f64": "double"}
_ATOMIC_OPS = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "and": "atomicAnd", "or": "atomicOr",
               "xor": "atomicXor", "exch": "atomicExch"}


def _atomic(mnemonic: str, names: list[str]) -> str | None:
    """red / atom on global or shared memory: the runtime's atomics (blocks run on several OS threads)."""
    match = re.fullmatch(r"(red|atom)((?:\.(?:relaxed|release|acquire|acq_rel|sem|cta|gpu|sys))*)"
                         r"\.(global|shared(?:::cta)?)\.(add|min|max|and|or|xor|exch)\.([usbf](?:32|64))", mnemonic)
    if match is None or match.group(5) not in _ATOMIC_TYPES:
        return None
    ctype, call = _ATOMIC_TYPES[match.group(5)], _ATOMIC_OPS[match.group(4)]
    if match.group(1) == "red" and names == ["ptr0", "in0"]:
        return f"  {call}(({ctype}*)ptr0, ({ctype})in0);"
    if match.group(1) == "atom" and names == ["out0", "ptr0", "in0"]:
        return f"  out0 = {call}(({ctype}*)ptr0, ({ctype})in0);"
    return None


_BODIES = (_ldmatrix, _stmatrix, _mma, _ld_st, _cp_async, _fence, _atomic)


def cpu_helper(name: str, source: str, mnemonic: str | None = None, checked: bool = False) -> str | None:
    """The CPU version of the helper `name` whose CUDA source is `source` (the PTX table's
    `mnemonic`, when it is one of the table's), or None; `checked`: with the checkers' hooks
    (transpiler/sim/ptx_hooks.py)."""
    signature = _signature(source)
    if signature is None:
        return None
    head, names = signature
    if name in _FIXED:
        return f"{head}\n{_FIXED[name]}\n}}"
    mnemonic = mnemonic or _mnemonic(source)
    if mnemonic is None:
        return None
    returns = " void " not in head.split("(", 1)[0] + " "
    guarded = bool(names) and names[-1] == "pred"  # the table's `pred=` forms: run where pred is non-zero
    if guarded:
        names = names[:-1]
    body = _named_barrier(mnemonic, names, source) or _mbarrier(mnemonic, names, returns) or \
        _elect(mnemonic, names, returns)
    for make in _BODIES:
        if body is not None:
            break
        body = make(mnemonic, names)
    if body is None:
        return None
    if checked:
        from transpiler.sim.ptx_hooks import checked_body
        body = checked_body(mnemonic, names, body)
    if guarded:  # (destinations not written keep their values: the `_keep` forms' meaning)
        body = "  if (pred) {\n" + "\n".join("  " + line for line in body.split("\n")) + "\n  }"
    return f"{head}\n{body}\n}}"
