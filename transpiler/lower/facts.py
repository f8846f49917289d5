"""What lowering asks about a lowered kernel body, from one walk: the storage it accesses, stores
and declares, the functions it calls, the headers its dtypes need; and what those facts decide
(static shared bytes, the alignment of arrays read or written as vectors)."""
from __future__ import annotations

import math

from transpiler import ir
from transpiler.ir.walk import all_stmts
from transpiler.target.dtypes import header


class Facts:
    """What lowering asks about a kernel body, from one walk (expressions in all_exprs
    order: `calls` lists the called functions by first call)."""

    def __init__(self) -> None:
        self.accessed: list[ir.Storage] = []  # storage of each Load, VecLoad and Address
        self.addressed: list[ir.Storage] = []  # of each Address
        self.vector_reads: list[tuple[ir.Storage, object]] = []  # (storage, vector dtype) of each VecLoad
        self.calls: dict[str, None] = {}  # called functions, in order of first call
        self.headers: set[str] = set()  # that the dtypes of the expressions, arrays and pointers need
        self.non_finite = False  # a float constant prints as an infinity or NaN
        self.promoted = False  # an 8- or 16-bit integer dtype appears (ir.promoted)
        self.stored: list[ir.Storage] = []  # storage of each Store and VecStore
        self.vector_writes: list[tuple[ir.Storage, object]] = []  # (storage, value dtype) of each VecStore
        self.pointers: list[ir.Storage] = []  # declared by PointerDecl
        self.arrays: list[ir.Storage] = []  # declared by ArrayDecl
        # ids of the storage accessed or stored into, and of the storage their views point into
        self.used: set[int] = set()
        # ids of the storage whose contents matter: read, addressed, or visible outside the
        # kernel. An array's reads inside stores into itself (`s_ptr[0] = s_ptr[0] + 1.0f`)
        # do not count: such an array is still dead when nothing else reads it.
        self.reads: set[int] = set()
        # how often each variable is read (a let's own name is no read of it; a loop's is)
        self.read_vars: dict[str, int] = {}

    def forget(self, dropped: list[ir.Stmt]) -> set[str] | None:
        """Take out what dropped statements read, when each is a `let` of plain arithmetic
        (the usual dead code: an unused thread id or index): then only variables lose
        reads. Returns the variables no longer read at all; None, changing nothing,
        when a dropped statement is anything else."""
        names = []
        for st in dropped:
            if st.__class__ is not ir.LetStmt or dtype_header(st.var.dtype):
                return None
            for e in ir.walk_expr(st.value):
                cls = e.__class__
                if cls not in _ARITHMETIC or dtype_header(e.dtype) or \
                        (cls is ir.FloatImm and not math.isfinite(ir.round_float(e.value, e.dtype))):
                    return None
                if cls is ir.Var:
                    names.append(e.name)
        unread = set()
        for name in names:
            left = self.read_vars[name] - 1
            if left:
                self.read_vars[name] = left
            else:
                del self.read_vars[name]
                unread.add(name)
        return unread


_ARITHMETIC = frozenset({ir.Var, ir.IntImm, ir.FloatImm, ir.Builtin, ir.BinOp, ir.UnaryOp, ir.Cast, ir.Select})
ACCESSES = frozenset({ir.Load, ir.VecLoad, ir.Address})


def dtype_header(dtype) -> str | None:
    """The header a dtype needs, if any."""
    return header(dtype) if dtype.kind not in ("void", "handle") else None


