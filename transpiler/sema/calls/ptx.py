"""`T.ptx.*` calls: PTX instructions checked against the table of target/ptx/, their operands, and the
tcgen05 rules (warp-uniform guards, TMEM addresses)."""
from __future__ import annotations

import re

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.ir import layout as layouts
from transpiler.syntax import ast
from transpiler.target import ptx
from transpiler.target.arch import TMEM_COLUMNS, TMEM_MIN_ALLOC_COLUMNS
from transpiler.target.dtypes import BOOL, HANDLE, INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry
from transpiler.sema.expressions import scalars, expr
from transpiler.sema.kernel import threads, unrolled_constants
from transpiler.sema.memory import tmem_packing, typed_pointers
from transpiler.evaluator.values import POISON, Poison, PyConst, Void
from transpiler.sema.values import Pointer, Region
from transpiler.sema.registry import is_default


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
        if path == ("addr",):
            return address_plus(st, node)
        if len(path) == 2 and path[0] == "tcgen05" and path[1] in _TCGEN05_KEYWORD_FORMS:
            return tcgen05_keyword_form(st, path[1], node)
        mnemonic = ptx.from_attribute_path(path)
        modifiers = printed_modifiers(node.args)
        if modifiers is not None:  # the printer's form: the modifiers as trailing strings
            mnemonic = ".".join([mnemonic] + [m for m in modifiers if m])
            node = ast.Call(node.span, node.func, node.args[:len(node.args) - len(modifiers)], node.keywords)
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
    pred = preserve = None
    for keyword in node.keywords:
        if keyword.name not in ("pred", "preserve_dst"):
            st.diags.error("E0311", f"`{mnemonic}` takes its operands positionally (and `pred=`, `preserve_dst=`)",
                           keyword.span)
            return POISON
        if keyword.name == "pred":
            pred = keyword
        else:
            preserve = keyword
    return ptx_instruction_call(st, found, list(node.args), node, pred, preserve)


_MODIFIER = re.compile(r"[A-Za-z0-9_:]*")  # a modifier slot's text ("" for one left out)


def printed_modifiers(args) -> list[str] | None:
    """The trailing string arguments of TIRx's printed PTX call (`T.ptx.cp(dst, src, n, "async",
    "bulk", "", ...)`: the mnemonic's modifier slots in order, "" for one left out); None when
    the call has none."""
    count = 0
    while count < len(args) and isinstance(args[-1 - count], ast.Constant) \
            and isinstance(args[-1 - count].value, str) and _MODIFIER.fullmatch(args[-1 - count].value):
        count += 1
    return [a.value for a in args[len(args) - count:]] if count else None


def predicate_evidence(st, node: ast.Call):
    """`T.ptx.pred(x)`: TIRx's mark that an integer is meant as a predicate; tirxc takes any
    integer or bool value where a predicate goes, so the mark is the value itself."""
    args = registry.bind_args(st, node, ("x",), "T.ptx.pred")
    if args is None:
        return POISON
    return predicate_value(st, args["x"], "`T.ptx.pred(...)`")


