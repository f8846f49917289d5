"""T.* calls: a table from dotted names to small handlers, plus the math table.

Handlers get the kernel checker, the call node, and its arguments bound by name;
they return what the call denotes (an ir.Expr, a Void statement, a buffer ...).
"""
from __future__ import annotations

from functools import lru_cache

from transpiler.syntax import ast
from transpiler import ir
from transpiler.sema.expr import article
from transpiler.diag.diagnostics import did_you_mean
from transpiler.target.dtypes import BOOL, FLOAT32, INT32, UINT32, VOID, DType, parse_dtype, known_dtype_names
from transpiler.sema.values import (POISON, Builtin, DTypeVal, HandleType, LaunchConfig, LayoutCtor, LetType, Method, Namespace,
                     Poison, PyConst, Ramp, Void, PtxMnemonic)

# name -> (arity, float only). The C name is chosen at lowering (c_math_name).
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
# half/bfloat16 functions of cuda_fp16.h / cuda_bf16.h; other math on them goes through float
_HALF_MATH = {"exp", "exp2", "exp10", "log", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "floor", "ceil",
              "trunc"}
PREDICATES = {"isnan", "isinf", "isfinite"}


def c_math_name(name: str, dtype: DType) -> tuple[str, bool]:
    """The C function for a math intrinsic on dtype, and whether it goes through float32."""
    if name == "abs":
        if dtype.is_float:
            return c_math_name("fabs", dtype)
        return ("abs" if dtype.bits <= 32 else "llabs"), False
    if name == "clz":
        return ("__clz" if dtype.bits <= 32 else "__clzll"), False
    if name == "popcount":
        return ("__popc" if dtype.bits <= 32 else "__popcll"), False
    if name in PREDICATES:
        return name, dtype.bits < 32
    if dtype.name == "float64":
        return name, False
    if dtype.name == "float32":
        return name + "f", False
    if dtype.bits == 16 and name in _HALF_MATH:
        return "h" + name, False
    if dtype.bits == 16 and name == "fabs":
        return "__habs", False
    return name + "f", True  # other low-precision math: via float32


# T.<name> -> (method, parameter spec); the spec is None for calls reported as unsupported
HANDLERS: dict[str, tuple[str, tuple[str, ...] | None]] = {}
# the layout constructors, as `T.<name>` and as names imported from tvm.tirx.layout
LAYOUT_CTORS = {name: LayoutCtor(name) for name in ("TileLayout", "S", "R", "ComposeLayout")}
# the fields of the wheel's `T.cuda.LaunchConfig` besides grid and block, none of which tirxc supports
# (dynamic_smem_bytes is checked against the arena; the launcher decides the rest)
LAUNCH_EXTRA_FIELDS = ("cluster", "preferred_cluster", "dynamic_smem_bytes", "stream", "cooperative",
                       "programmatic_stream_serialization", "cluster_scheduling_policy", "priority",
                       "mem_sync_domain", "mem_sync_domain_map", "access_policy_window",
                       "preferred_shared_memory_carveout", "nvlink_util_centric_scheduling",
                       "portable_cluster_size_mode", "shared_memory_mode", "programmatic_event",
                       "launch_completion_event")


def handler(name: str, *params: str):
    """Register a T.<name> handler with its parameter spec: `x`, `x=default`, `*rest`."""
    def wrap(fn):
        HANDLERS[name] = (fn.__name__, params)
        return fn
    return wrap


_NO_DEFAULT = object()


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
    names = tuple(HANDLERS) + tuple(MATH) + ("Buffer", "Tensor", "prim_func", "function") + tuple(LAYOUT_CTORS)
    prefixes = {name[:i] for name in names for i, char in enumerate(name) if char == "."}
    return names, frozenset(names) | prefixes


@lru_cache(maxsize=None)
def _dtype_value(name: str) -> DTypeVal | None:
    """`T.<name>` as a dtype (one shared value per dtype: `T.float32(x)` is everywhere), or None."""
    dtype = parse_dtype(name)
    return None if dtype is None else DTypeVal(dtype)


