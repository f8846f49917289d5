"""TIRx's shared-memory layout helpers for TMA and MMA operands, evaluated by tirxc at compile time
(never imported): `SwizzleMode`, `mma_atom_layout`, `mma_atom_shape` and `mma_shared_layout` of
`tvm.tirx.cuda.tile_primitive.tma_utils` (also spelled `tvm.backend.cuda.tile_primitive.tma_utils`),
and `sf_tmem_layout` of `tvm.tirx.cuda.tile_primitive.gemm_async` (`...gemm_async.tcgen05`).

Their results are TIRx's, iter for iter: the atom is `ComposeLayout(log2(16 bytes / element), mode, 3,
S[period])`, the shared layout that atom tiled over the rows of the shape and then over the rest,
canonicalized (ir/layout_ops.py); the no-swizzle layout is the packed 16-byte-column layout the
tcgen05 / wgmma descriptors read without a swizzle. A swizzle mode is `SwizzleMode.SWIZZLE_*` or its
number (0 to 3): `SwizzleMode.SWIZZLE_64B_ATOM` is the value `Builtin("...SwizzleMode.SWIZZLE_64B_ATOM")`,
whose `.value` is 2 and `.name` its name."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts, layout_ops
from transpiler.ir.layout import Iter, c
from transpiler.sema.expressions import scalars
from transpiler.evaluator.builtins import _fail
from transpiler.evaluator.box import new_list
from transpiler.evaluator.core import items_of
from transpiler.evaluator.values import Builtin, DTypeVal, POISON, PyConst
from transpiler.sema.values import LayoutVal
from transpiler.target.dtypes import parse_dtype

TMA = "tma_utils"  # the builtins' prefix: `tma_utils.mma_shared_layout` ...
GEMM = "gemm_async"
MODULE_ALIASES = {
    "tvm.tirx.cuda.tile_primitive.tma_utils": TMA, "tvm.backend.cuda.tile_primitive.tma_utils": TMA,
    "tvm.tirx.cuda.tile_primitive.gemm_async": GEMM, "tvm.backend.cuda.tile_primitive.gemm_async": GEMM,
    "tvm.tirx.cuda.tile_primitive.gemm_async.tcgen05": GEMM,
    "tvm.backend.cuda.tile_primitive.gemm_async.tcgen05": GEMM,
}
NAMES = {TMA: ("SwizzleMode", "mma_atom_layout", "mma_atom_shape", "mma_shared_layout"), GEMM: ("sf_tmem_layout",)}
MODES = ("SWIZZLE_NONE", "SWIZZLE_32B_ATOM", "SWIZZLE_64B_ATOM", "SWIZZLE_128B_ATOM")
ENUM = f"{TMA}.SwizzleMode"


def imported(module: str, name: str):
    """What `from <module> import <name>` binds; None when the module is not one of these."""
    short = MODULE_ALIASES.get(module)
    if short is None or name not in NAMES[short]:
        return None
    return Builtin(f"{short}.{name}")


def member_attr(st, base: Builtin, node):
    """`SwizzleMode.SWIZZLE_128B_ATOM`, and a member's `.value` / `.name`; None when base is not ours."""
    if base.name == ENUM:
        if node.attr in MODES:
            return Builtin(f"{ENUM}.{node.attr}")
        st.diags.error("E0306", f"`SwizzleMode` has no member `{node.attr}`", node.span,
                       help="the members are " + ", ".join(f"`{m}`" for m in MODES))
        return POISON
    if base.name.startswith(ENUM + "."):
        member = base.name[len(ENUM) + 1:]
        if node.attr == "value":
            return PyConst(MODES.index(member))
        if node.attr == "name":
            return PyConst(member)
        st.diags.error("E0306", f"a `SwizzleMode` member has no attribute `{node.attr}`", node.span,
                       help="it has `value` and `name`")
        return POISON
    return None


def _mode(st, node, val) -> int | None:
    """A swizzle mode's number: a `SwizzleMode` member or an int 0 to 3."""
    if isinstance(val, Builtin) and val.name.startswith(ENUM + "."):
        return MODES.index(val.name[len(ENUM) + 1:])
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
        if 0 <= val.value < len(MODES):
            return val.value
        _fail(st, node, f"{val.value} is not a swizzle mode: `SwizzleMode` has the values 0 to 3")
        return None
    _fail(st, node, "a swizzle mode is a `SwizzleMode` member or its value (0 to 3)")
    return None


