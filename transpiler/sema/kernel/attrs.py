"""`T.attr({...})` in the device region: the kernel attributes TIRx reads from it (docs/design.md,
decision 25) -- the second argument of `__launch_bounds__`, a register cap (`__maxnreg__`), the
declared dynamic shared-memory size and the exact-block contract."""
from __future__ import annotations

from transpiler.diag.diagnostics import Note
from transpiler.syntax import ast
from transpiler.sema.expressions import expr
from transpiler.sema import registry
from transpiler.sema.registry import handler, is_default
from transpiler.evaluator.values import POISON, Void
from transpiler import ir
from transpiler.target.arch import MAX_REGISTERS_PER_THREAD, MIN_REGISTERS_PER_THREAD
from transpiler.target.dtypes import VOID

MIN_BLOCKS = "tirx.launch_bounds_min_blocks_per_sm"
MAX_REGISTERS = "tirx.max_registers"
DYN_SMEM = "tirx.dyn_smem_bytes"
# a flag: launches use exactly the declared block; tirxc's launches always do, so it emits nothing
REQUIRED_BLOCK_SIZE = "tirx.required_block_size"
KNOWN = (MIN_BLOCKS, MAX_REGISTERS, DYN_SMEM, REQUIRED_BLOCK_SIZE)


@handler("attr", "node_or_dict", "attr_key=None", "value=None")
def _attr(st, node, a):
    table = a["node_or_dict"]
    if not is_default(a["attr_key"]) or not isinstance(table, ast.Dict):
        return registry.unsupported(st, node, "`T.attr(node, key, value)`", help=(
            "tirxc reads kernel attributes from the dictionary form: "
            f"`T.attr({{\"{MIN_BLOCKS}\": 1}})`"))
    if not st.device:
        st.diags.error("E0401", "`T.attr` belongs after `T.device_entry()`", node.span,
                       help="TIRx reads kernel attributes in the device region")
        return POISON
    for key_node, value_node in zip(table.keys, table.values):
        key = expr.const_str(st, key_node, "an attribute's key") if key_node is not None else None
        if key is None:
            continue
        if key not in KNOWN:
            st.diags.error("E0518", f"the kernel attribute \"{key}\" is not supported yet", key_node.span,
                           help="tirxc knows " + ", ".join(f"\"{k}\"" for k in KNOWN))
            continue
        value = expr.const_int(st, value_node, f"the value of \"{key}\"")
        if value is None:
            continue
        previous = st.kernel_attrs.get(key)
        if previous is not None:
            st.diags.error("E0527", f"the kernel attribute \"{key}\" is set twice", key_node.span,
                           notes=[Note("first set here", previous[1])])
            continue
        if value < (0 if key == REQUIRED_BLOCK_SIZE else 1) or (key == MAX_REGISTERS and not MIN_REGISTERS_PER_THREAD <= value <= MAX_REGISTERS_PER_THREAD):
            bounds = (f"{MIN_REGISTERS_PER_THREAD} to {MAX_REGISTERS_PER_THREAD}" if key == MAX_REGISTERS
                      else "at least 0" if key == REQUIRED_BLOCK_SIZE else "at least 1")
            st.diags.error("E0527", f"\"{key}\" is {bounds}, not {value}", value_node.span)
            continue
        st.kernel_attrs[key] = (value, key_node.span)
    if MAX_REGISTERS in st.kernel_attrs and MIN_BLOCKS in st.kernel_attrs:
        first = st.kernel_attrs[MIN_BLOCKS][1]
        st.diags.error("E0527", f"\"{MAX_REGISTERS}\" and \"{MIN_BLOCKS}\" exclude each other (CUDA's "
                                f"`__maxnreg__` replaces `__launch_bounds__`)", st.kernel_attrs[MAX_REGISTERS][1],
                       notes=[Note("the launch bound is set here", first)])
    return Void(ir.Seq(()))


def check_dynamic_smem(st, arena_bytes: int) -> None:
    """A declared dynamic shared size holds at least the arena (TIRx launches with the declared size)."""
    declared = st.kernel_attrs.get(DYN_SMEM)
    if declared is not None and declared[0] < arena_bytes:
        notes = [Note("the arena is allocated here", st.arena.span)] if st.arena is not None else []
        st.diags.error("E0527", f"\"{DYN_SMEM}\" is {declared[0]} bytes, but the kernel's dynamic shared arena "
                                f"is {arena_bytes} bytes", declared[1], notes=notes,
                       help=f"declare at least {arena_bytes} bytes, or leave the attribute out: tirxc sizes the "
                            f"launch from the arena")


def values(st) -> dict:
    """The attributes the launch needs: {key: value}."""
    return {key: value for key, (value, _) in st.kernel_attrs.items()}


# Where the kernel first synchronizes its grid; set by `T.cuda.grid_sync()` rather than written:
# TIRx's launch tag of the same name is the builder's, which a kernel file does not hold.
COOPERATIVE = "tirx.use_cooperative_launch"


@handler("cuda.grid_sync")
def _grid_sync(st, node, a):
    """A barrier of every thread of the grid (TIRx's form: cooperative groups' `this_grid().sync()`);
    the kernel is launched cooperatively, which the host checks the grid fits for. In a device
    function, every kernel that calls it (directly or through other device functions) is."""
    if not st.device:
        st.diags.error("E0401", "`T.cuda.grid_sync` belongs after `T.device_entry()`", node.span)
        return POISON
    st.kernel_attrs.setdefault(COOPERATIVE, (node.span, node.span))
    return Void(ir.Evaluate(ir.Call(VOID, "tirx_cuda_grid_sync", (), node.span), node.span))
