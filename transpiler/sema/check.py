"""The checker: resolves names, types every expression, enforces the rules of
docs/design.md, and elaborates each kernel into buffer-level IR.

Every problem is reported through `Diagnostics` and checking carries on, so one
run lists every error of a file. This module is the top of sema: module level
(imports, constants, kernels); kernel.py checks one kernel, statements.py its
statements, expr.py expressions, and the family modules the T.* calls, whose
`@handler`s register in registry.py when imported here.

The layering, bottom to top (each imports only modules before it): the evaluator of the
file's Python level (transpiler/evaluator, below the checker, which hosts it: host.py); values,
state, registry, scalars, expr, indexing, threads, ptx_calls, intrinsics, views, buffers,
access, pools, statements, macros (helper functions), class_values + classes (classes of the
file), prelude (TIRx's helper library as tirxc's own `.tx` sources), imports, kernel, dispatch
(the rules across rooms: calls, attributes, subscripts, `self.x = v` ...), host, check.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import fields

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics, Note, did_you_mean
from transpiler.ir.program import CheckedModule, Kernel
from transpiler.syntax import ast
from transpiler.syntax.source import SourceFile
from transpiler.target.cnames import source_code_names
# every family of T.* calls, imported so that its `@handler`s register in registry.HANDLERS
from transpiler.sema.memory import access, buffers, pools, views  # noqa: F401
from transpiler.sema.calls import cuda_helpers, tcgen05_desc, intrinsics, ptx as ptx_calls, tile_calls  # noqa: F401
from transpiler.sema.kernel import device_functions, factories, jit, module_branches, statements, threads  # noqa: F401
from transpiler.sema.library import classes, macros, prelude, scoping  # noqa: F401
from transpiler.sema import dispatch  # noqa: F401  (the rules across the checker's rooms join the dispatch tables)
from transpiler.sema.library.class_values import CLASS_VALUES
from transpiler.sema.library.imports import import_
from transpiler.sema.expressions.expr import elab
from transpiler.sema.kernel.prim_func import check_kernel
from transpiler.sema.host import HOST
from transpiler.sema.state import ModuleState, at_module_level
from transpiler.evaluator.core import items_of, pack, python_range
from transpiler.evaluator.values import POISON, Binding, Builtin, DTypeVal, Poison, PyConst, PyDict, SliceVal, Helper
from transpiler.sema.values import DynamicExtent, KernelName, LayoutPart, LayoutVal, Namespace


def check(module: ast.Module, source: SourceFile, diags: Diagnostics, arch: str | None = None,
          environment=None) -> CheckedModule:
    """The checked module; `environment` is what the file's `os.environ` reads see (the process's
    own when None)."""
    ms = ModuleState(source, diags, arch, HOST)
    if environment is not None:
        ms.environment = environment
    return run(ms, module)


# -- module level (docs/design.md, decisions 2 and 3) -------------------------------------------------------------

def run(ms: ModuleState, module: ast.Module) -> CheckedModule:
    kernels, functions = [], []
    ms.c_reserved = inline_cuda_names(module, ms.source.text)
    saw_import = any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in module.body)
    if not saw_import:
        ms.globals["T"] = Binding(Namespace(("T",)), "builtin", module.span)
    for where, name in scoping.unbound_nonlocals(module.body):  # (CPython's compiler refuses the whole file)
        ms.diags.error("E0346", f"no binding for nonlocal `{name}` found", where.span,
                       help="`nonlocal` names a variable an enclosing function binds")
    pending = list(module.body)
    while pending:
        stmt = pending.pop(0)
        if isinstance(stmt, ast.If) and (taken := module_branches.taken_branch(ms, stmt)) is not None:
            pending[:0] = taken  # (a branch that defines kernels: its statements are module level)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            import_(ms, stmt)
        elif isinstance(stmt, ast.Assign):
            constant(ms, stmt)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:  # `X: tuple[int, ...] = v`: Python ignores the annotation, so does tirxc
                constant(ms, ast.Assign(stmt.span, stmt.target, stmt.value))
        elif isinstance(stmt, ast.Global):
            continue  # (a no-op at module level, as in Python)
        elif isinstance(stmt, ast.Nonlocal):
            ms.diags.error("E0201", "a `nonlocal` statement is not allowed at module level", stmt.span,
                           help="`nonlocal` names a variable of an enclosing function")
        elif isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue  # docstring
        elif isinstance(stmt, ast.FunctionDef) and macros.decorator_kind(at_module_level(ms), stmt) is not None:
            helper(ms, stmt)
        elif isinstance(stmt, ast.FunctionDef) and device_functions.returns_value(stmt) \
                and any(dialect_decorator(ms, d) == "prim_func" for d in stmt.decorators):
            function = device_functions.define(ms, stmt, [d for d in stmt.decorators
                                                          if dialect_decorator(ms, d) == "prim_func"])
            if function is not None:
                functions.append(function)
        elif isinstance(stmt, ast.FunctionDef):
            kernel = kernel_of(ms, stmt)
            if kernel is not None:
                kernels.append(kernel)
        elif isinstance(stmt, ast.Pass):
            continue
        elif isinstance(stmt, _PYTHON_STATEMENTS):  # the module's own Python, run now (macros.py)
            macros.module_statement(at_module_level(ms), stmt)
        elif isinstance(stmt, ast.ClassDef):
            classes.module_class(at_module_level(ms), stmt)  # `@T.meta_class` classes (classes.py)
        elif isinstance(stmt, ast.Try):
            ms.diags.error("E0201", "a `try` statement at module level is not supported yet", stmt.span,
                           help="a kernel file is not run: import what it needs without a fallback")
        else:
            ms.diags.error("E0201", f"{_describe_stmt(stmt)} is not allowed at module level", stmt.span,
                             help="module level holds imports, constants and `@T.prim_func` kernels")
        kernels.extend(ms.specialized)  # (`k = f.specialize(...)` of a `@T.jit` kernel)
        ms.specialized.clear()
    jit.unspecialized(ms)
    if not kernels and not ms.diags.has_errors:
        ms.diags.warning("W0001", "no `@T.prim_func` kernels in this file", ms.source.end_span())
    return CheckedModule(ms.source, kernels, ms.func_sources, ms.target, ms.ptx_instructions,
                         tuple(ms.environment_reads), functions)


_PYTHON_STATEMENTS = (ast.ExprStmt, ast.For, ast.While, ast.If, ast.AugAssign, ast.Assert, ast.Delete)


# -- imports and constants ---------------------------------------------------------

def constant(ms, stmt: ast.Assign) -> None:
    if stmt.chain:  # `a = b = value`: the value once, bound to each target in order
        value = const_value(ms, stmt.value)
        for target in (stmt.target,) + stmt.chain:
            constant(ms, ast.Assign(stmt.span, target, ast.Value(stmt.value.span, value)))
        return
    if isinstance(stmt.target, (ast.Tuple, ast.List)):  # `shape, dtype = (32, 32), "float32"`
        value = elab(at_module_level(ms), stmt.value)
        if python_range(value) is not None:  # `a, *b, c = range(n)`: its items, as Python unpacks them
            value = pack(items_of(value))
        value = const_value(ms, ast.Value(stmt.value.span, value))
        names = list(statements.target_names(stmt.target))
        parts = None if value is POISON else statements.flatten_targets(at_module_level(ms), stmt.target, value)
        for target in names:
            if not isinstance(target, ast.Name):
                ms.diags.error("E0201", "only names can be assigned at module level", target.span)
        for target, item in parts or [(t, POISON) for t in names]:
            if isinstance(target, ast.Name):
                bind_constant(ms, target, item)
        return
    if not isinstance(stmt.target, ast.Name):  # `D[k] = v`, `XS[i] = v`: the module's Python (macros.py)
        macros.module_statement(at_module_level(ms), stmt)
        return
    template = jit.specialization(ms, stmt.value)
    if template is not None:  # `k = add.specialize(N=256)`: a kernel named `k` (jit.py)
        kernel = jit.specialize(ms, template, stmt.target, stmt.value, lambda fdef: register_kernel(ms, fdef))
        if kernel is not None:
            ms.specialized.append(kernel)
        return
    value = const_value(ms, stmt.value)
    if isinstance(value, factories.FactoryKernel):  # `k = make_kernel(64)`: a kernel named `k` (factories.py)
        kernel = factories.define(ms, value, stmt.target, lambda fdef: register_kernel(ms, fdef))
        if kernel is not None:
            ms.specialized.append(kernel)
        return
    bind_constant(ms, stmt.target, value)


def bind_constant(ms, target: ast.Name, value) -> None:
    name = target.id
    if isinstance(value, DynamicExtent) and not value.name:
        value = DynamicExtent(name, value.span)  # each kernel's C name for it
    # A later assignment rebinds the name, as in Python: the kernels and helper calls before it saw
    # the old value, those after it see the new one. A constant whose value had an error is bound to
    # POISON: its uses stay quiet.
    ms.globals[name] = Binding(value, "const", target.span)


def helper(ms, fdef: ast.FunctionDef) -> None:
    """A plain `def` or an `@T.inline` / `@T.macro` helper at module level (macros.py); a second
    `def` of the same name rebinds it, as in Python."""
    st = at_module_level(ms)
    value = macros.define(st, fdef, macros.decorator_kind(st, fdef))
    ms.globals[fdef.name] = Binding(value if value is not None else POISON, "const", fdef.name_span)


# -- kernels ---------------------------------------------------------------------------------

def kernel_of(ms, fdef: ast.FunctionDef) -> Kernel | None:
    prim = [d for d in fdef.decorators if dialect_decorator(ms, d) in ("prim_func", "function")]
    if not prim:
        where = fdef.decorators[0].span if fdef.decorators else fdef.name_span
        dialect = [dialect_decorator(ms, d) for d in fdef.decorators]
        if "jit" in dialect:  # checked where it is specialized (jit.py)
            decorators(ms, fdef, [d for d in fdef.decorators if dialect_decorator(ms, d) == "jit"], "jit")
            jit.define(ms, fdef)
        elif "inline" in dialect or "macro" in dialect:
            name = "inline" if "inline" in dialect else "macro"
            ms.diags.error("E0518", f"`@T.{name}` device functions are not supported yet", where,
                             help="write the code in the kernel, or as CUDA with `T.cuda.func_call`")
        else:
            ms.diags.error("E0203", f"function `{fdef.name}` is not a kernel", where,
                             help="decorate kernels with `@T.prim_func`")
        return None
    decorators(ms, fdef, prim)
    first = ms.kernel_names.get(fdef.name)
    fresh = register_kernel(ms, fdef)
    kernel = check_kernel(ms, fdef)
    return kernel if fresh and first is None else None


def register_kernel(ms, fdef: ast.FunctionDef) -> bool:
    """Check a kernel's name and record it; False when another kernel has it already."""
    kernel_name(ms, fdef)
    first = ms.kernel_names.get(fdef.name)
    if first is not None:
        ms.diags.error("E0203", f"kernel `{fdef.name}` is already defined", fdef.name_span,
                         notes=[Note("first defined here", first)], help="give each kernel its own name")
        return False
    ms.kernel_names[fdef.name] = fdef.name_span
    return True