def address_plus(st, node: ast.Call):
    """`T.ptx.addr(base, byte_offset)`: the address `byte_offset` bytes past the pointer `base`
    (TIRx's `[base+offset]` operand). tirxc adds the offset to the pointer in C, so the operand
    is the same address; the offset is a compile-time multiple of the element size."""
    args = registry.bind_args(st, node, ("base", "byte_offset"), "T.ptx.addr")
    if args is None:
        return POISON
    base = expr.elab(st, args["base"])
    # a constant, or one in each copy of the enclosing `T.unroll` loops (unrolled_constants.py)
    offset, copies = unrolled_constants.const_int_per_copy(st, args["byte_offset"], "the byte offset of `T.ptx.addr`")
    if isinstance(base, Poison) or offset is None:
        return POISON
    if isinstance(base, Pointer):
        base = ir.BufferAddress(HANDLE, base.buffer, None, args["base"].span)
    if not isinstance(base, ir.BufferAddress):
        st.diags.error("E0602", "the base of `T.ptx.addr` is a pointer", args["base"].span,
                       help="pass a pointer such as `A.ptr_to([i])`, `A.data` or `T.address_of(A[i])`")
        return POISON
    buf = base.buffer
    size = buf.dtype.nbytes
    for value in copies or [offset]:
        if not -(1 << 31) <= value < 1 << 31:
            st.diags.error("E0602", f"the byte offset {value} of `T.ptx.addr` is not a 32-bit integer",
                           args["byte_offset"].span)
            return POISON
        if value % size or (buf.layout is not None and not layouts.is_memory_only(buf.layout)) or \
                buf.scope == "tmem":
            why = f"a byte offset that is not a multiple of `{buf.name}`'s {size}-byte elements" if value % size \
                else f"an offset into `{buf.name}`, whose layout is not plain memory"
            return registry.unsupported(st, args["byte_offset"], f"`T.ptx.addr` with {why}")
    indices = base.indices if base.indices is not None else tuple(ir.IntImm(INT32, 0) for _ in buf.shape)
    step = ir.IntImm(indices[-1].dtype, offset // size) if copies is None else \
        ir.binop("floordiv", ir.cast(indices[-1].dtype, offset), ir.IntImm(indices[-1].dtype, size))
    last = ir.add(indices[-1], step)
    return ir.BufferAddress(HANDLE, buf, tuple(indices[:-1]) + (last,), node.span)


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


_SINK = object()  # the cache entry of a `T.ptx.SINK` argument


def is_sink(arg) -> bool:
    """`T.ptx.SINK`: the ISA's sink symbol `_` in place of one operand."""
    return (isinstance(arg, ast.Attribute) and arg.attr == "SINK" and isinstance(arg.value, ast.Attribute)
            and arg.value.attr == "ptx")


def _fits(st, op: ptx.Operand, index: int, arg, cache: dict) -> bool:
    if cache.get(index) is _SINK:
        return op.is_dest
    if op.role == "imm":
        val = _elab_once(st, index, arg, cache)
        return isinstance(val, ir.IntImm) or (isinstance(val, PyConst) and isinstance(val.value, int))
    val = _elab_once(st, index, arg, cache)
    if _is_tmem(val):  # a tensor-memory buffer goes where a tensor-memory address does
        return op.role == "in" and op.name in ptx.TMEM_OPERANDS
    is_addr = isinstance(val, (Pointer, ir.BufferAddress, typed_pointers.TypedPointer)) \
        or typed_pointers.is_address(val) or _window_address(val) is not None
    if op.role == "addr":
        return is_addr
    if is_addr:
        return False
    if isinstance(val, ir.Buffer) and val.scalar and val.scope == "local":  # `v = T.local_scalar(...)`
        return op.role in ("out", "inout", "in") and val.dtype.nbytes == parse_dtype(op.dtype).nbytes
    if op.role in ("out", "inout") and not isinstance(val, ir.BufferLoad):
        return False
    dtype = getattr(val, "dtype", None)
    if dtype is None or op.kind == "pred":
        return True
    return dtype.nbytes == parse_dtype(op.dtype).nbytes or (isinstance(val, ir.IntImm) and op.role == "in")


def _window_address(val):
    """The shared-memory address inside `T.cuda.cvta_generic_to_shared(address)` (TIRx's
    printed operands give the shared window so); None for any other value."""
    if isinstance(val, ir.Call) and val.func == "tirx_cuda_cvta_generic_to_shared" and len(val.args) == 1 \
            and isinstance(val.args[0], ir.BufferAddress):
        return val.args[0]
    return None


def _is_tmem(val) -> bool:
    return isinstance(val, (ir.Buffer, Region)) and (val if isinstance(val, ir.Buffer) else val.buffer).scope == "tmem"


# -- operands --------------------------------------------------------------------------------------
def _preserve_flag(st, keyword) -> bool | None:
    """`preserve_dst=`: a compile-time bool (None after an error)."""
    val = expr.elab(st, keyword.value)
    if isinstance(val, PyConst) and isinstance(val.value, (bool, int)):
        return bool(val.value)
    if isinstance(val, ir.IntImm):
        return bool(val.value)
    if not isinstance(val, Poison):
        st.diags.error("E0602", "`preserve_dst=` is a compile-time `True` or `False`", keyword.value.span)
    return None


def _sinks(st, instr, arg_nodes) -> tuple[int, ...] | None:
    """The operands written `T.ptx.SINK`, where the ISA allows the sink (None after an error)."""
    sinks = tuple(i for i, arg in enumerate(arg_nodes) if is_sink(arg))
    for i in sinks:
        if i not in instr.sinkable:
            where = ("`_` goes only in place of " + ", ".join(f"operand {k + 1}" for k in instr.sinkable)
                     if instr.sinkable else "it takes no `_` operand")
            st.diags.error("E0608", f"operand {i + 1} of `{instr.mnemonic}` ({instr.operands[i].describe()}) "
                                      f"cannot be `T.ptx.SINK`: {where}", arg_nodes[i].span)
            return None
    if sinks and set(instr.sinkable) <= set(sinks):
        st.diags.error("E0608", f"every destination of `{instr.mnemonic}` is `T.ptx.SINK`; the ISA wants at "
                                  "least one register", arg_nodes[sinks[-1]].span)
        return None
    return sinks


def ptx_instruction_call(st, candidates, arg_nodes, node: ast.Call, pred=None, preserve=None):
    cache: dict = {i: _SINK for i, arg in enumerate(arg_nodes) if is_sink(arg)}
    instr = choose_form(st, candidates, arg_nodes, node, cache)
    if instr is None:
        return POISON
    sinks = _sinks(st, instr, arg_nodes) if cache else ()
    if sinks is None:
        return POISON
    args, template = [], []
    for index, (op, arg) in enumerate(zip(instr.operands, arg_nodes)):
        if index in sinks:
            continue
        value = ptx_operand(st, instr, index, op, arg, cache)
        if value is POISON:
            return POISON
        if op.role == "imm":
            template.append(str(value))
        else:
            args.append(value)
    keep = False
    if preserve is not None:
        keep = _preserve_flag(st, preserve)
        if keep is None:
            return POISON
        if keep and (pred is None or not instr.has_dest):
            st.diags.error("E0604", "`preserve_dst=True` keeps the destinations of a `pred=`-guarded instruction; "
                                      + ("this call has no `pred=`" if instr.has_dest else
                                         f"`{instr.mnemonic}` has none"), preserve.span)
            return POISON
    if pred is not None:
        if instr.has_dest and not keep:
            st.diags.error("E0604", f"`pred=` on `{instr.mnemonic}`, which writes "
                                      f"{'a result' if instr.returns else 'registers'}, needs `preserve_dst=True` "
                                      f"(they keep their values where the predicate is false)", pred.span,
                             help="add `preserve_dst=True`, or branch around it with `if`")
            return POISON
        guard = predicate_value(st, pred.value, f"`pred=` of `{instr.mnemonic}`")
        if guard is POISON:
            return POISON
        instr = ptx.predicated(instr, keep)
        args.append(guard)
    if sinks:
        instr = ptx.sunk(instr, sinks)
    taking = [k for k, op in enumerate(instr.operands) if op.role != "imm" and k not in sinks]  # (as args are)
    narrow = tuple(k for k, value in zip(taking, args) if instr.operands[k].is_dest and isinstance(value, ir.BufferLoad)
                   and value.dtype not in [parse_dtype(d) for d in instr.operands[k].accepts]
                   and _carries_a_byte(instr, instr.operands[k])
                   and _narrower_int(value.dtype, parse_dtype(instr.operands[k].dtype)))
    if narrow:
        instr = ptx.narrowed(instr, narrow)
    require_instruction_arch(st, instr, node.span)
    if instr.mnemonic.startswith("tcgen05."):
        tcgen05_rules(st, instr, args, arg_nodes, node)
        if "cta_group::2" in instr.mnemonic:
            require_cta_pairs(st, f"`{instr.mnemonic}`", node.span)
    st.module.ptx_instructions[instr.helper] = instr
    name = instr.helper + (f"<{', '.join(template)}>" if template else "")
    if instr.returns:
        return ir.Call(parse_dtype(ptx.KINDS[instr.returns][1]), name, tuple(args), node.span)
    return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))


