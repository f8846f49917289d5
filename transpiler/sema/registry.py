"""The table of the dialect's functions: T.* handlers (`@handler("name", *spec)` registers the
function itself under its name), their argument binding, and the names tirxc knows (math
functions, layout constructors, functions it does not implement yet)."""
from __future__ import annotations

from functools import lru_cache
from transpiler.diag.diagnostics import did_you_mean
from transpiler.syntax import ast
from transpiler.target.dtypes import parse_dtype
from transpiler.evaluator.values import DTypeVal, POISON
from transpiler.sema.values import LayoutCtor


class DispatchTable(dict):
    """Node class -> the module's `<prefix><NodeClass>` function (`_elab_BinOp`), or its
    `<prefix>unsupported` one: looked up by the built name once per node class, not once per
    node (the dispatch runs for every expression node and statement)."""

    def __init__(self, prefix: str, namespace: dict):
        super().__init__()
        self.prefix, self.namespace = prefix, namespace

    def __missing__(self, node_class: type):
        fn = self.namespace.get(self.prefix + node_class.__name__) or self.namespace[self.prefix + "unsupported"]
        self[node_class] = fn
        return fn


# -- the tables ----------------------------------------------------------------------------------
# T.<name> -> (the function checking it, fn(st, node, args), and its parameter spec; None: it takes
# any arguments and is refused whatever they are)
HANDLERS: dict[str, tuple] = {}


# name -> (arity, float only). The C name is chosen at lowering (target/cmath.py).
MATH = {
    "exp": (1, True), "exp2": (1, True), "exp10": (1, True), "log": (1, True), "log2": (1, True),
    "log10": (1, True), "log1p": (1, True), "sqrt": (1, True), "rsqrt": (1, True), "sin": (1, True),
    "cos": (1, True), "tan": (1, True), "tanh": (1, True), "sinh": (1, True), "cosh": (1, True),
    "asin": (1, True), "acos": (1, True), "atan": (1, True), "atan2": (2, True), "erf": (1, True),
    "pow": (2, True), "fabs": (1, True), "floor": (1, True), "ceil": (1, True), "round": (1, True),
    "trunc": (1, True), "nearbyint": (1, True), "fma": (3, True), "fmod": (2, True), "hypot": (2, True),
    "copysign": (2, True), "sigmoid": (1, True), "abs": (1, False),
    "isnan": (1, True), "isinf": (1, True), "isfinite": (1, True), "clz": (1, False), "popcount": (1, False),
}


# the layout constructors, as `T.<name>` and as names imported from tvm.tirx.layout
LAYOUT_CTORS = {name: LayoutCtor(name) for name in ("TileLayout", "S", "R", "ComposeLayout", "wg_local_layout",
                                                    "tmem_datapath_layout", "tcgen05_atom_layout")}


# TIRx functions tirxc knows by name but does not implement (from the TIRx documentation and
# the TIRx implementation), with a hint where one helps: a call says "`T.cuda.copy_bytes` is not
# supported yet" (intrinsics.call_dialect) rather than suggesting another function of a similar
# name. Never a handler's name (tests/sema/test_registry.py).
KNOWN_UNSUPPORTED = {
    "cuda.copy_bytes": None, "tvm_warp_activemask": None, "wg_reg_tile": None,
    "tvm_struct_get": None, "ptr": None,
}


def handler(name: str, *params: str):
    """Register fn as the T.<name> handler, with its parameter spec: `x`, `x=default`, `*rest`."""
    def wrap(fn):
        HANDLERS[name] = (fn, params)
        return fn
    return wrap


@lru_cache(maxsize=None)
def _parse_spec(params: tuple[str, ...]):
    """A parameter spec (`x`, `x=default`, `*rest`) as its positional names, all names, defaults
    by name (as the _DefaultArg every call left at it shares) and the `*rest` name (or None);
    parsed once per spec, not once per call."""
    positional, names, defaults, star = [], [], {}, None
    for p in params:
        if p.startswith("*"):
            star = p[1:]
            continue
        name, _, default = p.partition("=")
        if default:
            defaults[name] = _DefaultArg(default)
        names.append(name)
        if star is None:
            positional.append(name)
    return tuple(positional), tuple(names), defaults, star


@lru_cache(maxsize=None)
def _known_dotted_names(handler_count: int) -> tuple[tuple[str, ...], frozenset[str]]:
    """The dotted names after `T.` that tirxc knows, and a set of them together with every
    prefix of one that a `.` ends (`cuda` of `cuda.func_call`). Built once, not for every `T.x`
    in a kernel; handlers register as modules load, so their count is the cache key."""
    names = tuple(HANDLERS) + tuple(MATH) + ("Buffer", "Tensor", "prim_func", "function") + tuple(LAYOUT_CTORS) \
        + tuple(KNOWN_UNSUPPORTED)
    prefixes = {name[:i] for name in names for i, char in enumerate(name) if char == "."}
    return names, frozenset(names) | prefixes


@lru_cache(maxsize=None)
def _dtype_value(name: str) -> DTypeVal | None:
    """`T.<name>` as a dtype (one shared value per dtype: `T.float32(x)` is everywhere), or None."""
    dtype = parse_dtype(name)
    return None if dtype is None else DTypeVal(dtype)


class _DefaultArg:
    """A parameter left at its default; `value()` gives the default as a Python constant."""

    def __init__(self, text: str):
        self.text = text

    def value(self):
        if self.text.startswith("'") or self.text.startswith('"'):
            return self.text[1:-1]
        if self.text == "None":
            return None
        return int(self.text, 0)


def is_default(arg) -> bool:
    return isinstance(arg, _DefaultArg)


def default_arg(text: str) -> _DefaultArg:
    """An argument left at its default (`text` as in a parameter spec), for a handler that
    fills in the arguments of another."""
    return _DefaultArg(text)


def _suggest(dotted: str, known, prefix: str):
    guess = did_you_mean(dotted, known)
    return guess.replace("`", f"`{prefix}.", 1) if guess else None


def bind_args(st, node: ast.Call, params, what: str):
    """Match arguments to a spec; names after `*rest` are keyword-only. None on error."""
    positional, names, defaults, star = _parse_spec(params)
    bound: dict[str, object] = {}
    rest = []
    for i, arg in enumerate(node.args):
        if i < len(positional):
            bound[positional[i]] = arg
        elif star:
            rest.append(arg)
        else:
            st.diags.error("E0305", f"`{what}` takes at most {len(positional)} positional argument"
                                      f"{'s' if len(positional) != 1 else ''}, got {len(node.args)}", arg.span)
            return None
    ok = True
    for kw in node.keywords:
        if kw.name not in names:
            st.diags.error("E0311", f"`{what}` has no parameter `{kw.name}`", kw.span,
                             help=did_you_mean(kw.name, names))
            ok = False
        elif kw.name in bound:
            st.diags.error("E0305", f"`{what}` got two values for `{kw.name}`", kw.span)
            ok = False
        else:
            bound[kw.name] = kw.value
    for name in names:
        if name not in bound and name not in defaults:
            st.diags.error("E0305", f"`{what}` is missing its `{name}` argument", node.span)
            ok = False
    if not ok:
        return None
    for name, default in defaults.items():
        bound.setdefault(name, default)
    if star:
        bound[star] = rest
    return bound


# -- not (yet) supported ----------------------------------------------------------------------------
def unsupported(st, node, what, code="E0518", help=None):
    st.diags.error(code, f"{what} is not supported yet", node.span, help=help)
    return POISON

