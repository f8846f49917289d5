"""Regenerate the tables of docs/user-guide.md and docs/comparison.md from the code.

    python docs/gen_docs.py            rewrite the generated sections in place
    python docs/gen_docs.py --check    exit 1 (and say which page) if a section is stale

The construct table is made by transpiling the snippets of docs/constructs/*.tx
with tirxc's library entry point: a row's status is whatever tirxc does with its
snippet today ("supported", or "unsupported" / "rejected" with the diagnostic
code), and its CUDA column is cut from the generated `.cu`. So the table cannot
claim more than the code does; tests/docs/test_docs.py fails when it is stale.

Snippet files. Everything before the first `# %%` line is a preamble (imports,
module constants) shared by every snippet of the file. Each snippet starts with

    # %% `T.alloc_shared(shape, dtype)`          <- the construct, as the table shows it
    # also: ^__shared__                          <- regex: more CUDA lines to show (optional)
    # note: static shared memory                 <- a remark for the table (optional)

followed by one complete kernel. The `.tx` lines ending in `# show` select the CUDA
to quote: tirxc's `--line-info` output puts a `#line N` before the C of each source
line, and the lines under each selected N are taken. A snippet is compiled alone,
with the other snippets blanked out, so every line number (in the CUDA and in any
diagnostic) is the line of the snippet file.

The comparison page's numbers come from bench/results/*.json (see `comparison_numbers`).
"""
from __future__ import annotations

import json
import re
import statistics
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONSTRUCTS = DOCS / "constructs"
USER_GUIDE = DOCS / "user-guide.md"
COMPARISON = DOCS / "comparison.md"
RESULTS = ROOT / "bench" / "results"

sys.path.insert(0, str(ROOT))  # run from a checkout without installing tirxc

from transpiler.driver import compile_source  # noqa: E402
from transpiler.sema.registry import MATH  # noqa: E402
from transpiler.target.cmath import PREDICATES  # noqa: E402
from transpiler.target.ptx import FAMILIES as PTX_FAMILIES, lookup as ptx_lookup  # noqa: E402
from transpiler.syntax.source import SourceFile  # noqa: E402

SHOW_MARK = "# show"
LINE_DIRECTIVE = re.compile(r'^\s*#line (\d+) ')


@dataclass
class Snippet:
    file: str            # relative to docs/, e.g. "constructs/03_memory.tx"
    line: int            # the `# %%` line
    construct: str
    also: tuple[str, ...]
    note: str
    text: str            # the whole file with every other snippet blanked out


@dataclass
class Row:
    snippet: Snippet
    status: str
    cuda: list[str]      # CUDA lines, or the diagnostic message when it does not compile


# -- reading snippet files ----------------------------------------------------------------------------
def read_snippets(path: Path) -> list[Snippet]:
    lines = path.read_text(encoding="utf-8").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("# %%")]
    preamble_end = starts[0] if starts else len(lines)
    snippets = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        meta = {"also": "", "note": ""}
        for line in lines[start + 1:end]:
            match = re.match(r"# (also|note): (.*)$", line)
            if not match:
                break
            meta[match.group(1)] = (meta[match.group(1)] + "\n" + match.group(2)).strip()
        kept = lines[:preamble_end] + [""] * (start - preamble_end) + lines[start:end] + [""] * (len(lines) - end)
        snippets.append(Snippet(
            file=path.relative_to(DOCS).as_posix(), line=start + 1,
            construct=lines[start][4:].strip(),
            also=tuple(a for a in meta["also"].split("\n") if a),
            note=meta["note"].replace("\n", " "),
            text="\n".join(kept)))
    return snippets


def all_snippets() -> list[Snippet]:
    return [s for path in sorted(CONSTRUCTS.glob("*.tx")) for s in read_snippets(path)]


# -- compiling -----------------------------------------------------------------------------------------
def compile_snippet(name: str, text: str):
    return compile_source(SourceFile(name, text), until="cuda", line_info=True)


def status_of(result) -> str:
    """The status column: what tirxc does with the snippet, named by its first diagnostic."""
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if not errors:
        warnings = sorted({d.code for d in result.diagnostics})
        return "supported" + (f" (warns {', '.join(warnings)})" if warnings else "")
    word = "unsupported" if "not supported" in errors[0].message else "rejected"
    return f"{word} ({errors[0].code})"


def shown_cuda(text: str, cuda: str, also: tuple[str, ...]) -> list[str]:
    """The C attributed to each `# show` line and the lines matching an `also` regex, in .cu order.

    Lines are attributed as the C preprocessor does: `#line N` names the next line N,
    and each later line is one more, until the next directive."""
    wanted = {n for n, line in enumerate(text.split("\n"), 1) if line.rstrip().endswith(SHOW_MARK)}
    out, current = [], None
    for line in cuda.split("\n"):
        match = LINE_DIRECTIVE.match(line)
        if match:
            current = int(match.group(1))
            continue
        shown = current in wanted and line.strip() not in ("", "}", "} else {")
        if (shown or any(re.search(pattern, line) for pattern in also)) and line.strip() not in out:
            out.append(line.strip())
        if current is not None:
            current += 1
    return out


