"""`T.ptx.*` calls: PTX instructions checked against target/ptx.py, their operands, and the
tcgen05 rules (warp-uniform guards, TMEM addresses)."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.ir import layout as layouts
from transpiler.syntax import ast
from transpiler.target import ptx
from transpiler.target.arch import TMEM_COLUMNS, TMEM_MIN_ALLOC_COLUMNS
from transpiler.target.dtypes import BOOL, HANDLE, INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry, scalars, expr, threads, tmem_packing
from transpiler.sema.values import POISON, Pointer, Poison, PyConst, Region, Void
from transpiler.sema.registry import CALLS, is_default


_TCGEN05_KEYWORD_FORMS = {
    "alloc": ("tcgen05.alloc.cta_group::{g}.sync.aligned.shared::cta.b32", ("dst",), True),
    "dealloc": ("tcgen05.dealloc.cta_group::{g}.sync.aligned.b32", ("taddr",), True),
    "relinquish_alloc_permit": ("tcgen05.relinquish_alloc_permit.cta_group::{g}.sync.aligned", (), False),
}


def ptx_call(st, path: tuple[str, ...], node: ast.Call, mnemonic: str | None = None):
    """A call of T.ptx.<path>(...) or of T.ptx["mnemonic"](...)."""
    if mnemonic is None:
        if path == ("pred",):
            return predicate_evidence(st, node)
        if len(path) == 2 and path[0] == "tcgen05" and path[1] in _TCGEN05_KEYWORD_FORMS:
            return tcgen05_keyword_form(st, path[1], node)
        mnemonic = ptx.from_attribute_path(path)
    found = ptx.forms(mnemonic)
    if isinstance(found, str):
        st.diags.error("E0603", f"`{mnemonic}` is not a valid form: {found}", node.func.span,
                         help="see docs/ptx.md for the forms of each family")
        return POISON
    if found is None:
        close = ptx.close_mnemonics(mnemonic)
        st.diags.error("E0601", f"`{mnemonic}` is not a PTX instruction tirxc knows", node.func.span,
                         help=("did you mean " + " or ".join(f"`{c}`" for c in close) + "?") if close else
                         "see `tirxc --explain E0601` for the supported instructions")
        return POISON
    pred = None
    for keyword in node.keywords:
        if keyword.name != "pred":
            st.diags.error("E0311", f"`{mnemonic}` takes its operands positionally (and `pred=`)", keyword.span)
            return POISON
        pred = keyword
    return ptx_instruction_call(st, found, list(node.args), node, pred)


def predicate_evidence(st, node: ast.Call):
    """`T.ptx.pred(x)`: TIRx's mark that an integer is meant as a predicate; tirxc takes any
    integer or bool value where a predicate goes, so the mark is the value itself."""
    args = registry.bind_args(st, node, ("x",), "T.ptx.pred")
    if args is None:
        return POISON
    return predicate_value(st, args["x"], "`T.ptx.pred(...)`")


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
    return ptx_instruction_call(st, [ptx.lookup(template.format(g=group))], operands, node)


# -- choosing the form -----------------------------------------------------------------------------
def _describe(instr: ptx.Instruction) -> str:
    return ", ".join(op.describe() for op in instr.operands) or "none"


def choose_form(st, candidates: list[ptx.Instruction], arg_nodes, node: ast.Call, cache: dict):
    """The form a call means: the one with as many operands as the call has arguments; where
    several have that many, the first whose operand roles and widths fit the arguments."""
    fitting = [f for f in candidates if len(f.operands) == len(arg_nodes)]
    if not fitting:
        mnemonic = candidates[0].mnemonic
        if len(candidates) == 1:
            instr = candidates[0]
            n = len(instr.operands)
            st.diags.error("E0305", f"`{mnemonic}` takes {n} operand{'s' if n != 1 else ''} ({_describe(instr)}), "
                                      f"got {len(arg_nodes)}", node.span)
        else:
            forms = "; ".join(f"{len(f.operands)} ({_describe(f)})" for f in candidates)
            st.diags.error("E0305", f"`{mnemonic}` takes {forms} operands, got {len(arg_nodes)}", node.span)
        return None
    if len(fitting) == 1:
        return fitting[0]
    for form in fitting:
        if all(_fits(st, op, i, arg_nodes[i], cache) for i, op in enumerate(form.operands)):
            return form
    return fitting[0]  # none fits: the canonical form's checks say why


def _elab_once(st, index: int, arg, cache: dict):
    if index not in cache:
        cache[index] = expr.elab(st, arg)
    return cache[index]


def _fits(st, op: ptx.Operand, index: int, arg, cache: dict) -> bool:
    if op.role == "imm":
        val = _elab_once(st, index, arg, cache)
        return isinstance(val, ir.IntImm) or (isinstance(val, PyConst) and isinstance(val.value, int))
    val = _elab_once(st, index, arg, cache)
    is_addr = isinstance(val, (Pointer, ir.BufferAddress))
    if op.role == "addr":
        return is_addr
    if is_addr:
        return False
    if op.role in ("out", "inout") and not isinstance(val, ir.BufferLoad):
        return False
    dtype = getattr(val, "dtype", None)
    if dtype is None or op.kind == "pred":
        return True
    return dtype.nbytes == parse_dtype(op.dtype).nbytes or (isinstance(val, ir.IntImm) and op.role == "in")


# -- operands --------------------------------------------------------------------------------------
def ptx_instruction_call(st, candidates, arg_nodes, node: ast.Call, pred=None):
    cache: dict = {}
    instr = choose_form(st, candidates, arg_nodes, node, cache)
    if instr is None:
        return POISON
    args, template = [], []
    for index, (op, arg) in enumerate(zip(instr.operands, arg_nodes)):
        value = ptx_operand(st, instr, index, op, arg, cache)
        if value is POISON:
            return POISON
        if op.role == "imm":
            template.append(str(value))
        else:
            args.append(value)
    if pred is not None:
        if instr.has_dest:
            st.diags.error("E0604", f"`pred=` guards only instructions without a destination; `{instr.mnemonic}` "
                                      f"writes {'a result' if instr.returns else 'registers'}", pred.span,
                             help="branch around it with `if` instead")
            return POISON
        guard = predicate_value(st, pred.value, f"`pred=` of `{instr.mnemonic}`")
        if guard is POISON:
            return POISON
        instr = ptx.predicated(instr)
        args.append(guard)
    require_instruction_arch(st, instr, node.span)
    if instr.mnemonic.startswith("tcgen05."):
        tcgen05_rules(st, instr, args, arg_nodes, node)
    name = instr.helper + (f"<{', '.join(template)}>" if template else "")
    if instr.returns:
        return ir.Call(parse_dtype(ptx.KINDS[instr.returns][1]), name, tuple(args), node.span)
    return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))


def require_instruction_arch(st, instr: ptx.Instruction, span) -> None:
    """An arch-specific family needs one of its architectures with the `a` suffix (the
    target's own, when it is one of them); the others a minimum architecture."""
    target = st.module.arch
    if instr.suffix and target is not None and target[1] == "a" and target[0] in instr.specific:
        state.require_arch(st, target[0], f"`{instr.mnemonic}`", span, "a")
        return
    state.require_arch(st, instr.min_arch, f"`{instr.mnemonic}`", span, instr.suffix)


def predicate_value(st, arg, where: str):
    """A predicate operand: any integer or bool value, true when non-zero (as uint32)."""
    val = expr.elab(st, arg)
    value = scalars.as_value(st, val, arg.span, UINT32)
    if value is POISON:
        return POISON
    if not (value.dtype.is_int or value.dtype == BOOL):
        st.diags.error("E0602", f"{where} is a predicate: an integer or bool value, got {value.dtype}", arg.span)
        return POISON
    if isinstance(value, ir.IntImm):
        return ir.IntImm(UINT32, 1 if value.value else 0, value.span)
    return value if value.dtype == UINT32 else ir.cast(UINT32, value)


def ptx_operand(st, instr, index: int, op: ptx.Operand, arg, cache: dict | None = None):
    where = f"operand {index + 1} of `{instr.mnemonic}`"
    cache = {} if cache is None else cache
    if op.role == "imm":
        value = expr.const_int(st, arg, f"{where} (an immediate)")
        if value is not None and op.choices and value not in op.choices:
            shown = ", ".join(map(str, op.choices)) if len(op.choices) <= 8 else \
                f"{op.choices[0]}, {op.choices[1]}, ... {op.choices[-1]}"
            st.diags.error("E0605", f"{where} ({op.describe()}) is {value}; the ISA allows {shown}", arg.span)
            return POISON
        return POISON if value is None else value
    if op.role == "addr":
        val = _elab_once(st, index, arg, cache)
        if isinstance(val, Pointer):
            val = ir.BufferAddress(HANDLE, val.buffer, None, arg.span)
        if isinstance(val, Poison):
            return POISON
        if not isinstance(val, ir.BufferAddress):
            st.diags.error("E0602", f"{where} is a {op.space} memory address", arg.span,
                             help="pass a pointer such as `A.ptr_to([i])`, `A.data` or `T.address_of(A[i])`")
            return POISON
        scope = val.buffer.scope
        wanted = {"shared": ("shared", "shared.dyn"), "global": ("global",)}.get(op.space)
        if wanted is not None and scope not in wanted:
            st.diags.error("E0602", f"{where} is a {op.space} memory address, but `{val.buffer.name}` is in "
                                      f"{scope} memory", arg.span)
            return POISON
        return val
    val = _elab_once(st, index, arg, cache)
    if op.role == "in" and op.name in ("taddr", "d_tmem", "scale_a_tmem", "scale_b_tmem") \
            and isinstance(val, (ir.Buffer, Region)) and (val if isinstance(val, ir.Buffer) else val.buffer).scope == "tmem":
        return tmem_address(st, val, arg)
    if op.role == "in" and op.kind == "pred":
        return predicate_value(st, arg, where) if not isinstance(val, Poison) else POISON
    dtype = parse_dtype(op.dtype)
    accepts = [parse_dtype(d) for d in op.accepts]
    if op.role in ("out", "inout"):
        if not (isinstance(val, ir.BufferLoad) and val.buffer.scope == "local"):
            if not isinstance(val, Poison):
                st.diags.error("E0602", f"{where} is {'an output' if op.role == 'out' else 'a read-and-written'} "
                                          f"register: pass an element of a register buffer, such as `r[0]`",
                                 arg.span)
            return POISON
        if val.dtype not in accepts:
            st.diags.error("E0602", f"{where} is a {op.kind} register, but `{val.buffer.name}` holds "
                                      f"{val.dtype}", arg.span,
                             help="declare the register buffer as " + " or ".join(f'"{d}"' for d in op.accepts))
            return POISON
        return val
    value = scalars.as_value(st, val, arg.span, dtype)
    if value is POISON:
        return POISON
    if value.dtype != dtype:
        if isinstance(value, ir.IntImm) and dtype.is_int:
            return ir.cast(dtype, value)
        if value.dtype in accepts:  # a .bN operand takes any N-bit value: pass its bits
            return ir.Reinterpret(dtype, value, arg.span)
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
    index = layouts.linear_index(axes.get("TCol", []))  # in elements: 8/16-bit data packs (tmem_packing.py)
    if not tmem_packing.check_boundary(st, index, buf.dtype, arg.span):
        return POISON
    column = tmem_packing.column(index, buf.dtype, buf.allocated_addr)
    offset = ir.add(ir.binop("<<", lane, ir.IntImm(INT32, 16)), column)
    return ir.add(base, ir.cast(UINT32, offset))


CALLS["ptx"] = ptx_call
