"""The checker: resolves names, types every expression, enforces the rules of
DECISIONS.md and the reference, and elaborates each kernel into buffer-level IR.

Every problem is reported through `Diagnostics` and checking carries on, so one
run lists every error of a file. Expressions are handled in check_expr.py,
T.* calls in intrinsics.py, buffer declarations in memory.py.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import fields

from transpiler.syntax import ast
from transpiler import ir
from transpiler.sema.expr import FOLD_BUDGET, ExprChecker
from transpiler.target.cnames import source_code_names
from transpiler.diag.diagnostics import Diagnostics, Note, did_you_mean
from transpiler.sema.intrinsics import LAYOUT_CTORS, CallChecker
from transpiler.sema.memory import MemoryChecker
from transpiler.target.arch import parse_arch
from transpiler.ir.program import CheckedModule, Kernel
from transpiler.syntax.source import SourceFile, Span
from transpiler.sema.values import (POISON, Axis, Binding, DTypeVal, DynamicExtent, LayoutCtor, LayoutPart, LayoutVal, Namespace,
                     Poison, PyConst)
from transpiler.ir.layout import KNOWN_AXES

DIALECT_MODULES = ("tvm.script.tirx", "tvm.script.tir", "tvm.tirx")
LAYOUT_MODULE = "tvm.tirx.layout"


class ModuleChecker:
    """Module level: imports, constants, kernels (DECISIONS 2 and 3)."""

    def __init__(self, source: SourceFile, diags: Diagnostics, arch: str | None):
        self.source = source
        self.diags = diags
        self.arch = parse_arch(arch) if arch else None
        self.globals: dict[str, Binding] = {}
        self.func_sources: dict[str, str] = {}
        self.func_source_spans: dict[str, Span] = {}
        self.kernel_names: dict[str, Span] = {}
        self.c_reserved: set[str] = set()  # C names the kernels' own names must avoid (cnames.py)
        self.fold_budget = FOLD_BUDGET  # bytes of strings and tuples `+` may still build (check_expr)

    def run(self, module: ast.Module) -> CheckedModule:
        kernels = []
        self.c_reserved = inline_cuda_names(module, self.source.text)
        saw_import = any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in module.body)
        if not saw_import:
            self.globals["T"] = Binding(Namespace(("T",)), "builtin", module.span)
        for stmt in module.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self._import(stmt)
            elif isinstance(stmt, ast.Assign):
                self._constant(stmt)
            elif isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue  # docstring
            elif isinstance(stmt, ast.FunctionDef):
                kernel = self._kernel(stmt)
                if kernel is not None:
                    kernels.append(kernel)
            elif isinstance(stmt, ast.Pass):
                continue
            else:
                self.diags.error("E0201", f"{_describe_stmt(stmt)} is not allowed at module level", stmt.span,
                                 help="module level holds imports, constants and `@T.prim_func` kernels")
        if not kernels and not self.diags.has_errors:
            self.diags.warning("W0001", "no `@T.prim_func` kernels in this file", self.source.end_span())
        return CheckedModule(self.source, kernels, self.func_sources, self.arch)

    # -- imports and constants ---------------------------------------------------------
    def _import(self, stmt) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name in DIALECT_MODULES and alias.asname:
                    self._bind_global(alias.asname, Binding(Namespace(("T",)), "namespace", alias.span))
                else:
                    self._bad_import(alias.name, alias.span)
                    self._bind_global(alias.asname or alias.name.split(".")[0], Binding(POISON, "import", alias.span))
            return
        for alias in stmt.names:
            name = alias.asname or alias.name
            if stmt.module in ("tvm.script", "tvm") and alias.name in ("tirx", "tir"):
                self._bind_global(name, Binding(Namespace(("T",)), "namespace", alias.span))
            elif stmt.module in ("tvm.script.tirx", "tvm.script.tir") and alias.name == "tile":
                self._bind_global(name, Binding(Namespace(("Tx",)), "namespace", alias.span))
            elif stmt.module == LAYOUT_MODULE:
                if alias.name in LAYOUT_CTORS:
                    self._bind_global(name, Binding(LAYOUT_CTORS[alias.name], "layout", alias.span))
                elif alias.name in KNOWN_AXES:
                    self._bind_global(name, Binding(Axis(alias.name), "axis", alias.span))
                else:
                    hint = did_you_mean(alias.name, list(LAYOUT_CTORS) + list(KNOWN_AXES)) or \
                        f"tirxc knows {', '.join(LAYOUT_CTORS)} and the axes {', '.join(KNOWN_AXES)}"
                    self.diags.error("E0200", f"`{alias.name}` is not a layout name tirxc knows", alias.span,
                                     help=hint)
                    self._bind_global(name, Binding(POISON, "import", alias.span))
            elif stmt.module == "__future__":
                continue
            else:
                self._bad_import(stmt.module, stmt.span)
                for other in stmt.names:  # their uses stay quiet
                    self._bind_global(other.asname or other.name, Binding(POISON, "import", other.span))
                return

    def _bad_import(self, module: str, span: Span) -> None:
        self.diags.error("E0200", f"module `{module}` is not available in a standalone kernel file", span,
                         help="import the dialect with `from tvm.script import tirx as T` and layouts from "
                              "`tvm.tirx.layout`")

    def _bind_global(self, name: str, binding: Binding) -> None:
        self.globals[name] = binding

    def _constant(self, stmt: ast.Assign) -> None:
        if not isinstance(stmt.target, ast.Name):
            self.diags.error("E0201", "only plain names can be assigned at module level", stmt.target.span)
            return
        name = stmt.target.id
        value = ConstEvaluator(self).eval(stmt.value)
        if isinstance(value, DynamicExtent) and not value.name:
            value = DynamicExtent(name, value.span)  # each kernel's C name for it
        previous = self.globals.get(name)
        if previous is not None:
            self.diags.error("E0314", f"`{name}` is already defined", stmt.target.span,
                             notes=[Note("first defined here", previous.span)],
                             help="module-level names are constants; use a new name")
            return
        # a constant whose value had an error is bound to POISON: its uses stay quiet
        self.globals[name] = Binding(value, "const", stmt.target.span)

    # -- kernels ---------------------------------------------------------------------------------
    def _kernel(self, fdef: ast.FunctionDef) -> Kernel | None:
        prim = [d for d in fdef.decorators if self._dialect_decorator(d) in ("prim_func", "function")]
        if not prim:
            where = fdef.decorators[0].span if fdef.decorators else fdef.name_span
            dialect = [self._dialect_decorator(d) for d in fdef.decorators]
            if "jit" in dialect:
                self.diags.error("E0518", "`@T.jit` kernels (with `T.constexpr` parameters) are not supported yet",
                                 where, help="use `@T.prim_func` with module-level constants")
            elif "inline" in dialect or "macro" in dialect:
                name = "inline" if "inline" in dialect else "macro"
                self.diags.error("E0518", f"`@T.{name}` device functions are not supported yet", where,
                                 help="write the code in the kernel, or as CUDA with `T.cuda.func_call`")
            else:
                self.diags.error("E0203", f"function `{fdef.name}` is not a kernel", where,
                                 help="decorate kernels with `@T.prim_func`")
            return None
        self._decorators(fdef, prim)
        self._kernel_name(fdef)
        first = self.kernel_names.get(fdef.name)
        if first is not None:
            self.diags.error("E0203", f"kernel `{fdef.name}` is already defined", fdef.name_span,
                             notes=[Note("first defined here", first)], help="give each kernel its own name")
        else:
            self.kernel_names[fdef.name] = fdef.name_span
        from transpiler.sema.kernel import KernelChecker
        kernel = KernelChecker(self, fdef).run()
        return kernel if first is None else None

    def _kernel_name(self, fdef: ast.FunctionDef) -> None:
        """A kernel's name is its C symbol's stem (`name_kernel`) and the launcher module's
        attribute: it must be ASCII, not a name the launcher module uses itself, and
        its symbol must not be declared by inline CUDA."""
        from transpiler.codegen.launcher_names import RESERVED

        name = fdef.name
        if not name.isascii():
            self.diags.error("E0203", f"kernel name `{name}` is not ASCII", fdef.name_span,
                             help="NVRTC and nvcc accept only ASCII letters, digits and `_` in a kernel's name")
        elif name.startswith("__") and name.endswith("__") or name in RESERVED:
            self.diags.error("E0203", f"a kernel cannot be named `{name}`: the generated launcher module uses "
                                      "that name itself", fdef.name_span,
                             help=f"rename the kernel, e.g. `{name.strip('_')}_kernel`"
                                  if name.strip("_") else "rename the kernel")
        elif f"{name}_kernel" in self.c_reserved:
            self.diags.error("E0203", f"the inline CUDA of this file declares `{name}_kernel`, the C name of "
                                      f"kernel `{name}`", fdef.name_span,
                             help="rename the kernel or the function of the `T.cuda.func_call` source")

    def _decorators(self, fdef: ast.FunctionDef, prim: list) -> None:
        """`@T.prim_func` once, optionally `(private=True)`, and no other decorator."""
        for decorator in fdef.decorators:
            if decorator not in prim:
                self.diags.error("E0203", "a kernel takes no decorator besides `@T.prim_func`", decorator.span)
        for extra in prim[1:]:
            self.diags.error("E0203", "`@T.prim_func` is given twice", extra.span)
        if not isinstance(prim[0], ast.Call):
            return
        call = prim[0]
        for arg in call.args:
            self.diags.error("E0203", "`@T.prim_func` takes no positional arguments", arg.span,
                             help="the only option is `private=True`")
        for kw in call.keywords:
            if kw.name != "private":
                self.diags.error("E0311", f"`@T.prim_func` has no parameter `{kw.name}`", kw.span,
                                 help=did_you_mean(kw.name, ["private"]) or "the only option is `private=True`")
            elif not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                self.diags.error("E0203", "`private=` takes True or False", kw.value.span)

    def _dialect_decorator(self, decorator: ast.Expr) -> str | None:
        """`prim_func` for `@T.prim_func` / `@T.prim_func(...)` (any dialect alias), else the attribute or None."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            binding = self.globals.get(target.value.id)
            if binding is not None and isinstance(binding.value, Namespace) and binding.value.path == ("T",):
                return target.attr
        return None


