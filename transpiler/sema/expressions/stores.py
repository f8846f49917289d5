"""The value a store writes: TIRx's `BufferStore` converts a value of another dtype (same
lane count) to the buffer's dtype, warning when a float becomes an integer (W0303).
Mutable scalars (`acc: T.float32 = 0`, `s = T.local_scalar(...)`) are one-element buffers,
so their assignments convert the same way."""
from __future__ import annotations

from transpiler.ir.fold import cast
from transpiler.syntax.source import Span
from transpiler.target.dtypes import DType, FLOAT32
from transpiler.sema.expressions import scalars
from transpiler.evaluator.values import POISON, PyConst, article


def stored(st, val, span: Span, dtype: DType):
    """`val` (an elaborated right-hand side) as a `dtype` value, or POISON; a value whose lane
    count differs from dtype's is returned unconverted for the caller's error."""
    if isinstance(val, PyConst) and isinstance(val.value, float) and not isinstance(val.value, bool) \
            and not dtype.is_float and dtype.lanes == 1:
        val = scalars.literal(st, val.value, FLOAT32, span)  # a Python float is a float32 constant
    value = scalars.as_value(st, val, span, dtype)
    if value is POISON or value.dtype == dtype or value.dtype.lanes != dtype.lanes:
        return value
    if value.dtype.is_float and (dtype.is_int or dtype.is_bool):
        st.diags.warning("W0303", f"storing {article(value.dtype)} value into {dtype} converts it "
                                  f"(truncating toward zero)", span,
                         help=f"say so with `T.{dtype}(...)` to silence this")
    return cast(dtype, value, span)