def require_instruction_arch(st, instr: ptx.Instruction, span) -> None:
    """The instruction's family, asked of the target (an arch-specific family on a target that
    has it needs that target)."""
    state.require(st, instr.feature, f"`{instr.mnemonic}`", span)


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
        val = typed_pointers.operand_address(val, arg.span)
        if typed_pointers.is_address(val):  # a generic address made from an integer: its space is the author's
            return val
        if op.space == "shared" and _window_address(val) is not None:
            val = _window_address(val)  # the helper converts it to the shared window itself
        if isinstance(val, ir.Cast) and isinstance(val.a, ir.BufferAddress) and val.a.buffer.storage is not None \
                and val.a.buffer.storage.kind == "tensormap" and op.space == "generic":
            val = val.a  # `T.address_of(A_map)`: the map's generic address (`prefetch.tensormap [a]`)
        if not isinstance(val, ir.BufferAddress):
            st.diags.error("E0602", f"{where} is a {op.space} memory address", arg.span,
                             help="pass a pointer such as `A.ptr_to([i])`, `A.data` or `T.address_of(A[i])`")
            return POISON
        scope = val.buffer.scope
        wanted = {"shared": ("shared", "shared.dyn"), "global": ("global",), "local": ("local",)}.get(op.space)
        if wanted is not None and scope not in wanted:
            st.diags.error("E0602", f"{where} is a {op.space} memory address, but `{val.buffer.name}` is in "
                                      f"{scope} memory", arg.span)
            return POISON
        return val
    val = _elab_once(st, index, arg, cache)
    if op.role == "in" and op.name in ptx.TMEM_OPERANDS and _is_tmem(val):
        return tmem_address(st, val, arg)
    if op.role == "in" and op.kind == "pred":
        return predicate_value(st, arg, where) if not isinstance(val, Poison) else POISON
    dtype = parse_dtype(op.dtype)
    accepts = [parse_dtype(d) for d in op.accepts]
    if op.role in ("out", "inout"):
        if isinstance(val, ir.Buffer) and val.scalar and val.scope == "local":  # `v = T.local_scalar(...)`
            val = ir.BufferLoad(val.dtype, val, (ir.IntImm(INT32, 0),), arg.span)
        # an element of a buffer in any memory (`r[0]`, or `A[0]` of a global buffer, stored after the
        # instruction, as TIRx's inline asm binds any lvalue)
        if not (isinstance(val, ir.BufferLoad) and val.buffer.scope in _OUTPUT_SCOPES and val.dtype.lanes == 1):
            if not isinstance(val, Poison):
                st.diags.error("E0602", f"{where} is {'an output' if op.role == 'out' else 'a read-and-written'} "
                                          f"register: pass a register scalar (`T.local_scalar`) or an element of a buffer, such as `r[0]`",
                                 arg.span)
            return POISON
        if val.dtype not in accepts and not (_carries_a_byte(instr, op) and _narrower_int(val.dtype, dtype)):
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
        if dtype.is_int and value.dtype.is_int and value.dtype.lanes == 1 and value.dtype.bits < 32 <= dtype.bits:
            return ir.cast(dtype, value)  # an 8- or 16-bit integer widens as C promotes it (`st.global.b8` of a uint8)
        st.diags.error("E0602", f"{where} is a {op.kind} value, got {value.dtype}", arg.span,
                         help=f"convert it: `T.cast(..., \"{dtype}\")` or `T.reinterpret(\"{dtype}\", ...)`")
        return POISON
    return value