class ConstEvaluator(ExprChecker, CallChecker, MemoryChecker):
    """Evaluates module-level constant expressions (DECISIONS 3) with the
    expression checker, accepting only compile-time results: numbers, strings,
    tuples, dtypes and layouts."""

    # T.* calls that fold over constants and need no kernel
    PURE_CALLS = ("min", "max", "ceildiv", "floordiv", "floormod", "meta_var", "dynamic")

    def __init__(self, module: ModuleChecker):
        self.module = module
        self.diags = module.diags
        self.scopes = []

    def lookup(self, name: str, span: Span):
        binding = self.module.globals.get(name)
        if binding is None:
            self.diags.error("E0300", f"unknown name `{name}`", span,
                             help=did_you_mean(name, self.module.globals))
            return POISON
        return binding.value

    def call(self, func, node: ast.Call):
        if isinstance(func, Poison):
            return POISON
        if isinstance(func, LayoutCtor):
            return self.layout_ctor(func.name, node)
        if isinstance(func, DTypeVal) and (node.args or node.keywords):
            return self.call_dtype(func.dtype, node)
        if isinstance(func, Namespace) and func.dotted in self.PURE_CALLS:
            return self.call_dialect(func, node)
        self.diags.error("E0202", "module-level constants cannot call functions", node.span,
                         help="module level holds literals, tuples and arithmetic over earlier constants; "
                              "make the call inside a kernel")
        return POISON

    def symbolic_var(self, dtype, node: ast.Call):
        """`n = T.dynamic("n")` at module level: an extent each kernel using it declares for itself."""
        if dtype.name != "int32":
            self.diags.error("E0512", f"symbolic extents are int32, not {dtype}", node.span,
                             help="leave `dtype=` out")
            return POISON
        return DynamicExtent("", node.span)

    def eval(self, node: ast.Expr):
        value = self.elab(node)
        if isinstance(value, (PyConst, Poison, ir.IntImm, ir.FloatImm, LayoutVal, LayoutPart, DTypeVal, DynamicExtent)):
            return value
        self.diags.error("E0202", "module-level values must be compile-time constants", node.span)
        return POISON


