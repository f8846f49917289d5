"""The checked forms of the CPU implementations of PTX helpers (`tirxc sim --racecheck` /
`--synccheck`, docs/sim.md "Race checking"): the lines that report a helper's memory effect to
the runtime's checkers (include/tirx_sim_race.h), added to the body transpiler/sim/ptx.py writes.
The runtime's own operations (ldmatrix / stmatrix, atomics, mbarriers, barriers) report
themselves; these are the helpers whose body ptx.py writes inline: ld / st, cp.async, the bulk
groups, the proxy fences and wgmma's fence / commit_group / wait_group."""
from __future__ import annotations

import re

_ORDERED = (".volatile", ".relaxed", ".acquire", ".release", ".acq_rel")
_WIDTHS = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


# fences of GPU (or cluster, system) scope, and the release forms whose release is such a fence's
_GPU_FENCE = re.compile(r"fence\.(sc|acq_rel|release)\.(cluster|gpu|sys)|membar\.(gl|sys)")
_RELEASING = re.compile(r"(atom|red|st)\..*\.(release|acq_rel)\b")


def checked_body(mnemonic: str, names: list[str], body: str) -> str:
    """`body` with the checkers' hook lines for the instruction `mnemonic` (a release atomic's
    fence before it, the others after)."""
    hooks = _hooks(mnemonic, names)
    if hooks:
        body = body + "\n" + "\n".join("  " + h for h in hooks)
    if _RELEASING.match(mnemonic):
        body = "  tirx_sim::check_thread_fence();\n" + body
    return body


def _hooks(mnemonic: str, names: list[str]) -> list[str]:
    if mnemonic in ("tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync") and not names:
        before = "true" if "before" in mnemonic else "false"  # (tirx_sim_tcgen05_check.h)
        return [f"tirx_sim::check_tcgen05_fence({before});"]
    if mnemonic.startswith("cp.async.c") and names[:2] == ["ptr0", "ptr1"]:
        read = "(src_size < (unsigned)bytes ? src_size : (unsigned)bytes)" if "src_size" in names else "bytes"
        return [f"tirx_sim::check_cp_async(ptr0, ptr1, {read}, bytes);"]
    if mnemonic == "cp.async.commit_group":
        return ["tirx_sim::check_cp_async_commit();"]
    if mnemonic == "cp.async.wait_group":
        return ["tirx_sim::check_cp_async_wait(groups);"]
    if mnemonic == "cp.async.wait_all":
        return ["tirx_sim::check_cp_async_wait(-1);"]
    if mnemonic == "cp.async.bulk.commit_group":  # (the TMA and bulk copies: tirx_sim_tma.h's async_move)
        return ["tirx_sim::check_async_commit(tirx_sim::BULK);"]
    if mnemonic in ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read"):
        return ["tirx_sim::check_async_wait(groups, tirx_sim::BULK);"]
    if _GPU_FENCE.fullmatch(mnemonic):
        return ["tirx_sim::check_thread_fence();"]
    if mnemonic.startswith("fence.proxy.async"):  # (the async proxy: tirx_sim_proxy_check.h)
        return ["tirx_sim::check_proxy_fence(true);"]
    if mnemonic.startswith("fence.mbarrier_init"):
        return ["tirx_sim::check_proxy_fence(false);"]
    if mnemonic == "wgmma.fence.sync.aligned":  # (wgmma's groups: tirx_sim_wgmma_check.h)
        return ["tirx_sim::check_wgmma_fence();"]
    if mnemonic == "wgmma.commit_group.sync.aligned":
        return ["tirx_sim::check_async_commit(tirx_sim::WGMMA);"]
    if mnemonic == "wgmma.wait_group.sync.aligned":
        return ["tirx_sim::check_async_wait(groups, tirx_sim::WGMMA);"]
    match = re.match(r"(ld|st)\..*?(?:\.v([248]))?\.[usbf](8|16|32|64)$", mnemonic)
    if match is None or "ptr0" not in names:
        return []
    bytes_ = int(match.group(2) or 1) * _WIDTHS[match.group(3)]
    if any(q in mnemonic for q in _ORDERED):  # a flag: acquire / release on the location (a load reads it)
        load = ", true" if match.group(1) == "ld" else ""
        return [f"tirx_sim::atomic_sync(ptr0, {bytes_}{load});"]
    kind = "tirx_sim::READ" if match.group(1) == "ld" else "tirx_sim::WRITE"
    return [f"tirx_sim::access(ptr0, {bytes_}, {kind});"]
