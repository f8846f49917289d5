"""Every file the project's text points at exists: the docs and the code's comments name files
of this repository only, and a link lands on a page (and heading) that is there.

- Markdown links in README.md and docs/*.md whose target is a relative path resolve, and an
  `#anchor` names a heading of the page it points into.
- A path written in backticks in those pages (`transpiler/sema/check.py`, `tile/dispatch.py`,
  `samples/saxpy.tx`) names a file or folder of the repository (a path may start at any folder).
- A comment or docstring of transpiler/ that names a source file (`*.py`, `*.tx`, `*.md`, `*.j2`,
  `*.lark`) names one of the repository's, except the placeholders a usage line writes for the
  user's own files (`kernel.tx`, `KERNEL.tx`, `k.py` ...).
"""
from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
# every path, and every tail of one: `sema/check.py` names transpiler/sema/check.py
KNOWN = {"/".join(Path(f).parts[i:j]) for f in FILES for i in range(len(Path(f).parts))
         for j in range(i + 1, len(Path(f).parts) + 1)}
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
# the names a usage line or example gives the user's files and outputs
# (and `mbarrier.tx`, a PTX instruction family, not a file)
PLACEHOLDERS = {"kernel.tx", "KERNEL.tx", "k.tx", "kernel.py", "k.py", "kernel.cu", "k.cu", "kernel.h", "k.h",
                "mykernel.tx", "mbarrier.tx", "out.cu", "OUT.cu", "x.tx", "a.tx", "b.tx", "input.tx", "file.tx", "FILE.tx"}
CITATION = re.compile(r"(?<![\w./~$-])((?:[\w.-]+/)*[\w-]+\.(?:py|tx|md|j2|lark))(?![\w/]|\.\w)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_PATH = re.compile(r"`((?:transpiler|tests|docs|samples|bench|templates|grammar)/[\w./-]*)`")


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    out = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(_slug(line.lstrip("#")))
        if not fenced:
            out.update(re.findall(r'<a (?:id|name)="([^"]+)"', line))
    return out


def _prose(page: Path) -> str:
    """The page without its code blocks and code spans (which show examples, not links)."""
    text = re.sub(r"(?ms)^```.*?^```", "", page.read_text(encoding="utf-8"))
    return re.sub(r"`[^`\n]*`", "", text)


def test_links_between_pages_resolve():
    broken = []
    for page in PAGES:
        for target in LINK.findall(_prose(page)):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if path and not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_paths_the_pages_name_exist():
    missing = []
    for page in PAGES:
        for path in CODE_PATH.findall(page.read_text(encoding="utf-8")):
            made = "/." in path or "/out/" in path  # folders the benchmark commands create
            if path.rstrip("/") not in KNOWN and not made and "*" not in path and "<" not in path:
                missing.append(f"{page.name}: {path}")
    assert missing == []


def test_comments_name_files_of_the_repository():
    missing = []
    for name in FILES:
        if not (name.startswith("transpiler/") and name.endswith(".py")):
            continue
        text = (ROOT / name).read_text(encoding="utf-8")
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in (tokenize.COMMENT, tokenize.STRING):
                continue
            for cited in CITATION.findall(tok.string):
                if cited not in KNOWN and Path(cited).name not in PLACEHOLDERS:
                    missing.append(f"{name}:{tok.start[0]}: {cited}")
    assert missing == []
