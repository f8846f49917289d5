"""`typing`'s names, which kernel files use in annotations and module-level aliases
(`AbDtype = Literal["fp8", "fp4"]`): each is a value that only stands for itself; subscripting it
gives it back, and `cast(T, v)` is `v`. `TYPE_CHECKING` is False, as at run time."""
from __future__ import annotations

from transpiler.evaluator.builtins import _TABLE, _fail

NAMES = ("Any", "Optional", "Union", "Literal", "Sequence", "Mapping", "Iterable", "Iterator", "Callable", "Tuple",
         "List", "Dict", "Set", "FrozenSet", "Type", "ClassVar", "Final", "TypeVar", "Generic", "Protocol",
         "NamedTuple", "TypedDict", "Annotated", "TYPE_CHECKING", "cast", "overload", "TypeAlias", "Self")


def _not_callable(name: str):
    def run(st, node, args, kwargs):
        return _fail(st, node, f"`typing.{name}` is an annotation; tirxc does not call it")
    return run


for _name in NAMES:
    _TABLE[f"typing.{_name}"] = (_not_callable(_name), 0, 1 << 16, ())
_TABLE["typing.cast"] = (lambda st, node, args, kwargs: args[1], 2, 2, ())