_OUTPUT_SCOPES = ("local", "global", "shared", "shared.dyn")


_BIT_KINDS = ("b8",)  # registers that carry a narrower value: a .b8 byte in a 16-bit register


def _carries_a_byte(instr, op) -> bool:
    """A destination register that holds an 8-bit value: a .b8 byte (cvt's .e2m1x2), or the
    32-bit register an 8-bit load (`ld.shared.b8`) fills."""
    byte_load = instr.mnemonic.split(".")[0] in ("ld", "ldu") and instr.mnemonic.endswith(".b8")
    return op.kind in _BIT_KINDS or (byte_load and op.kind == "b32")


def _narrower_int(have, want) -> bool:
    """An 8-bit integer destination of a register that carries a byte (cvt's .e2m1x2 result in a
    16-bit register): the register is converted to it after the instruction."""
    return have.is_int and want.is_int and have.lanes == 1 and have.bits == 8 < want.bits


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
        if st.tmem_alloc is not None and st.tmem_alloc[2] is None and slot.buffer is not st.tmem_alloc[0]:
            st.diags.error("E0705", f"this `tcgen05.alloc` writes `{slot.buffer.name}`, but tensor-memory "
                                    f"buffers above take their address from `{st.tmem_alloc[0].name}`", node.span)
        elif st.tmem_alloc is not None and st.tmem_alloc[2] is not None:
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


