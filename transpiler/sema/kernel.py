"""Checking one kernel: parameters, the host region, `T.device_entry()`, statements
and scoping, and the shared-memory budget (the thread hierarchy is threads.py)."""
from __future__ import annotations

from dataclasses import replace
from math import prod

from transpiler.syntax import ast
from transpiler import ir
from transpiler.sema.expr import SCALAR_INDEX, ExprChecker, MethodTable, article, index_nodes, kind_of
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.target.dtypes import FLOAT32, INT32, UINT32, DType, parse_dtype
from transpiler.sema.intrinsics import CallChecker, handler, is_default
from transpiler.sema.memory import MemoryChecker
from transpiler.sema.pools import PoolChecker, SmemPool, TmemPool
from transpiler.sema.ptx_calls import PtxChecker
from transpiler.sema.threads import ThreadChecker
from transpiler.target.cnames import c_name
from transpiler.target.arch import SHARED_OPT_IN_MAX, STATIC_SHARED_LIMIT, arch_name, limits
from transpiler.syntax.source import Span
from transpiler.sema.values import (POISON, ArrayType, Binding, Builtin, DTypeVal, DynamicExtent, Handle, HandleType, IdTuple,
                     LaunchConfig, LayoutPart, LayoutVal, LetType, LoopRange, Poison, Pointer, PyConst,
                     Region, Void)


_RANGE = Builtin("range")
# The implicit bounds of a loop (`range(n)` starts at 0 and steps by 1): shared, as IR
# expressions are immutable and compare by value.
_ZERO, _ONE = ir.IntImm(INT32, 0), ir.IntImm(INT32, 1)
UNROLL_COPIES = 4096  # nested `T.unroll` loops: copies of the innermost body
UNROLL_STATEMENTS = 32768  # and statements after unrolling (copies times the body's statements)