def kernel_name(ms, fdef: ast.FunctionDef) -> None:
    """A kernel's name is its C symbol's stem (`name_kernel`) and the launcher module's
    attribute: it must be ASCII, not a reserved C name (`__x__`), and its symbol must not be
    declared by inline CUDA."""
    name = fdef.name
    if not name.isascii():
        ms.diags.error("E0203", f"kernel name `{name}` is not ASCII", fdef.name_span,
                       help="NVRTC and nvcc accept only ASCII letters, digits and `_` in a kernel's name")
    elif name.startswith("__") and name.endswith("__"):
        ms.diags.error("E0203", f"a kernel cannot be named `{name}`: the generated launcher module uses "
                                "that name itself", fdef.name_span,
                       help=f"rename the kernel, e.g. `{name.strip('_')}_kernel`"
                            if name.strip("_") else "rename the kernel")
    elif f"{name}_kernel" in ms.c_reserved:
        ms.diags.error("E0203", f"the inline CUDA of this file declares `{name}_kernel`, the C name of "
                                f"kernel `{name}`", fdef.name_span,
                       help="rename the kernel or the function of the `T.cuda.func_call` source")


# The options of `@T.prim_func(...)` / `@T.function(...)`: what they mean in TVM (a private
# symbol, TVM's well-formedness check before lowering) has no effect on the CUDA tirxc writes.
DECORATOR_OPTIONS = ("private", "check_well_formed")


