"""The CuPy launcher: one self-contained Python module per .tx file.

This module turns each kernel's launch description into plain data (names, dtypes,
shapes, strides, the grid as a Python expression) and renders
templates/launcher.py.j2 with it, with the messages of the description's checks
(ir/launch_checks.py) and with the modules of transpiler/runtime/, the launcher's
runtime, which the template embeds verbatim. Every name or string that reaches the
generated Python goes through repr(), so nothing from the .tx file can inject code.
"""
from __future__ import annotations

import re
from functools import lru_cache

from transpiler import __version__, data_text
from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.ir.launch import UNSUPPORTED_STRIDES, KernelLaunch, LaunchParam, dim, where
from transpiler.ir.launch_checks import MESSAGES
from transpiler.codegen.cuda import c_string
from transpiler.codegen.jinja import environment
from transpiler.ir.program import Program
from transpiler.target import tma
from transpiler.target.arch import INDEX_LIMIT, MAX_GRID, STATIC_SHARED_LIMIT


class HostExprError(ValueError):
    """A grid, shape or stride expression the launcher cannot evaluate before the launch (a
    floating-point value, a read from memory ...): `span` locates the node, when known."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span


def py_expr(e: ir.Expr) -> str:
    """A host-side expression as Python source with the kernel's integer semantics (docs/design.md,
    decision 7): variables come from the dict `v`, each operation is spelled as ir.HOST_OPS says
    (an operator, or a function of the launcher's runtime), and each result that could leave
    its dtype's range goes through the runtime's c_int, which wraps where the kernel wraps
    (uint32, uint64, and the 8- and 16-bit types, whose results the kernel converts back)
    and refuses the arguments where C's value is undefined (32- and 64-bit signed overflow)."""
    if not ir.is_host_node(e):
        raise HostExprError(f"it uses {_describe(e)}, which the launcher does not compute on the host",
                            e.span if e.span is not ir.NOWHERE else None)
    cls = e.__class__
    if cls is ir.IntImm:
        return str(e.value)
    if cls is ir.Var:
        return f"v[{e.name!r}]"
    if cls is ir.Select:
        return f"({py_expr(e.a)} if {py_expr(e.cond)} else {py_expr(e.b)})"
    if cls is ir.Cast:
        return _conversion(e.a, e.dtype)
    if cls is ir.UnaryOp:
        a = py_expr(e.a)
        if e.op == "!":
            return f"(not {a})"
        if e.op == "~" and e.dtype.is_signed:
            return f"(~{a})"  # always in range
        return _checked(f"{e.op}{a}", e.dtype)
    if cls is ir.Call:  # T.abs, T.clz, T.popcount
        a = py_expr(e.args[0])
        name = ir.HOST_OPS[e.func]
        if name == "abs":
            return _checked(f"abs({a})", e.dtype) if e.dtype.is_signed else a
        return f"{name}({a}, {e.args[0].dtype.bits})"  # counted within the operand's own bits
    a, b = py_expr(e.a), py_expr(e.b)
    op, spelling = e.op, ir.HOST_OPS[e.op]
    if op in ("&&", "||"):
        a, b = (text if x.dtype.is_bool else f"bool({text})" for x, text in ((e.a, a), (e.b, b)))
    if op in ("<<", ">>") and not (isinstance(e.b, ir.IntImm) and 0 <= e.b.value < _width(e.dtype)):
        b = f"shift_count({b}, {_width(e.dtype)})"
    call = spelling.isidentifier() and spelling not in ("and", "or")
    text = f"{spelling}({a}, {b})" if call else f"{a} {spelling} {b}"
    overflows = op in ("+", "-", "*", "<<") or (
        op in ("floordiv", "truncdiv") and e.dtype.is_signed and not (isinstance(e.b, ir.IntImm) and e.b.value != -1))
    if overflows:
        return _checked(text, e.dtype)
    return text if call else f"({text})"


def _checked(text: str, dtype) -> str:
    """`text`, an operation of this dtype, through the runtime's check of C's result."""
    return f"c_int({text}, {dtype.name!r})"


def _width(dtype) -> int:
    """The bits C computes an integer of this dtype in: int, or 64 bits."""
    return 64 if dtype.bits > 32 else 32


def _conversion(a: ir.Expr, dtype) -> str:
    """C's conversion of an integer or bool to dtype: nothing to do where dtype holds every value
    of a's dtype, else the runtime's c_cast."""
    text = py_expr(a)
    low, high = a.dtype.int_bounds
    target_low, target_high = dtype.int_bounds
    if not dtype.is_bool and target_low <= low and high <= target_high:
        return text
    return f"c_cast({text}, {dtype.name!r})"


def _describe(e: ir.Expr) -> str:
    if not (e.dtype.is_int or e.dtype.is_bool):
        return f"a {e.dtype.name} value"
    for operand in (getattr(e, "a", None), getattr(e, "b", None), getattr(e, "cond", None), *getattr(e, "args", ())):
        if isinstance(operand, ir.Expr) and not (operand.dtype.is_int or operand.dtype.is_bool):
            return f"a {operand.dtype.name} value"
    if isinstance(e, (ir.Load, ir.BufferLoad)):
        return "a value read from memory"
    if isinstance(e, ir.Builtin):
        return f"`{e.name}`, known only on the GPU"
    if isinstance(e, ir.Call):
        return f"a call of `{e.func.removeprefix('math:')}`"
    if isinstance(e, ir.BinOp):
        return f"the operation `{e.op}`"
    return f"{type(e).__name__}"


class PyCode(str):
    """Python source produced by py_expr, rendered as code rather than as a string."""


def py_literal(value) -> str:
    """A Python literal for plain data; PyCode entries become `lambda v: ...`."""
    if isinstance(value, PyCode):
        return f"lambda v: {value}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        items = [py_literal(v) for v in value]
        if isinstance(value, tuple):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    return repr(value)


def _dim(e: ir.Expr):
    """A shape or stride entry: an int, a symbolic extent's name, or an expression."""
    entry = dim(e)
    return entry if isinstance(entry, (int, str)) else PyCode(py_expr(entry))


def _on_host(what: str, span, make):
    """make(), or the HostExprError it raises told what was being computed, and located."""
    try:
        return make()
    except HostExprError as err:
        raise HostExprError(f"the launcher cannot compute {what} before the launch: {err}",
                            err.span or span) from None


def _dims(exprs, what: str, span) -> tuple:
    return _on_host(what, span, lambda: tuple(_dim(e) for e in exprs))


def param_data(p: LaunchParam) -> dict:
    """One parameter of the launch description as the runtime's plain data: its kind and dtype,
    and what the runtime checks an argument against (the element's typestr and itemsize, the
    NumPy scalar type, shapes and strides as host expressions ...)."""
    element = p.element
    data = {"name": p.name, "c_name": p.c_name, "kind": p.kind.value, "dtype": element.dtype}
    if p.kind is ParamKind.BUFFER:
        strides = p.strides
        if strides is not None and strides != UNSUPPORTED_STRIDES:
            strides = _dims(strides, f"the strides of `{p.name}`", p.span)
        data.update(shape=_dims(p.shape, f"the shape of `{p.name}`", p.span), strides=strides, offset=p.offset,
                    align=p.align, itemsize=element.itemsize, readonly=p.readonly, typestr=element.typestr)
        if element.refused:
            data["refused"] = dict(element.refused)
    elif p.kind is ParamKind.WORKSPACE:
        data.update(shape=_dims(p.shape, f"the shape of workspace `{p.name}`", p.span), itemsize=element.itemsize)
    elif p.kind is ParamKind.TENSOR_MAP and p.tensor_map is not None:
        # a tensor map the launcher encodes for its buffer's address (docs/design.md, decision 24)
        tm = p.tensor_map
        data.update(buffer=tm.buffer, data_type=tm.data_type,
                    dims=_dims(tm.dims, f"the extents of tensor map `{p.name}`", tm.span),
                    strides=_dims(tm.strides, f"the strides of tensor map `{p.name}`", tm.span), box=tm.box,
                    element_strides=tm.element_strides, interleave=tm.interleave, swizzle=tm.swizzle,
                    l2_promotion=tm.l2_promotion, oob_fill=tm.oob_fill, element_bits=tm.element_bits)
    elif p.kind is ParamKind.SCALAR:
        data.update(typestr=element.typestr, scalar=element.scalar)
    return data


def kernel_data(launch: KernelLaunch) -> dict:
    params = [param_data(p) for p in launch.params]
    by_c = {q["c_name"]: q for q in params}
    slot = {q["c_name"]: i for i, q in enumerate(params)}
    grid = _on_host(f"the grid of `{launch.name}`", launch.span,
                    lambda: "(" + ", ".join(py_expr(e) for e in launch.grid) + ")")
    return {
        "name": launch.name, "symbol": launch.symbol,
        "args": [by_c[name]["name"] for name in launch.args],
        "keyed": [by_c[name]["name"] for name in launch.keyed],
        "params": params,
        "grid": grid, "block": launch.block,
        "static_shared": launch.static_shared_bytes, "dynamic_shared": launch.dynamic_shared_bytes,
        "arch": launch.min_arch, "suffix": launch.arch_suffix,
        "cluster": launch.cluster, "cooperative": where(launch.cooperative),
        # the slots of the buffer pairs that must not share memory
        "overlaps": tuple((slot[first], slot[second]) for first, second in launch.overlaps),
    }


def render_launcher(program: Program, cuda: str, module_name: str | None = None) -> str:
    template = environment().get_template("launcher.py.j2")
    kernels = [kernel_data(lk.launch) for lk in program.kernels]
    source = program.file_name
    return template.render(version=__version__, source=_py_text(source), source_repr=repr(source),
                           line_file_repr=repr(line_file(program, cuda)),
                           cuda_repr=_literal(cuda), runtime=runtime_literal(), runtime_line=runtime_line(),
                           runtime_modules=repr(runtime_modules()), grid_limits=repr(MAX_GRID),
                           messages=py_literal(MESSAGES),
                           kernels=kernels, repr=repr, literal=py_literal, arch=program.min_arch,
                           suffix=repr(program.arch_suffix), static_shared_limit=STATIC_SHARED_LIMIT,
                           index_limit=INDEX_LIMIT,
                           tensor_map_limits=py_literal(tma.limits()))


def line_file(program: Program, cuda: str) -> str:
    """The path of the .tx file that the CUDA's `#line` directives (--line-info) give, as the
    runtime may read it to quote a line of a compile error; "" when the CUDA has none."""
    directive = re.compile(r"^#line [0-9]+ " + re.escape(c_string(program.source_name)) + "$", re.M)
    return program.source_name if directive.search(cuda) else ""


# The launcher's runtime: these modules of transpiler/runtime/, verbatim, each run by the launcher
# as a module of a private package in this order (each imports only those before it)
RUNTIME_MODULES = ("program", "arith", "nvrtc", "tensormap", "cooperative", "launch")
RUNTIME_ASSIGNMENT = "__tirxc_runtime__ = {{ runtime }}"  # a line of the template


@lru_cache(maxsize=None)
def runtime_line() -> int:
    """The line of the launcher where the runtime's literal starts: its line in the
    template, which nothing above it makes longer (the docstring's values are one line)."""
    return data_text("templates", "launcher.py.j2").split("\n").index(RUNTIME_ASSIGNMENT) + 1


@lru_cache(maxsize=None)
def runtime_text() -> str:
    """The runtime's source: its modules, each verbatim, one blank line apart."""
    return "\n\n".join(data_text("runtime", f"{name}.py") for name in RUNTIME_MODULES)


@lru_cache(maxsize=None)
def runtime_modules() -> tuple[tuple[str, int, int], ...]:
    """Where each module lies in the runtime's literal: (name, its first line's index, its line
    count) among the lines of the literal's value (a newline, then `runtime_text`)."""
    out, start = [], 1
    for name in RUNTIME_MODULES:
        count = data_text("runtime", f"{name}.py").count("\n") + 1
        out.append((name, start, count))
        start += count + 1  # and the blank line between two modules
    return tuple(out)


@lru_cache(maxsize=None)
def runtime_literal() -> str:
    """The runtime's source as the Python literal the launcher runs: a newline, then the
    files verbatim, in a raw triple-quoted string (readable in the launcher, whose
    tracebacks then quote its lines), or through repr() should they ever hold what
    such a string cannot."""
    text = runtime_text()
    if "'''" in text or text.endswith(("\\", "'")) or _NOT_LITERAL.search(text):
        return repr("\n" + text)
    return "r'''\n" + text + "'''"


# Characters a triple-quoted literal cannot hold as they are: controls other than tab and
# newline (a CR would become a newline, a NUL is refused), surrogates, and the BOM.
_NOT_LITERAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff]")


def _literal(text: str) -> str:
    """The CUDA text as a Python string literal that stays readable."""
    if '"""' not in text and "\\" not in text and not text.endswith('"') and not _NOT_LITERAL.search(text):
        return '"""\\\n' + text + '"""'
    return repr(text)


def _py_text(text: str) -> str:
    """A file name as it may appear in a `#` comment and inside the module's docstring:
    as it is when plainly printable, else escaped (no newline, quote or backslash
    survives to end the comment or the docstring)."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return repr(text)[1:-1].replace('"', '\\"')
