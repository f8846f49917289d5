"""The checker's state, at the bottom of sema: `ModuleState` (one per file) and `KernelState`
(one per kernel, or one per module-level constant, with `at_module_level` set), and the
helpers for names and scopes every part of the checker uses."""
from __future__ import annotations

import builtins
import os

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics, Note, did_you_mean
from transpiler.syntax import ast
from transpiler.ir.program import CNames
from transpiler.syntax.source import SourceFile, Span
from transpiler.target.arch import FEATURES, arch_name
from transpiler.target.target import Target
from transpiler.evaluator.host import Host
from transpiler.target.cnames import c_name
from transpiler.target.dtypes import INT32, dtype_alias, parse_dtype
from transpiler.evaluator.values import Binding, Builtin, Frame, POISON
from transpiler.sema.values import DynamicExtent, KernelName


_RANGE = Builtin("range")


FOLD_BUDGET = 1 << 26  # bytes of strings and tuples `+` may build in one file (scalars.fold_concat)


class ModuleState:
    """Module level: the file, its diagnostics and target, what its statements bound, and the
    checker as the evaluator's host (sema/host.py; every state carries it as `host`)."""

    def __init__(self, source: SourceFile, diags: Diagnostics, arch: str | None, host: Host):
        self.source = source
        self.host = host
        self.diags = diags
        self.target = (Target.parse(arch) if arch else None) or Target.ANY
        self.globals: dict[str, Binding] = {}
        self.func_sources: dict[str, str] = {}
        self.ptx_instructions: dict = {}  # the PTX instructions calls name, by helper (CheckedModule's)
        self.func_source_spans: dict[str, Span] = {}
        self.kernel_names: dict[str, Span] = {}
        self.jit_kernels: list = []  # `@T.jit` kernels, specialized by `k = f.specialize(...)` (jit.py)
        self.specialized: list = []  # the kernels those specializations made, not yet collected by check.run
        self.c_reserved: set[str] = set()  # C names the kernels' own names must avoid (cnames.py)
        self.fold_budget = FOLD_BUDGET  # bytes of strings and tuples `+` may still build (scalars.py)
        self.environment = os.environ  # what `os.environ` reads see (`tirxc --no-env`: an empty mapping)
        self.environment_reads: dict[str, None] = {}  # the names read, in order (evaluator/environ.py)


class KernelState:
    """The checker's state for one kernel (`fdef`); with `at_module_level`, for one module-level
    constant expression instead (no kernel: names are the module's globals, and only calls that
    fold over constants are allowed)."""

    def __init__(self, module: ModuleState, fdef: ast.FunctionDef | None, *, at_module_level: bool = False):
        self.module = module
        self.diags = module.diags
        self.host = module.host
        self.fdef = fdef
        self.at_module_level = at_module_level
        self.scopes: list[dict[str, Binding]] = [] if at_module_level else [{}]
        self.closed: dict[str, Binding] = {}  # names whose block ended: for a precise error
        self.global_names: frozenset = frozenset()  # the running plain helper's `global` names (macros.py)
        self.nonlocal_names: frozenset = frozenset()  # and its `nonlocal` names
        self.cnames = CNames()
        self.c_spellings: dict[str, str] = {}  # source name -> cnames.c_name of it
        self.params: list[ir.Param] = []
        self.args: list[ir.Param] = []
        self.extents: dict[str, tuple[ir.Var, Span]] = {}
        self.handles: dict = {}  # handle parameters not bound yet
        self.matched: dict[str, Span] = {}  # handle parameter -> its `T.match_buffer`
        self.pending: list[ir.Stmt] = []
        self.device = False
        self.host_function = False  # no device code at all: TIRx compiles it for the host (implicit_entry.py)
        self.depth = 0
        self.loops: list[str] = []  # kinds of the enclosing loops: serial, unroll, while
        self.unrolled = 1  # copies the enclosing `T.unroll` loops make of the current statement
        self.ids: dict[str, tuple[list[ir.Expr] | None, Span]] = {}  # kind -> (extents, first declaration)
        self.unnamed_ids: set[str] = set()  # C names of ids not bound to a source name yet
        self.linear_id_users: list[Span] = []  # warp-level ids, computed from the linear thread index
        self.failed_ids: set[str] = set()  # kinds of id with a declaration that had an error
        self.entry = None  # the `T.device_entry(...)` statement
        self.launch_kinds: set[str] = set()  # cta_id / thread_id: extents given by `launch=T.cuda.LaunchConfig`
        self.launch_smem: tuple[int, Span] | None = None  # its `dynamic_smem_bytes=`
        self.nonneg: set[str] = set()
        self.arena: ir.Buffer | None = None
        self.views: list[ir.Buffer] = []
        self.statics: list[ir.Buffer] = []
        self.min_arch = 0
        self.arch_suffix = ""
        self.id_vars: dict[str, ir.Var] = {}  # kind -> the id's variable, once bound to a name
        self.id_kinds: dict[str, str] = {}  # C name of an id -> its kind
        self.guards: list[ir.Expr] = []  # conditions of the enclosing `if`s (tcgen05 needs a warp-uniform one)
        self.pools: list = []  # SMEMPool / TMEMPool objects, checked when the kernel ends
        self.tmem_alloc = None  # (slot buffer, columns, span) of the kernel's tcgen05.alloc
        self.tensor_maps: list = []  # tensormaps.TensorMapSlot, in allocation order
        self.kernel_attrs: dict = {}  # `T.attr` key -> (value, span) (attrs.py)
        self.arch_errors: set[str] = set()
        # effects.py and unrolled.py: lazily evaluated operands being checked, the conditions under
        # which the current expression runs (None: not known), the variables of the enclosing
        # `T.unroll` loops (name -> (variable, its values)) and the work their checks have done
        self.lazy = 0
        self.conds: list = []
        self.unroll_vars: dict = {}
        self.unroll_lets: dict = {}  # `T.let` variables bound inside unrolled bodies -> their values
        self.unroll_work = 0