def decorators(ms, fdef: ast.FunctionDef, prim: list, kind: str = "prim_func") -> None:
    """`@T.prim_func` (or `@T.jit`) once, optionally `(private=..., check_well_formed=...)`, no other
    decorator, and no return annotation but `-> None`."""
    returns = fdef.returns
    if returns is not None and not (isinstance(returns, ast.Constant) and returns.value is None):
        ms.diags.error("E0203", "a kernel returns nothing", returns.span,
                       help="write `-> None` or leave the annotation out")
    for decorator in fdef.decorators:
        if decorator not in prim:
            ms.diags.error("E0203", f"a kernel takes no decorator besides `@T.{kind}`", decorator.span)
    for extra in prim[1:]:
        ms.diags.error("E0203", f"`@T.{kind}` is given twice", extra.span)
    if not isinstance(prim[0], ast.Call):
        return
    call = prim[0]
    allowed = DECORATOR_OPTIONS + (("persistent",) if kind == "jit" else ())  # (TIRJit's, with no effect)
    options = ", ".join(f"`{name}=`" for name in allowed)
    for arg in call.args:
        ms.diags.error("E0203", f"`@T.{kind}` takes no positional arguments", arg.span,
                       help=f"its options are {options}")
    for kw in call.keywords:
        if kw.name not in allowed:
            ms.diags.error("E0311", f"`@T.{kind}` has no parameter `{kw.name}`", kw.span,
                           help=did_you_mean(kw.name, allowed) or f"its options are {options}")
        elif not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
            ms.diags.error("E0203", f"`{kw.name}=` takes True or False", kw.value.span)