class CNames:
    """The C names taken in one kernel. `fresh(name)` takes the first free one of
    name, name_1, name_2 ...; it remembers per name where the free ones start,
    so that a kernel with n loops over `i` costs O(n), not O(n²), probes."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.next_suffix: dict[str, int] = {}  # name -> k: name and name_1 ... name_{k-1} are taken

    def __contains__(self, name: str) -> bool:
        return name in self.taken

    def fresh(self, name: str) -> str:
        n = self.next_suffix.get(name, 0)
        candidate = f"{name}_{n}" if n else name
        while candidate in self.taken:
            n += 1
            candidate = f"{name}_{n}"
        self.taken.add(candidate)
        self.next_suffix[name] = n + 1
        return candidate

    def discard(self, name: str) -> None:
        self.taken.discard(name)
        self.next_suffix.clear()  # the freed name may come first again for its base


class KernelChecker(ExprChecker, CallChecker, MemoryChecker, PtxChecker, PoolChecker, ThreadChecker):
    def __init__(self, module, fdef: ast.FunctionDef):
        self.module = module
        self.diags = module.diags
        self.fdef = fdef
        self.scopes: list[dict[str, Binding]] = [{}]
        self.closed: dict[str, Binding] = {}  # names whose block ended: for a precise error
        self.cnames = CNames()
        self.c_spellings: dict[str, str] = {}  # source name -> cnames.c_name of it
        self.params: list[ir.Param] = []
        self.args: list[ir.Param] = []
        self.extents: dict[str, tuple[ir.Var, Span]] = {}
        self.handles: dict[str, Handle] = {}  # handle parameters not bound yet
        self.matched: dict[str, Span] = {}  # handle parameter -> its `T.match_buffer`
        self.pending: list[ir.Stmt] = []
        self.device = False
        self.depth = 0
        self.loops: list[str] = []  # kinds of the enclosing loops: serial, unroll, while
        self.unrolled = 1  # copies the enclosing `T.unroll` loops make of the current statement
        self.ids: dict[str, tuple[list[ir.Expr] | None, Span]] = {}  # kind -> (extents, first declaration)
        self.unnamed_ids: set[str] = set()  # C names of ids not bound to a source name yet
        self.linear_id_users: list[Span] = []  # warp-level ids, computed from the linear thread index
        self.failed_ids: set[str] = set()  # kinds of id with a declaration that had an error
        self.entry = None  # the `T.device_entry(...)` statement
        self.launch_kinds: set[str] = set()  # cta_id / thread_id: extents given by `launch=T.cuda.LaunchConfig`
        self.launch_smem: tuple[int, Span] | None = None  # its `dynamic_smem_bytes=`
        self.nonneg: set[str] = set()
        self.arena: ir.Buffer | None = None
        self.views: list[ir.Buffer] = []
        self.statics: list[ir.Buffer] = []
        self.min_arch = 0
        self.arch_suffix = ""
        self.id_vars: dict[str, ir.Var] = {}  # kind -> the id's variable, once bound to a name
        self.id_kinds: dict[str, str] = {}  # C name of an id -> its kind
        self.guards: list[ir.Expr] = []  # conditions of the enclosing `if`s (tcgen05 needs a warp-uniform one)
        self.pools: list = []  # SMEMPool / TMEMPool objects, checked when the kernel ends
        self.tmem_alloc = None  # (slot buffer, columns, span) of the kernel's tcgen05.alloc
        self.arch_errors: set[str] = set()

    # -- names -------------------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        """A C identifier for a source name: kept when free, else suffixed (deterministic).
        Keywords, CUDA names, macros and the like get a `_` first (cnames.c_name)."""
        spelled = self.c_spellings.get(base)
        if spelled is None:  # (a kernel's loops reuse a few names: spelled once each)
            spelled = self.c_spellings[base] = c_name(base, getattr(self.module, "c_reserved", frozenset()))
        return self.cnames.fresh(spelled)

    def lookup(self, name: str, span: Span):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name].value
        glob = self.module.globals.get(name)
        if glob is not None:
            if isinstance(glob.value, DynamicExtent):
                return self.dynamic_extent(glob.value, span)
            return glob.value
        if name == "range":
            return _RANGE
        if name in self.closed:
            closed = self.closed[name]
            if closed.kind == "loopvar":
                fix = f"a loop variable exists only inside its loop; copy `{name}` into a scalar declared " \
                      f"before the loop"
            else:
                dtype = closed.value.dtype if isinstance(closed.value, (ir.Buffer, ir.Expr)) else INT32
                zero = "0.0" if dtype.is_float else "0"
                fix = f"bind `{name}` before the block (e.g. `{name}: T.{dtype} = {zero}`) and assign it inside"
            self.diags.error("E0319", f"`{name}` is not visible here", span,
                             notes=[Note("it was bound inside a block that has ended", closed.span)], help=fix)
            return POISON
        candidates = [n for s in self.scopes for n in s] + list(self.module.globals) + ["range"]
        self.diags.error("E0300", f"unknown name `{name}`", span, help=did_you_mean(name, candidates))
        return POISON

    def dynamic_extent(self, extent: DynamicExtent, span: Span):
        """A module-level `n = T.dynamic("n")` used in this kernel: the kernel's own symbolic extent,
        declared by its first use, which must be in a parameter's shape (else the launcher could not
        read it from an array)."""
        known = self.extents.get(extent.name)
        if known is not None:
            return known[0]
        if self.device:
            self.diags.error("E0512", f"symbolic extent `{extent.name}` is not a dimension of any parameter of "
                                      f"kernel `{self.fdef.name}`", span,
                             notes=[Note("declared here", extent.span)],
                             help="use it in the shape of a `T.Tensor` parameter so the launcher can read it from "
                                  "the array")
            return POISON
        return self.declare_extent(extent.name, extent.span)

    def declare_extent(self, name: str, span: Span) -> ir.Var:
        """The kernel's symbolic extent `name` (int32, non-negative), which the launcher reads
        off the arrays."""
        var = ir.Var(INT32, self.fresh(name), span)
        self.extents[name] = (var, span)
        self.nonneg.add(var.name)
        return var

    def binding(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, binding: Binding) -> None:
        self.scopes[-1][name] = binding

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        for name, binding in self.scopes.pop().items():
            if all(name not in s for s in self.scopes):
                self.closed[name] = binding

    def require_arch(self, arch: int, what: str, span: Span, suffix: str = "") -> None:
        if arch > self.min_arch:
            self.min_arch = arch
        if suffix:
            self.arch_suffix = suffix
        target = self.module.arch
        # arch-specific features (the `a` suffix) exist on that architecture only
        too_old = target is not None and (target[0] < arch or (suffix and (target[1] != suffix or target[0] != arch)))
        if too_old and what not in self.arch_errors:
            self.arch_errors.add(what)  # once per instruction and kernel: its first use
            self.diags.error("E0320", f"{what} needs sm_{arch}{suffix}, but the target is "
                                      f"sm_{target[0]}{target[1]}", span)

    # -- the kernel ------------------------------------------------------------------------------------
    def run(self):
        from transpiler.ir.program import Kernel
        fdef = self.fdef
        for param in fdef.params:
            self.parameter(param)
        body = list(fdef.body)
        if body and isinstance(body[0], ast.ExprStmt) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        host, device = self.split_at_device_entry(body)
        for stmt in host:
            self.host_stmt(stmt)
        for name, handle in self.handles.items():
            self.diags.error("E0511", f"handle parameter `{name}` is never bound with `T.match_buffer`", handle.span,
                             help=f"bind it before `T.device_entry()`: `X = T.match_buffer({name}, shape, dtype)`")
        self.finish_params()
        self.device = True
        if self.entry is not None:
            self.launch_config(self.entry.value)
        stmts = self.block(device, new_scope=False)
        if self.pools:  # (the liveness walk it needs costs a pass over the whole kernel)
            self.finish_pools(ir.seq(stmts))
        grid, block = self.launch_shape()
        static_bytes, arena_bytes = self.shared_budget()
        self.check_launch_smem(arena_bytes)
        if self.diags.has_errors:
            return None
        return Kernel(fdef.name, fdef.span, fdef.name_span, self.params, self.args, ir.seq(stmts), grid, block,
                      self.nonneg, self.min_arch, self.arch_suffix, self.arena, arena_bytes, self.views, static_bytes)

    # -- T.device_entry() -------------------------------------------------------------------------------
    def split_at_device_entry(self, body: list) -> tuple[list, list]:
        """The host and device statements of the body, reporting a missing, repeated or nested
        `T.device_entry()`. Without a usable one the device part starts at the first statement
        that cannot belong to the host, so that the rest of the kernel is still checked."""
        entries = self.device_entries(body, None)
        top = [stmt for stmt, block in entries if block is None]
        first = top[0] if top else None
        for stmt, block in entries:
            if stmt is first:
                continue
            if block is None:
                self.diags.error("E0400", "a second `T.device_entry()`", stmt.span,
                                 notes=[Note("the first one is here", first.span)],
                                 help="a kernel has exactly one `T.device_entry()`; remove this one")
            else:
                notes = [Note("the kernel's device region starts here", first.span)] if first else []
                self.diags.error("E0400", f"`T.device_entry()` inside {'an' if block == 'if' else 'a'} `{block}` "
                                          f"block", stmt.span, notes=notes,
                                 help="`T.device_entry()` is a statement at the top level of the kernel body, "
                                      "after the `T.match_buffer` calls")
        if first is not None:
            self.entry = first
            index = body.index(first)
            return body[:index], body[index + 1:]
        if not entries:
            self.diags.error("E0400", f"kernel `{self.fdef.name}` has no `T.device_entry()`", self.fdef.name_span,
                             help="write `T.device_entry()` after the `T.match_buffer` calls; the kernel body "
                                  "follows it")
        split = next((i for i, stmt in enumerate(body) if not self.looks_like_host(stmt)), len(body))
        return body[:split], body[split:]

    def launch_config(self, call: ast.Call) -> None:
        """`T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))`: the grid and block given up
        front, as if declared by `T.cta_id(grid)` and `T.thread_id(block)` (the ids then name axes only)."""
        args = self.bind_args(call, ("*launch_values", "launch=None", "kernel_attrs=None", "backend_config=None",
                                     "attrs=None", "body_params=None"), "T.device_entry")
        if args is None:
            return
        if args["launch_values"]:
            self.diags.error("E0520", "`T.device_entry` takes its launch configuration as `launch=`",
                             args["launch_values"][0].span,
                             help="write `T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))`")
            return
        for name in ("kernel_attrs", "backend_config", "attrs", "body_params"):
            if not is_default(args[name]):
                self.diags.error("E0518", f"`T.device_entry({name}=...)` is not supported yet", args[name].span)
        if is_default(args["launch"]):
            return
        config = self.elab(args["launch"])
        if not isinstance(config, LaunchConfig):
            if config is not POISON:
                self.diags.error("E0520", f"`launch=` takes a `T.cuda.LaunchConfig(...)`, not {kind_of(config)}",
                                 args["launch"].span, help="write `launch=T.cuda.LaunchConfig(grid=..., block=...)`")
            return
        for name, arg in config.args.items():
            if name in ("cluster", "preferred_cluster"):
                self._unsupported(arg, f"`T.cuda.LaunchConfig({name}=...)` (thread-block clusters)", "E0406")
            elif name not in ("grid", "block", "dynamic_smem_bytes"):
                self.diags.error("E0520", f"tirxc does not support `T.cuda.LaunchConfig({name}=...)`", arg.span,
                                 help="the generated launcher chooses the stream and the other launch attributes; "
                                      "give `grid=`, `block=` and `dynamic_smem_bytes=` only")
        for kind, field in (("cta_id", "grid"), ("thread_id", "block")):
            extents = self.id_extents(kind, config.args[field], call, f"`{field}=`")
            if extents is POISON:
                self.failed_ids.add(kind)
            else:
                self.ids[kind] = (extents, config.args[field].span)
            self.launch_kinds.add(kind)
        smem = config.args.get("dynamic_smem_bytes")
        if smem is not None:
            size = self.const_int(smem, "`dynamic_smem_bytes`")
            if size is not None:
                self.launch_smem = (size, smem.span)

    def check_launch_smem(self, arena_bytes: int) -> None:
        """The launch configuration's `dynamic_smem_bytes=` is the arena's size (tirxc sizes the launch
        from the arena)."""
        if self.launch_smem is None or self.launch_smem[0] == arena_bytes:
            return
        size, span = self.launch_smem
        notes = [Note(f"the arena ({arena_bytes} bytes) is allocated here", self.arena.span)] if self.arena else []
        arena = f"is {arena_bytes} bytes" if self.arena else "does not exist"
        self.diags.error("E0522", f"`dynamic_smem_bytes={size}`, but the kernel's dynamic shared arena {arena}",
                         span, notes=notes,
                         help=f"write `dynamic_smem_bytes={arena_bytes}`, or leave it out: tirxc sizes the launch "
                              f"from the arena")

    def device_entries(self, stmts, block: str | None, found: list | None = None) -> list:
        """(statement, enclosing block keyword or None) for every `T.device_entry()` statement,
        in order (collected into one list: the walk visits every statement of the kernel)."""
        found = [] if found is None else found
        for stmt in stmts:
            if isinstance(stmt, ast.ExprStmt):
                if self.is_dialect_call(stmt.value, ("device_entry",), module_level=True):
                    found.append((stmt, block))
            elif isinstance(stmt, ast.If):
                self.device_entries(stmt.body, block or "if", found)
                self.device_entries(stmt.orelse, block or "if", found)
            elif isinstance(stmt, (ast.For, ast.While, ast.With)):
                self.device_entries(stmt.body, block or type(stmt).__name__.lower(), found)
        return found

    @staticmethod
    def looks_like_host(stmt) -> bool:
        """Whether a statement can belong before `T.device_entry()` (judged by its form only)."""
        if isinstance(stmt, (ast.Pass, ast.Assert)):
            return True
        if isinstance(stmt, ast.ExprStmt):
            value = stmt.value
            return isinstance(value, ast.Constant) or (isinstance(value, ast.Call) and isinstance(
                value.func, ast.Attribute) and value.func.attr == "func_attr")
        if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
            value = stmt.value
            if isinstance(value, ast.Call):
                return isinstance(value.func, ast.Attribute) and (
                    value.func.attr == "match_buffer" or (not value.args and not value.keywords
                                                          and parse_dtype(value.func.attr) is not None))
            return not _contains_call(value)
        return False

    # -- parameters ------------------------------------------------------------------------------------
    def parameter(self, param: ast.Param) -> None:
        if param.annotation is None:
            self.diags.error("E0310", f"parameter `{param.name}` needs a type annotation", param.span,
                             help="annotate it with `T.handle`, `T.Buffer(shape, dtype)` or a dtype like `T.int32`")
            self.bind(param.name, Binding(POISON, "param", param.span))
            return
        if not self.is_new_name(param):
            return
        annotation = param.annotation
        if isinstance(annotation, ast.Call) and isinstance(annotation.func, ast.Attribute) \
                and annotation.func.attr in ("Buffer", "Tensor"):
            if annotation.func.attr == "Tensor":
                args = self.tensor_type_args(annotation)
            else:
                args = self.bind_args(annotation, ("shape", "dtype='float32'", "data=None", "strides=None",
                                                   "elem_offset=None", "scope='global'", "align=-1",
                                                   "offset_factor=0", "layout='default'"), "T.Buffer")
            handle = Handle(param.name, param.span)
            self.args.append(ir.Param(param.name, "pending", UINT32, None, param.span))
            buf = self.param_buffer(handle, annotation, args) if args is not None else POISON
            if isinstance(buf, ir.Buffer):
                buf = self.attach_param(param.name, buf, param.name, param.span)
            self.bind(param.name, Binding(buf, "buffer", param.span))
            return
        kind = self.elab(annotation)
        if isinstance(kind, HandleType):
            handle = Handle(param.name, param.span)
            self.handles[param.name] = handle
            self.args.append(ir.Param(param.name, "pending", UINT32, None, param.span))
            self.bind(param.name, Binding(handle, "handle", param.span))
            return
        if isinstance(kind, DTypeVal) and kind.dtype.lanes == 1 and kind.dtype.kind != "handle":
            var = ir.Var(kind.dtype, self.fresh(param.name), param.span)
            p = ir.Param(var.name, "scalar", kind.dtype, None, param.span)
            self.args.append(p)
            self.bind(param.name, Binding(var, "param", param.span))
            return
        if isinstance(kind, DTypeVal) and kind.dtype.lanes > 1:
            self.diags.error("E0310", f"parameter `{param.name}` has the vector dtype {kind.dtype}; kernel "
                                      f"parameters are scalars, handles or buffers", annotation.span,
                             help=f"pass the elements in a buffer (`T.Buffer((n,), \"{kind.dtype.element}\")`) and "
                                  f"`vload` them")
        elif kind is not POISON:
            self.diags.error("E0310", f"parameter `{param.name}` has an unsupported annotation: {kind_of(kind)}",
                             annotation.span,
                             help="use `T.handle`, `T.Buffer(shape, dtype)` or a scalar dtype like `T.float32`")
        self.bind(param.name, Binding(POISON, "param", param.span))

    def new_param_buffer(self, handle: Handle, shape, dtype, layout, elem_offset, align, span):
        return ir.Buffer("", shape, dtype, "global", None, layout, elem_offset, align, span)

    def finish_params(self) -> None:
        """C parameter order (DECISIONS 8): buffer pointers, scalars, then symbolic extents."""
        args = []
        for p in self.args:
            if p.kind == "buffer" and p.buffer is not None:
                args.append(p)
            elif p.kind == "scalar":
                args.append(p)
        self.args = args
        pointers = [p for p in args if p.kind == "buffer"]
        scalars = [p for p in args if p.kind == "scalar"]
        passed = {p.name for p in scalars}
        extents = []
        for name, (var, span) in self.extents.items():
            if not any(self.shape_mentions(p.buffer, var) for p in pointers):
                self.diags.error("E0512", f"symbolic extent `{name}` is not a dimension of any parameter buffer",
                                 span, help="use it in the shape of a `T.match_buffer` so the launcher can read "
                                            "it from the array")
            if var.name not in passed:
                extents.append(ir.Param(var.name, "extent", INT32, None, span))
        self.params = pointers + scalars + extents

    @staticmethod
    def shape_mentions(buf, var) -> bool:
        return any(isinstance(e, ir.Var) and e.name == var.name for e in buf.shape)

    # -- host region -------------------------------------------------------------------------------------
    def host_stmt(self, stmt) -> None:
        move = "move it after `T.device_entry()`"
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant)):
            return
        if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Call):
            val = self.elab(stmt.value)
            if isinstance(val, Void) and isinstance(val.stmt, ir.Seq) and not val.stmt.body:
                return  # T.func_attr and hints
            if isinstance(val, ir.Buffer):
                self.diags.error("E0511", "the buffer `T.match_buffer` returns is not bound to a name", stmt.span,
                                 help="write `A = T.match_buffer(...)`")
            elif val is not POISON:
                self.diags.error("E0401", "only parameter binding is allowed before `T.device_entry()`", stmt.span,
                                 help=move)
            return
        if isinstance(stmt, ast.Assert):
            self.static_assert(stmt, host=True)
            return
        if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if not self.is_new_name(stmt.target):
                return
            val = self.elab(stmt.value)
            if isinstance(val, ir.Buffer) and val.storage is None:
                self.bind_param_buffer(name, val, stmt)
                return
            if val is POISON and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
                    and stmt.value.func.attr == "match_buffer":
                self.handles.pop(self.handle_of(stmt.value), None)  # bound, with an error reported already
            if isinstance(val, _SymbolicPending):
                var = self.declare_extent(name, stmt.target.span)
                self.bind(name, Binding(var, "var", stmt.target.span))
                return
            if isinstance(val, (PyConst, LayoutVal)):
                self.bind(name, Binding(val, "const", stmt.target.span))
                return
            if isinstance(val, LayoutPart):
                self.bind(name, Binding(self.make_layout(val, stmt.value), "const", stmt.target.span))
                return
            self.bind(name, Binding(POISON, "other", stmt.target.span))
            if val is not POISON:
                self.diags.error("E0401", "before `T.device_entry()` a kernel only binds parameters, symbolic "
                                          "extents and constants", stmt.span,
                                 help=f"{move}; a value computed once can be a `T.let` there")
            return
        self.diags.error("E0401", "only parameter binding is allowed before `T.device_entry()`", stmt.span,
                         help=move)

    def bind_param_buffer(self, name: str, buf: ir.Buffer, stmt) -> None:
        """`A = T.match_buffer(A_ptr, ...)`: the buffer takes the handle's place among the parameters."""
        handle = self.handle_of(stmt.value)
        first = self.matched.get(handle)
        if first is not None:
            self.diags.error("E0511", f"`{handle}` is already bound by `T.match_buffer`", stmt.value.span,
                             notes=[Note("first bound here", first)],
                             help="each handle parameter is bound exactly once; name that buffer instead")
            self.bind(name, Binding(POISON, "buffer", stmt.target.span))
            return
        self.matched[handle] = stmt.value.span
        self.handles.pop(handle, None)
        buf = self.attach_param(handle, buf, name, stmt.span)
        self.bind(name, Binding(buf, "buffer", stmt.target.span))

    def handle_of(self, call) -> str | None:
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name):
            return call.args[0].id
        for kw in getattr(call, "keywords", ()):
            if kw.name == "param" and isinstance(kw.value, ast.Name):
                return kw.value.id
        return None

    def attach_param(self, handle: str, buf: ir.Buffer, name: str, span) -> ir.Buffer:
        """Give a parameter buffer its pointer parameter, named after the buffer (`A_ptr`)."""
        storage = ir.Storage(self.fresh(name + "_ptr"), buf.dtype, "global", "param", None, buf.align)
        buf = replace(buf, name=name, storage=storage)
        for i, p in enumerate(self.args):
            if p.name == handle and p.kind == "pending":
                self.args[i] = ir.Param(storage.name, "buffer", buf.dtype, buf, span)
                break
        return buf

    def symbolic_var(self, dtype: DType, node):
        if self.device:
            self.diags.error("E0401", f"`T.{dtype}()` declares a symbolic extent, which belongs before "
                                      f"`T.device_entry()`", node.span, help=f"for a typed zero write `T.{dtype}(0)`")
            return POISON
        if dtype.name not in ("int32",):
            self.diags.error("E0512", f"symbolic extents are int32, not {dtype}", node.span,
                             help="declare it with `T.int32()`")
            return POISON
        return _SymbolicPending()

    # -- statements -------------------------------------------------------------------------------------
    def block(self, stmts, *, new_scope: bool = True) -> list[ir.Stmt]:
        """Statements in order; each one's declarations (`pending`) come before it."""
        if new_scope:
            self.push()
        out: list[ir.Stmt] = []
        for stmt in stmts:
            produced = self.stmt(stmt)
            if self.pending:
                self.name_anonymous_storage()
                out.extend(self.pending)
                self.pending = []
            if isinstance(produced, list):
                out.extend(produced)
            elif produced is not None:
                out.append(produced)
        if new_scope:
            self.pop()
        return out

    _stmt_methods = MethodTable("_stmt_")

    def stmt(self, stmt):
        return self._stmt_methods[stmt.__class__](self, stmt)

    def _stmt_unsupported(self, stmt):
        self.diags.error("E0201", f"`{type(stmt).__name__}` is not allowed in a kernel body", stmt.span)
        return None

    def _stmt_Pass(self, stmt):
        return None

    def _stmt_ExprStmt(self, stmt):
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return None
        if self.is_dialect_call(stmt.value, ("device_entry",), module_level=True):
            return None  # reported once by run()
        val = self.elab(stmt.value)
        if isinstance(val, IdTuple):
            return None  # ids declared for the launch shape only
        if isinstance(val, Void):
            return val.stmt
        if isinstance(val, ir.Call) and not val.func.startswith("math:"):
            return ir.Evaluate(val, stmt.span)  # calls with effects: atomics, inline CUDA, votes ...
        if isinstance(val, Poison):
            return None
        if isinstance(val, ir.Expr) or isinstance(val, PyConst):
            self.diags.warning("W0002", "this expression's value is not used", stmt.span)
            return None
        self.diags.warning("W0002", "this expression has no effect", stmt.span)
        return None

    def _stmt_Assign(self, stmt: ast.Assign):
        target = stmt.target
        if isinstance(target, ast.Subscript):
            return self.store(target, self.elab(stmt.value), stmt)
        if isinstance(target, ast.Tuple):
            return self.assign_tuple(target, self.elab(stmt.value), stmt)
        if not isinstance(target, ast.Name):
            self.diags.error("E0312", "cannot assign to this expression", target.span)
            return None
        existing = self.existing(target.id)
        if existing is not None:
            return self.reassign(target, existing, stmt.value, stmt)
        val = self.elab(stmt.value)
        return self.bind_new(target, val, stmt)

    def existing(self, name: str) -> Binding | None:
        """What a name is bound to in the kernel or at module level."""
        local = self.binding(name)
        return local if local is not None else self.module.globals.get(name)

    def is_new_name(self, target) -> bool:
        """A name about to be bound must not be bound already (no shadowing)."""
        name = target.id if isinstance(target, ast.Name) else target.name
        existing = self.existing(name)
        if existing is None:
            return True
        notes = [Note("defined here", existing.span)] if existing.kind != "builtin" else []
        self.diags.error("E0314", f"`{name}` is already defined", getattr(target, "span"), notes=notes,
                         help="use another name")
        return False

    _KINDS = {"let": "an immutable `T.let` binding", "loopvar": "a loop variable", "id": "a thread id",
              "param": "a kernel parameter", "const": "a constant", "var": "a symbolic extent",
              "buffer": "a buffer", "pointer": "a pointer binding", "handle": "a handle parameter",
              "namespace": "the dialect module", "builtin": "the dialect module", "layout": "an imported layout name",
              "axis": "an imported layout axis", "import": "an imported name"}

    def reassign(self, target: ast.Name, existing: Binding, value_node, stmt):
        value = existing.value
        if isinstance(value, ir.Buffer) and self.is_scalar_like(value):
            val = self.value(value_node, value.dtype)
            return self.scalar_store(value, val, stmt.span, value_node.span)
        if value is POISON:
            self.elab(value_node)  # the binding already had an error; still check the value
            return None
        if existing.kind == "buffer":
            fix = f"store into its elements instead: `{target.id}[i] = ...`"
        elif existing.kind == "pointer":
            fix = "bind the new pointer to a new name"
        elif existing.kind in ("let", "const", "param", "loopvar", "id", "var"):
            dtype = value.dtype if isinstance(value, ir.Expr) else FLOAT32 if isinstance(value, PyConst) \
                and isinstance(value.value, float) else INT32
            fix = f"bind the new value to a new name, or copy it into a mutable scalar first " \
                  f"(`{target.id}_v: T.{dtype} = {target.id}`)"
        else:
            fix = "use another name"
        notes = [Note("bound here", existing.span)] if existing.kind != "builtin" else []
        self.diags.error("E0307", f"`{target.id}` is {self._KINDS.get(existing.kind, 'immutable')} and cannot be "
                                  f"reassigned", target.span, notes=notes, help=fix)
        return None

    @staticmethod
    def is_scalar_like(buf: ir.Buffer) -> bool:
        return buf.scalar or (buf.ndim == 1 and isinstance(buf.shape[0], ir.IntImm) and buf.shape[0].value == 1
                              and buf.scope in ("local", "shared"))

    def scalar_store(self, buf, val, span, value_span):
        if val is POISON:
            return None
        if val.dtype != buf.dtype:
            self.diags.error("E0303", f"assigning a {val.dtype} value to {buf.dtype} scalar `{buf.name}`", value_span,
                             help=f"convert it: `T.cast(..., \"{buf.dtype}\")`")
            return None
        return ir.BufferStore(buf, SCALAR_INDEX, val, span)

    def bind_new(self, target: ast.Name, val, stmt):
        """`name = value` for a new name: names buffers, ids, pointers and constants; any
        other value becomes a mutable one-element local scalar (reference 1.5)."""
        name = target.id
        if val is POISON:
            self.bind(name, Binding(POISON, "other", target.span))
            return None
        if isinstance(val, _SymbolicPending):
            self.diags.error("E0401", "symbolic extents are declared before `T.device_entry()`", stmt.span)
            return None
        if isinstance(val, ir.Buffer):
            named = val if val.name.isidentifier() else replace(val, name=name)
            self.bind(name, Binding(named, "buffer", target.span))
            return self.flush_named(named, val)
        if isinstance(val, IdTuple):
            if len(val.vars) != 1:
                self.diags.error("E0312", f"this call returns {len(val.vars)} ids, one per extent", target.span,
                                 help=f"unpack them: `{', '.join(f'{name}{i}' for i in range(len(val.vars)))} = ...`")
                return None
            return self.bind_id(target, val.vars[0])
        if isinstance(val, (SmemPool, TmemPool)):
            self.bind(name, Binding(val, "pool", target.span))
            return None
        if isinstance(val, LayoutPart):
            val = self.make_layout(val, stmt.value)
        if isinstance(val, (Pointer, ir.BufferAddress)):
            self.bind(name, Binding(val, "pointer", target.span))
            return None
        # `k = T.meta_var(4)` names a compile-time value; a plain `k = 4` is a mutable scalar
        if isinstance(val, (LayoutVal, Region)) or (
                isinstance(val, PyConst) and (not isinstance(val.value, (bool, int, float))
                                              or self.is_dialect_call(stmt.value, ("meta_var",)))):
            self.bind(name, Binding(val, "const", target.span))
            return None
        value = self.as_value(val, stmt.value.span)
        if value is POISON:
            self.bind(name, Binding(POISON, "other", target.span))
            return None
        buf = self.new_scalar(name, value.dtype, target.span)
        return ir.BufferStore(buf, SCALAR_INDEX, value, stmt.span)

    def flush_named(self, named: ir.Buffer, original: ir.Buffer):
        """Rename the buffer an allocation or view produced to the name it is bound to."""
        for i, s in enumerate(self.pending):
            if isinstance(s, (ir.Allocate, ir.DeclView)) and s.buffer is original:
                self.pending[i] = type(s)(named, s.span)
                self.rename_storage(original, named)
        return None

    def rename_storage(self, original, named):
        storage = original.storage
        if storage is not None and storage.name.startswith("\0"):
            new_name = self.fresh(named.name + "_ptr")
            storage.name = new_name
        if self.arena is original:
            self.arena = named
        self.views = [named if v is original else v for v in self.views]
        self.statics = [named if v is original else v for v in self.statics]

    def name_anonymous_storage(self) -> None:
        """Storage of an allocation or view not bound to a name (`T.alloc_shared(...)[0]`) gets a
        generated C name."""
        for s in self.pending:
            if isinstance(s, (ir.Allocate, ir.DeclView)) and s.buffer.storage is not None \
                    and s.buffer.storage.name.startswith("\0"):
                base = {"shared": "smem", "shared.dyn": "smem", "local": "regs"}.get(s.buffer.scope, "buf")
                s.buffer.storage.name = self.fresh(base + "_ptr")

    def new_scalar(self, name: str, dtype: DType, span: Span) -> ir.Buffer:
        storage = ir.Storage(self.fresh(name + "_ptr"), dtype, "local", "array", 1, 0)
        buf = ir.Buffer(name, (ir.IntImm(INT32, 1),), dtype, "local", storage, None, None, 0, span, scalar=True)
        self.pending.append(ir.Allocate(buf, span))
        self.bind(name, Binding(buf, "scalar", span))
        return buf

    def assign_tuple(self, target: ast.Tuple, val, stmt):
        """`bx, by = T.cta_id([gx, gy])`, or unpacking a constant tuple."""
        bad = next((elt for elt in target.elts if not isinstance(elt, ast.Name)), None)
        if bad is not None:
            self.diags.error("E0312", "tuple assignment binds plain names", bad.span)
            return None
        if val is POISON:
            for elt in target.elts:
                if self.existing(elt.id) is None:
                    self.bind(elt.id, Binding(POISON, "other", elt.span))
            return None
        if isinstance(val, IdTuple):
            items = list(val.vars)
        elif isinstance(val, PyConst) and isinstance(val.value, tuple):
            items = [PyConst(v) for v in val.value]
        else:
            self.diags.error("E0312", f"cannot unpack {kind_of(val)}", stmt.value.span,
                             help="tuple assignment unpacks thread ids (`bx, by = T.cta_id([gx, gy])`) or a "
                                  "constant tuple")
            return None
        if len(items) != len(target.elts):
            what = "ids" if isinstance(val, IdTuple) else "values"
            self.diags.error("E0312", f"{len(target.elts)} names for {len(items)} {what}", target.span)
            return None
        for elt, item in zip(target.elts, items):
            if not self.is_new_name(elt):
                continue
            if isinstance(item, ir.Var):
                self.bind_id(elt, item)
            else:
                self.bind(elt.id, Binding(item, "const", elt.span))
        return None

    def store(self, target: ast.Subscript, val, stmt):
        base = self.elab(target.value)
        if base is POISON:
            return None
        if not isinstance(base, ir.Buffer):
            self.diags.error("E0312", f"cannot assign into {kind_of(base)}", target.value.span)
            return None
        indices, sliced = index_nodes(target)
        if sliced:
            self.diags.error("E0518", "assigning to a region is not supported", target.span,
                             help="store single elements in a loop")
            return None
        vector = self.ramp_access(base, indices, target.span)
        if vector is not None:
            return self.vector_store(base, vector, val, target, stmt)
        if len(indices) != base.ndim:
            self.wrong_index_count(base, len(indices), target.span)
            return None
        idx = self.indices(base, indices)
        value_span = stmt.value.span
        value = self.as_value(val, value_span, base.dtype)
        if idx is POISON or value is POISON:
            return None
        if not self.direct_access_ok(base, target.span, "written"):
            return None
        if value.dtype != base.dtype:
            fix = f"store a vector with `{base.name}.vstore([...], value)`" if value.dtype.lanes > 1 else \
                f"convert it: `T.{base.dtype}(...)`"
            self.diags.error("E0303", f"storing {article(value.dtype)} value into {base.dtype} buffer `{base.name}`",
                             value_span, help=fix)
            return None
        return ir.BufferStore(base, idx, value, stmt.span)

    def vector_store(self, base: ir.Buffer, vector, val, target: ast.Subscript, stmt):
        """`B[i, T.ramp(j, 1, 4)] = v`: the newer spelling of `B.vstore([i, j], v)`."""
        value = self.as_value(val, stmt.value.span)
        if vector is POISON or value is POISON or not self.direct_access_ok(base, target.span, "written"):
            return None
        vec, indices = vector
        if value.dtype != vec:
            self.diags.error("E0524", f"storing {article(value.dtype)} value into {vec.lanes} elements of "
                                      f"`{base.name}`", stmt.value.span,
                             help=f"store a {vec} vector, e.g. one loaded with `T.ramp`")
            return None
        return ir.BufferVecStore(base, indices, value, stmt.span)

    def _stmt_AnnAssign(self, stmt: ast.AnnAssign):
        target = stmt.target
        if not isinstance(target, ast.Name):
            self.diags.error("E0312", "annotated assignments bind a plain name", target.span)
            return None
        if not self.is_new_name(target):
            return None
        ann = self.elab(stmt.annotation)
        if isinstance(ann, LetType):
            return self.let(target, ann.dtype, stmt)
        if isinstance(ann, DTypeVal) and ann.dtype.kind != "handle":
            buf = self.new_scalar(target.id, ann.dtype, target.span)
            if stmt.value is None:
                return None
            return self.scalar_store(buf, self.value(stmt.value, ann.dtype), stmt.span, stmt.value.span)
        if isinstance(ann, ArrayType):
            if stmt.value is not None:
                self.diags.error("E0315", "a local array annotation takes no initial value", stmt.value.span,
                                 help=f"declare it, then store the elements: `{target.id}[i] = ...`")
            elif any(e <= 0 for e in ann.shape):
                self.diags.error("E0503", "local array extents must be positive", stmt.annotation.span)
            else:
                shape = tuple(ir.IntImm(INT32, e) for e in ann.shape)
                buf = self.new_allocation(shape, ann.dtype, "local", None, 0, target.span)
                named = replace(buf, name=target.id)
                self.bind(target.id, Binding(named, "buffer", target.span))
                return self.flush_named(named, buf)
        elif ann is not POISON:
            self.diags.error("E0315", f"{kind_of(ann)} is not a type for a local name", stmt.annotation.span,
                             help="annotate with a dtype (`T.int32`), `T.let`, `T.let[T.int32]` or a local array "
                                  "type (`T.float32[8]`)")
        self.bind(target.id, Binding(POISON, "other", target.span))
        return None

    def let(self, target: ast.Name, dtype: DType | None, stmt):
        """`x: T.let = v`: an immutable binding; constants are substituted where used."""
        name = target.id
        self.bind(name, Binding(POISON, "let", target.span))  # replaced below when the value checks
        if stmt.value is None:
            self.diags.error("E0315", "a `T.let` binding needs a value", stmt.span,
                             help=f"write `{name}: T.let = <value>`")
            return None
        val = self.elab(stmt.value)
        if isinstance(val, Pointer) or (isinstance(val, PyConst) and not isinstance(val.value, (bool, int, float))):
            self.bind(name, Binding(val, "let", target.span))
            return None
        value = self.as_value(val, stmt.value.span, dtype)
        if value is POISON:
            return None
        if dtype is not None and value.dtype != dtype:
            self.diags.error("E0303", f"`T.let[{dtype}]` bound to {article(value.dtype)} value", stmt.value.span,
                             help=f"convert it: `T.{dtype}(...)`")
            return None
        if isinstance(value, (ir.IntImm, ir.FloatImm)):
            self.bind(name, Binding(value, "let", target.span))  # a constant: substituted where used
            return None
        var = ir.Var(value.dtype, self.fresh(name), target.span)
        if self.is_nonneg(value):
            self.nonneg.add(var.name)
        self.bind(name, Binding(var, "let", target.span))
        return ir.LetStmt(var, value, stmt.span)

    def is_nonneg(self, e: ir.Expr) -> bool:
        return ir.nonneg(e, self.nonneg)

    def _stmt_AugAssign(self, stmt: ast.AugAssign):
        from transpiler.sema.expr import _BINOPS
        op = _BINOPS.get(stmt.op)
        if op is None:
            self.diags.error("E0306", f"`{stmt.op}=` is not supported", stmt.span)
            return None
        target = stmt.target
        if isinstance(target, ast.Name):
            existing = self.existing(target.id)
            if existing is None:
                self.lookup(target.id, target.span)
                return None
            if not (isinstance(existing.value, ir.Buffer) and self.is_scalar_like(existing.value)):
                return self.reassign(target, existing, stmt.value, stmt)
            buf = existing.value
            current = self.load(buf, SCALAR_INDEX, target.span)
            new = self.arith(op, current, self.elab(stmt.value), stmt.span, target.span, stmt.value.span)
            return self.scalar_store(buf, new, stmt.span, stmt.value.span) if new is not POISON else None
        if isinstance(target, ast.Subscript):
            current = self.elab(target)
            new = self.arith(op, current, self.elab(stmt.value), stmt.span, target.span, stmt.value.span)
            if new is POISON:
                return None
            return self.store(target, new, stmt)
        self.diags.error("E0312", "cannot assign to this expression", target.span)
        return None

    def _stmt_If(self, stmt: ast.If):
        test = self.elab(stmt.test)
        if isinstance(test, PyConst) or isinstance(test, ir.IntImm):
            taken = stmt.body if (test.value if isinstance(test, PyConst) else test.value) else stmt.orelse
            return self.block(taken, new_scope=False)  # DECISIONS 6: only the taken branch exists
        cond = self.condition(test, stmt.test.span)
        self.depth += 1
        self.guards.append(cond if cond is not POISON else ir.IntImm(INT32, 1))
        then = self.block(stmt.body)
        orelse = None
        if stmt.orelse:
            self.guards[-1] = ir.unary("!", self.guards[-1])
            orelse = self.block(stmt.orelse)
        self.guards.pop()
        self.depth -= 1
        if cond is POISON:
            return None
        return ir.If(cond, ir.seq(then), ir.seq(orelse) if orelse else None, stmt.span)

    def _stmt_While(self, stmt: ast.While):
        cond = self.condition(self.elab(stmt.test), stmt.test.span)
        body = self.loop_body(stmt.body, "while")
        if cond is POISON:
            return None
        return ir.While(cond, ir.seq(body), stmt.span)

    def loop_body(self, stmts, kind: str) -> list[ir.Stmt]:
        """The body of a loop of kind serial / unroll / while, in the current scope."""
        self.depth += 1
        self.loops.append(kind)
        body = self.block(stmts, new_scope=kind == "while")
        self.loops.pop()
        self.depth -= 1
        return body

    def _stmt_For(self, stmt: ast.For):
        rng = self.elab(stmt.iter)
        targets = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else (stmt.target,)
        ok = isinstance(rng, LoopRange)
        if not ok and rng is not POISON:
            self.diags.error("E0306", "a `for` loop iterates over `range(...)`, `T.serial`, `T.unroll` or "
                                      "`T.grid`", stmt.iter.span)
        if not all(isinstance(t, ast.Name) for t in targets):
            self.diags.error("E0312", "loop variables are plain names", stmt.target.span)
            return None
        if ok and len(targets) != len(rng.starts):
            self.diags.error("E0312", f"{len(targets)} loop variable{'s' if len(targets) != 1 else ''} for "
                                      f"{len(rng.starts)} loop{'s' if len(rng.starts) != 1 else ''}", stmt.target.span,
                             help=f"`T.grid` with {len(targets)} extents gives {len(targets)} loop variables"
                             if len(targets) > 1 else None)
            ok = False
        self.push()
        loop_vars = []
        for i, target in enumerate(targets):
            fresh = self.is_new_name(target)
            if not ok or not fresh:
                self.bind(target.id, Binding(POISON, "loopvar", target.span))
                continue
            start, step = rng.starts[i], rng.steps[i]
            var = ir.Var(start.dtype, self.fresh(target.id), target.span)
            if isinstance(step, ir.IntImm) and step.value > 0 and self.is_nonneg(start):
                self.nonneg.add(var.name)
            self.bind(target.id, Binding(var, "loopvar", target.span))
            loop_vars.append(var)
        unrolled = ok and rng.kind == "unroll"
        copies = self.unroll_copies(stmt, rng) if unrolled else 1
        if copies is None:
            self.pop()
            return None
        enclosing, self.unrolled = self.unrolled, self.unrolled * max(copies, 1)
        body = self.loop_body(stmt.body, "unroll" if unrolled else "serial")
        self.unrolled = enclosing
        self.pop()
        if not ok or len(loop_vars) != len(targets):
            return None
        out: ir.Stmt = ir.seq(body)
        for var, start, stop, step in reversed(list(zip(loop_vars, rng.starts, rng.stops, rng.steps))):
            kind = "unroll" if unrolled else ("pragma_unroll" if rng.unroll_factor else "serial")
            out = ir.For(var, start, stop, step, out, kind, rng.unroll_factor, stmt.span)
        return out

    def unroll_copies(self, stmt: ast.For, rng: LoopRange) -> int | None:
        """How many copies of its body an unrolled loop makes; None (with an error) when the
        copies of all enclosing `T.unroll` loops together would pass the limits: nested
        unrolls multiply, and 20 nested `T.unroll(2)` would otherwise be a million copies."""
        trips = max(0, -(-(rng.stops[0].value - rng.starts[0].value) // rng.steps[0].value))
        total = self.unrolled * trips
        statements = total * _statement_count(stmt.body)
        if total > UNROLL_COPIES or statements > UNROLL_STATEMENTS:
            what = (f"{total} copies of this body" if total > UNROLL_COPIES
                    else f"{statements} statements")
            limit = (f"{UNROLL_COPIES} copies" if total > UNROLL_COPIES else f"{UNROLL_STATEMENTS} statements")
            self.diags.error("E0305", f"unrolling makes {what} (with the enclosing `T.unroll` loops); the limit "
                                      f"is {limit}", stmt.iter.span,
                             help="use `T.serial(n, unroll=True)` for some of the loops and let the compiler "
                                  "unroll")
            return None
        return trips

    def _stmt_Break(self, stmt):
        return self.loop_exit(stmt, ir.Break(stmt.span), "break")

    def _stmt_Continue(self, stmt):
        return self.loop_exit(stmt, ir.Continue(stmt.span), "continue")

    def loop_exit(self, stmt, node, word):
        if not self.loops:
            self.diags.error("E0316", f"`{word}` outside a loop", stmt.span)
            return None
        if self.loops[-1] == "unroll":
            self.diags.error("E0316", f"`{word}` inside an unrolled loop (`T.unroll`)", stmt.span,
                             help="`T.unroll` expands its body at compile time; use `T.serial(n, unroll=True)` "
                                  "for a loop that can be left early")
            return None
        return node

    def _stmt_Return(self, stmt: ast.Return):
        if stmt.value is not None:
            val = self.elab(stmt.value)
            if not (isinstance(val, PyConst) and val.value in (0, None)):
                self.diags.error("E0306", "a kernel returns nothing; write `return`", stmt.value.span)
                return None
        return ir.Return(stmt.span)

    def _stmt_Assert(self, stmt: ast.Assert):
        return self.static_assert(stmt, host=False)

    def static_assert(self, stmt: ast.Assert, *, host: bool):
        """A constant condition is checked now; otherwise device code traps when it fails."""
        test = self.elab(stmt.test)
        message = ""
        if stmt.msg is not None:
            message = self.const_str(stmt.msg, "the assertion message") or ""
        if isinstance(test, (PyConst, ir.IntImm)):
            if not test.value:
                self.diags.error("E0317", "static assertion failed" + (f": {message}" if message else ""),
                                 stmt.test.span)
            return None
        if host:
            if test is not POISON:
                self.diags.error("E0401", "an `assert` before `T.device_entry()` must have a compile-time "
                                          "condition", stmt.test.span,
                                 help="move it after `T.device_entry()`, where it traps when it fails")
            return None
        cond = self.condition(test, stmt.test.span)
        return None if cond is POISON else ir.Trap(cond, message, stmt.span)

    @handler("static_assert", "cond", "msg=''")
    def _static_assert(self, node, a):
        test = self.elab(a["cond"])
        message = "" if is_default(a["msg"]) else self.const_str(a["msg"], "the assertion message") or ""
        if isinstance(test, (PyConst, ir.IntImm)):
            if not test.value:
                self.diags.error("E0317", "static assertion failed" + (f": {message}" if message else ""),
                                 a["cond"].span)
        elif test is not POISON:
            self.diags.error("E0202", "`T.static_assert` needs a compile-time condition", a["cond"].span,
                             help="use `assert cond` for a check at run time")
        return Void(ir.Seq(()))

    def _stmt_With(self, stmt):
        self.diags.error("E0518", "`with` blocks are not supported yet", stmt.span)
        return None

    def _stmt_FunctionDef(self, stmt):
        self.diags.error("E0203", "nested functions are not supported", stmt.name_span)
        return None

    def _stmt_Import(self, stmt):
        self.diags.error("E0201", "imports belong at module level", stmt.span)
        return None

    _stmt_ImportFrom = _stmt_Import

    # -- loops -------------------------------------------------------------------------------------------
    def loop_range(self, kind: str, node: ast.Call, args):
        """`range(...)`, `T.serial(...)` or `T.unroll(...)`, its arguments bound (bind_args)."""
        first = self.int_value(args["start"])
        if is_default(args["stop"]):
            start, stop = _ZERO, first
        else:
            start, stop = first, self.int_value(args["stop"])
        step = _ONE if is_default(args["step"]) else self.int_value(args["step"])
        if start is POISON or stop is POISON or step is POISON:
            return POISON
        if start.dtype != stop.dtype:
            start = ir.cast(stop.dtype, start) if isinstance(start, ir.IntImm) else start
            stop = ir.cast(start.dtype, stop) if isinstance(stop, ir.IntImm) else stop
        if start.dtype != stop.dtype:
            self.diags.error("E0303", f"loop bounds have different dtypes: {start.dtype} and {stop.dtype}", node.span)
            return POISON
        if isinstance(step, ir.IntImm) and step.value == 0:
            self.diags.error("E0305", "a loop step cannot be zero", node.span)
            return POISON
        step = ir.cast(start.dtype, step)
        factor = 0
        if kind == "serial" and "unroll" in args and not is_default(args["unroll"]):
            unroll = self.elab(args["unroll"])
            if isinstance(unroll, PyConst) and unroll.value is True:
                factor = -1
            elif isinstance(unroll, PyConst) and isinstance(unroll.value, int) and not isinstance(unroll.value, bool) \
                    and unroll.value > 0:
                factor = unroll.value
            elif isinstance(unroll, PyConst) and unroll.value is False:
                factor = -2
            else:
                self.diags.error("E0305", "`unroll=` takes True, False or a positive count", args["unroll"].span)
        if "dtype" in args and not is_default(args["dtype"]):
            dtype = self.dtype_arg(args["dtype"])
            if dtype is not None and dtype != INT32:
                self.diags.error("E0518", f"{dtype} loop variables are not supported yet", args["dtype"].span,
                                 help="loop variables are int32; leave `dtype=` out")
                return POISON
        if kind == "unroll":
            if not all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
                self.diags.error("E0202", "`T.unroll` needs constant bounds", node.span,
                                 help="use `T.serial(n, unroll=True)` for a `#pragma unroll` loop")
                return POISON
            trips = max(0, -(-(stop.value - start.value) // step.value))
            if trips > UNROLL_COPIES:
                self.diags.error("E0305", f"`T.unroll` of {trips} iterations; the limit is {UNROLL_COPIES}", node.span,
                                 help="use `T.serial(n, unroll=True)` and let the compiler unroll")
                return POISON
        return LoopRange(kind, (start,), (stop,), (step,), factor)

    @handler("serial", "start", "stop=None", "step=1", "unroll=None", "dtype='int32'")
    def _serial(self, node, a):
        return self.loop_range("serial", node, a)

    @handler("unroll", "start", "stop=None", "step=1")
    def _unroll(self, node, a):
        return self.loop_range("unroll", node, a)

    @handler("grid", "*extents")
    def _grid(self, node, a):
        stops = [self.int_value(e) for e in a["extents"]]
        if not stops:
            self.diags.error("E0305", "`T.grid` needs at least one extent", node.span)
            return POISON
        if POISON in stops:
            return POISON
        zero = tuple(ir.IntImm(s.dtype, 0) for s in stops)
        one = tuple(ir.IntImm(s.dtype, 1) for s in stops)
        return LoopRange("grid", zero, tuple(stops), one)

    # -- allocation objects -------------------------------------------------------------------------------
    def new_allocation(self, shape, dtype, scope, layout, align, span, scalar=False):
        size = prod(e.value for e in shape) if layout is None else (self.view_extent(shape, layout) or 0)
        if scope == "shared.dyn":
            if self.arena is not None:
                extents = ", ".join(str(e.value) for e in shape) + ("," if len(shape) == 1 else "")
                self.diags.error("E0500", "a second dynamic shared memory allocation", span,
                                 notes=[Note("the kernel's dynamic shared arena is allocated here", self.arena.span)],
                                 help=f"declare this buffer as a view: `T.decl_buffer(({extents}), \"{dtype}\", "
                                      f"data={self.arena.name or 'arena'}.data, elem_offset=..., "
                                      f"scope=\"shared.dyn\")`")
                return POISON
            kind = "arena"
        else:
            kind = "array"
        if self.depth and scope == "shared.dyn":
            self.diags.error("E0500", "the dynamic shared arena must be allocated at the top level of the kernel "
                                      "body, not inside `if`, `for` or `while`", span,
                             help="allocate it once, before the block")
            return POISON
        storage = ir.Storage("\0", dtype, scope, kind, size, align)
        buf = ir.Buffer("", shape, dtype, scope, storage, layout, None, align, span, scalar=scalar)
        self.pending.append(ir.Allocate(buf, span))
        if scope == "shared.dyn":
            self.arena = buf
        elif scope == "shared":
            self.statics.append(buf)
        return buf

    def new_view(self, base: ir.Buffer, shape, dtype, scope, layout, offset, align, span):
        storage = base.storage
        if storage is None:
            return POISON
        if dtype != storage.dtype:
            if storage.kind == "param":
                self.diags.error("E0518", "reinterpreting a parameter buffer with another dtype is not supported",
                                 span)
                return POISON
            size = None if storage.size is None else storage.size * storage.dtype.nbytes // dtype.nbytes
            storage = ir.Storage("\0", dtype, scope, "view_pointer", size, align, base=storage)
        if not self.check_view_bounds(base, storage, shape, dtype, layout, offset, span):
            return POISON
        if storage is base.storage:
            # the same storage as its base: the offset counts from where the base starts
            offset = ir.binop("+", base.elem_offset, offset)
        elif storage.kind == "view_pointer" and isinstance(offset, ir.IntImm):
            # the view's own typed pointer starts at the view: `float* Bs_ptr = (float*)(smem_ptr + 32768);`
            storage.byte_offset = offset.value * dtype.nbytes
            offset = ir.IntImm(INT32, 0)
        buf = ir.Buffer("", shape, dtype, scope, storage, layout, offset, align, span)
        self.pending.append(ir.DeclView(buf, span))
        if scope == "shared.dyn":
            self.views.append(buf)
        return buf

    # -- the shared-memory budget (DECISIONS 13) ----------------------------------------------------------
    def shared_budget(self) -> tuple[int, int]:
        """Static shared bytes and the arena's bytes, checked against the limits (DECISIONS 13)."""
        static, crossing = 0, None
        for buf in self.statics:
            if buf.storage is not None:
                static += buf.storage.size * buf.dtype.nbytes
                if static > STATIC_SHARED_LIMIT and crossing is None:
                    crossing = buf
        # (an uncommitted pool has no size yet: finish_pools reports it)
        arena = (self.arena.storage.size or 0) * self.arena.dtype.nbytes if self.arena is not None else 0
        if crossing is not None:
            self.diags.error("E0508", f"static shared memory totals {static} bytes; the limit is "
                                      f"{STATIC_SHARED_LIMIT} bytes (48 KiB)", crossing.span,
                             help="move large tiles into the dynamic arena (`scope=\"shared.dyn\"`), which may "
                                  "grow to 227 KiB")
        else:
            # without --arch: the most any architecture allows; with it: that architecture's limit
            target = self.module.arch
            limit = SHARED_OPT_IN_MAX if target is None else limits(target[0]).shared_opt_in
            on = "" if target is None else f" on {arch_name(*target)}"
            if static + arena > limit:
                where = self.arena.span if self.arena is not None else self.statics[-1].span
                self.diags.error("E0509", f"static ({static} bytes) plus dynamic ({arena} bytes) shared memory is "
                                          f"{static + arena} bytes; the limit{on} is {limit} bytes "
                                          f"({limit // 1024} KiB)",
                                 where, help=f"shrink the tiles by {static + arena - limit} bytes")
        return static, arena


def _contains_call(node) -> bool:
    return isinstance(node, ast.Call) or any(_contains_call(child) for child in ast.iter_children(node))


class _SymbolicPending:
    """`n = T.int32()` before its name is known (symbolic_var allows int32 only)."""


def _statement_count(stmts) -> int:
    """Statements in a block, nested blocks included."""
    count, stack = 0, list(stmts)
    while stack:
        node = stack.pop()
        count += 1
        for name in ("body", "orelse"):
            stack.extend(getattr(node, name, None) or ())
    return count
