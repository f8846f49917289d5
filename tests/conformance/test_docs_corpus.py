"""The conformance corpus: every kernel of the TIRx documentation, as a `.tx` file,
compiled by tirxc and compared with its recorded status (tests/conformance/expected.json).

A kernel whose result changes, one that starts passing included, fails here until the
table is regenerated on purpose:

    .venv/bin/python -m pytest tests/conformance --update-conformance

which also rewrites docs/conformance.md. The passing kernels' CUDA is compiled with
nvcc (marker `nvcc`). The tests that read the upstream pages (../shared/tirx-docs)
skip where they are absent.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conformance import corpus, report
from tests.conformance.pages import DOCS, TIRX_LANGS, all_blocks
from tests.conformance.skipped import SKIPPED
from tests.conftest import has_nvcc
from tests.nvcc_batch import compile_many

FILES = [p.name for p in corpus.files()]  # the documentation kernels
ENTRIES = corpus.entry_names()  # and the construct cases that name their source
needs_pages = pytest.mark.skipif(not DOCS.is_dir(), reason=f"the TIRx pages are not at {DOCS}")


@pytest.fixture(scope="module")
def outcomes(request):
    run = corpus.run_all()
    if request.config.getoption("--update-conformance"):
        report.write(run)
    return {o.file: o for o in run}


@pytest.fixture(scope="module")
def expected():
    return corpus.load_expected()


def test_corpus_is_not_empty():
    assert len(FILES) >= 30


@pytest.mark.parametrize("name", ENTRIES)
def test_status_matches_the_table(name, outcomes, expected):
    got = corpus.record([outcomes[name]])[name]
    want = expected.get(name)
    assert want is not None, f"{name} is not in expected.json: run pytest tests/conformance --update-conformance"
    if got["status"] == "pass" and want["status"] != "pass":
        pytest.fail(f"{name} passes now (the table says {want['status']} with {want.get('errors')}): "
                    "regenerate with --update-conformance and review the diff")
    assert got == want, f"{name}: tirxc gives {got}, the table says {want} (first error: {outcomes[name].first_error})"


def test_table_lists_only_corpus_files(expected):
    assert sorted(expected) == sorted(ENTRIES)


def test_every_source_kind_is_known(outcomes):
    assert {o.header.kind for o in outcomes.values()} <= set(corpus.SOURCES)


def test_no_crashes(outcomes):
    """A traceback instead of a diagnostic is a tirxc bug, whatever the table says."""
    crashes = {name: o.first_error for name, o in outcomes.items() if o.status == "crash"}
    assert not crashes


def test_report_is_current(outcomes):
    text = report.render(list(outcomes.values()))
    assert report.REPORT.read_text(encoding="utf-8") == text, \
        "docs/conformance.md is stale: run pytest tests/conformance --update-conformance"


def test_report_counts_add_up(outcomes):
    text = report.REPORT.read_text(encoding="utf-8")
    passed = sum(o.status == "pass" for o in outcomes.values())
    assert f"**{passed}/{len(outcomes)} (" in text
    for name, o in outcomes.items():
        assert f"[{name}]" in text
    section = text.split("## Not supported yet")[1].split("## Rejected by TIRx as well")[0]
    section = section.split("\n## ")[0]
    groups = [line.split(": ", 1)[1].split(", ") for line in section.split("\n") if line.startswith("- ")]
    listed = sorted(stem for group in groups for stem in group)
    rejected = text.split("## Rejected by TIRx as well")[1].split("## Blocks without a kernel")[0]
    listed += [line[2:].split(":", 1)[0] for line in rejected.split("\n") if line.startswith("- ")]
    assert sorted(listed) == sorted(o.stem for o in outcomes.values() if o.status != "pass")  # each once


@pytest.mark.parametrize("name", FILES)
def test_header_and_markers(name):
    text = (corpus.CORPUS / name).read_text(encoding="utf-8")
    head = corpus.header(text, name)
    assert head.category in corpus.CATEGORIES
    block_stem = head.page[:-len(".rst")].replace("/", "-") + f"__{head.block}"
    assert name == f"{block_stem}.tx"
    for line in text.split("\n")[head.lines:]:  # an added line says why, on the line itself
        if "# added" in line:
            assert corpus.ADDED.search(line), line


@needs_pages
@pytest.mark.parametrize("name", FILES)
def test_file_holds_exactly_its_block(name):
    """Without its headers and `# added` lines, and with the `# host:` comments restored,
    a file is the page's block: the kernel is never edited."""
    text = (corpus.CORPUS / name).read_text(encoding="utf-8")
    head = corpus.header(text, name)
    blocks = {b.number: b for b in all_blocks() if b.page == head.page}
    block = blocks[head.block]
    assert (block.first, block.last) == (head.first, head.last), f"{name}: the page's lines moved"
    assert corpus.page_text(text) == block.text.strip("\n")


