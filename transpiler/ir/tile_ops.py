"""The tile primitives (`Tx.*`, docs/tile-primitives.md): each op's operands in call order, with
their defaults, and the family whose dispatch variants lower it. The checker binds a call
against this table (sema/calls/tile_calls.py); transpiler/tile/ dispatches the bound call."""
from __future__ import annotations

from dataclasses import dataclass

REQUIRED = object()  # an operand without a default

# The cooperation scopes: `Tx.<op>` is thread scope, `Tx.<scope>.<op>` binds a wider one.
SCOPES = {"thread": "thread", "warp": "warp", "wg": "warpgroup", "warpgroup": "warpgroup", "cta": "cta",
          "cluster": "cluster"}
SCOPE_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}  # cta and cluster: the launch's shape


@dataclass(frozen=True)
class TileOp:
    name: str
    family: str
    params: tuple[tuple[str, object], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.params)


def _op(name: str, family: str, *params: str | tuple[str, object]) -> TileOp:
    return TileOp(name, family, tuple(p if isinstance(p, tuple) else (p, REQUIRED) for p in params))


_UNARY = (("src", None), ("bias", None), ("scale", None))
_REDUCE = (("axes", -1), ("accum", False))

OPS: dict[str, TileOp] = {op.name: op for op in (
    _op("copy", "copy", "dst", "src"),
    _op("copy_async", "copy_async", "dst", "src"),
    _op("permute_layout", "permute_layout", "dst", "src"),
    _op("gemm", "gemm", "D", "A", "B", "C", ("transpose_A", False), ("transpose_B", False), ("alpha", 1.0),
        ("beta", 0.0)),
    _op("gemm_async", "gemm_async", "C", "A", "B", ("SFA", None), ("SFB", None), ("transA", False),
        ("transB", False), ("accum", False)),
    _op("fill", "elementwise", "dst", "value"),
    _op("memset", "elementwise", "dst", "value"),
    _op("zero", "elementwise", "dst", ("src", None)),
    _op("cast", "elementwise", "dst", ("src", None)),
    _op("sqrt", "elementwise", "dst", *_UNARY),
    _op("exp", "elementwise", "dst", *_UNARY),
    _op("exp2", "elementwise", "dst", *_UNARY),
    _op("log2", "elementwise", "dst", *_UNARY),
    _op("reciprocal", "elementwise", "dst", ("src", None)),
    _op("silu", "elementwise", "dst", "src"),
    _op("add", "elementwise", "dst", "src1", "src2"),
    _op("sub", "elementwise", "dst", "src1", "src2"),
    _op("mul", "elementwise", "dst", "src1", "src2"),
    _op("fdiv", "elementwise", "dst", "src1", "src2"),
    _op("maximum", "elementwise", "dst", "src1", "src2"),
    _op("minimum", "elementwise", "dst", "src1", "src2"),
    _op("fma", "elementwise", "dst", "src", "scale", "bias"),
    _op("select", "elementwise", "dst", "true_value", "false_value", "pred"),
    _op("sum", "reduction", "dst", "src", *_REDUCE),
    _op("max", "reduction", "dst", ("src", None), *_REDUCE),
    _op("min", "reduction", "dst", ("src", None), *_REDUCE),
    _op("binary_reduce", "fused", "binary_output", "reduce_output", "binary_input1", "binary_input2", "binary_op",
        "reduce_op",
        ("reduce_axes", -1)),
    _op("unary_reduce", "fused", "unary_output", "reduce_output", "unary_input", "unary_op", "reduce_op",
        ("bias", None), ("scale", None), ("reduce_axes", -1)),
    _op("binary_chain", "fused", "output", "data", "operand0", "operand1", "op0", "op1", ("reverse1", False)),
    _op("reduce_negate", "fused", "output", "input", "reduce_op", ("reduce_axes", -1), ("accum", False)),
)}