def build_row(snippet: Snippet) -> Row:
    result = compile_snippet(f"docs/{snippet.file}", snippet.text)
    status = status_of(result)
    if status.startswith("supported"):
        return Row(snippet, status, shown_cuda(snippet.text, result.cuda, snippet.also))
    first = next(d for d in result.diagnostics if d.severity == "error")
    return Row(snippet, status, [first.message])


# -- rendering -----------------------------------------------------------------------------------------
def code_cell(lines: list[str]) -> str:
    return "<br>".join("`" + line.replace("|", "\\|") + "`" for line in lines) or "(no code)"


def constructs_table() -> str:
    rows = [build_row(s) for s in all_snippets()]
    out = []
    section = None
    for row in rows:
        file_section = _section_title(row.snippet.file)
        if file_section != section:
            if section is not None:
                out.append("")
            section = file_section
            out += [f"#### {section}", "", "| construct | status | the CUDA it becomes | snippet |",
                    "|---|---|---|---|"]
        cuda = code_cell(row.cuda) if row.status.startswith("supported") else "*" + _md_text(row.cuda[0]) + "*"
        if row.snippet.note:
            cuda += "<br>" + _md_text(row.snippet.note)
        link = f"[{Path(row.snippet.file).name}:{row.snippet.line}]({row.snippet.file}#L{row.snippet.line})"
        out.append(f"| {row.snippet.construct} | {row.status} | {cuda} | {link} |")
    return "\n".join(out)


@lru_cache(maxsize=None)  # one read per snippet file, not per row
def _section_title(file: str) -> str:
    text = (DOCS / file).read_text(encoding="utf-8")
    match = re.search(r"^# section: (.*)$", text, re.M)
    return match.group(1) if match else Path(file).stem


def _md_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


MATH_SNIPPET = """from tvm.script import tirx as T

@T.prim_func
def k(A: T.Buffer((32,), "{dtype}"), B: T.Buffer((32,), "{out}")):
    T.device_entry()
    tx = T.thread_id([32])
    B[tx] = T.{name}({args})  # show
"""


