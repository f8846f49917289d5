"""The values of the file's Python level, as the evaluator computes with them and hands them
back: constants, dicts, slices, functions of the file, builtins, bound methods, loop ranges,
dtypes, and the names that bind them (`Binding`). The checker adds its own values (buffers,
layouts, namespaces ..., sema/values.py); the evaluator passes those through untouched.

Each is a small frozen dataclass, compared by identity and without a generated repr (cheaper to
create at start-up)."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.target.dtypes import DType
from transpiler.syntax.source import Span


@dataclass(frozen=True, eq=False, repr=False)
class Poison:
    """The value of an expression that already produced an error; silences cascades."""


POISON = Poison()


@dataclass(frozen=True, eq=False, repr=False)
class PyConst:
    """A compile-time Python value without a dtype: int, float, bool, str, None or a tuple of them."""
    value: object


@dataclass(frozen=True, eq=False, repr=False)
class PyDict:
    """A compile-time dict: `items`, CPython's own dict of CPython keys and items (box.py: one
    value per dict object, `box.dict_value`; read a value with `box.from_python`)."""
    items: dict


@dataclass(frozen=True, eq=False, repr=False)
class SliceVal:
    """`slice(lower, upper, step)` as a value (each part an elaborated value or None), for indexing
    a buffer with a compile-time tuple of slices: `fs = (slice(0, 32), slice(0, 8)); A[fs]`."""
    lower: object
    upper: object
    step: object


class Frame(dict):
    """The names a plain helper's call binds (name -> Binding), and `local_names`: every name its
    body assigns anywhere (and its parameters), which Python makes local for the whole function, so
    that reading one before it is bound (or after `del`) is an error, never the global of that name."""

    def __init__(self, local_names: frozenset = frozenset()):
        super().__init__()
        self.local_names = local_names


@dataclass(frozen=True, eq=False, repr=False)
class Helper:
    """A function of the file evaluated or inlined by the checker (macros.py): a plain `def`
    computing compile-time values (kind "def"), or an `@T.inline` / `@T.macro` device helper.
    `scopes`: the scopes it was defined in (nested helpers see the kernel's names)."""
    fdef: object  # ast.FunctionDef
    kind: str  # def inline macro
    scopes: tuple = ()
    defaults: tuple = ()  # (name, elaborated default value) for each parameter with a default
    global_names: frozenset = frozenset()  # the names its `global` statements declare (module-level names)
    nonlocal_names: frozenset = frozenset()  # the names its `nonlocal` statements declare (an enclosing function's)
    local_names: frozenset = frozenset()  # the names its body binds, its parameters' too (Frame)


@dataclass(frozen=True, eq=False, repr=False)
class Method:
    """A bound method of a value (`A.local`, `pool.alloc`), waiting for its call."""
    obj: object
    name: str


@dataclass(frozen=True, eq=False, repr=False)
class DTypeVal:
    """A dtype used as a value: `T.float32`."""
    dtype: DType


@dataclass(frozen=True, eq=False, repr=False)
class IdTuple:
    """The thread or block ids one `T.thread_id([...])` / `T.cta_id([...])` binds."""
    vars: tuple[ir.Var, ...]


@dataclass(frozen=True, eq=False, repr=False)
class LoopRange:
    """The iterable of a `for`: `range`, `T.unroll`, `T.grid` and their bounds."""
    kind: str  # serial unroll grid
    starts: tuple
    stops: tuple
    steps: tuple
    unroll_factor: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class Builtin:
    """A Python builtin: range, or one of the compile-time builtins of builtins.py."""
    name: str


@dataclass(frozen=True, eq=False, repr=False)
class Void:
    """The result of a call used as a statement only."""
    stmt: ir.Stmt


@dataclass
class Binding:
    """What a name means, what kind of binding it is, and where it was bound."""
    value: object
    kind: str  # const buffer scalar let var id param handle pointer loopvar other;
    #            module level: const namespace builtin (the implicit `T`) layout axis import
    span: Span


class CheckerValue:
    """A value of the checker above the evaluator (a namespace, a layout, a pointer ...): the
    evaluator stores and passes it untouched, and names it in a message by its `describe`."""
    __slots__ = ()

    def describe(self) -> str:
        return type(self).__name__.lower()


def article(dtype) -> str:
    """`an int32`, `a float32`: the dtype with its indefinite article."""
    return f"{'an' if str(dtype).startswith('int') else 'a'} {dtype}"


def describe(val) -> str:
    """What a value is, for a message: `a string`, `an int32 value`, `buffer `A``."""
    if isinstance(val, PyConst):
        v = val.value
        if isinstance(v, str):
            return "a string"
        if isinstance(v, tuple):
            return "a tuple"
        if v is None:
            return "None"
        return "`...`" if v is Ellipsis else f"`{v!r}`"
    if isinstance(val, ir.Buffer):
        return f"buffer `{val.name}`"
    if isinstance(val, ir.BufferAddress):
        return "a pointer"
    if isinstance(val, ir.Expr):
        return f"{article(val.dtype)} value"
    if isinstance(val, CheckerValue):
        return val.describe()
    if isinstance(val, Method):
        return f"method `{val.name}`"
    if isinstance(val, IdTuple):
        return "a tuple of thread ids"
    if isinstance(val, tuple):
        return "a tuple"
    if isinstance(val, DTypeVal):
        return f"dtype `{val.dtype}`"
    if isinstance(val, PyDict):
        return "a dict"
    return type(val).__name__.lower()
