"""The library entry point: source text in, checked and lowered program and
output texts out. The CLI and the tests call this; it only chains the stages."""
from __future__ import annotations

from dataclasses import dataclass, field

from transpiler.diag.diagnostics import Diagnostic, Diagnostics
from transpiler.syntax.source import SourceFile

TYPE_CHECKING = False  # (typing itself is not imported: start-up time)
if TYPE_CHECKING:
    from transpiler import ir
    from transpiler.syntax import ast


@dataclass
class Result:
    """What compile_source made of one file, up to the stage it stopped at."""
    source: SourceFile
    diagnostics: list[Diagnostic] = field(default_factory=list)
    module: ast.Module | None = None
    program: object | None = None  # lower.Program once lowering ran
    cuda: str | None = None
    launcher: str | None = None
    header: str | None = None  # the C++ header (docs/cpp.md), when asked for
    sim_cuda: str | None = None  # the sim flavour of the CUDA (docs/sim.md), when asked for
    sim_shared: dict = field(default_factory=dict)  # with it: each kernel symbol's static shared bytes

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


STAGES = ("ast", "check", "cuda", "launcher")


def compile_source(source: SourceFile, **options) -> Result:
    """Run the pipeline up to `until` (one of STAGES); stops at the first stage with errors.
    A file in an older spelling of TIRx is read as today's (transpiler/dialect/): the stages run on
    the rewritten text, and its diagnostics point into the file as written, after a note that names
    the spelling it was read as."""
    from transpiler.dialect import might_be_older

    if not might_be_older(source.text):
        return _compile_current(source, **options)
    from transpiler.dialect.reading import read

    reading = read(source)
    if reading.stop:
        return Result(source, reading.diagnostics)
    result = _compile_current(reading.source, **options)
    result.source = source
    result.diagnostics = reading.restore(result.diagnostics)
    return result


def migrate_source(source: SourceFile):
    """`tirxc migrate`: the file read as by compile_source (transpiler/dialect/reading.py's Reading:
    its `source` is the text in today's spelling, `stop` when the file cannot be migrated)."""
    from transpiler.dialect.reading import read

    return read(source)


def _compile_current(source: SourceFile, *, until: str = "cuda", arch: str | None = None,
                     launcher_name: str | None = None, line_info: bool = False, header_module: str | None = None,
                     header_include: str | None = None, cu_name: str | None = None, environment=None,
                     sim_helpers=None) -> Result:
    """compile_source for a file in today's spelling.

    With `header_module` (the C++ namespace, codegen/host_cpp.py module_name), also the C++
    header in `header`, and `cuda` ends with the host code of its entry points, which includes
    the header as `header_include` (`cu_name` names the .cu for `#line` with line_info).

    With `sim_helpers` (transpiler/sim/ptx.py cpu_helper: a PTX helper's CPU implementation), also the
    sim flavour of the CUDA in `sim_cuda` (codegen/cuda_sim.py), or an E0810 error for each
    construct the CPU runtime cannot run yet.

    Process-wide settings (the cyclic collector, the recursion limit) are the
    caller's: the `tirxc` command makes them in transpiler/cli/main.py (main)."""
    # Each stage is imported when the run gets to it (`--check` never imports the
    # printer, `--emit ast` not even the checker).
    from transpiler.syntax.parse import parse

    diags = Diagnostics()
    result = Result(source)
    result.module = parse(source, diags)
    if result.module is None or diags.has_errors or until == "ast":
        result.diagnostics = diags.sorted()
        return result
    from transpiler.sema.check import check

    checked = check(result.module, source, diags, arch=arch, environment=environment)  # (None: the process's)
    if not diags.has_errors and _has_tile_calls(checked):
        # (the tile stage, its every family, is imported only for a file that calls a tile primitive)
        from transpiler.tile.dispatch import dispatch_module

        checked = dispatch_module(checked, diags)  # a new module: the checked one stays as it was
    if diags.has_errors or until == "check":
        result.diagnostics = diags.sorted()
        return result
    from transpiler.lower.lower import lower

    result.program = lower(checked, diags)
    if diags.has_errors:
        result.diagnostics = diags.sorted()
        return result
    from transpiler.codegen.cuda import render_cuda

    result.cuda = render_cuda(result.program, line_info=line_info)
    if until == "launcher":
        from transpiler.codegen.launcher import render_launcher

        result.launcher = render_launcher(result.program, result.cuda, module_name=launcher_name)
    if sim_helpers is not None:
        _render_sim(result, sim_helpers, diags)
    if header_module is not None:
        from transpiler.codegen import host_cpp

        try:
            result.header = host_cpp.render_header(result.program, header_module)
            result.cuda += host_cpp.render_host(result.program, header_module, header_include or "kernel.h",
                                                result.cuda, cu_name)
        except host_cpp.UnsupportedHost as err:
            diags.error("E0800", str(err), err.span, help="use the CuPy launcher for this kernel for now")
            result.header = None
    result.diagnostics = diags.sorted()
    return result


def _render_sim(result: Result, sim_helpers, diags: Diagnostics) -> None:
    from transpiler.codegen.cuda import render_cuda
    from transpiler.codegen.cuda_sim import SimFlavour

    flavour = SimFlavour(sim_helpers)
    problems = flavour.unsupported(result.program)
    for problem in problems:
        diags.error("E0810", f"not supported yet by tirxc sim: {problem.what}", problem.span,
                    help="run it on a GPU with `tirxc run`; docs/sim.md lists what the simulator runs")
    if not problems:
        result.sim_cuda = render_cuda(result.program, flavour=flavour)
        result.sim_shared = flavour.static_shared


def _has_tile_calls(checked) -> bool:
    from transpiler import ir

    return any(isinstance(s, ir.TileCall) for kernel in checked.kernels for s in ir.all_stmts(kernel.body))


def compile_file(path: str, data: bytes, **options) -> Result:
    source, problem = SourceFile.from_bytes(path, data)
    if problem is not None:
        diags = Diagnostics()
        diags.error("E0001", problem.message, source.span(problem.line, problem.col))
        return Result(source, diags.sorted())
    return compile_source(source, **options)


def check_layout(source: SourceFile, expr: ast.Expr, diags: Diagnostics) -> ir.Layout | None:
    """`tirxc layout`'s text (`expr`, the one expression of `source`) read as a `.tx` file reads a
    layout (sema/layout_text.py). None for "default" (dense row-major) and after errors."""
    from transpiler.sema.layout_text import check_layout_text

    return check_layout_text(source, expr, diags)