def inline_cuda_names(module: ast.Module, text: str | None = None) -> set[str]:
    """The names given to `T.cuda.func_call` anywhere in the file, and the
    file-scope names its sources declare (string constants, inline or bound
    at module level): a C name of a kernel must not hide them. `text`, the
    file's text, lets a file that never says `func_call` skip the walk."""
    if text is not None and "func_call" not in text:
        return set()
    # only nodes whose lines say `func_call` can hold one: the walk skips everything else
    lines = [n for n, line in enumerate(text.split("\n"), 1) if "func_call" in line] if text is not None else None
    strings = {s.target.id: s.value.value for s in module.body
               if isinstance(s, ast.Assign) and isinstance(s.target, ast.Name)
               and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)}
    names: set[str] = set()
    stack: list = [module]
    while stack:
        node = stack.pop()
        if lines is not None and node.span is not None:
            first = bisect_left(lines, node.span.line)
            if first == len(lines) or lines[first] > node.span.end_line:
                continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "func_call":
            given = [node.args[0]] if node.args else []
            given += [k.value for k in node.keywords if k.name == "name"]
            for arg in given:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
            # the source: `source_code=`, or (the newer spelling) the last positional argument
            sources = [k.value for k in node.keywords if k.name == "source_code"] or node.args[1:][-1:]
            for source in sources:
                if isinstance(source, ast.Constant) and isinstance(source.value, str):
                    names |= source_code_names(source.value)
                elif isinstance(source, ast.Name) and source.id in strings:
                    names |= source_code_names(strings[source.id])
        stack.extend(_children(node))
    return names


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node):
    """ast.iter_children, with each class's field names looked up once."""
    names = _CHILD_FIELDS.get(type(node))
    if names is None:
        names = tuple(f.name for f in fields(node) if f.name not in ("span", "name_span"))
        _CHILD_FIELDS[type(node)] = names
    for name in names:
        item = getattr(node, name)
        if isinstance(item, ast.Node):
            yield item
        elif isinstance(item, tuple):
            for sub in item:
                if isinstance(sub, ast.Node):
                    yield sub


def _describe_stmt(stmt) -> str:
    names = {ast.ExprStmt: "an expression statement", ast.AnnAssign: "an annotated assignment",
             ast.AugAssign: "an augmented assignment", ast.If: "an `if` statement", ast.For: "a `for` loop",
             ast.While: "a `while` loop", ast.With: "a `with` statement", ast.Return: "`return`",
             ast.Assert: "`assert`", ast.Break: "`break`", ast.Continue: "`continue`"}
    return names.get(type(stmt), type(stmt).__name__)


def check(module: ast.Module, source: SourceFile, diags: Diagnostics, arch: str | None = None) -> CheckedModule:
    return ModuleChecker(source, diags, arch).run(module)
