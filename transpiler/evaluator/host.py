"""What the evaluator asks of the checker above it: the `Host`.

The evaluator computes the file's Python level itself (values in, values out); wherever a
Python-level operation reaches a kernel expression, a class of the file, a helper function or a
name of TIRx's library, it asks its host. The checker implements the host (sema/host.py) and
hands it over with the evaluation context: every evaluator function takes that context, `st`,
and reaches the host as `st.host`."""
from __future__ import annotations

from abc import ABC, abstractmethod


class Host(ABC):
    """The checker, as the evaluator sees it. `st` is the evaluation context the evaluator was
    called with; `node` an expression of the file (transpiler.syntax.ast); values are those of
    evaluator/values.py or the checker's own, passed through untouched. A method that fails
    reports its error on `st.diags` and returns POISON (or None where it says so)."""

    __slots__ = ()

    @abstractmethod
    def elab(self, st, node):
        """The value of any expression of the file: Python-level or a kernel expression."""

    @abstractmethod
    def const_int(self, st, node, what: str) -> int | None:
        """The value of node as a compile-time integer; None (reported, naming `what`) otherwise."""

    @abstractmethod
    def arith(self, st, op: str, left, right, span, left_span, right_span):
        """`left op right` with the kernel's arithmetic (run-time values, `sum` of them)."""

    @abstractmethod
    def bound_value(self, st, name: str):
        """What `name` is bound to where st is, looked up without reporting; None when unbound."""

    @abstractmethod
    def class_isinstance(self, st, value, kinds):
        """`isinstance(value, kinds)` where kinds holds a class of the file; None when it holds
        none (the builtin's own types are the evaluator's)."""

    @abstractmethod
    def call_function(self, st, function, args: dict, node):
        """The value of a plain function of the file (`Helper` of kind "def") called with
        `args` (parameter name -> value)."""

    @abstractmethod
    def class_of(self, value):
        """`type(value)` of an instance of a class of the file: its class; None for another value."""

    @abstractmethod
    def number_of(self, value):
        """The Python number (a `PyConst`) a value of the checker is (an `IntEnum` member: its value,
        for `isinstance(member, int)`); None when it is not one."""

    @property
    @abstractmethod
    def library_modules(self) -> dict:
        """The modules of TIRx's library that the checker evaluates names of (module -> names),
        besides the evaluator's own (`math`, `functools`, `typing` ...)."""

    @property
    @abstractmethod
    def library_builtins(self) -> dict:
        """The library's functions: dotted name -> (function(st, node, args, kwargs), fewest and
        most positional arguments, keyword names), called as the evaluator's builtins are."""

    @abstractmethod
    def library_import(self, module: str, name: str):
        """What `from module import name` binds for a module of `library_modules`; None when the
        checker lacks it."""

    @abstractmethod
    def library_member(self, st, base, node):
        """`base.attr` of a library name (`SwizzleMode.SWIZZLE_128B_ATOM`); None when it is not one."""
