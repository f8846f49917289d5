"""Transpiling stays linear in the kernel's size (docs/benchmarks.md, "Scaling"):
counted in Python function calls per stage, which do not depend on the
machine's load, so a quadratic walk (a lookup per statement over every earlier
statement, buffer or name) fails here however fast the machine is. And the
parser's replay of remembered lines builds exactly what the tables build."""
from __future__ import annotations

import cProfile
import dataclasses
import gc
import pstats

import pytest

from transpiler.codegen.cuda import render_cuda
from transpiler.diag.diagnostics import Diagnostics
from transpiler.lower.lower import lower
from transpiler.sema.check import check
from transpiler.syntax import ast
from transpiler.syntax.grammar import LINE_STEPS, compiled_grammar
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile


def arena_views(count: int) -> str:
    """`count` one-element views of one shared arena, each with a store: the
    shape of kernel whose transpile used to grow faster than its size."""
    lines = ["from tvm.script import tirx as T", "", "@T.prim_func", "def big(A_ptr: T.handle):",
             f"    A = T.match_buffer(A_ptr, ({count},), \"float32\")", "    T.device_entry()",
             "    bx = T.cta_id([1])", "    tx = T.thread_id([32])",
             f"    arena = T.alloc_buffer(({count},), \"float32\", scope=\"shared.dyn\")"]
    for i in range(count):
        lines.append(f"    v{i} = T.decl_buffer((1,), \"float32\", data=arena.data, elem_offset={i}, "
                     "scope=\"shared.dyn\")")
        lines.append(f"    v{i}[0] = A[{i}]")
    return "\n".join(lines) + "\n"


def mixed_statements(count: int) -> str:
    """Scalar updates, stores, branches, loops and lets in turn, as in bench/transpile.py's scaling kernels."""
    lines = ["from tvm.script import tirx as T", "", "@T.prim_func", "def big(A_ptr: T.handle, B_ptr: T.handle):",
             "    A = T.match_buffer(A_ptr, (1024,), \"float32\")", "    B = T.match_buffer(B_ptr, (1024,), \"float32\")",
             "    T.device_entry()", "    bx = T.cta_id([1])", "    tx = T.thread_id([256])",
             "    acc: T.float32 = 0.0"]
    for k in range(count):
        lines += [f"    acc = acc + A[(tx + {k}) % 1024] * T.float32({k % 7 + 1}.0)",
                  f"    B[(tx * 4 + {k}) % 1024] = acc * T.float32(0.5)",
                  f"    if acc > T.float32({k % 100}.0):", "        acc = acc - T.float32(1.0)",
                  f"    for i in range({k % 4 + 1}):", f"        acc = acc + A[(tx + i + {k}) % 1024]",
                  f"    t{k}: T.let = (tx + {k}) % 1024", f"    B[t{k}] = A[t{k}] + acc"]
    return "\n".join(lines) + "\n"


def calls_per_stage(text: str) -> dict[str, int]:
    """Python function calls made by each stage of one transpile, the parser's
    memory of lines empty at its start (so what earlier parses of the process
    taught it does not change the count)."""
    grammar = compiled_grammar()
    saved = grammar.line_steps, grammar.line_steps_left
    grammar.line_steps, grammar.line_steps_left = {}, LINE_STEPS
    try:
        return _calls_per_stage(text)
    finally:
        grammar.line_steps, grammar.line_steps_left = saved


def _calls_per_stage(text: str) -> dict[str, int]:
    source = SourceFile("big.tx", text)
    diags = Diagnostics()
    counts = {}
    value = None
    for stage, run in (("parse", lambda _: parse(source, diags)), ("check", lambda m: check(m, source, diags)),
                       ("lower", lambda c: lower(c, diags)), ("emit", render_cuda)):
        profile = cProfile.Profile()
        profile.enable()
        value = run(value)
        profile.disable()
        counts[stage] = sum(entry[1] for entry in pstats.Stats(profile).stats.values())
    assert not diags.has_errors
    return counts


@pytest.mark.parametrize("kernel", [arena_views, mixed_statements])
def test_each_stage_does_linear_work(kernel):
    # Warm first: the first transpile of a process also fills caches (the parser's tables).
    calls_per_stage(kernel(10))
    small, large = calls_per_stage(kernel(100)), calls_per_stage(kernel(400))
    for stage in small:
        # Four times the statements: at most four times the calls, and a little for
        # constant costs. A walk over all earlier statements per statement would
        # add some 80,000 calls at 400.
        assert large[stage] <= 4 * small[stage] + 1000, (stage, small[stage], large[stage])


def _full_dump(value, out: list) -> None:
    """Every field of every node, spans included."""
    if isinstance(value, ast.Node):
        out.append(type(value).__name__)
        for field in dataclasses.fields(value):
            out.append(field.name)
            _full_dump(getattr(value, field.name), out)
        out.append(")")
    elif isinstance(value, (tuple, list)):
        out.append("[")
        for item in value:
            _full_dump(item, out)
        out.append("]")
    else:
        out.append(f"{type(value).__name__}:{value!r}")


def _parsed(text: str) -> tuple[list, list]:
    diags = Diagnostics()
    out: list = []
    _full_dump(parse(SourceFile("k.tx", text), diags), out)
    return out, [(d.code, d.message, d.span) for d in diags.items]


BROKEN_LINES = """from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    A[0] = A[1] + 2
    A[0] = A[1] + * 2
    A[0] = A[1] + 2 3
    A[0] = A[1] + 2
    if A[0] > 1
        A[0] = A[1] + 2
    A[0] = A[1] + 2
"""


@pytest.mark.parametrize("text", [arena_views(30) + mixed_statements(5), BROKEN_LINES])
def test_replayed_lines_parse_as_the_tables_do(text):
    grammar = compiled_grammar()
    saved = grammar.line_steps, grammar.line_steps_left
    gc.collect()
    try:
        grammar.line_steps, grammar.line_steps_left = {}, 0  # nothing remembered: every token through the tables
        through_tables = _parsed(text)
        grammar.line_steps_left = LINE_STEPS
        learning = _parsed(text)
        replayed = _parsed(text)  # now every line is remembered
    finally:
        grammar.line_steps, grammar.line_steps_left = saved
    assert through_tables == learning == replayed