class CallChecker:
    """Mixin for the kernel checker: binds call arguments and dispatches T.* calls."""

    def call(self, func, node: ast.Call):
        if isinstance(func, Poison):
            return POISON
        if isinstance(func, Namespace):
            return self.call_dialect(func, node)
        if isinstance(func, DTypeVal):
            return self.call_dtype(func.dtype, node)
        if isinstance(func, Method):
            from transpiler.sema.pools import SmemPool, TmemPool
            if isinstance(func.obj, (SmemPool, TmemPool)):
                return self.pool_method(func.obj, func.name, node)
            return self.buffer_method(func, node)
        if isinstance(func, PtxMnemonic):
            return self.ptx_call((), node, mnemonic=func.mnemonic)
        if isinstance(func, LayoutCtor):
            return self.layout_ctor(func.name, node)
        if isinstance(func, Builtin) and func.name == "range":
            args = self.bind_args(node, ("start", "stop=None", "step=1"),
                                  "range" if isinstance(node.func, ast.Name) else "T.serial")
            return POISON if args is None else self.loop_range("serial", node, args)
        from transpiler.sema.expr import kind_of
        self.diags.error("E0306", f"{kind_of(func)} is not callable", node.func.span)
        return POISON

    def is_dialect_call(self, node, names: tuple[str, ...], *, module_level: bool = False) -> bool:
        """Whether node is a call `T.<name>` of one of names, under any alias of the dialect: the
        attribute's base elaborates to a namespace. module_level: the base is a name the module binds
        to a namespace, judged without elaborating (nothing reported, kernel names not consulted)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names):
            return False
        base = node.func.value
        if module_level:
            binding = self.module.globals.get(base.id) if isinstance(base, ast.Name) else None
            return binding is not None and isinstance(binding.value, Namespace)
        return isinstance(self.elab(base), Namespace)

    def namespace_attr(self, base: Namespace, node: ast.Attribute):
        if base.path == ("T",):
            if node.attr == "handle":
                return HandleType()
            dtype = _dtype_value(node.attr)
            if dtype is not None:
                return dtype
            if node.attr == "let":
                return LetType(None)
            ctor = LAYOUT_CTORS.get(node.attr)
            if ctor is not None:  # the newer spelling: `T.TileLayout(T.S[...])`
                return ctor
        path = base.path + (node.attr,)
        dotted = ".".join(path[1:])
        if len(path) > 1 and path[1] == "ptx":
            return Namespace(path)  # PTX mnemonics are checked against the table when called
        names, names_and_prefixes = _known_dotted_names(len(HANDLERS))
        if dotted in names_and_prefixes or path[0] == "Tx":
            return Namespace(path)
        known = list(names)
        if base.path == ("T",):
            known += known_dtype_names() + ["handle", "let"]
        self.diags.error("E0301", f"`{'.'.join(path)}` is not a TIRx function tirxc knows", node.span,
                         help=_suggest(dotted, known, path[0]))
        return POISON

    def bind_args(self, node: ast.Call, params, what: str):
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
                self.diags.error("E0305", f"`{what}` takes at most {len(positional)} positional argument"
                                          f"{'s' if len(positional) != 1 else ''}, got {len(node.args)}", arg.span)
                return None
        ok = True
        for kw in node.keywords:
            if kw.name not in names:
                self.diags.error("E0311", f"`{what}` has no parameter `{kw.name}`", kw.span,
                                 help=did_you_mean(kw.name, names))
                ok = False
            elif kw.name in bound:
                self.diags.error("E0305", f"`{what}` got two values for `{kw.name}`", kw.span)
                ok = False
            else:
                bound[kw.name] = kw.value
        for name in names:
            if name not in bound and name not in defaults:
                self.diags.error("E0305", f"`{what}` is missing its `{name}` argument", node.span)
                ok = False
        if not ok:
            return None
        for name, default in defaults.items():
            bound.setdefault(name, default)
        if star:
            bound[star] = rest
        return bound

    def call_dialect(self, func: Namespace, node: ast.Call):
        dotted = func.dotted
        if func.path[0] == "Tx":
            self.diags.error("E0518", f"tile primitive `Tx.{dotted}` is not supported yet", node.span)
            return POISON
        if dotted in MATH:
            return self.math(dotted, node)
        if func.path[1:2] == ("ptx",):
            if len(func.path) == 2:
                self.diags.error("E0601", "`T.ptx` needs an instruction: `T.ptx[\"mnemonic\"](...)` or "
                                          "`T.ptx.tcgen05.alloc(...)`", node.span)
                return POISON
            return self.ptx_call(func.path[2:], node)
        if dotted == "Tensor":
            self.diags.error("E0525", "`T.Tensor(...)` is a tensor type, not a value", node.span,
                             help="use it as a parameter annotation or in `ty_args=[...]` of `T.alloc_tensor` / "
                                  "`T.decl_tensor`")
            return POISON
        if dotted not in HANDLERS:
            self.diags.error("E0301", f"`T.{dotted}` is not a function", node.func.span,
                             help=_suggest(dotted, list(HANDLERS) + list(MATH), "T"))
            return POISON
        method_name, params = HANDLERS[dotted]
        if params is None:  # an unsupported call: said so whatever its arguments are
            return getattr(self, method_name)(node, {})
        args = self.bind_args(node, params, f"T.{dotted}")
        if args is None:
            return POISON
        return getattr(self, method_name)(node, args)

    # -- values, casts and math ----------------------------------------------------------------------
    def arg_value(self, arg, dtype=None):
        if isinstance(arg, _DefaultArg):
            return self.as_value(PyConst(arg.value()), ir.NOWHERE, dtype)
        return self.value(arg, dtype)

    def call_dtype(self, dtype: DType, node: ast.Call):
        if not node.args and not node.keywords:
            return self.symbolic_var(dtype, node)
        if len(node.args) != 1 or node.keywords:
            self.diags.error("E0305", f"`T.{dtype}(x)` takes one argument", node.span)
            return POISON
        arg = self.elab(node.args[0])
        if isinstance(arg, PyConst):
            v = arg.value
            if isinstance(v, str) and dtype.is_float:
                special = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}.get(v.lower())
                if special is None:
                    self.diags.error("E0305", f"`T.{dtype}` takes \"inf\", \"-inf\" or \"nan\" as a string",
                                     node.args[0].span)
                    return POISON
                return ir.FloatImm(dtype, special, node.span)
            if isinstance(v, float) and dtype.is_int:
                if v != v or v in (float("inf"), float("-inf")) or v != int(v):
                    self.diags.error("E0303", f"`T.{dtype}({v!r})`: {v!r} is not an integer", node.span,
                                     help=f"write `T.{dtype}({int(v) if v == v and abs(v) != float('inf') else 0})`"
                                          f", or convert a float expression with `T.{dtype}(x)`")
                    return POISON
                return self.literal(int(v), dtype, node.span)
            return self.literal(v, dtype, node.span)
        val = self.as_value(arg, node.args[0].span)
        if val is POISON:
            return POISON
        return ir.cast(dtype, val, node.span)

    def math(self, name: str, node: ast.Call):
        arity, float_only = MATH[name]
        if len(node.args) != arity or node.keywords:
            self.diags.error("E0305", f"`T.{name}` takes {arity} argument{'s' if arity != 1 else ''}", node.span)
            return POISON
        vals = [self.elab(a) for a in node.args]
        typed = next((v for v in vals if isinstance(v, ir.Expr)), None)
        dtype = typed.dtype if typed is not None else (FLOAT32 if float_only else None)
        args = [self.as_value(v, a.span, dtype) for v, a in zip(vals, node.args)]
        if POISON in args:
            return POISON
        for a, n in zip(args, node.args):
            if a.dtype != args[0].dtype:
                self.diags.error("E0303", f"`T.{name}` arguments have different dtypes: {args[0].dtype} and "
                                          f"{a.dtype}", n.span)
                return POISON
        if float_only and not args[0].dtype.is_float:
            self.diags.error("E0309", f"`T.{name}` needs a floating-point argument, found {args[0].dtype}",
                             node.args[0].span, help=f"convert it first: `T.{name}(T.float32(x))`")
            return POISON
        if name in ("clz", "popcount") and not args[0].dtype.is_int:
            self.diags.error("E0309", f"`T.{name}` needs an integer argument", node.args[0].span)
            return POISON
        result = BOOL if name in PREDICATES else INT32 if name in ("clz", "popcount") else args[0].dtype
        return ir.Call(result, "math:" + name, tuple(args), node.span)

    @handler("cast", "x", "dtype")
    def _cast(self, node, a):
        dtype = self.dtype_arg(a["dtype"])
        val = self.value(a["x"])
        if dtype is None or val is POISON:
            return POISON
        return ir.cast(dtype, val, node.span)

    @handler("Cast", "dtype", "x")
    def _cast_upper(self, node, a):
        return self._cast(node, a)

    @handler("reinterpret", "dtype", "x")
    def _reinterpret(self, node, a):
        dtype = self.dtype_arg(a["dtype"])
        val = self.value(a["x"])
        if dtype is None or val is POISON:
            return POISON
        if dtype.nbytes != val.dtype.nbytes:
            self.diags.error("E0303", f"cannot reinterpret {val.dtype} ({val.dtype.nbytes} bytes) as {dtype} "
                                      f"({dtype.nbytes} bytes)", node.span)
            return POISON
        return ir.Reinterpret(dtype, val, node.span)

    def _two_values(self, a, b, span):
        x, y = self.elab(a), self.elab(b)
        if isinstance(x, PyConst) and isinstance(y, PyConst):
            return x, y
        return self.unify(x, y, a.span, b.span)

    @handler("min", "a", "b")
    def _min(self, node, a):
        return self._minmax("min", node, a)

    @handler("max", "a", "b")
    def _max(self, node, a):
        return self._minmax("max", node, a)

    def _minmax(self, op, node, a):
        x, y = self._two_values(a["a"], a["b"], node.span)
        if POISON in (x, y):
            return POISON
        if isinstance(x, PyConst):
            if not all(isinstance(v.value, (int, float)) for v in (x, y)):
                self.diags.error("E0306", f"`T.{op}` needs numbers", node.span)
                return POISON
            return PyConst(min(x.value, y.value) if op == "min" else max(x.value, y.value))
        if x.dtype.lanes > 1 or x.dtype.kind == "handle":
            self.diags.error("E0309", f"`T.{op}` needs scalar numbers, found {x.dtype}", node.span)
            return POISON
        return ir.binop(op, x, y, node.span)

    @handler("if_then_else", "cond", "true_value", "false_value")
    def _if_then_else(self, node, a):
        cond = self.condition(self.elab(a["cond"]), a["cond"].span)
        x, y = self.unify(self.elab(a["true_value"]), self.elab(a["false_value"]),
                          a["true_value"].span, a["false_value"].span)
        if POISON in (cond, x, y):
            return POISON
        return ir.select(cond, x, y, node.span)

    @handler("Select", "cond", "true_value", "false_value")
    def _select(self, node, a):
        return self._if_then_else(node, a)

    def _int_pair(self, op, node, a):
        x, y = self._two_values(a["a"], a["b"], node.span)
        if POISON in (x, y):
            return POISON
        return self.arith(op, x, y, node.span, a["a"].span, a["b"].span)

    @handler("floordiv", "a", "b")
    def _floordiv(self, node, a):
        return self._int_pair("floordiv", node, a)

    @handler("floormod", "a", "b")
    def _floormod(self, node, a):
        return self._int_pair("floormod", node, a)

    @handler("truncdiv", "a", "b")
    def _truncdiv(self, node, a):
        return self._trunc("truncdiv", node, a)

    @handler("truncmod", "a", "b")
    def _truncmod(self, node, a):
        return self._trunc("truncmod", node, a)

    def _trunc(self, op, node, a):
        x, y = self._int_operands(op, node, a)
        if x is POISON:
            return POISON
        return ir.binop(op, x, y, node.span)

    def _int_operands(self, op, node, a):
        """Two integer operands of one dtype and a divisor that is not a constant zero; POISONs on error."""
        x, y = self._two_values(a["a"], a["b"], node.span)
        if isinstance(x, PyConst):  # both constants
            x, y = self.as_value(x, a["a"].span), self.as_value(y, a["b"].span)
        if POISON in (x, y):
            return POISON, POISON
        if not (x.dtype.is_int and y.dtype.is_int and x.dtype.lanes == 1 and y.dtype.lanes == 1):
            self.diags.error("E0309", f"`T.{op}` needs integers", node.span)
            return POISON, POISON
        if x.dtype != y.dtype:
            self.diags.error("E0303", f"operands have different dtypes: {x.dtype} and {y.dtype}", node.span,
                             help=self.conversion_help(x.dtype, y.dtype, a["a"].span, a["b"].span))
            return POISON, POISON
        if isinstance(y, ir.IntImm) and y.value == 0:
            self.diags.error("E0306", "integer division by zero", a["b"].span)
            return POISON, POISON
        return x, y

    @handler("ceildiv", "a", "b")
    def _ceildiv(self, node, a):
        x, y = self._two_values(a["a"], a["b"], node.span)
        if isinstance(x, PyConst) and all(type(v.value) is int for v in (x, y)) and y.value != 0:
            return PyConst(-(-x.value // y.value))  # a compile-time constant, e.g. for extents
        x, y = self._int_operands("ceildiv", node, a)
        if x is POISON:
            return POISON
        one = ir.const(1, x.dtype)
        return ir.binop("floordiv", ir.binop("-", ir.add(x, y), one), y, node.span)

    def _bitwise(self, op, node, a):
        x, y = self._two_values(a["a"], a["b"], node.span)
        return self.arith(op, x, y, node.span, a["a"].span, a["b"].span)

    @handler("bitwise_and", "a", "b")
    def _bitwise_and(self, node, a):
        return self._bitwise("&", node, a)

    @handler("bitwise_or", "a", "b")
    def _bitwise_or(self, node, a):
        return self._bitwise("|", node, a)

    @handler("bitwise_xor", "a", "b")
    def _bitwise_xor(self, node, a):
        return self._bitwise("^", node, a)

    @handler("shift_left", "a", "b")
    def _shift_left(self, node, a):
        return self._bitwise("<<", node, a)

    @handler("shift_right", "a", "b")
    def _shift_right(self, node, a):
        return self._bitwise(">>", node, a)

    @handler("bitwise_not", "a")
    def _bitwise_not(self, node, a):
        val = self.value(a["a"])
        if val is POISON:
            return POISON
        if not val.dtype.is_int:
            self.diags.error("E0309", "`T.bitwise_not` needs an integer", node.span)
            return POISON
        return ir.unary("~", val, node.span)

    @handler("likely", "cond")
    def _likely(self, node, a):
        return self.condition(self.elab(a["cond"]), a["cond"].span)

    @handler("meta_var", "value")
    def _meta_var(self, node, a):
        val = self.elab(a["value"])
        if not isinstance(val, (PyConst, Poison)):
            self.diags.error("E0202", "`T.meta_var` takes a compile-time value", a["value"].span)
            return POISON
        return val

    @handler("func_attr", "attrs")
    def _func_attr(self, node, a):
        return Void(ir.Seq(()))

    @handler("hint", "message=''")
    def _hint(self, node, a):
        return Void(ir.Seq(()))

    # -- synchronisation and warp-level ---------------------------------------------------------------
    def _void_call(self, name, args, node):
        return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))

    @handler("cuda.cta_sync")
    def _cta_sync(self, node, a):
        return self._void_call("__syncthreads", (), node)

    @handler("tvm_storage_sync", "scope='shared'")
    def _storage_sync(self, node, a):
        return self._void_call("__syncthreads", (), node)

    @handler("cuda.warp_sync", "mask=0xFFFFFFFF")
    def _warp_sync(self, node, a):
        if isinstance(a["mask"], _DefaultArg):
            return self._void_call("__syncwarp", (), node)
        mask = self.arg_value(a["mask"], UINT32)
        return POISON if mask is POISON else self._void_call("__syncwarp", (mask,), node)

    @handler("cuda.thread_fence")
    def _thread_fence(self, node, a):
        return self._void_call("__threadfence", (), node)

    @handler("cuda.thread_fence_block")
    def _thread_fence_block(self, node, a):
        return self._void_call("__threadfence_block", (), node)

    @handler("cuda.warpgroup_sync", "barrier_id")
    def _warpgroup_sync(self, node, a):
        bar = self.const_int(a["barrier_id"], "a named barrier id")
        if bar is None:
            return POISON
        if not 1 <= bar <= 15:
            self.diags.error("E0305", f"named barrier id {bar} is outside 1..15 (0 is `__syncthreads`)",
                             a["barrier_id"].span)
            return POISON
        self.require_arch(90, "bar.sync with a thread count (warpgroup_sync)", node.span)
        return self._void_call("tirx_warpgroup_sync", (ir.IntImm(INT32, bar),), node)

    @handler("cuda.syncthreads_and", "cond")
    def _syncthreads_and(self, node, a):
        return self._vote_block("__syncthreads_and", node, a)

    @handler("cuda.syncthreads_or", "cond")
    def _syncthreads_or(self, node, a):
        return self._vote_block("__syncthreads_or", node, a)

    @handler("cuda.syncthreads_count", "cond")
    def _syncthreads_count(self, node, a):
        return self._vote_block("__syncthreads_count", node, a)

    def _vote_block(self, name, node, a):
        cond = self.condition(self.elab(a["cond"]), a["cond"].span)
        if cond is POISON:
            return POISON
        return ir.Call(INT32, name, (ir.cast(INT32, cond),), node.span)

    @handler("cuda.ballot_sync", "mask", "pred")
    def _ballot(self, node, a):
        return self._vote("__ballot_sync", UINT32, node, a)

    @handler("cuda.any_sync", "mask", "pred")
    def _any(self, node, a):
        return self._vote("__any_sync", INT32, node, a)

    @handler("cuda.all_sync", "mask", "pred")
    def _all(self, node, a):
        return self._vote("__all_sync", INT32, node, a)

    def _vote(self, name, result, node, a):
        mask = self.arg_value(a["mask"], UINT32)
        pred = self.condition(self.elab(a["pred"]), a["pred"].span)
        if POISON in (mask, pred):
            return POISON
        return ir.Call(result, name, (mask, ir.cast(INT32, pred)), node.span)

    @handler("cuda.elect_sync")
    def _elect_sync(self, node, a):
        self.require_arch(90, "elect.sync", node.span)
        return ir.Call(UINT32, "tirx_elect_sync", (), node.span)

    @handler("elected")
    def _elected(self, node, a):
        self.diags.error("E0301", "`T.elected()` was removed from TIRx", node.span,
                         help="write `if T.cuda.elect_sync():`")
        return POISON

    @handler("cuda.nano_sleep", "ns")
    def _nano_sleep(self, node, a):
        ns = self.arg_value(a["ns"], UINT32)
        return POISON if ns is POISON else self._void_call("__nanosleep", (ns,), node)

    def _shuffle(self, name, node, a, third):
        mask = self.arg_value(a["mask"], UINT32)
        value = self.value(a["value"])
        lane = self.arg_value(a[third], INT32)
        width = self.arg_value(a["width"], INT32)
        if POISON in (mask, value, lane, width):
            return POISON
        if value.dtype.lanes > 1 and value.dtype.name not in ("float16x2", "bfloat16x2"):
            self.diags.error("E0309", f"cannot shuffle a {value.dtype} value", a["value"].span)
            return POISON
        warp_size = a.get("warp_size")
        if warp_size is not None and not isinstance(warp_size, _DefaultArg):
            size = self.const_int(warp_size, "the warp size")
            if size is not None and size != 32:
                self.diags.error("E0305", f"warp size must be 32, got {size}", warp_size.span)
                return POISON
        if isinstance(width, ir.IntImm) and width.value not in (1, 2, 4, 8, 16, 32):
            self.diags.error("E0305", f"shuffle width must be a power of two up to 32, got {width.value}",
                             a["width"].span)
            return POISON
        args = (mask, value, lane) if isinstance(width, ir.IntImm) and width.value == 32 else (mask, value, lane, width)
        return ir.Call(value.dtype, name, args, node.span)

    @handler("gpu_warp_shuffle", "mask", "value", "src_lane", "width=32", "warp_size=32")
    @handler("tvm_warp_shuffle", "mask", "value", "src_lane", "width=32", "warp_size=32")
    def _shfl(self, node, a):
        return self._shuffle("__shfl_sync", node, a, "src_lane")

    @handler("gpu_warp_shuffle_xor", "mask", "value", "lane_mask", "width=32", "warp_size=32")
    @handler("tvm_warp_shuffle_xor", "mask", "value", "lane_mask", "width=32", "warp_size=32")
    def _shfl_xor(self, node, a):
        return self._shuffle("__shfl_xor_sync", node, a, "lane_mask")

    @handler("gpu_warp_shuffle_up", "mask", "value", "delta", "width=32", "warp_size=32")
    @handler("tvm_warp_shuffle_up", "mask", "value", "delta", "width=32", "warp_size=32")
    def _shfl_up(self, node, a):
        return self._shuffle("__shfl_up_sync", node, a, "delta")

    @handler("gpu_warp_shuffle_down", "mask", "value", "delta", "width=32", "warp_size=32")
    @handler("tvm_warp_shuffle_down", "mask", "value", "delta", "width=32", "warp_size=32")
    def _shfl_down(self, node, a):
        return self._shuffle("__shfl_down_sync", node, a, "delta")

    @handler("cuda.atomic_add", "ptr", "value")
    def _atomic_add(self, node, a):
        return self._atomic("atomicAdd", node, a)

    @handler("cuda.atomic_max", "ptr", "value")
    def _atomic_max(self, node, a):
        return self._atomic("atomicMax", node, a)

    @handler("cuda.atomic_min", "ptr", "value")
    def _atomic_min(self, node, a):
        return self._atomic("atomicMin", node, a)

    def _atomic(self, name, node, a):
        ptr = self.pointer_arg(a["ptr"])
        if ptr is POISON:
            return POISON
        pointee = ptr.buffer.dtype
        value = self.value(a["value"], pointee)
        if value is POISON:
            return POISON
        if value.dtype != pointee:
            self.diags.error("E0303", f"`{name}` on a {pointee} pointer with {article(value.dtype)} value",
                             a["value"].span, help=f"convert the value: `T.{pointee}(...)`")
            return POISON
        supported = {"atomicAdd": ("int32", "uint32", "uint64", "float32", "float64", "float16x2", "float16",
                                   "bfloat16"),
                     "atomicMax": ("int32", "uint32", "int64", "uint64"),
                     "atomicMin": ("int32", "uint32", "int64", "uint64")}[name]
        if pointee.name not in supported:
            self.diags.error("E0309", f"CUDA has no `{name}` for {pointee}", node.span,
                             help=f"`{name}` works on {', '.join(supported)}")
            return POISON
        return ir.Call(value.dtype, name, (ptr, value), node.span)

    @handler("cuda.atomic_cas", "ptr", "compare", "value")
    def _atomic_cas(self, node, a):
        ptr = self.pointer_arg(a["ptr"])
        if ptr is POISON:
            return POISON
        pointee = ptr.buffer.dtype
        compare, value = self.value(a["compare"], pointee), self.value(a["value"], pointee)
        if POISON in (compare, value):
            return POISON
        if pointee.name not in ("int32", "uint32", "uint64", "uint16"):
            self.diags.error("E0309", f"CUDA has no `atomicCAS` for {pointee}", node.span,
                             help="`atomicCAS` works on int32, uint32, uint64 and uint16")
            return POISON
        for operand, arg in ((compare, a["compare"]), (value, a["value"])):
            if operand.dtype != pointee:
                self.diags.error("E0303", f"`atomicCAS` on a {pointee} pointer with {article(operand.dtype)} value",
                                 arg.span, help=f"convert the value: `T.{pointee}(...)`")
                return POISON
        return ir.Call(pointee, "atomicCAS", (ptr, compare, value), node.span)

    @handler("cuda.printf", "format", "*args")
    def _printf(self, node, a):
        fmt = self.const_str(a["format"], "the printf format")
        args = [self.value(x) for x in a["args"]]
        if fmt is None or POISON in args:
            return POISON
        for value, arg in zip(args, a["args"]):
            if value.dtype.bits == 16 and value.dtype.is_float or value.dtype.lanes > 1:
                self.diags.error("E0309", f"printf cannot print a {value.dtype} value", arg.span,
                                 help="convert it first, e.g. `T.float32(x)`")
                return POISON
        return self._void_call("printf", [ir.StrImm(VOID, fmt)] + args, node)

    @handler("cuda.func_call", "name", "*args", "source_code=None", "return_type='void'", "ty=None")
    def _func_call(self, node, a):
        return self.func_call(node, a)

    # -- the newer spelling: symbolic extents, vector indices, the launch configuration -----------------
    @handler("dynamic", "name", "dtype='int32'")
    def _dynamic(self, node, a):
        """`n = T.dynamic("n")`: the newer spelling of `n = T.int32()`, also allowed at module level."""
        name = self.const_str(a["name"], "the name of a symbolic extent")
        dtype = self.dtype_or_default(a["dtype"])
        if name is None or dtype is None:
            return POISON
        return self.symbolic_var(dtype, node)

    @handler("Ramp", "base", "stride", "lanes")
    @handler("ramp", "base", "stride", "lanes")
    def _ramp(self, node, a):
        base = self.int_value(a["base"])
        stride, lanes = self.int_value(a["stride"]), self.int_value(a["lanes"])
        if POISON in (base, stride, lanes):
            return POISON
        for key, what, val in (("stride", "stride", stride), ("lanes", "lane count", lanes)):
            if not isinstance(val, ir.IntImm):
                self.diags.error("E0524", f"the ramp's {what} is not a compile-time integer", a[key].span,
                                 help="a vector access has a fixed width: write `T.ramp(base, 1, 4)`")
                return POISON
        stride, lanes = stride.value, lanes.value
        if stride != 1:
            self.diags.error("E0524", f"a ramp of stride {stride} is not a vector access", a["stride"].span,
                             help="vector accesses move consecutive elements: `T.ramp(base, 1, lanes)`")
            return POISON
        if lanes < 2:
            self.diags.error("E0524", f"a ramp of {lanes} lane{'s' if lanes != 1 else ''} is not a vector",
                             a["lanes"].span, help="index a single element without `T.ramp`")
            return POISON
        return Ramp(base, lanes)

    @handler("cuda.LaunchConfig", "*positional", "grid", "block", *(f"{f}=None" for f in LAUNCH_EXTRA_FIELDS))
    def _launch_config(self, node, a):
        if a["positional"]:
            self.diags.error("E0520", "`T.cuda.LaunchConfig` takes keyword arguments only", a["positional"][0].span,
                             help="write `T.cuda.LaunchConfig(grid=..., block=...)`")
            return POISON
        return LaunchConfig({k: v for k, v in a.items() if k != "positional" and not is_default(v)})

    # -- not (yet) supported ----------------------------------------------------------------------------
    def _unsupported(self, node, what, code="E0518", help=None):
        self.diags.error(code, f"{what} is not supported yet", node.span, help=help)
        return POISON


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


for _name in ("cluster_id", "cta_id_in_cluster", "cta_id_in_pair", "cuda.cluster_sync", "cuda.cluster_id",
              "cuda.cluster_dim", "cuda.cluster_cta_id", "cuda.cta_pair_id"):
    def _make(name):
        def unsupported(self, node, a):
            return self._unsupported(node, f"`T.{name}` (thread-block clusters)", "E0406")
        unsupported.__name__ = "_unsupported_" + name.replace(".", "_")
        setattr(CallChecker, unsupported.__name__, unsupported)
        HANDLERS[name] = (unsupported.__name__, None)
    _make(_name)

for _name, _help in (("cuda.grid_sync", "grid-wide barriers need a cooperative launch"),
                     ("vectorized", "use `vload` / `vstore` for vector access"),
                     ("parallel", "use thread ids; CUDA kernels have no parallel loops"),
                     ("thread_binding", "use `T.thread_id`"),
                     ("Broadcast", None),
                     ("call_extern", "use `T.cuda.func_call` with its source"),
                     ("print_buffer", None), ("assume", None), ("launch_thread", "use `T.thread_id`"),
                     ("attr", None), ("decl_scalar", None),
                     ("cuda.warp_reduce", "write the shuffle loop with `T.tvm_warp_shuffle_xor`"),
                     ("cuda.cta_reduce", None), ("cuda.thread_rank", None), ("cuda.mbarrier_wait", None),
                     ("cuda.linear_thread_id", "use `T.cuda.thread_idx(\"x\")` or `T.thread_id`")):
    def _make(name, help):
        def unsupported(self, node, a):
            return self._unsupported(node, f"`T.{name}`", help=help)
        unsupported.__name__ = "_unsupported_" + name.replace(".", "_")
        setattr(CallChecker, unsupported.__name__, unsupported)
        HANDLERS[name] = (unsupported.__name__, None)
    _make(_name, _help)
