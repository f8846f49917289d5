"""The PTX table through ptxas, for every architecture it claims: each spelling the table
accepts (tests/ptx/spellings.py), each of its forms rendered as tirxc renders it (the helper
the generated .cu pastes), called from a kernel of its own. One translation unit of all the
kernels goes through nvcc --ptx once (the inline asm is pasted into the PTX verbatim, and every
arch-specific guard is defined, so the PTX is the same for every target); then, per
architecture, the kernels whose family the target has go through ptxas, and each kernel
ptxas refuses is named, taken out, and the rest assembled again until none is refused.

    python -m tests.ptx.assemble --all            # every spelling (docs/ptx.md gives the figures)
    python -m tests.ptx.assemble --limit 20       # a seeded sample of 20 spellings per family
    python -m tests.ptx.assemble --arch sm_90a --family 'mbarrier'   # narrower

It prints, per architecture, the kernels assembled and every refused spelling with ptxas's
message; the exit status is 1 when ptxas refused any."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.ptx.corpus import call
from tests.ptx.spellings import accepted
from transpiler.target import ptx
from transpiler.target.arch import SPECIFIC, guard_macro
from transpiler.target.target import Target

# The targets the table's FEATURES rows claim that nvcc 13 compiles for (sm_101a became sm_110a).
ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103a", "sm_110a",
         "sm_120", "sm_120a", "sm_121a")
_CHUNK = 400  # kernels per translation unit (cicc is slow on one of thousands)
_GUARDS = "".join(f"#define {guard_macro(f)} 1\n" for f in SPECIFIC)


def instructions(limit: int | None = None, seed: int = 0, family: str = "",
                 given: list[str] | None = None) -> list[ptx.Instruction]:
    """Every form of every accepted spelling (a sample of `limit` per family; or the `given`
    spellings the table accepts), and the `pred=` form of each family's first."""
    out, seen = [], set()
    for fam in ptx.FAMILIES:
        if family and not re.search(family, fam.pattern):
            continue
        mine = accepted(fam, limit, seed) if given is None else \
            [s for s in given if ptx.family_of(s) is fam and isinstance(ptx.forms(s), list)]
        for number, mnemonic in enumerate(mine):
            for instr in ptx.forms(mnemonic):
                variants = [instr] + ([ptx.predicated(instr, instr.has_dest)] if number == 0 else [])
                for variant in variants:
                    if (variant.mnemonic, variant.helper) not in seen:
                        seen.add((variant.mnemonic, variant.helper))
                        out.append(variant)
    return out


def translation_unit(instrs: list[ptx.Instruction], first: int = 0, stop: int | None = None) -> str:
    """Each instruction's helper (renamed per kernel: one mnemonic's forms share a helper name
    only within their spelling) called from kernel k<i>."""
    parts = [_GUARDS]
    for index in range(first, len(instrs) if stop is None else stop):
        instr = instrs[index]
        helper = f"h{index}"
        parts.append(instr.source().replace(f" {instr.helper}(", f" {helper}(", 1))
        body = [line.replace(instr.helper, helper) for line in call(instr, index)]
        parts.append(f'extern "C" __global__ void k{index}(unsigned long long* sink, int* gmem, int seed) {{\n'
                     "  __shared__ alignas(128) unsigned long long smem[64];\n" + "\n".join(body)
                     + "\n  sink[0] += smem[seed & 63];\n}\n")
    return "\n".join(parts)


def to_ptx(source: str, scratch: Path) -> str:
    cu = scratch / "table.cu"
    cu.write_text(source, encoding="utf-8")
    done = subprocess.run(["nvcc", "-std=c++17", "--ptx", "-arch=compute_80", str(cu), "-o", str(scratch / "table.ptx")],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"nvcc --ptx failed:\n{(done.stdout + done.stderr)[-6000:]}")
    return (scratch / "table.ptx").read_text(encoding="utf-8")


def split_entries(text: str) -> tuple[str, dict[int, str]]:
    """The module's header and each kernel's text (from its `.globl` line)."""
    pieces = re.split(r"(?m)^(?=\t// \.globl\tk\d+$)", text)
    entries = {}
    for piece in pieces[1:]:
        entries[int(re.match(r"\t// \.globl\tk(\d+)", piece)[1])] = piece
    return pieces[0], entries


