"""The code blocks of the TIRx documentation pages (reStructuredText).

A block is a `.. code-block:: LANG` directive or a literal block (a paragraph
ending in `::`). Blocks are numbered from 1 in page order, all languages
counted, so "block 3" is the third code block a reader sees on the page.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

# The upstream pages sit beside the checkout (../shared/tirx-docs); CI machines
# without them skip the tests that read pages.
DOCS = (ROOT.parent / "shared" / "tirx-docs").resolve()

# Blocks that can hold TIRx source (c++, bash and text blocks cannot).
TIRX_LANGS = ("python", "literal")
KERNEL_DECORATORS = ("@T.prim_func", "@T.function", "@T.jit")

_DIRECTIVE = re.compile(r"^(\s*)\.\. code-block::\s*(\S*)")
_OPTION = re.compile(r"^\s+:[\w-]+:")


@dataclass(frozen=True)
class Block:
    page: str       # relative to DOCS, e.g. "native_basics/cuda/first_kernel.rst"
    number: int     # 1-based, in page order
    lang: str       # "python", "c++", ..., or "literal"
    first: int      # 1-based line of the page where the block's text starts
    last: int       # ... and ends (inclusive)
    text: str       # dedented, without trailing blank lines

    @property
    def has_kernel(self) -> bool:
        return self.lang in TIRX_LANGS and any(d in self.text for d in KERNEL_DECORATORS)

    @property
    def stem(self) -> str:
        """The corpus file name for this block, without `.tx`."""
        return f"{self.page[:-len('.rst')].replace('/', '-')}__{self.number}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def blocks(page: str, text: str) -> list[Block]:
    lines = text.split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE.match(line)
        literal = (not directive and line.rstrip().endswith("::")
                   and not line.lstrip().startswith(".."))
        if not (directive or literal):
            i += 1
            continue
        indent = _indent(line)
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or (directive and _OPTION.match(lines[j]))):
            j += 1
        if j >= len(lines) or _indent(lines[j]) <= indent:
            i += 1
            continue
        body_indent = _indent(lines[j])
        k = j
        while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) >= body_indent):
            k += 1
        end = k
        while end > j and not lines[end - 1].strip():
            end -= 1
        body = textwrap.dedent("\n".join(lines[j:end]))
        out.append(Block(page, len(out) + 1, directive.group(2) if directive else "literal", j + 1, end, body))
        i = k
    return out


def page_files() -> list[Path]:
    return sorted(DOCS.rglob("*.rst")) if DOCS.is_dir() else []


def all_blocks() -> list[Block]:
    found = []
    for path in page_files():
        found.extend(blocks(path.relative_to(DOCS).as_posix(), path.read_text(encoding="utf-8")))
    return found