def _bits(st, node, val) -> int | None:
    if isinstance(val, DTypeVal):
        return val.dtype.bits
    dtype = parse_dtype(val.value) if isinstance(val, PyConst) and isinstance(val.value, str) else None
    if dtype is None:
        _fail(st, node, "the dtype is a name such as \"float16\" or a dtype")
        return None
    return dtype.bits


def _ints(st, node, val, what: str) -> list[int] | None:
    items = items_of(val)
    values = None if items is None else [i.value if isinstance(i, PyConst) else i.value if isinstance(
        i, ir.IntImm) else None for i in items]
    if values is None or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        _fail(st, node, f"{what} is a list of positive compile-time integers")
        return None
    return values


def atom_layout(bits: int, mode: int, text: str = "") -> ir.Layout:
    """`mma_atom_layout`: ComposeLayout(per_element, mode, 3, S[period])."""
    per_element = (128 // bits).bit_length() - 1
    period = 1 << (per_element + mode + 3)
    return ir.Layout((Iter(c(period), c(1)),), (), (), (per_element, mode, 3, True), text)


def atom_shape(bits: int, mode: int, ndim: int | None = None) -> list[int]:
    shape = [8, (8 * (16 << mode)) // bits]  # 8 rows of 32, 64 or 128 bytes
    return shape if ndim is None else [1] * (ndim - 2) + shape


def shared_layout(bits: int, mode: int, shape: list[int], text: str = "") -> ir.Layout | None:
    """`mma_shared_layout(dtype, mode, shape)`; None where TIRx's tiling fails (the shape is not a
    multiple of the atom)."""
    if mode == 0:
        e16 = 128 // bits
        m, k = shape[-2], shape[-1]
        if k % e16:
            layout = layouts.tile_layout([c(e) for e in shape])
        else:
            lead = shape[:-2]
            strides, stride = [], m * k
            for e in reversed(lead):
                strides.insert(0, stride)
                stride *= e
            layout = layouts.tile_layout([c(e) for e in lead + [m, k // e16, e16]],
                                         [c(s) for s in strides + [e16, m * e16, 1]])
        return layout_ops.canonicalize(ir.Layout(layout.shard, (), (), None, text))
    if len(shape) < 2:
        return None
    atom = atom_shape(bits, mode, len(shape))
    middle = list(atom)
    middle[-2] = shape[-2]
    if any(t % a for t, a in zip(middle, atom)) or any(t % a for t, a in zip(shape, middle)):
        return None
    first = layout_ops.tile_to_any(atom_layout(bits, mode), middle, atom)
    result = None if first is None else layout_ops.tile_to_any(first, shape, middle)
    if result is None:
        return None
    return layout_ops.canonicalize(ir.Layout(result.shard, result.replica, result.offset, result.swizzle, text))


def sf_layout(rows: int, sf_k: int, sf_per_mma: int, sf_reuse: int = 1, pipe_depth: int | None = None,
              text: str = "") -> ir.Layout | str:
    """`sf_tmem_layout(rows, SF_K, sf_per_mma, sf_reuse=1, pipe_depth=None)`: the tensor-memory layout
    of a block-scaled MMA's scale factors (8-bit, four to a 32-bit column); a string says why not."""
    if sf_k % sf_per_mma:
        return f"SF_K={sf_k} must be a multiple of sf_per_mma={sf_per_mma}"
    if rows % 32:
        return f"rows={rows} must be a multiple of 32"
    k, m, epc = sf_k // sf_per_mma, rows // 32, 4
    lane, col = "TLane", "TCol"
    atom = ir.Layout((Iter(c(32), c(1), lane), Iter(c(sf_per_mma), c(1), col)), (Iter(c(4), c(32), lane),))
    if k == 1:
        outer = [(m, epc)]
    else:
        pack = epc // sf_per_mma
        while pack > 1 and k % pack:
            pack //= 2
        if pack > 1:
            outer = [(m, epc), (pack, sf_per_mma)] if k // pack == 1 else \
                [(m, epc), (k // pack, m * epc), (pack, sf_per_mma)]
        else:
            outer = [(m, epc), (k, m * epc)]
    outer_layout = ir.Layout(tuple(Iter(c(e), c(s), col) for e, s in outer))
    base = layout_ops.direct_sum(atom, outer_layout, [m, k], [32, sf_per_mma])
    if base is None:
        return "the scale-factor atom does not tile these extents"
    shard = list(base.shard)
    if sf_reuse > 1:
        shard.append(Iter(c(sf_reuse), c(0), shard[0].axis))
    if pipe_depth is not None:
        shard.insert(0, Iter(c(pipe_depth), c(m * epc), shard[0].axis))
    return ir.Layout(tuple(shard), base.replica, base.offset, None, text)


def _text(st, node) -> str:
    return scalars.source_text(st, node.span) or ""


def _mma_atom_layout(st, node, args, kwargs):
    bits, mode = _bits(st, node, args[0]), _mode(st, node, args[1])
    if bits is None or mode is None:
        return POISON
    return LayoutVal(atom_layout(bits, mode, _text(st, node)))


def _mma_atom_shape(st, node, args, kwargs):
    bits, mode = _bits(st, node, args[0]), _mode(st, node, args[1])
    shape_arg = args[2] if len(args) > 2 else kwargs.get("shape")
    if bits is None or mode is None:
        return POISON
    if mode == 0:
        return _fail(st, node, "`mma_atom_shape` has no atom for `SWIZZLE_NONE`",
                     help="TIRx's table has the 32-, 64- and 128-byte swizzles")
    shape = None if shape_arg is None or (isinstance(shape_arg, PyConst) and shape_arg.value is None) else \
        _ints(st, node, shape_arg, "`shape`")
    if shape_arg is not None and shape is None and not (isinstance(shape_arg, PyConst) and shape_arg.value is None):
        return POISON
    return new_list([PyConst(v) for v in atom_shape(bits, mode, None if shape is None else len(shape))])


def _mma_shared_layout(st, node, args, kwargs):
    bits, mode = _bits(st, node, args[0]), _mode(st, node, args[1])
    shape = _ints(st, node, args[2], "the shape")
    if bits is None or mode is None or shape is None:
        return POISON
    if len(shape) < 2:
        return _fail(st, node, "`mma_shared_layout` lays out a matrix: the shape has at least 2 dimensions")
    layout = shared_layout(bits, mode, shape, _text(st, node))
    if layout is None:
        atom = atom_shape(bits, mode)
        return _fail(st, node, f"the shape {tuple(shape)} is not a multiple of the swizzle atom {tuple(atom)} "
                               f"(rows x {bits}-bit elements)")
    return LayoutVal(layout)


def _sf_tmem_layout(st, node, args, kwargs):
    names = ("rows", "SF_K", "sf_per_mma", "sf_reuse", "pipe_depth")
    values = dict(zip(names, args))
    for key, val in kwargs.items():
        if key in values:
            return _fail(st, node, f"`sf_tmem_layout` got `{key}` twice")
        values[key] = val
    missing = [n for n in names[:3] if n not in values]
    if missing:
        return _fail(st, node, f"`sf_tmem_layout` needs `{missing[0]}`")
    numbers = {}
    for key, val in values.items():
        if key == "pipe_depth" and isinstance(val, PyConst) and val.value is None:
            continue
        if not (isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool)
                and val.value > 0):
            return _fail(st, node, f"`{key}` of `sf_tmem_layout` is a positive compile-time integer")
        numbers[key] = val.value
    got = sf_layout(numbers["rows"], numbers["SF_K"], numbers["sf_per_mma"], numbers.get("sf_reuse", 1),
                    numbers.get("pipe_depth"), _text(st, node))
    if isinstance(got, str):
        return _fail(st, node, f"`sf_tmem_layout`: {got}")
    return LayoutVal(got)


def _swizzle_mode(st, node, args, kwargs):
    """`SwizzleMode(3)`: the member of that value."""
    mode = _mode(st, node, args[0])
    return POISON if mode is None else Builtin(f"{ENUM}.{MODES[mode]}")


# the helpers, as the evaluator calls its builtins: name -> (function, fewest and most positional
# arguments, keywords) (evaluator/host.py, `library_builtins`)
BUILTINS = {
    f"{TMA}.mma_atom_layout": (_mma_atom_layout, 2, 2, ()),
    f"{TMA}.mma_atom_shape": (_mma_atom_shape, 2, 3, ("shape",)),
    f"{TMA}.mma_shared_layout": (_mma_shared_layout, 3, 3, ()),
    ENUM: (_swizzle_mode, 1, 1, ()),
    f"{GEMM}.sf_tmem_layout": (_sf_tmem_layout, 0, 5, ("rows", "SF_K", "sf_per_mma", "sf_reuse", "pipe_depth")),
}