def _assemble(header: str, entries: dict[int, str], arch: str, scratch: Path) -> tuple[set[int], dict[int, str], str]:
    """ptxas over the kernels: (those refused, their messages, a message no kernel owns)."""
    lines = [header.replace(".target sm_80", f".target {arch}")]
    starts = []  # (first line, kernel)
    line = lines[0].count("\n") + 1
    for index, text in entries.items():
        starts.append((line, index))
        lines.append(text)
        line += text.count("\n")
    path = scratch / f"{arch}-{len(entries)}-{min(entries, default=0)}.ptx"
    path.write_text("".join(lines), encoding="utf-8")
    done = subprocess.run(["ptxas", f"-arch={arch}", "-O0", str(path), "-o", str(path.with_suffix(".cubin"))],
                          capture_output=True, text=True)
    output = done.stdout + done.stderr
    refused, messages, loose = set(), {}, []
    for row in output.splitlines():
        if re.search(r"\binfo\s*:", row):  # advisories (performance notes) are not refusals
            continue
        found = re.search(r", line (\d+); (?:error|warning)\s*:\s*(.*)", row) or \
            re.search(r"warning\s*:\s*(.*on line '(\d+)'.*)", row)
        if found is not None and not found[1].isdigit():  # the second spelling: (message, line)
            found = (row, found[2], found[1])
        if found is None:
            if row.strip() and "fatal" not in row and "warning : " not in row:
                loose.append(row)
            continue
        number = int(found[1])
        owner = max((s for s in starts if s[0] <= number), default=None)
        if owner is None:
            loose.append(row)
            continue
        refused.add(owner[1])
        messages.setdefault(owner[1], found[2])
    if done.returncode and not refused:
        loose.append(output.strip())
    return refused, messages, "\n".join(loose)


def assemble_arch(header: str, entries: dict[int, str], arch: str, scratch: Path) -> dict[int, str]:
    """Every kernel ptxas refuses on `arch` and why (taking the refused out and trying again; a
    refusal no kernel owns is bisected)."""
    refused: dict[int, str] = {}
    pending = [dict(entries)]
    while pending:
        group = pending.pop()
        if not group:
            continue
        bad, messages, loose = _assemble(header, group, arch, scratch)
        if bad:
            refused.update({k: messages[k] for k in bad})
            pending.append({k: v for k, v in group.items() if k not in bad})
        elif loose:
            if len(group) == 1:
                refused.update({k: loose.splitlines()[0] for k in group})
            else:
                keys = list(group)
                pending += [{k: group[k] for k in keys[:len(keys) // 2]}, {k: group[k] for k in keys[len(keys) // 2:]}]
    return refused


def run(archs, limit: int | None, seed: int = 0, family: str = "", jobs: int = 2, out=sys.stdout,
        given: list[str] | None = None, beyond: bool = False) -> int:
    start = time.time()
    instrs = instructions(limit, seed, family, given)
    mnemonics = {i.mnemonic for i in instrs}
    chunks = [range(k, min(k + _CHUNK, len(instrs))) for k in range(0, len(instrs), _CHUNK)]
    with tempfile.TemporaryDirectory(prefix="tirxc-ptxas-") as folder:
        scratch = Path(folder)

        def compile_chunk(number):
            place = scratch / f"c{number}"
            place.mkdir()
            chunk = chunks[number]
            return split_entries(to_ptx(translation_unit(instrs, chunk.start, chunk.stop), place))

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            modules = list(pool.map(compile_chunk, range(len(chunks))))

        def one(job):
            arch, number = job
            target = Target.parse(arch)
            header, entries = modules[number]
            chosen = {k: v for k, v in entries.items() if target.allows(instrs[k].feature) != beyond}
            refused = assemble_arch(header, chosen, arch, scratch / f"c{number}")
            if beyond:  # report what ptxas assembles of what the table refuses there
                return arch, len(chosen), {k: "assembles, but the table refuses it here" for k in chosen
                                           if k not in refused}
            return arch, len(chosen), refused

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            parts = list(pool.map(one, [(a, n) for a in archs for n in range(len(chunks))]))
    total = 0
    bad_spellings = set()
    print(f"{len(mnemonics)} spellings, {len(instrs)} forms", file=out)
    for arch in archs:
        mine = [p for p in parts if p[0] == arch]
        refused = {k: v for p in mine for k, v in p[2].items()}
        count = sum(p[1] for p in mine)
        total += count
        print(f"{arch}: {count} forms assembled, {len(refused)} refused", file=out)
        for index, message in sorted(refused.items(), key=lambda kv: instrs[kv[0]].mnemonic):
            bad_spellings.add(instrs[index].mnemonic)
            print(f"  {instrs[index].mnemonic} [{instrs[index].helper}]: {message}", file=out)
    print(f"{total} assemblies of {len(instrs)} forms on {len(archs)} targets; {len(bad_spellings)} spellings "
          f"refused; {time.time() - start:.0f} s", file=out)
    return 1 if bad_spellings else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ptx.assemble", description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="every spelling of every family")
    parser.add_argument("--limit", type=int, default=20, help="spellings per family (a seeded sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arch", action="append", help="a target (repeatable; default: all the table claims)")
    parser.add_argument("--family", default="", help="families whose pattern matches this regular expression")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--spellings", help="a file of spellings, one a line, instead of the enumeration")
    parser.add_argument("--beyond", action="store_true",
                        help="the forms the table refuses on each target instead: what ptxas assembles of "
                             "them is what the table could allow there")
    args = parser.parse_args(argv)
    given = Path(args.spellings).read_text(encoding="utf-8").split() if args.spellings else None
    return run(tuple(args.arch or ARCHS), None if args.all else args.limit, args.seed, args.family, args.jobs,
               given=given, beyond=args.beyond)


if __name__ == "__main__":
    raise SystemExit(main())
