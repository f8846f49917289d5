"""Checking one kernel: parameters, the host region, `T.device_entry()`, the
thread hierarchy, statements and scoping, and the shared-memory budget."""
from __future__ import annotations

from dataclasses import replace
from math import prod

from . import ast, ir
from .check_expr import ExprChecker, kind_of
from .diagnostics import Note, did_you_mean
from .dtypes import BOOL, FLOAT32, INT32, UINT32, DType, parse_dtype
from .intrinsics import CallChecker, handler, is_default
from .memory import MemoryChecker
from .source import Span
from .values import (POISON, ArrayType, Binding, BufferType, DTypeVal, Handle, HandleType, IdTuple, LetType,
                     LoopRange, Namespace, Poison, Pointer, PyConst, Region, Void, Builtin, LayoutVal, LayoutPart)

C_RESERVED = frozenset("""
alignas alignof asm auto bool break case catch char char16_t char32_t class const constexpr const_cast continue
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept nullptr operator private protected public register
reinterpret_cast return short signed sizeof static static_assert static_cast struct switch template this
thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
threadIdx blockIdx blockDim gridDim warpSize half nv_bfloat16 float2 float4 int2 int4 uint2 uint4 min max
printf main assert
""".split())

STATIC_SHARED_LIMIT = 48 * 1024
TOTAL_SHARED_LIMIT = 227 * 1024
MAX_BLOCK = 1024

_ID_KINDS = {
    # name -> (max dims, what it counts)
    "cta_id": 3, "thread_id": 3, "warp_id": 1, "lane_id": 1, "warpgroup_id": 1, "warp_id_in_wg": 1,
    "thread_id_in_wg": 1,
}


