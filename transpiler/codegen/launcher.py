"""The CuPy launcher: one self-contained Python module per .tx file.

This module turns each kernel's LaunchSpec into plain data (names, dtypes,
shapes, strides, the grid as a Python expression) and renders
templates/launcher.py.j2 with it and with the text of transpiler/runtime/launch.py,
the launcher's runtime, which the template embeds verbatim. Every name or string
that reaches the generated Python goes through repr(), so nothing from the
.tx file can inject code.
"""
from __future__ import annotations

import re
from functools import lru_cache

from transpiler import __version__, data_text
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.codegen.jinja import environment
from transpiler.ir.program import Program


class HostExprError(ValueError):
    pass


def py_expr(e: ir.Expr) -> str:
    """A host-side integer expression as Python source; variables come from the dict `v`."""
    if not ir.is_host_node(e):
        raise HostExprError(f"cannot evaluate {type(e).__name__} on the host")
    if isinstance(e, ir.IntImm):
        return str(e.value)
    if isinstance(e, ir.Var):
        return f"v[{e.name!r}]"
    if isinstance(e, ir.BinOp) and e.op in ir.HOST_OPS:
        return f"({py_expr(e.a)} {ir.HOST_OPS[e.op]} {py_expr(e.b)})"
    if isinstance(e, ir.BinOp):  # min or max
        return f"{e.op}({py_expr(e.a)}, {py_expr(e.b)})"
    return py_expr(e.a)  # an integer cast


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
    if isinstance(e, ir.IntImm):
        return e.value
    if isinstance(e, ir.Var):
        return e.name
    return PyCode(py_expr(e))


def array_strides(buf: ir.Buffer):
    """Element strides an argument array must have, or None when dense row-major.

    A layout whose shard iters pair one-to-one with the dimensions is a strided
    array; other layouts cannot be described by strides (an error at launch).
    """
    if buf.layout is None:
        return None
    shard = buf.layout.shard
    if len(shard) != len(buf.shape) or any(it.axis != "m" for it in shard) or buf.layout.swizzle:
        return "unsupported"
    for it, extent in zip(shard, buf.shape):
        if it.extent != extent:
            return "unsupported"
    strides = tuple(_dim(it.stride) for it in shard)
    dense = tuple(_dim(s) for s in layouts.row_major_strides(buf.shape))
    return None if strides == dense else strides


def base_offset(buf: ir.Buffer) -> int:
    """Elements between the kernel's pointer and the array's element (0, ..., 0)."""
    offset = buf.elem_offset.value if isinstance(buf.elem_offset, ir.IntImm) else 0
    if buf.layout is not None:
        for axis, value in buf.layout.offset:
            if axis == "m" and isinstance(value, ir.IntImm):
                offset += value.value
    return offset


def kernel_data(spec: ir.LaunchSpec) -> dict:
    params = []
    for p in spec.params:
        if p.kind == "buffer":
            buf = p.buffer
            params.append({"name": buf.name, "c_name": p.name, "kind": "buffer", "dtype": buf.dtype.name,
                           "shape": tuple(_dim(e) for e in buf.shape), "strides": array_strides(buf),
                           "offset": base_offset(buf), "align": buf.align, "itemsize": buf.dtype.nbytes,
                           "readonly": buf.storage.readonly})
        elif p.kind == "workspace":
            buf = p.buffer
            params.append({"name": buf.name, "c_name": p.name, "kind": "workspace", "dtype": buf.dtype.name,
                           "shape": tuple(_dim(e) for e in buf.shape), "itemsize": buf.dtype.nbytes})
        else:
            params.append({"name": p.name, "c_name": p.name, "kind": p.kind, "dtype": p.dtype.name})
    order = [next(q for q in params if q["c_name"] == name) for name in spec.arg_order]
    # scalars that the grid, a workspace size or an argument array's expected shape or strides
    # depend on: a launch plan holds checks made with their values, so it is cached per value
    host_exprs = list(spec.grid) + [e for ws in spec.workspaces for e in ws.shape]
    for p in spec.params:
        if p.kind == "buffer":
            host_exprs += p.buffer.shape
            if p.buffer.layout is not None:
                host_exprs += [it.stride for it in p.buffer.layout.shard]
    host_vars = {node.name for e in host_exprs for node in ir.walk_expr(e) if isinstance(node, ir.Var)}
    keyed = [q["name"] for q in order if q["kind"] == "scalar" and q["c_name"] in host_vars]
    grid = "(" + ", ".join(py_expr(e) for e in spec.grid) + ")"
    block = tuple(e.value for e in spec.block)
    return {
        "name": spec.name, "symbol": spec.symbol,
        "args": [q["name"] for q in order],
        "keyed": keyed,
        "params": params,
        "grid": grid, "block": block,
        "static_shared": spec.static_shared_bytes, "dynamic_shared": spec.dynamic_shared_bytes,
        "arch": spec.min_arch, "suffix": spec.arch_suffix,
    }


def render_launcher(program: Program, cuda: str, module_name: str | None = None) -> str:
    template = environment().get_template("launcher.py.j2")
    kernels = [kernel_data(lk.spec) for lk in program.kernels]
    source = program.file_name
    return template.render(version=__version__, source=_py_text(source), source_repr=repr(source),
                           cuda_repr=_literal(cuda), runtime=runtime_literal(), runtime_line=runtime_line(),
                           kernels=kernels, repr=repr, literal=py_literal, arch=program.min_arch,
                           suffix=repr(program.arch_suffix))


RUNTIME_MODULE = "launch.py"  # in transpiler/runtime/
RUNTIME_ASSIGNMENT = "__tirxc_runtime__ = {{ runtime }}"  # a line of the template


@lru_cache(maxsize=None)
def runtime_line() -> int:
    """The line of the launcher where the runtime's literal starts: its line in the
    template, which nothing above it makes longer (the docstring's values are one line)."""
    return data_text("templates", "launcher.py.j2").split("\n").index(RUNTIME_ASSIGNMENT) + 1


@lru_cache(maxsize=None)
def runtime_literal() -> str:
    """The runtime's source as the Python literal the launcher runs: a newline, then the
    file verbatim, in a raw triple-quoted string (readable in the launcher, whose
    tracebacks then quote its lines), or through repr() should the file ever hold what
    such a string cannot."""
    text = data_text("runtime", RUNTIME_MODULE)
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