def scan(body: ir.Stmt) -> Facts:
    """The facts of a body, in one walk over its statements and expressions."""
    facts = Facts()
    used, reads, read_vars, calls = facts.used, facts.reads, facts.read_vars, facts.calls
    dtypes: dict[int, object] = {}  # by id: hashing a dtype for every node would cost more than the rest
    last = None  # the dtype last noted: most nodes have their neighbour's
    exprs_of, leaves = ir.NODE_EXPRS, ir.LEAVES
    BinOp, Var, Call, FloatImm, VecLoad, Address = ir.BinOp, ir.Var, ir.Call, ir.FloatImm, ir.VecLoad, ir.Address
    for node in all_stmts(body):
        cls = node.__class__
        is_store = cls is ir.Store or cls is ir.VecStore
        own = node.storage if is_store and private_array(node.storage) else None
        if cls is ir.LetStmt:
            dtypes[id(node.var.dtype)] = node.var.dtype
            stack = [node.value]  # the let's own name is not a read of it
        else:
            stack = list(exprs_of[cls](node))
            stack.reverse()
        push = stack.append
        while stack:
            e = stack.pop()
            ecls = e.__class__
            if e.dtype is not last:
                last = e.dtype
                dtypes[id(last)] = last
            if ecls is BinOp:  # the commonest node: exprs_of[BinOp] written out
                push(e.a)
                push(e.b)
                continue
            if ecls is Var:
                read_vars[e.name] = read_vars.get(e.name, 0) + 1
                continue
            if ecls in leaves:
                # No float format rounds a value within +-65504 (the largest half) to an infinity.
                if ecls is FloatImm and not facts.non_finite and not -65504.0 <= e.value <= 65504.0:
                    facts.non_finite = not math.isfinite(ir.round_float(e.value, e.dtype))
                continue
            if ecls is Call:
                calls[e.func] = None
            elif ecls in ACCESSES:
                storage = e.storage
                facts.accessed.append(storage)
                used.add(id(storage))
                # (an address, even in a store to its own array, escapes: a call may read through it)
                if storage is not own or ecls is Address:
                    reads.add(id(storage))
                if storage.base is not None:
                    used.add(id(storage.base))
                    if storage is not own or ecls is Address:
                        reads.add(id(storage.base))
                if ecls is VecLoad:
                    facts.vector_reads.append((storage, e.dtype))
                elif ecls is Address:
                    facts.addressed.append(storage)
            stack.extend(exprs_of[ecls](e))
        if is_store:
            storage = node.storage
            facts.stored.append(storage)
            used.add(id(storage))
            if storage.base is not None:
                used.add(id(storage.base))
            if own is None:
                reads.add(id(storage))
            if cls is ir.VecStore:
                facts.vector_writes.append((storage, node.value.dtype))
        elif cls is ir.ArrayDecl:
            facts.arrays.append(node.storage)
            dtypes[id(node.storage.dtype)] = node.storage.dtype
        elif cls is ir.PointerDecl:
            facts.pointers.append(node.storage)
            dtypes[id(node.storage.dtype)] = node.storage.dtype
            reads.add(id(node.storage.base))
    facts.headers = {h for h in map(dtype_header, dtypes.values()) if h}
    facts.promoted = any(map(ir.promoted, dtypes.values()))
    return facts


def static_shared_bytes(facts: Facts) -> int:
    """Bytes of the `__shared__` arrays that survived dead-code removal."""
    arrays = {id(st): st for st in facts.arrays if st.scope == "shared"}
    return sum(st.size * st.dtype.nbytes for st in arrays.values())


def align_vector_arrays(body: ir.Stmt) -> None:
    """A register or static shared array read or written as a vector (`*(float4*)r_ptr`)
    must be aligned to the vector's size; local arrays otherwise keep their natural
    alignment (docs/design.md, decision 12)."""
    align_facts(scan(body), {})


def align_facts(facts: Facts, raised: dict[ir.Storage, int]) -> None:
    """Raise the alignment of lowering's copies of the storage (KernelLowerer.own). `raised`: what
    the tile variants dispatch chose need of a storage beyond its own align."""
    need = {id(storage): (storage, align) for storage, align in raised.items()}

    def note(storage: ir.Storage, dtype) -> None:
        while storage.kind == "view_pointer" and storage.base is not None:
            storage = storage.base  # a typed view is aligned as the array it points into
        if storage.kind == "array":
            old = need.get(id(storage), (storage, 0))[1]
            need[id(storage)] = (storage, max(old, dtype.nbytes))
    for storage, dtype in facts.vector_reads + facts.vector_writes:
        note(storage, dtype)
    for storage, nbytes in need.values():
        if storage.align < nbytes:
            storage.align = nbytes


def private_array(storage: ir.Storage) -> bool:
    """A register or static shared array: only this kernel's own loads can observe
    it, so stores nobody reads are dead (nvcc: "set but never used")."""
    return storage.kind == "array" and storage.scope in ("local", "shared")
