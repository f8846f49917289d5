"""`T.ptx.*` calls: PTX instructions checked against target/ptx.py, their operands, and the
tcgen05 rules (warp-uniform guards, TMEM addresses)."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.ir import layout as layouts
from transpiler.syntax import ast
from transpiler.target import ptx
from transpiler.target.arch import TMEM_COLUMNS, TMEM_MIN_ALLOC_COLUMNS
from transpiler.target.dtypes import HANDLE, INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry, scalars, expr, threads
from transpiler.sema.values import POISON, Pointer, Poison, Region, Void
from transpiler.sema.registry import CALLS, is_default


_TCGEN05_KEYWORD_FORMS = {
    "alloc": ("tcgen05.alloc.cta_group::{g}.sync.aligned.shared::cta.b32", ("dst",), True),
    "dealloc": ("tcgen05.dealloc.cta_group::{g}.sync.aligned.b32", ("taddr",), True),
    "relinquish_alloc_permit": ("tcgen05.relinquish_alloc_permit.cta_group::{g}.sync.aligned", (), False),
}


def ptx_call(st, path: tuple[str, ...], node: ast.Call, mnemonic: str | None = None):
    """A call of T.ptx.<path>(...) or of T.ptx["mnemonic"](...)."""
    if mnemonic is None:
        if len(path) == 2 and path[0] == "tcgen05" and path[1] in _TCGEN05_KEYWORD_FORMS:
            return tcgen05_keyword_form(st, path[1], node)
        mnemonic = ptx.from_attribute_path(path)
    instr = ptx.lookup(mnemonic)
    if instr is None:
        close = ptx.close_mnemonics(mnemonic)
        st.diags.error("E0601", f"`{mnemonic}` is not a PTX instruction tirxc knows", node.func.span,
                         help=("did you mean " + " or ".join(f"`{c}`" for c in close) + "?") if close else
                         "see `tirxc --explain E0601` for the supported instructions")
        return POISON
    if node.keywords:
        st.diags.error("E0311", f"`{mnemonic}` takes its operands positionally", node.keywords[0].span)
        return POISON
    return ptx_instruction_call(st, instr, list(node.args), node)


def tcgen05_keyword_form(st, name: str, node: ast.Call):
    """The seed's spelling: `T.ptx.tcgen05.alloc(ptr, n_cols=512, cta_group=1)` and friends."""
    template, positional, takes_cols = _TCGEN05_KEYWORD_FORMS[name]
    params = positional + (("n_cols",) if takes_cols else ()) + ("cta_group=1",)
    args = registry.bind_args(st, node, params, f"T.ptx.tcgen05.{name}")
    if args is None:
        return POISON
    group = 1 if is_default(args["cta_group"]) else expr.const_int(st, args["cta_group"], "`cta_group`")
    if group is None:
        return POISON
    if group not in (1, 2):
        st.diags.error("E0701", f"`cta_group={group}`: tensor memory is allocated per CTA (1) or per CTA "
                                  f"pair (2)", args["cta_group"].span)
        return POISON
    operands = [args[p] for p in positional] + ([args["n_cols"]] if takes_cols else [])
    return ptx_instruction_call(st, ptx.lookup(template.format(g=group)), operands, node)


# -- operands --------------------------------------------------------------------------------------
def ptx_instruction_call(st, instr: ptx.Instruction, arg_nodes, node: ast.Call):
    if len(arg_nodes) != len(instr.operands):
        roles = ", ".join(op.name or f"{op.role} {op.kind if op.role in ('in', 'out') else op.space}".strip()
                          for op in instr.operands) or "none"
        st.diags.error("E0305", f"`{instr.mnemonic}` takes {len(instr.operands)} operand"
                                  f"{'s' if len(instr.operands) != 1 else ''} ({roles}), got {len(arg_nodes)}",
                         node.span)
        return POISON
    args, template = [], []
    for index, (op, arg) in enumerate(zip(instr.operands, arg_nodes)):
        value = ptx_operand(st, instr, index, op, arg)
        if value is POISON:
            return POISON
        if op.role == "imm":
            template.append(str(value))
        else:
            args.append(value)
    state.require_arch(st, instr.min_arch, f"`{instr.mnemonic}`", node.span, instr.suffix)
    if instr.mnemonic.startswith("tcgen05."):
        tcgen05_rules(st, instr, args, arg_nodes, node)
    name = instr.helper + (f"<{', '.join(template)}>" if template else "")
    if instr.returns:
        return ir.Call(parse_dtype(ptx._C[instr.returns][1]), name, tuple(args), node.span)
    return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))