@needs_pages
def test_every_block_is_accounted_for():
    """Each Python or literal block of every page is a corpus file or listed in
    skipped.py with a reason, and every block with a kernel is a corpus file."""
    files = {name[:-len(".tx")] for name in FILES}
    blocks = [b for b in all_blocks() if b.lang in TIRX_LANGS]
    stems = {b.stem for b in blocks}
    assert not [b.stem for b in blocks if b.stem not in files and b.stem not in SKIPPED]
    assert not [b.stem for b in blocks if b.has_kernel and b.stem not in files]
    assert not (files | set(SKIPPED)) - stems, "entries for blocks the pages do not have"
    assert not files & set(SKIPPED)


def test_page_text_drops_only_marked_lines():
    head = "# conformance: a.rst, code block 1, lines 1-3\n# category: basics\n"
    wrapped = head + "from tvm.script import tirx as T  # added: import\n@T.prim_func  # added: wrapper\n" \
        "def k():  # added\n    x = 1\n\n    y = 2  # a comment\n"
    assert corpus.page_text(wrapped) == "x = 1\n\ny = 2  # a comment"
    hosted = head + "@T.prim_func\ndef k():\n    pass\n# host: exe(a)\n# host:\n# host:     indented\n"
    assert corpus.page_text(hosted) == "@T.prim_func\ndef k():\n    pass\nexe(a)\n\n    indented"


def test_gpu_cases_are_corpus_files(outcomes):
    """tests/gpu/test_docs_corpus.py checks a page's stated result for these files."""
    from tests.gpu.test_docs_corpus import CASES
    for case_id, case in CASES.items():
        stem = case_id.split("@")[0]
        assert f"{stem}.tx" in outcomes, case_id
        kernel = case[1]
        assert f"def {kernel}(" in (corpus.CORPUS / f"{stem}.tx").read_text(encoding="utf-8"), case_id


# nvcc: each passing kernel at the architecture it needs (sm_80, or sm_100a for
# Blackwell-only code), warnings as errors, once per module.
FLAGS = ("-std=c++17", "-Werror", "all-warnings", "-c")


def _arch(min_arch: str | None) -> str:
    number = int((min_arch or "sm_80")[3:].rstrip("a"))
    return "sm_100a" if number >= 100 else ("sm_90a" if number >= 90 else "sm_80")


@pytest.fixture(scope="module")
def nvcc_results(outcomes):
    """{file: (arch, return code, output)}: the passing kernels of one architecture compiled
    together (tests/nvcc_batch.py), the architectures in parallel."""
    by_arch: dict[str, dict[str, str]] = {}
    for o in outcomes.values():  # the construct cases are compiled by tests/sema
        if o.status == "pass" and o.header.kind == "docs":
            by_arch.setdefault(_arch(o.min_arch), {})[o.stem] = o.cuda

    def compile_arch(arch):  # cached by content (tests/build_cache.py)
        number = arch[3:]
        return arch, compile_many(by_arch[arch], ["-gencode", f"arch=compute_{number},code=sm_{number}", *FLAGS])

    with ThreadPoolExecutor(max_workers=2) as pool:
        return {f"{stem}.tx": (arch, *result) for arch, results in pool.map(compile_arch, by_arch)
                for stem, result in results.items()}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", FILES)
def test_passing_kernel_compiles_with_nvcc(name, outcomes, nvcc_results):
    if outcomes[name].status != "pass":
        pytest.skip(f"tirxc does not accept it yet: {outcomes[name].first_error}")
    arch, code, output = nvcc_results[name]
    assert code == 0, f"nvcc -arch={arch} {' '.join(FLAGS)} {name[:-3]}.cu failed:\n{output}"