def math_table() -> str:
    """One row per entry of transpiler.sema.intrinsics.MATH, for float32, float16 and (where allowed) int32."""
    out = ["| `T.*` | float32 | float16 | int32 |", "|---|---|---|---|"]
    for name, (arity, float_only) in MATH.items():
        cells = []
        for dtype in ("float32", "float16", "int32"):
            predicate = name in PREDICATES
            out_dtype = "bool" if predicate else "int32" if name in ("clz", "popcount") else dtype
            text = MATH_SNIPPET.format(dtype=dtype, out=out_dtype, name=name,
                                       args=", ".join(["A[tx]"] * arity))
            result = compile_snippet("math.tx", text)
            if not result.ok:
                code = next(d.code for d in result.diagnostics if d.severity == "error")
                cells.append(f"rejected ({code})")
                continue
            line = shown_cuda(text, result.cuda, ())[-1]
            call = re.search(r"= (.*);$", line).group(1)
            cells.append("`" + call.replace("A_ptr[tx]", "x") + "`")
        out.append(f"| `T.{name}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


def ptx_table() -> str:
    """One spelling of each family of tirxc's PTX table (transpiler/target/ptx/; docs/ptx.md has them
    all), with operands and minimum architecture."""
    out = ["| PTX instruction | operands | minimum architecture |", "|---|---|---|"]
    for mnemonic in (family.examples[0] for family in PTX_FAMILIES):
        instr = ptx_lookup(mnemonic)
        counts = {}
        for operand in instr.operands:
            counts[operand.role] = counts.get(operand.role, 0) + 1
        operands = ", ".join(f"{n} {PTX_ROLES[role]}" for role, n in counts.items()) or "none"
        out.append(f"| `{mnemonic}` | {operands} | sm_{instr.min_arch}{instr.suffix} |")
    return "\n".join(out)


PTX_ROLES = {"out": "output register(s)", "inout": "register(s) read and written", "in": "input register(s)",
             "addr": "address(es)", "imm": "immediate(s)"}


# -- the comparison page's numbers ---------------------------------------------------------------------
def comparison_numbers() -> str:
    transpile = json.loads((RESULTS / "transpile.json").read_text(encoding="utf-8"))
    gpu = json.loads((RESULTS / "gpu.json").read_text(encoding="utf-8"))
    process = [p for p in transpile["process"] if p.get("reference_status") == "ok"]
    ratios = sorted(p["ratio_cpu"] for p in process)
    tirxc_cpu = sorted(p["tirxc"]["cpu_ms"]["median"] for p in process)
    ref_cpu = sorted(p["reference"]["cpu_ms"]["median"] for p in process)
    tirxc_rss = max(p["tirxc"]["peak_rss_mb"] for p in process)
    ref_rss = max(p["reference"]["peak_rss_mb"] for p in process)
    per_kernel = sorted(s["per_kernel_ms"] for s in transpile["stages"])
    ref_inproc = sorted(r["total_ms"] / r["kernels"] for r in transpile["reference_inprocess"]
                        if r.get("total_ms") is not None)
    compile_ratio = sorted(c["reference_over_tirxc"] for c in gpu["compile"] if c.get("reference_over_tirxc"))
    vs_ref = sorted(k["tirxc_over_reference"] for k in gpu["kernels"] if k.get("tirxc_over_reference"))
    vs_hand = sorted(k["tirxc_over_hand"] for k in gpu["kernels"] if k.get("tirxc_over_hand"))
    big = [k for k in gpu["kernels"] if k["sample"] in ("saxpy", "float4_copy", "sgemm_tiled")]
    sass_same = sum(1 for s in gpu["sass"] if s.get("reference") is not None and s["tirxc"] == s["reference"])
    sass_known = sum(1 for s in gpu["sass"] if s.get("reference") is not None)

    def span(values, fmt="{:.2f}"):
        return f"{fmt.format(values[0])}–{fmt.format(values[-1])} (median {fmt.format(statistics.median(values))})"

    lines = [
        f"Measured by `make bench` ({transpile['meta']['date']}, {transpile['meta']['cores']}-core "
        f"{transpile['meta']['cpu']}, tirxc {transpile['meta']['tirxc']} at `{transpile['meta']['git']}`, "
        f"{transpile['meta']['reference']}) and `make bench-gpu` ({gpu['meta']['date']}, {gpu['meta']['device']}); "
        "from `bench/results/transpile.json` and `bench/results/gpu.json`, method in docs/benchmarks.md.",
        "",
        "| measure | tirxc | reference TIRx |",
        "|---|---|---|",
        f"| CLI process, one sample file to CUDA (CPU ms, median of {transpile['meta']['runs']} runs; "
        f"{len(process)} samples) | {span(tirxc_cpu, '{:.0f}')} | {span(ref_cpu, '{:.0f}')} |",
        f"| reference / tirxc CPU time per process | — | {span(ratios)}× |",
        f"| peak RSS of that process (MB, largest sample) | {tirxc_rss:.0f} | {ref_rss:.0f} |",
        f"| in process, per kernel (ms) | {span(per_kernel)} | {span(ref_inproc)} |",
        f"| NVRTC compile of the generated `.cu`, reference / tirxc | — | {span(compile_ratio, '{:.1f}')}× slower |",
        f"| generated kernel time, tirxc / reference ({len(vs_ref)} kernels) | {span(vs_ref, '{:.3f}')} | 1 |",
        f"| generated kernel time, tirxc / hand-written CUDA | {span(vs_hand, '{:.3f}')} | — |",
        f"| SASS instruction count equal to the reference's | {sass_same} of {sass_known} kernels | — |",
    ]
    for k in big:
        lines.append(f"| `{k['id']}` time, tirxc / reference | {k['tirxc_over_reference']:.3f} | 1 |")
    return "\n".join(lines)


# -- splicing into the pages ---------------------------------------------------------------------------
def splice(text: str, name: str, body: str) -> str:
    begin, end = f"<!-- BEGIN GENERATED {name} -->", f"<!-- END GENERATED {name} -->"
    head, found, rest = text.partition(begin)
    if not found or end not in rest:
        raise SystemExit(f"gen_docs: markers for '{name}' are missing")
    _, _, tail = rest.partition(end)
    notice = "<!-- generated by docs/gen_docs.py (`make docs`); edit the sources, not this table -->"
    return f"{head}{begin}\n{notice}\n\n{body}\n\n{end}{tail}"


def pages() -> dict[Path, str]:
    """Every generated page as it should be now."""
    guide = USER_GUIDE.read_text(encoding="utf-8")
    guide = splice(guide, "constructs", constructs_table())
    guide = splice(guide, "math", math_table())
    guide = splice(guide, "ptx", ptx_table())
    comparison = COMPARISON.read_text(encoding="utf-8")
    comparison = splice(comparison, "numbers", comparison_numbers())
    return {USER_GUIDE: guide, COMPARISON: comparison}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in pages().items():
        if path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.write_text(text, encoding="utf-8")
    if check and stale:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run `make docs`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