def ptx_operand(st, instr, index: int, op: ptx.Operand, arg):
    where = f"operand {index + 1} of `{instr.mnemonic}`"
    if op.role == "imm":
        return expr.const_int(st, arg, f"{where} (an immediate)")
    if op.role == "addr":
        val = expr.elab(st, arg)
        if isinstance(val, Pointer):
            val = ir.BufferAddress(HANDLE, val.buffer, None, arg.span)
        if isinstance(val, Poison):
            return POISON
        if not isinstance(val, ir.BufferAddress):
            st.diags.error("E0602", f"{where} is a {op.space} memory address", arg.span,
                             help="pass a pointer such as `A.ptr_to([i])`, `A.data` or `T.address_of(A[i])`")
            return POISON
        scope = val.buffer.scope
        wanted = ("shared", "shared.dyn") if op.space == "shared" else ("global",)
        if scope not in wanted:
            st.diags.error("E0602", f"{where} is a {op.space} memory address, but `{val.buffer.name}` is in "
                                      f"{scope} memory", arg.span)
            return POISON
        return val
    val = expr.elab(st, arg)
    if op.role == "in" and op.name == "taddr" and isinstance(val, (ir.Buffer, Region)):
        return tmem_address(st, val, arg)
    dtype = parse_dtype(op.dtype)
    if op.role == "out":
        if not (isinstance(val, ir.BufferLoad) and val.buffer.scope == "local"):
            if not isinstance(val, Poison):
                st.diags.error("E0602", f"{where} is an output register: pass an element of a register "
                                          f"buffer, such as `r[0]`", arg.span)
            return POISON
        if val.dtype != dtype:
            st.diags.error("E0602", f"{where} is a {op.kind} register, but `{val.buffer.name}` holds "
                                      f"{val.dtype}", arg.span,
                             help=f"declare the register buffer as \"{dtype}\"")
            return POISON
        return val
    value = scalars.as_value(st, val, arg.span, dtype)
    if value is POISON:
        return POISON
    if value.dtype != dtype:
        if isinstance(value, ir.IntImm) and dtype.is_int:
            return ir.cast(dtype, value)
        st.diags.error("E0602", f"{where} is a {op.kind} value, got {value.dtype}", arg.span,
                         help=f"convert it: `T.cast(..., \"{dtype}\")` or `T.reinterpret(\"{dtype}\", ...)`")
        return POISON
    return value


# -- tensor memory ---------------------------------------------------------------------------------
def tcgen05_rules(st, instr, args, arg_nodes, node) -> None:
    """docs/design.md, decision 14: column counts, warp-uniform guards, the slot, matching dealloc."""
    mnemonic = instr.mnemonic
    kind = mnemonic.split(".")[1]
    if kind in ("alloc", "dealloc", "relinquish_alloc_permit"):
        require_warp_uniform_guard(st, f"`tcgen05.{kind}`", node)
    if kind in ("alloc", "dealloc"):
        columns = args[1]
        if isinstance(columns, ir.IntImm):
            n = columns.value
            if n < TMEM_MIN_ALLOC_COLUMNS or n > TMEM_COLUMNS or n & (n - 1):
                st.diags.error("E0701", f"{n} tensor-memory columns: the count must be a power of two "
                                          f"from {TMEM_MIN_ALLOC_COLUMNS} to {TMEM_COLUMNS}", arg_nodes[1].span)
    if kind == "alloc":
        slot = args[0]
        if slot.buffer.dtype != UINT32:
            st.diags.error("E0704", f"the `tcgen05.alloc` slot `{slot.buffer.name}` holds {slot.buffer.dtype}; "
                                      f"it must be a shared uint32", arg_nodes[0].span,
                             help="declare it as `T.alloc_shared((1,), \"uint32\")`")
        columns = args[1].value if isinstance(args[1], ir.IntImm) else None
        if st.tmem_alloc is not None:
            st.diags.error("E0705", "a second `tcgen05.alloc` in this kernel", node.span,
                             notes=[Note("the first allocation is here", st.tmem_alloc[2])])
        else:
            st.tmem_alloc = (slot.buffer, columns, node.span)
    if kind == "dealloc" and st.tmem_alloc is not None:
        _, allocated, span = st.tmem_alloc
        columns = args[1]
        if allocated is not None and isinstance(columns, ir.IntImm) and columns.value != allocated:
            st.diags.error("E0706", f"`tcgen05.dealloc` of {columns.value} columns, but {allocated} were "
                                      f"allocated", arg_nodes[1].span, notes=[Note("allocated here", span)])