def require_cta_pairs(st, what: str, span) -> None:
    """A `cta_group::2` instruction works on a pair of CTAs of one cluster: the kernel's cluster,
    declared before the instruction (`T.cta_id_in_cluster([...])`, a launch configuration's
    `cluster=`), must have an even number of CTAs. A shape left to be inferred from
    `T.cluster_id` and the grid, or CTA pairs declared by `T.cta_id_in_pair`, are not judged
    here (threads.py checks the pairs)."""
    if "cta_id_in_pair" in st.ids or "cluster_id" in st.ids or "cta_id_in_cluster" in st.failed_ids:
        return
    extents, where = st.ids.get("cta_id_in_cluster", (None, None))
    if extents is not None and not all(isinstance(e, ir.IntImm) for e in extents):
        return
    size = 1
    for e in extents or ():
        size *= e.value
    if size % 2 == 0:
        return
    if extents is None:
        st.diags.error("E0606", f"{what} works on a pair of CTAs, but the kernel has no cluster", span,
                       help="declare a cluster of CTA pairs before it: `T.cta_id_in_cluster([2])`, or "
                            "`cluster=(2, 1, 1)` in the launch configuration")
    else:
        st.diags.error("E0606", f"{what} works on a pair of CTAs, but the kernel's cluster has {size} "
                                f"CTA{'s' if size != 1 else ''}", span,
                       notes=[Note("the cluster's shape is given here", where)],
                       help="make the cluster an even number of CTAs")


def require_warp_uniform_guard(st, what: str, node) -> None:
    guard = st.guards[-1] if st.guards else None
    if guard is None and _one_warp_cta(st):
        return  # the CTA is one warp: every thread of it runs the instruction, as it must
    if guard is None or not is_warp_uniform_test(st, guard):
        st.diags.error("E0703", f"{what} must be executed by one whole warp", node.span,
                         help="guard it with a warp-uniform test such as `if warp_id == 0:` "
                              "(`T.warp_id` is warp-uniform; lane tests and `elect_sync()` are not)")


def _one_warp_cta(st) -> bool:
    """Whether the block, as its ids declared so far give it, is one warp of 32 threads."""
    consts = {kind: extents[0].value for kind, (extents, _) in st.ids.items()
              if extents and all(isinstance(e, ir.IntImm) for e in extents) and len(extents) == 1}
    if "thread_id" in st.ids:
        extents = st.ids["thread_id"][0] or []
        return all(isinstance(e, ir.IntImm) for e in extents) and \
            [e.value for e in extents] in ([32], [32, 1], [32, 1, 1])
    return threads.block_from_ids(consts)[0] == 32


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


from transpiler.sema.calls import tcgen05_frag  # noqa: E402,F401  (registers T.alloc_tcgen05_ldst_frag)