def at_module_level(module: ModuleState) -> KernelState:
    """A state for evaluating module-level constant expressions."""
    return KernelState(module, None, at_module_level=True)


class _SymbolicPending:
    """`n = T.int32()` before its name is known (symbolic_var allows int32 only)."""


# -- names -------------------------------------------------------------------------------------
def fresh(st, base: str) -> str:
    """A C identifier for a source name: kept when free, else suffixed (deterministic).
    Keywords, CUDA names, macros and the like get a `_` first (cnames.c_name)."""
    spelled = st.c_spellings.get(base)
    if spelled is None:  # (a kernel's loops reuse a few names: spelled once each)
        spelled = st.c_spellings[base] = c_name(base, getattr(st.module, "c_reserved", frozenset()))
    return st.cnames.fresh(spelled)


NOT_IN_SCOPES = object()


def scoped_value(st, name: str, span: Span):
    """name's value in the running scopes, innermost first (a helper's frame, the kernel's blocks,
    comprehensions); NOT_IN_SCOPES when none has it, so the module's name is next. A plain helper's
    frame that makes the name local but has not bound it ends the search with an error, as Python
    raises there instead of reading the module's name."""
    for scope in reversed(st.scopes):
        if name in scope:
            return scope[name].value
        if isinstance(scope, Frame) and name in scope.local_names and name not in st.global_names:
            inner = scope is st.scopes[-1]
            st.diags.error("E0347", f"`{name}` is read before it is assigned" if inner else
                           f"`{name}` of an enclosing function is read before it is assigned", span,
                           help=f"the function assigns `{name}` (or deletes it) elsewhere, so Python makes it a "
                                f"local variable of the whole function: assign it first, or declare it "
                                f"`global {name}` / `nonlocal {name}`")
            return POISON
    return NOT_IN_SCOPES


def lookup(st, name: str, span: Span):
    if st.at_module_level:
        return _module_lookup(st, name, span)
    value = scoped_value(st, name, span)
    if value is not NOT_IN_SCOPES:
        return value
    glob = st.module.globals.get(name)
    if glob is not None:
        if isinstance(glob.value, DynamicExtent):
            return dynamic_extent(st, glob.value, span)
        return glob.value
    if name == "range":
        return _RANGE
    if name in st.closed:
        closed = st.closed[name]
        if closed.kind == "loopvar":
            fix = f"a loop variable exists only inside its loop; copy `{name}` into a scalar declared " \
                  f"before the loop"
        else:
            dtype = closed.value.dtype if isinstance(closed.value, (ir.Buffer, ir.Expr)) else INT32
            zero = "0.0" if dtype.is_float else "0"
            fix = f"bind `{name}` before the block (e.g. `{name}: T.{dtype} = {zero}`) and assign it inside"
        st.diags.error("E0319", f"`{name}` is not visible here", span,
                         notes=[Note("it was bound inside a block that has ended", closed.span)], help=fix)
        return POISON
    candidates = [n for s in st.scopes for n in s] + list(st.module.globals) + ["range"]
    _unknown_name(st, name, span, candidates)
    return POISON