def require_warp_uniform_guard(st, what: str, node) -> None:
    guard = st.guards[-1] if st.guards else None
    if guard is None or not is_warp_uniform_test(st, guard):
        st.diags.error("E0703", f"{what} must be executed by one whole warp", node.span,
                         help="guard it with a warp-uniform test such as `if warp_id == 0:` "
                              "(`T.warp_id` is warp-uniform; lane tests and `elect_sync()` are not)")


def is_warp_uniform_test(st, cond: ir.Expr) -> bool:
    if isinstance(cond, ir.BinOp) and cond.op == "==":
        sides = (cond.a, cond.b)
        return any(isinstance(s, ir.Var) and s.name in threads.warp_uniform(st) for s in sides) and \
            any(isinstance(s, ir.IntImm) for s in sides)
    if isinstance(cond, ir.BinOp) and cond.op == "&&":
        return is_warp_uniform_test(st, cond.a) or is_warp_uniform_test(st, cond.b)
    return False


def tmem_buffer(st, shape, dtype, layout, allocated_addr, span):
    """`T.decl_buffer(..., scope="tmem", allocated_addr=..., layout=...)` and `tmem_pool.alloc(...)`:
    the buffer, declared as a pending view."""
    if layout is None:
        layout = layouts.tile_layout(list(shape), [ir.IntImm(INT32, 1)] * len(shape),
                                     ["TLane", "TCol"] if len(shape) == 2 else ["TCol"] * len(shape))
    bad = [it.axis for it in layout.shard + layout.replica if it.axis not in ("TLane", "TCol")]
    if bad:
        st.diags.error("E0517", f"a tensor-memory layout uses the `TLane` and `TCol` axes, not `{bad[0]}`", span)
        return POISON
    buf = ir.Buffer("", tuple(shape), dtype, "tmem", None, layout, None, 0, span, allocated_addr=allocated_addr)
    st.pending.append(ir.DeclView(buf, span))  # no C storage; lowering records its columns for `tirxc info`
    return buf


def tmem_address(st, val, arg):
    """The 32-bit tensor-memory address of a tmem buffer (or of a region's first element)."""
    buf = val.buffer if isinstance(val, Region) else val
    if buf.scope != "tmem":
        st.diags.error("E0602", f"`{buf.name}` is not in tensor memory", arg.span)
        return POISON
    if st.tmem_alloc is None:
        st.diags.error("E0707", f"`{buf.name}` is used before any `tcgen05.alloc` in this kernel", arg.span,
                         help="allocate the columns first (by hand or with `T.TMEMPool.commit()`)")
        return POISON
    slot = st.tmem_alloc[0]
    base = ir.BufferLoad(UINT32, slot, (ir.IntImm(INT32, 0),), arg.span)
    starts = val.starts if isinstance(val, Region) else tuple(ir.IntImm(INT32, 0) for _ in buf.shape)
    axes = layouts.apply(buf.layout, list(starts), list(buf.shape))
    lane = layouts.linear_index(axes.get("TLane", []))
    column = layouts.linear_index(axes.get("TCol", []), buf.allocated_addr)
    offset = ir.add(ir.binop("<<", lane, ir.IntImm(INT32, 16)), column)
    return ir.add(base, ir.cast(UINT32, offset))


CALLS["ptx"] = ptx_call