class KernelChecker(ExprChecker, CallChecker, MemoryChecker):
    def __init__(self, module, fdef: ast.FunctionDef):
        self.module = module
        self.diags = module.diags
        self.fdef = fdef
        self.scopes: list[dict[str, Binding]] = [{}]
        self.closed: dict[str, Span] = {}  # names whose block ended: for a precise error
        self.cnames: set[str] = set()
        self.params: list[ir.Param] = []
        self.args: list[ir.Param] = []
        self.extents: dict[str, tuple[ir.Var, Span]] = {}
        self.handles: dict[str, Handle] = {}
        self.pending: list[ir.Stmt] = []
        self.device = False
        self.depth = 0
        self.loop_depth = 0
        self.unroll_depth = 0
        self.ids: dict[str, tuple[list[ir.Expr], Span]] = {}
        self.nonneg: set[str] = set()
        self.arena: ir.Buffer | None = None
        self.views: list[ir.Buffer] = []
        self.statics: list[ir.Buffer] = []
        self.min_arch = 0
        self.arch_suffix = ""

    # -- names -------------------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        """A C identifier for a source name: kept when free, else suffixed (deterministic)."""
        name = base if base not in C_RESERVED and not base.startswith("__") else base + "_"
        candidate, n = name, 1
        while candidate in self.cnames:
            candidate = f"{name}_{n}"
            n += 1
        self.cnames.add(candidate)
        return candidate

    def lookup(self, name: str, span: Span):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name].value
        glob = self.module.globals.get(name)
        if glob is not None:
            return glob.value
        if name == "range":
            return Builtin("range")
        if name in self.closed:
            self.diags.error("E0319", f"`{name}` is not visible here", span,
                             notes=[Note("it was bound inside a block that has ended", self.closed[name])])
            return POISON
        candidates = [n for s in self.scopes for n in s] + list(self.module.globals) + ["range"]
        self.diags.error("E0300", f"unknown name `{name}`", span, help=did_you_mean(name, candidates))
        return POISON

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
                self.closed[name] = binding.span

    def source_text(self, span: Span) -> str:
        if span.line != span.end_line:
            return ""
        return self.module.source.line_text(span.line)[span.col - 1:span.end_col - 1]

    def require_arch(self, arch: int, what: str, span: Span, suffix: str = "") -> None:
        if arch > self.min_arch:
            self.min_arch = arch
        if suffix:
            self.arch_suffix = suffix
        target = self.module.arch
        if target is not None and (target[0] < arch or (suffix and target[1] != suffix)):
            self.diags.error("E0320", f"{what} needs sm_{arch}{suffix}, but the target is "
                                      f"sm_{target[0]}{target[1]}", span)

    # -- the kernel ------------------------------------------------------------------------------------
    def run(self):
        from .check import Kernel
        fdef = self.fdef
        for param in fdef.params:
            self.parameter(param)
        body = list(fdef.body)
        if body and isinstance(body[0], ast.ExprStmt) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        entry = next((i for i, s in enumerate(body) if self.is_device_entry(s)), None)
        if entry is None:
            self.diags.error("E0400", f"kernel `{fdef.name}` has no `T.device_entry()`", fdef.name_span,
                             help="write `T.device_entry()` after the `T.match_buffer` calls; the kernel body "
                                  "follows it")
            return None
        for stmt in body[:entry]:
            self.host_stmt(stmt)
        for name, handle in self.handles.items():
            self.diags.error("E0511", f"handle parameter `{name}` is never bound with `T.match_buffer`", handle.span)
        self.finish_params()
        self.device = True
        stmts = self.block(body[entry + 1:], top=True)
        for stmt in body[entry + 1:]:
            if self.is_device_entry(stmt):
                self.diags.error("E0400", "a second `T.device_entry()`", stmt.span,
                                 notes=[Note("the first one is here", body[entry].span)])
        grid, block = self.launch_shape()
        static_bytes, arena_bytes = self.shared_budget()
        if self.diags.has_errors:
            return None
        return Kernel(fdef.name, fdef.span, self.params, self.args, ir.seq(stmts), grid, block, self.nonneg,
                      self.min_arch, self.arch_suffix, self.arena, arena_bytes, self.views, static_bytes)

    def is_device_entry(self, stmt) -> bool:
        if not isinstance(stmt, ast.ExprStmt) or not isinstance(stmt.value, ast.Call):
            return False
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr == "device_entry" and isinstance(func.value, ast.Name) \
            and isinstance(self.module.globals.get(func.value.id, Binding(None, "", stmt.span)).value, Namespace)

    # -- parameters ------------------------------------------------------------------------------------
    def parameter(self, param: ast.Param) -> None:
        if param.annotation is None:
            self.diags.error("E0310", f"parameter `{param.name}` needs a type annotation", param.span,
                             help="annotate it with `T.handle`, `T.Buffer(shape, dtype)` or a dtype like `T.int32`")
            self.bind(param.name, Binding(POISON, "param", param.span))
            return
        if self.binding(param.name) is not None:
            self.diags.error("E0314", f"parameter `{param.name}` is declared twice", param.span)
            return
        annotation = param.annotation
        if isinstance(annotation, ast.Call) and isinstance(annotation.func, ast.Attribute) \
                and annotation.func.attr in ("Buffer", "Tensor"):
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
        if kind is not POISON:
            self.diags.error("E0310", f"parameter `{param.name}` has an unsupported annotation", annotation.span,
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
        if isinstance(stmt, (ast.Pass,)) or (isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant)):
            return
        if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Call):
            val = self.elab(stmt.value)
            if isinstance(val, Void) and isinstance(val.stmt, ir.Seq) and not val.stmt.body:
                return  # T.func_attr and hints
            if val is not POISON:
                self.diags.error("E0401", "only parameter binding is allowed before `T.device_entry()`", stmt.span)
            return
        if isinstance(stmt, ast.Assert):
            test = self.elab(stmt.test)
            if isinstance(test, PyConst):
                if not test.value:
                    self.diags.error("E0317", "static assertion failed", stmt.test.span)
                return
            self.diags.error("E0401", "a host-side `assert` must be a compile-time condition", stmt.span)
            return
        if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if self.binding(name) is not None:
                self.diags.error("E0314", f"`{name}` is already defined", stmt.target.span,
                                 notes=[Note("defined here", self.binding(name).span)])
                return
            val = self.elab(stmt.value)
            if isinstance(val, ir.Buffer) and val.storage is None:
                handle = self.handle_of(stmt.value)
                self.handles.pop(handle, None)
                val = self.attach_param(handle, val, name, stmt.span)
                self.bind(name, Binding(val, "buffer", stmt.target.span))
                return
            if isinstance(val, _SymbolicPending):
                var = ir.Var(val.dtype, self.fresh(name), stmt.target.span)
                self.extents[name] = (var, stmt.target.span)
                self.nonneg.add(var.name)
                self.bind(name, Binding(var, "var", stmt.target.span))
                return
            if isinstance(val, (PyConst, LayoutVal)):
                self.bind(name, Binding(val, "const", stmt.target.span))
                return
            if val is not POISON:
                self.diags.error("E0401", "before `T.device_entry()` a kernel only binds parameters, symbolic "
                                          "extents and constants", stmt.span)
            return
        self.diags.error("E0401", "only parameter binding is allowed before `T.device_entry()`", stmt.span,
                         help="move device work after `T.device_entry()`")

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
            self.diags.error("E0512", "symbolic extents are int32", node.span)
            return POISON
        return _SymbolicPending(dtype, node.span)

    # -- statements -------------------------------------------------------------------------------------
    def block(self, stmts, *, top: bool = False, new_scope: bool = True) -> list[ir.Stmt]:
        if new_scope and not top:
            self.push()
        out: list[ir.Stmt] = []
        for stmt in stmts:
            produced = self.stmt(stmt, top=top)
            out.extend(self.pending)
            self.pending = []
            if produced is not None:
                out.extend(produced if isinstance(produced, list) else [produced])
        if new_scope and not top:
            self.pop()
        return out

    def stmt(self, stmt, top: bool = False):
        method = getattr(self, "_stmt_" + type(stmt).__name__, None)
        if method is None:
            self.diags.error("E0201", f"`{type(stmt).__name__}` is not allowed in a kernel body", stmt.span)
            return None
        self.at_top = top
        return method(stmt)

    def _stmt_Pass(self, stmt):
        return None

    def _stmt_ExprStmt(self, stmt):
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return None
        if isinstance(stmt.value, ast.Call) and self.is_device_entry(stmt):
            return None  # reported once by run()
        val = self.elab(stmt.value)
        if isinstance(val, Void):
            return val.stmt
        if isinstance(val, ir.Call):
            return ir.Evaluate(val, stmt.span)
        if isinstance(val, (Poison,)):
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
        existing = self.binding(target.id)
        if existing is not None:
            return self.reassign(target, existing, stmt.value, stmt)
        val = self.elab(stmt.value)
        return self.bind_new(target, val, stmt, annotation=None)

    def reassign(self, target: ast.Name, existing: Binding, value_node, stmt):
        value = existing.value
        if isinstance(value, ir.Buffer) and self.is_scalar_like(value):
            val = self.value(value_node, value.dtype)
            return self.scalar_store(value, val, stmt.span, value_node.span)
        kinds = {"let": "an immutable `T.let` binding", "loopvar": "a loop variable", "id": "a thread id",
                 "param": "a kernel parameter", "const": "a constant", "var": "a symbolic extent",
                 "buffer": "a buffer", "pointer": "a pointer binding"}
        self.diags.error("E0307", f"`{target.id}` is {kinds.get(existing.kind, 'immutable')} and cannot be "
                                  f"reassigned", target.span, notes=[Note("bound here", existing.span)],
                         help="use a new name, or a mutable scalar (`x: T.int32 = ...`)"
                         if existing.kind in ("let", "const") else None)
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
        return ir.BufferStore(buf, (ir.IntImm(INT32, 0),), val, span)

    def bind_new(self, target: ast.Name, val, stmt, annotation):
        name = target.id
        if val is POISON:
            self.bind(name, Binding(POISON, "other", target.span))
            return None
        if isinstance(val, _SymbolicPending):
            self.diags.error("E0401", "symbolic extents are declared before `T.device_entry()`", stmt.span)
            return None
        if isinstance(val, ir.Buffer):
            named = val if val.name else replace(val, name=name)
            if not val.name:
                object.__setattr__(val, "name", name) if False else None
            self.bind(name, Binding(named, "buffer", target.span))
            if named.storage is not None and named.storage.name == "" and False:
                pass
            return self.flush_named(named, val)
        if isinstance(val, IdTuple):
            if len(val.vars) != 1:
                self.diags.error("E0312", f"this call returns {len(val.vars)} ids; unpack them: "
                                          f"`{', '.join('v%d' % i for i in range(len(val.vars)))} = ...`", target.span)
                return None
            return self.bind_id(target, val.vars[0])
        if isinstance(val, (Pointer, LayoutVal, Region, PyConst, ir.BufferAddress)) and not (
                isinstance(val, PyConst) and isinstance(val.value, (bool, int, float))):
            kind = "pointer" if isinstance(val, (Pointer, ir.BufferAddress)) else "const"
            if isinstance(val, LayoutPart):
                val = self.make_layout(val, stmt.value)
            self.bind(name, Binding(val, kind, target.span))
            return None
        if isinstance(val, LayoutPart):
            self.bind(name, Binding(self.make_layout(val, stmt.value), "const", target.span))
            return None
        value = self.as_value(val, stmt.value.span)
        if value is POISON:
            self.bind(name, Binding(POISON, "other", target.span))
            return None
        buf = self.new_scalar(name, value.dtype, target.span)
        return ir.BufferStore(buf, (ir.IntImm(INT32, 0),), value, stmt.span)

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
            object.__setattr__(storage, "name", new_name)
        if self.arena is original:
            self.arena = named
        self.views = [named if v is original else v for v in self.views]
        self.statics = [named if v is original else v for v in self.statics]

    def new_scalar(self, name: str, dtype: DType, span: Span) -> ir.Buffer:
        storage = ir.Storage(self.fresh(name + "_ptr"), dtype, "local", "array", 1, 0)
        buf = ir.Buffer(name, (ir.IntImm(INT32, 1),), dtype, "local", storage, None, None, 0, span, scalar=True)
        self.pending.append(ir.Allocate(buf, span))
        self.bind(name, Binding(buf, "scalar", span, mutable=True))
        return buf

    def bind_id(self, target: ast.Name, var: ir.Var):
        self.bind(target.id, Binding(var, "id", target.span))
        return None

    def assign_tuple(self, target: ast.Tuple, val, stmt):
        if isinstance(val, IdTuple):
            if len(val.vars) != len(target.elts):
                self.diags.error("E0312", f"{len(target.elts)} names for {len(val.vars)} ids", target.span)
                return None
            for elt, var in zip(target.elts, val.vars):
                if not isinstance(elt, ast.Name):
                    self.diags.error("E0312", "thread ids are bound to plain names", elt.span)
                    continue
                self.bind_id(elt, var)
            return None
        if isinstance(val, PyConst) and isinstance(val.value, tuple) and len(val.value) == len(target.elts):
            for elt, item in zip(target.elts, val.value):
                if isinstance(elt, ast.Name):
                    self.bind(elt.id, Binding(PyConst(item), "const", elt.span))
            return None
        if val is not POISON:
            self.diags.error("E0312", "tuple assignment unpacks thread ids (`bx, by = T.cta_id([gx, gy])`)",
                             target.span)
        return None

    def store(self, target: ast.Subscript, val, stmt):
        base = self.elab(target.value)
        if base is POISON or val is POISON:
            return None
        if not isinstance(base, ir.Buffer):
            self.diags.error("E0312", f"cannot assign into {kind_of(base)}", target.value.span)
            return None
        indices = target.indices
        if len(indices) == 1 and isinstance(indices[0], ast.Tuple):
            indices = indices[0].elts
        if any(isinstance(i, ast.Slice) for i in indices) or len(indices) < base.ndim:
            self.diags.error("E0518", "assigning to a region is not supported", target.span,
                             help="store single elements in a loop")
            return None
        if len(indices) != base.ndim:
            self.diags.error("E0506", f"`{base.name}` has {base.ndim} dimension{'s' if base.ndim != 1 else ''} "
                                      f"but {len(indices)} indices were given", target.span)
            return None
        idx = self.indices(base, indices)
        value = self.as_value(val, stmt.value.span if hasattr(stmt, "value") else stmt.span, base.dtype)
        if idx is POISON or value is POISON:
            return None
        if base.scope == "tmem":
            self.diags.error("E0518", f"`{base.name}` is in tensor memory, which only tcgen05 operations access",
                             target.span)
            return None
        if value.dtype != base.dtype:
            self.diags.error("E0303", f"storing a {value.dtype} value into {base.dtype} buffer `{base.name}`",
                             stmt.span, help=f"convert it: `T.cast(..., \"{base.dtype}\")`")
            return None
        return ir.BufferStore(base, idx, value, stmt.span)

    def _stmt_AnnAssign(self, stmt: ast.AnnAssign):
        target = stmt.target
        if not isinstance(target, ast.Name):
            self.diags.error("E0312", "annotated assignments bind a plain name", target.span)
            return None
        ann = self.elab(stmt.annotation)
        if ann is POISON:
            return None
        existing = self.binding(target.id)
        if existing is not None:
            self.diags.error("E0314", f"`{target.id}` is already defined", target.span,
                             notes=[Note("defined here", existing.span)])
            return None
        if isinstance(ann, LetType):
            return self.let(target, ann.dtype, stmt)
        if isinstance(ann, DTypeVal):
            dtype = ann.dtype
            buf = self.new_scalar(target.id, dtype, target.span)
            if stmt.value is None:
                return None
            return self.scalar_store(buf, self.value(stmt.value, dtype), stmt.span, stmt.value.span)
        if isinstance(ann, ArrayType):
            if stmt.value is not None:
                self.diags.error("E0315", "a local array annotation takes no initial value", stmt.value.span)
                return None
            shape = tuple(ir.IntImm(INT32, e) for e in ann.shape)
            if any(e <= 0 for e in ann.shape):
                self.diags.error("E0503", "local array extents must be positive", stmt.annotation.span)
                return None
            buf = self.new_allocation(shape, ann.dtype, "local", None, 0, target.span)
            self.bind(target.id, Binding(buf, "buffer", target.span))
            return self.flush_named(replace(buf, name=target.id), buf) if not buf.name else None
        self.diags.error("E0315", "unsupported annotation", stmt.annotation.span,
                         help="use a dtype (`T.int32`), `T.let` or `T.let[T.int32]`")
        return None

    def let(self, target: ast.Name, dtype: DType | None, stmt):
        if stmt.value is None:
            self.diags.error("E0315", "a `T.let` binding needs a value", stmt.span)
            return None
        val = self.elab(stmt.value)
        if isinstance(val, PyConst) and not isinstance(val.value, (bool, int, float)):
            self.bind(target.id, Binding(val, "let", target.span))
            return None
        if isinstance(val, Pointer):
            self.bind(target.id, Binding(val, "let", target.span))
            return None
        value = self.as_value(val, stmt.value.span, dtype)
        if value is POISON:
            self.bind(target.id, Binding(POISON, "let", target.span))
            return None
        if dtype is not None and value.dtype != dtype:
            self.diags.error("E0303", f"`T.let[{dtype}]` bound to a {value.dtype} value", stmt.value.span,
                             help=f"convert it: `T.cast(..., \"{dtype}\")`")
            return None
        if isinstance(value, (ir.IntImm, ir.FloatImm)):
            self.bind(target.id, Binding(value, "let", target.span))  # a constant: substituted where used
            return None
        var = ir.Var(value.dtype, self.fresh(target.id), target.span)
        if self.is_nonneg(value):
            self.nonneg.add(var.name)
        self.bind(target.id, Binding(var, "let", target.span))
        return ir.LetStmt(var, value, stmt.span)

    def is_nonneg(self, e: ir.Expr) -> bool:
        from .lower import nonneg
        return nonneg(e, self.nonneg)

    def _stmt_AugAssign(self, stmt: ast.AugAssign):
        from .check_expr import _BINOPS
        op = _BINOPS.get(stmt.op)
        if op is None:
            self.diags.error("E0306", f"`{stmt.op}=` is not supported", stmt.span)
            return None
        target = stmt.target
        if isinstance(target, ast.Name):
            existing = self.binding(target.id)
            if existing is None:
                self.lookup(target.id, target.span)
                return None
            if not (isinstance(existing.value, ir.Buffer) and self.is_scalar_like(existing.value)):
                return self.reassign(target, existing, stmt.value, stmt)
            buf = existing.value
            current = self.load(buf, (ir.IntImm(INT32, 0),), target.span)
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
        then = self.block(stmt.body)
        orelse = self.block(stmt.orelse) if stmt.orelse else None
        self.depth -= 1
        if cond is POISON:
            return None
        return ir.If(cond, ir.seq(then), ir.seq(orelse) if orelse else None, stmt.span)

    def _stmt_While(self, stmt: ast.While):
        cond = self.condition(self.elab(stmt.test), stmt.test.span)
        self.depth += 1
        self.loop_depth += 1
        saved_unroll, self.unroll_depth = self.unroll_depth, 0
        body = self.block(stmt.body)
        self.unroll_depth = saved_unroll
        self.loop_depth -= 1
        self.depth -= 1
        if cond is POISON:
            return None
        return ir.While(cond, ir.seq(body), stmt.span)

    def _stmt_For(self, stmt: ast.For):
        rng = self.elab(stmt.iter)
        if isinstance(rng, Poison):
            return None
        if not isinstance(rng, LoopRange):
            self.diags.error("E0306", "a `for` loop iterates over `range(...)`, `T.serial`, `T.unroll` or "
                                      "`T.grid`", stmt.iter.span)
            return None
        targets = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else (stmt.target,)
        if len(targets) != len(rng.starts):
            self.diags.error("E0312", f"{len(targets)} loop variable{'s' if len(targets) != 1 else ''} for "
                                      f"{len(rng.starts)} loop{'s' if len(rng.starts) != 1 else ''}", stmt.target.span)
            return None
        if not all(isinstance(t, ast.Name) for t in targets):
            self.diags.error("E0312", "loop variables are plain names", stmt.target.span)
            return None
        self.depth += 1
        self.push()
        loop_vars = []
        for target, start, step in zip(targets, rng.starts, rng.steps):
            var = ir.Var(start.dtype, self.fresh(target.id), target.span)
            if isinstance(start, ir.IntImm) and start.value >= 0 and isinstance(step, ir.IntImm) and step.value > 0 \
                    or (self.is_nonneg(start) and isinstance(step, ir.IntImm) and step.value > 0):
                self.nonneg.add(var.name)
            self.bind(target.id, Binding(var, "loopvar", target.span))
            loop_vars.append(var)
        unrolled = rng.kind == "unroll"
        if unrolled:
            self.unroll_depth += 1
        else:
            self.loop_depth += 1
        body = self.block(stmt.body, new_scope=False)
        if unrolled:
            self.unroll_depth -= 1
        else:
            self.loop_depth -= 1
        self.pop()
        self.depth -= 1
        out: ir.Stmt = ir.seq(body)
        for var, start, stop, step in reversed(list(zip(loop_vars, rng.starts, rng.stops, rng.steps))):
            kind = "unroll" if unrolled else ("pragma_unroll" if rng.unroll_factor else "serial")
            out = ir.For(var, start, stop, step, out, kind, rng.unroll_factor, stmt.span)
        return out

    def _stmt_Break(self, stmt):
        return self.loop_exit(stmt, ir.Break(stmt.span), "break")

    def _stmt_Continue(self, stmt):
        return self.loop_exit(stmt, ir.Continue(stmt.span), "continue")

    def loop_exit(self, stmt, node, word):
        if self.unroll_depth and not self.loop_depth:
            self.diags.error("E0316", f"`{word}` inside an unrolled loop (`T.unroll`)", stmt.span)
            return None
        if not self.loop_depth:
            self.diags.error("E0316", f"`{word}` outside a loop", stmt.span)
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
        test = self.elab(stmt.test)
        message = ""
        if stmt.msg is not None:
            message = self.const_str(stmt.msg, "the assertion message") or ""
        if isinstance(test, PyConst):
            if not test.value:
                self.diags.error("E0317", "static assertion failed" + (f": {message}" if message else ""),
                                 stmt.test.span)
            return None
        cond = self.condition(test, stmt.test.span)
        return None if cond is POISON else ir.Trap(cond, message, stmt.span)

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
    def loop_range(self, kind: str, node: ast.Call, params):
        args = self.bind_args(node, params, "range" if kind == "serial" and isinstance(node.func, ast.Name)
                              else f"T.{kind}")
        if args is None:
            return POISON
        first = self.int_value(args["start"])
        if is_default(args.get("stop")) or args.get("stop") is None:
            start, stop = ir.IntImm(INT32, 0), first
        else:
            start, stop = first, self.int_value(args["stop"])
        step = ir.IntImm(INT32, 1) if is_default(args.get("step", None)) or "step" not in args \
            else self.int_value(args["step"])
        if POISON in (start, stop, step):
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
        if kind == "unroll":
            if not all(isinstance(x, ir.IntImm) for x in (start, stop, step)):
                self.diags.error("E0202", "`T.unroll` needs constant bounds", node.span,
                                 help="use `T.serial(n, unroll=True)` for a `#pragma unroll` loop")
                return POISON
            trips = max(0, -(-(stop.value - start.value) // step.value))
            if trips > 4096:
                self.diags.error("E0305", f"`T.unroll` of {trips} iterations; the limit is 4096", node.span)
                return POISON
        return LoopRange(kind, (start,), (stop,), (step,), factor)

    @handler("serial", "start", "stop=None", "step=1", "unroll=None", "dtype='int32'")
    def _serial(self, node, a):
        return self.loop_range("serial", node, ("start", "stop=None", "step=1", "unroll=None", "dtype='int32'"))

    @handler("unroll", "start", "stop=None", "step=1")
    def _unroll(self, node, a):
        return self.loop_range("unroll", node, ("start", "stop=None", "step=1"))

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
                self.diags.error("E0500", "a second dynamic shared memory allocation", span,
                                 notes=[Note("the kernel's dynamic shared arena is allocated here", self.arena.span)],
                                 help="declare this buffer as a view: `T.decl_buffer(shape, dtype, "
                                      f"data={self.arena.name or 'arena'}.data, elem_offset=..., scope=\"shared.dyn\")`")
                return POISON
            kind = "arena"
        else:
            kind = "array"
        if self.depth and scope == "shared.dyn":
            self.diags.error("E0500", "the dynamic shared arena is allocated at the top level of the kernel", span)
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
        if not self.check_view_bounds(storage, shape, dtype, layout, offset, span):
            return POISON
        buf = ir.Buffer("", shape, dtype, scope, storage, layout, offset, align, span)
        self.pending.append(ir.DeclView(buf, span))
        if scope == "shared.dyn":
            self.views.append(buf)
        return buf

    # -- the thread hierarchy -------------------------------------------------------------------------
    @handler("cta_id", "extents=None", "preferred=None", "dtype='int32'")
    def _cta_id(self, node, a):
        if not is_default(a["preferred"]):
            return self._unsupported(node, "`preferred=` (preferred cluster shapes)", "E0406")
        return self.scope_id("cta_id", node, a)

    @handler("thread_id", "extents=None", "dtype='int32'")
    def _thread_id(self, node, a):
        return self.scope_id("thread_id", node, a)

    @handler("warp_id", "extents=None", "dtype='int32'")
    def _warp_id(self, node, a):
        return self.scope_id("warp_id", node, a)

    @handler("lane_id", "extents=None", "dtype='int32'")
    def _lane_id(self, node, a):
        return self.scope_id("lane_id", node, a)

    @handler("warpgroup_id", "extents=None", "dtype='int32'")
    def _warpgroup_id(self, node, a):
        return self.scope_id("warpgroup_id", node, a)

    @handler("warp_id_in_wg", "extents=None", "dtype='int32'")
    def _warp_id_in_wg(self, node, a):
        return self.scope_id("warp_id_in_wg", node, a)

    @handler("thread_id_in_wg", "extents=None", "dtype='int32'")
    def _thread_id_in_wg(self, node, a):
        return self.scope_id("thread_id_in_wg", node, a)

    @handler("device_entry")
    def _device_entry(self, node, a):
        self.diags.error("E0400", "`T.device_entry()` is a statement at the top level of the kernel", node.span)
        return POISON

    def scope_id(self, kind: str, node, a):
        if not self.device:
            self.diags.error("E0402", f"`T.{kind}` belongs after `T.device_entry()`", node.span)
            return POISON
        if self.depth:
            self.diags.error("E0402", f"`T.{kind}` must be declared at the top level of the kernel body, not inside "
                                      f"`if`, `for` or `while`", node.span)
            return POISON
        dtype_name = self.const_str(a["dtype"], "the id dtype") if not is_default(a["dtype"]) else "int32"
        if dtype_name not in ("int32", "uint32"):
            self.diags.error("E0405", "thread ids are int32 or uint32", node.span)
            return POISON
        if is_default(a["extents"]):
            self.diags.error("E0405", f"`T.{kind}` needs its extents, e.g. `T.{kind}([128])`", node.span)
            return POISON
        raw = self.elab(a["extents"])
        items = [PyConst(v) for v in raw.value] if isinstance(raw, PyConst) and isinstance(raw.value, tuple) else \
            list(raw) if isinstance(raw, tuple) else [raw]
        extents = []
        for item in items:
            v = self.as_value(item, a["extents"].span, INT32)
            if v is POISON:
                return POISON
            if not v.dtype.is_int:
                self.diags.error("E0405", "extents are integers", a["extents"].span)
                return POISON
            if isinstance(v, ir.IntImm) and v.value <= 0:
                self.diags.error("E0405", f"extent {v.value} is not positive", a["extents"].span)
                return POISON
            if kind != "cta_id" and not isinstance(v, ir.IntImm):
                self.diags.error("E0405", f"`T.{kind}` extents must be compile-time constants", a["extents"].span)
                return POISON
            extents.append(v)
        limit = _ID_KINDS[kind]
        if not 1 <= len(extents) <= limit:
            self.diags.error("E0405", f"`T.{kind}` takes {'1 to 3 extents' if limit == 3 else 'one extent'}, got "
                                      f"{len(extents)}", a["extents"].span)
            return POISON
        previous = self.ids.get(kind)
        if previous is not None and [str(e) for e in previous[0]] != [str(e) for e in extents]:
            self.diags.error("E0403", f"`T.{kind}` declared again with different extents", node.span,
                             notes=[Note("first declared here", previous[1])])
            return POISON
        self.ids.setdefault(kind, (extents, node.span))
        dtype = parse_dtype(dtype_name)
        values = self.id_values(kind, extents)
        vars = []
        for i, value in enumerate(values):
            var = ir.Var(dtype, self.fresh(f"{kind}_{i}" if False else self.id_base_name(node, i, kind)), node.span)
            self.nonneg.add(var.name)
            self.pending.append(ir.LetStmt(var, ir.cast(dtype, value), node.span))
            vars.append(var)
        return IdTuple(tuple(vars))

    def id_base_name(self, node, index: int, kind: str) -> str:
        """Ids take the names they are bound to; the binding is resolved later."""
        return f"\0{kind}{index}"

    def bind_id(self, target: ast.Name, var: ir.Var):
        if var.name.startswith("\0"):
            new = ir.Var(var.dtype, self.fresh(target.id), var.span)
            self.cnames.discard(var.name)
            self.nonneg.discard(var.name)
            self.nonneg.add(new.name)
            for i, s in enumerate(self.pending):
                if isinstance(s, ir.LetStmt) and s.var is var:
                    self.pending[i] = ir.LetStmt(new, s.value, s.span)
            var = new
        self.bind(target.id, Binding(var, "id", target.span))
        return None

    def id_values(self, kind: str, extents) -> list[ir.Expr]:
        axes = "xyz"
        if kind == "cta_id":
            return [ir.Builtin(INT32, f"blockIdx.{axes[i]}") for i in range(len(extents))]
        if kind == "thread_id":
            return [ir.Builtin(INT32, f"threadIdx.{axes[i]}") for i in range(len(extents))]
        linear = self.linear_tid()
        full = ir.IntImm(UINT32, 0xFFFFFFFF)
        zero = ir.IntImm(INT32, 0)
        if kind == "lane_id":
            return [ir.binop("floormod", linear, ir.IntImm(INT32, 32))]
        if kind == "thread_id_in_wg":
            return [ir.binop("floormod", linear, ir.IntImm(INT32, 128))]
        if kind == "warp_id":
            return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floordiv", linear, ir.IntImm(INT32, 32)), zero))]
        if kind == "warpgroup_id":
            return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floordiv", linear, ir.IntImm(INT32, 128)), zero))]
        if kind == "warp_id_in_wg":
            warp = ir.binop("floordiv", linear, ir.IntImm(INT32, 32))
            return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floormod", warp, ir.IntImm(INT32, 4)), zero))]
        raise KeyError(kind)

    def linear_tid(self) -> ir.Expr:
        threads = self.ids.get("thread_id")
        x = ir.Builtin(INT32, "threadIdx.x")
        if threads is None or len(threads[0]) == 1:
            return x
        ext = threads[0]
        y = ir.mul(ir.Builtin(INT32, "threadIdx.y"), ext[0])
        total = ir.add(x, y)
        if len(ext) == 3:
            total = ir.add(total, ir.mul(ir.Builtin(INT32, "threadIdx.z"), ir.mul(ext[0], ext[1])))
        return total

    def launch_shape(self):
        one = ir.IntImm(INT32, 1)
        grid = list(self.ids.get("cta_id", ([], None))[0]) + []
        grid += [one] * (3 - len(grid))
        threads_decl = self.ids.get("thread_id")
        consts = {k: v[0][0].value for k, v in self.ids.items() if k != "cta_id" and k != "thread_id"}
        spans = {k: v[1] for k, v in self.ids.items()}
        if threads_decl is not None:
            block = list(threads_decl[0])
            threads = prod(e.value for e in block if isinstance(e, ir.IntImm))
        else:
            threads = None
            if "warp_id" in consts:
                threads = consts["warp_id"] * 32
            elif "warpgroup_id" in consts:
                threads = consts["warpgroup_id"] * 128
            elif "lane_id" in consts:
                threads = consts["lane_id"]
            block = [ir.IntImm(INT32, threads or 1)]
        block += [one] * (3 - len(block))
        if threads is not None and threads > MAX_BLOCK:
            where = (threads_decl or (None, self.fdef.name_span))[1]
            self.diags.error("E0404", f"the block has {threads} threads; CUDA allows at most {MAX_BLOCK}", where)
        if threads is not None:
            self.check_closure(threads, consts, spans)
        return grid, block

    def check_closure(self, threads: int, consts: dict, spans: dict) -> None:
        def bad(kind, message):
            note = [Note("the block size comes from here", spans["thread_id"])] if "thread_id" in spans else []
            self.diags.error("E0403", message, spans[kind], notes=note)

        warps = -(-threads // 32)
        if "warp_id" in consts and consts["warp_id"] * 32 != threads:
            bad("warp_id", f"{consts['warp_id']} warps of 32 threads do not make a block of {threads} threads")
        if "lane_id" in consts and consts["lane_id"] != min(32, threads):
            bad("lane_id", f"lane ids count {consts['lane_id']} lanes, but a warp of this block has {min(32, threads)}")
        if "warpgroup_id" in consts and consts["warpgroup_id"] * 128 != threads:
            bad("warpgroup_id", f"{consts['warpgroup_id']} warpgroups of 128 threads do not make a block of "
                                f"{threads} threads")
        if "warp_id_in_wg" in consts and consts["warp_id_in_wg"] != min(4, warps):
            bad("warp_id_in_wg", f"warps in a warpgroup count {consts['warp_id_in_wg']}, expected {min(4, warps)}")
        if "thread_id_in_wg" in consts and consts["thread_id_in_wg"] != min(128, threads):
            bad("thread_id_in_wg", f"threads in a warpgroup count {consts['thread_id_in_wg']}, expected "
                                   f"{min(128, threads)}")

    # -- the shared-memory budget (DECISIONS 13) ----------------------------------------------------------
    def shared_budget(self) -> tuple[int, int]:
        static = sum(b.storage.size * b.dtype.nbytes for b in self.statics if b.storage is not None)
        arena = 0
        if self.arena is not None:
            arena = self.arena.storage.size * self.arena.dtype.nbytes
        where = self.statics[-1].span if self.statics else self.fdef.name_span
        if static > STATIC_SHARED_LIMIT:
            self.diags.error("E0508", f"static shared memory totals {static} bytes; the limit is "
                                      f"{STATIC_SHARED_LIMIT} bytes (48 KiB)", where,
                             help="move large tiles into the dynamic arena (scope=\"shared.dyn\")")
        elif static + arena > TOTAL_SHARED_LIMIT:
            self.diags.error("E0509", f"static ({static} bytes) plus dynamic ({arena} bytes) shared memory is "
                                      f"{static + arena} bytes; the limit is {TOTAL_SHARED_LIMIT} bytes (227 KiB)",
                             self.arena.span if self.arena is not None else where)
        return static, arena


class _SymbolicPending:
    """`n = T.int32()` before its name is known."""

    def __init__(self, dtype, span):
        self.dtype, self.span = dtype, span