def dialect_decorator(ms, decorator: ast.Expr) -> str | None:
    """`prim_func` for `@T.prim_func` / `@T.prim_func(...)` (any dialect alias), else the attribute or None."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        binding = ms.globals.get(target.value.id)
        if binding is not None and isinstance(binding.value, Namespace) and binding.value.path == ("T",):
            return target.attr
    return None


def const_value(ms: ModuleState, node: ast.Expr):
    """A module-level constant expression (docs/design.md, decision 3), evaluated with the expression checker
    at module level (state.at_module_level), accepting only compile-time results: numbers,
    strings, tuples, dtypes and layouts, and functions: a helper (`f = lambda x: ...`), a builtin or a
    dialect function (`op = {"add": Tx.add, "sub": Tx.sub}[name]`, called in a kernel), another name
    for a kernel."""
    value = elab(at_module_level(ms), node)
    if isinstance(value, (PyConst, Poison, ir.IntImm, ir.FloatImm, LayoutVal, LayoutPart, DTypeVal, DynamicExtent,
                          tuple, PyDict, SliceVal, Helper, Namespace, Builtin, KernelName,
                          factories.FactoryKernel) + CLASS_VALUES):
        return value
    ms.diags.error("E0202", "module-level values must be compile-time constants", node.span)
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