def _module_lookup(st, name: str, span: Span):
    binding = st.module.globals.get(name)
    if binding is None and name in st.module.kernel_names:
        return KernelName(name)
    if binding is None:
        _unknown_name(st, name, span, st.module.globals)
        return POISON
    return binding.value


# Python's builtins a kernel file never gets: they would read files, run code or look at the
# evaluator's own state. The other builtins tirxc lacks are "not supported yet".
_WITHHELD_BUILTINS = frozenset(("eval", "exec", "compile", "open", "__import__", "globals", "locals", "vars",
                                "input", "breakpoint", "exit", "quit", "help", "memoryview"))


def _unknown_name(st, name: str, span: Span, candidates) -> None:
    """A name bound nowhere: Python's builtins tirxc does not evaluate are named as such (valid
    Python, not the user's mistake); any other name is unknown."""
    if name in _PYTHON_BUILTINS and not name.startswith("_") or name == "__import__":
        if name in _WITHHELD_BUILTINS:
            st.diags.error("E0109", f"the Python builtin `{name}` is not supported in a kernel file: its "
                                    "evaluation reads no files, runs no code and imports nothing", span)
        else:
            st.diags.error("E0109", f"the Python builtin `{name}` is not supported yet", span,
                           help="docs/user-guide.md lists what the Python level computes")
        return
    st.diags.error("E0300", f"unknown name `{name}`", span, help=_unknown_name_help(name, candidates))


_PYTHON_BUILTINS = frozenset(name for name in dir(builtins) if not name[0].isupper())  # (not the exceptions)


def _unknown_name_help(name: str, candidates) -> str | None:
    """A close name in scope; for a dtype written as a bare name (`float32`, `fp16`), how to
    write it."""
    dtype = parse_dtype(name)
    canonical = dtype.name if dtype is not None else None
    guess = did_you_mean(name, candidates) if canonical is None else None
    if guess is None and canonical is None:
        canonical = dtype_alias(name)
    if canonical is None:
        return guess
    return f"write the dtype as a string: \"{canonical}\" or T.{canonical}"


def dynamic_extent(st, extent: DynamicExtent, span: Span):
    """A module-level `n = T.dynamic("n")` used in this kernel: the kernel's own symbolic extent,
    declared by its first use, which must be in a parameter's shape (else the launcher could not
    read it from an array)."""
    known = st.extents.get(extent.name)
    if known is not None:
        return known[0]
    if st.device:
        st.diags.error("E0512", f"symbolic extent `{extent.name}` is not a dimension of any parameter of "
                                  f"kernel `{st.fdef.name}`", span,
                         notes=[Note("declared here", extent.span)],
                         help="use it in the shape of a `T.Tensor` parameter so the launcher can read it from "
                              "the array")
        return POISON
    return declare_extent(st, extent.name, extent.span)


def declare_extent(st, name: str, span: Span) -> ir.Var:
    """The kernel's symbolic extent `name` (int32, non-negative), which the launcher reads
    off the arrays."""
    var = ir.Var(INT32, fresh(st, name), span)
    st.extents[name] = (var, span)
    st.nonneg.add(var.name)
    return var


def binding(st, name: str) -> Binding | None:
    for scope in reversed(st.scopes):
        if name in scope:
            return scope[name]
    return None


def bound_value(st, name: str):
    """What `name` is bound to where st is (its scopes, then the module's names), looked up without
    reporting anything; None when it is unbound."""
    found = binding(st, name) or st.module.globals.get(name)
    return found.value if found is not None else None


def bind(st, name: str, binding: Binding) -> None:
    st.scopes[-1][name] = binding


def push(st) -> None:
    st.scopes.append({})


def pop(st) -> None:
    for name, binding in st.scopes.pop().items():
        if all(name not in s for s in st.scopes):
            st.closed[name] = binding


def require(st, feature: str, what: str, span: Span) -> None:
    """The kernel uses the instruction family `feature` (a target/arch.py FEATURES row; `what`
    names the use): its minimum architecture grows to what the target says the family needs,
    and a named target that lacks the family is an error (E0320)."""
    target = st.module.target
    arch, suffix = target.requirement(feature)
    if arch > st.min_arch:
        st.min_arch = arch
    if suffix:
        st.arch_suffix = suffix
    if not target.allows(feature) and what not in st.arch_errors:
        st.arch_errors.add(what)  # once per instruction and kernel: its first use
        st.diags.error("E0320", f"{what} needs {arch_name(*FEATURES[feature])}, but the target is "
                                  f"{target.name}", span)
