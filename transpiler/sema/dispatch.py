"""The rules that reach across the checker's rooms. The expressions whose meaning depends on the
value they apply to (a call, an attribute, a subscript, `+` / `*`, `is`, `in`) are handed here to
the family that owns that value: a buffer's methods to memory/access.py, a pool's to
memory/pools.py, a layout's to memory/layout_methods.py, a class's or an instance's to
library/classes.py, a Python value's to the evaluator, `T.*` to calls/intrinsics.py. The
statements that reach a class or a helper of the file (`self.x = v`, `with obj:`, a nested `def`,
`class`, `raise`, an `import` in a helper) are here too.

The expression and statement checkers sit below every family (each family elaborates its
arguments with expr.elab and checks bodies with statements.py), so they cannot import the
families; this module, at the top of the checker, can, and calls each of them directly. Its
rules join the dispatch tables on node classes (expr's, statements' and the helper interpreter's)
when it is imported: check.py imports it."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.syntax import ast
from transpiler.target.dtypes import known_dtype_names
from transpiler.evaluator import builtins as pyeval_builtins, core as pyeval, lists as pyeval_lists, \
    modules as pyeval_modules
from transpiler.evaluator.environ import Environ
from transpiler.evaluator.values import Builtin, DTypeVal, Helper, LoopRange, Method, POISON, Poison, PyConst, PyDict, describe
from transpiler.sema.calls import intrinsics, ptx as ptx_calls, tcgen05_frag
from transpiler.sema.expressions import directives, expr, scalars
from transpiler.sema.expressions.expr import _BINOPS, const_int, const_str, dtype_arg, elab, library_name
from transpiler.sema.expressions.indexing import index_nodes, is_sequence_call, subscript_buffer
from transpiler.sema.kernel import device_functions, loops, statements
from transpiler.sema.library import class_enum, classes, imports, instance_attrs, macros
from transpiler.sema.library.class_values import CALLABLE, WITH_ATTRS, ClassVal
from transpiler.sema.memory import (access, buffer_views, layout_attrs, layout_methods, pools, tmem_packing,
                                    typed_pointers, views)
from transpiler.sema.registry import HANDLERS, LAYOUT_CTORS, _dtype_value, _known_dotted_names, _suggest, bind_args
from transpiler.sema.values import (ArrayType, AxisTerm, BufferIndexer, HandleType, LayoutCtor, LayoutPart,
                                    LayoutVal, LetType, LibraryName, Namespace, Pointer, PtxMnemonic, SmemPool,
                                    TmemPool)


_LAYOUT_OPERANDS = (LayoutPart, AxisTerm)  # operand classes that make `+` a layout sum
PY_VALUES = (PyDict, PyConst, tuple, Environ)  # the evaluator's values: their attributes, methods, items


BUFFER_ATTRS = ("data", "shape", "dtype", "elem_offset", "ptr_to", "vload", "vstore", "view", "permute",
                "local", "access_ptr", "scope")


BUFFER_VIEW_ATTRS = ("layout", "sub", "tile", "rearrange", "elem_offset_of")  # sema/memory/buffer_views.py


# -- calls ------------------------------------------------------------------------------------------
def _elab_Call(st, node: ast.Call):
    func = elab(st, node.func)
    for arg in node.args:
        if arg.__class__ is ast.Starred:
            break
    else:
        if not node.keywords or not any(k.__class__ is ast.DoubleStarred for k in node.keywords):
            return call(st, func, node)
    if isinstance(func, Poison):
        return POISON
    node = pyeval.expand_call(st, node)  # `*seq` / `**d`, expanded once for every handler
    return POISON if node is None else call(st, func, node)


def call(st, func, node: ast.Call):
    """A call of an elaborated callee, handed to the family of its kind."""
    if st.at_module_level:
        return _module_call(st, func, node)
    if isinstance(func, Poison):
        return POISON
    if isinstance(func, Namespace):
        if func.path == _META_VAR:
            return pyeval_builtins.meta_var(st, node)
        return intrinsics.call_dialect(st, func, node)
    if isinstance(func, Helper):
        return macros.call_helper(st, func, node)
    if isinstance(func, DTypeVal):
        return intrinsics.call_dtype(st, func.dtype, node)
    if isinstance(func, Method):
        if isinstance(func.obj, PY_VALUES):
            return pyeval_builtins.ct_method(st, func, node)
        if isinstance(func.obj, (SmemPool, TmemPool)):
            return pools.pool_method(st, func.obj, func.name, node)
        if isinstance(func.obj, LayoutVal):
            return layout_methods.layout_method(st, func.obj.layout, func.name, node)
        return access.buffer_method(st, func, node)
    if isinstance(func, PtxMnemonic):
        return ptx_calls.ptx_call(st, (), node, func.mnemonic)
    if isinstance(func, LayoutCtor):
        return layout_ctor(st, func.name, node)
    if isinstance(func, Builtin):
        return _builtin_call(st, func, node)
    if isinstance(func, LibraryName):
        if typed_pointers.is_pointer_type(func):
            return typed_pointers.pointer_type(st, func, node)
        return library_name(st, func, node.func)
    if isinstance(func, HandleType):  # `T.handle("float32", "global")`
        return typed_pointers.handle_annotation(st, node)
    if isinstance(func, CALLABLE):
        return classes.call(st, func, node)
    if isinstance(func, device_functions.DeviceFunc):
        return device_functions.call(st, func, node)
    st.diags.error("E0306", f"{describe(func)} is not callable", node.func.span)
    return POISON


# T.* calls that fold over constants and need no kernel
PURE_CALLS = ("min", "max", "ceildiv", "floordiv", "floormod", "meta_var", "dynamic", "IntImm", "FloatImm")


def _builtin_call(st, func: Builtin, node: ast.Call):
    if func.name == "range":
        args = bind_args(st, node, ("start", "stop=None", "step=1"),
                         "range" if isinstance(node.func, ast.Name) else "T.serial")
        return POISON if args is None else loops.loop_range(st, "serial", node, args)
    return pyeval_builtins.call_builtin(st, func.name, node)


_META_VAR = ("T", "meta_var")


def _module_call(st, func, node: ast.Call):
    """A call in a module-level constant: only those that fold over constants."""
    if isinstance(func, Poison):
        return POISON
    if isinstance(func, LibraryName):
        return library_name(st, func, node.func)
    if isinstance(func, Builtin):
        return _builtin_call(st, func, node)
    if isinstance(func, CALLABLE):
        return classes.call(st, func, node)
    if isinstance(func, Helper):
        return macros.call_helper(st, func, node)
    if isinstance(func, Method) and isinstance(func.obj, PY_VALUES):
        return pyeval_builtins.ct_method(st, func, node)
    if isinstance(func, Method) and isinstance(func.obj, LayoutVal):
        return layout_methods.layout_method(st, func.obj.layout, func.name, node)
    if isinstance(func, Namespace) and func.path == _META_VAR:
        return pyeval_builtins.meta_var(st, node)
    if isinstance(func, LayoutCtor):
        return layout_ctor(st, func.name, node)
    if isinstance(func, DTypeVal) and (node.args or node.keywords):
        return intrinsics.call_dtype(st, func.dtype, node)
    if isinstance(func, Namespace) and func.dotted in PURE_CALLS:
        return intrinsics.call_dialect(st, func, node)
    st.diags.error("E0202", "module-level constants cannot call functions", node.span,
                   help="module level holds literals, tuples and arithmetic over earlier constants; "
                        "make the call inside a kernel")
    return POISON


def _elab_BinOp(st, node: ast.BinOp):
    left, right = elab(st, node.left), elab(st, node.right)
    left, right = expr.enum_value(left), expr.enum_value(right)  # an IntEnum member is an int
    if node.op == "@":
        return expr.axis_term(st, left, right, node)
    if left.__class__ in _LAYOUT_OPERANDS or right.__class__ in _LAYOUT_OPERANDS:
        return views.layout_sum(st, left, right, node)
    if node.op in ("|", "&", "-", "^"):
        made = pyeval_lists.set_arith(st, node.op, left, right, node)  # `a | b` of two sets
        if made is not None:
            return made
    if (node.op == "+" or node.op == "*") and (pyeval_lists.is_sequence(left) or pyeval_lists.is_sequence(right)):
        return pyeval_lists.seq_arith(st, node.op, left, right, node)  # `xs + ys`, `xs * n`
    return scalars.arith(st, _BINOPS[node.op], left, right, node.span, node.left.span, node.right.span)


# -- subscripts and attributes ---------------------------------------------------------------
def _elab_Subscript(st, node: ast.Subscript):
    if any(i.__class__ is ast.Starred for i in index_nodes(node)[0]):  # `A[*idx]`, `A[(i, *idx)]`
        node = pyeval_lists.expand_subscript(st, node)
        if node is None:
            return POISON
    base = elab(st, node.value)
    if isinstance(base, Poison):
        return POISON
    if isinstance(base, ir.Buffer):
        if len(node.indices) == 1 and (node.indices[0].__class__ is ast.Name or is_sequence_call(node.indices[0])):
            # `A[fs]`, `A[tuple(fs)]`: a tuple index is the indices written out
            node = pyeval_builtins.slice_index(st, node)
        return subscript_buffer(st, base, node)
    if isinstance(base, Namespace) and base.path == ("T", "ptx"):
        if len(node.indices) == 1:
            mnemonic = const_str(st, node.indices[0], "a PTX mnemonic")
            if mnemonic is not None:
                return PtxMnemonic(mnemonic)
            return POISON
    if isinstance(base, Namespace) or isinstance(base, DTypeVal) or isinstance(base, LetType):
        return subscript_type(st, base, node)
    if isinstance(base, Builtin) and base.name.startswith("typing."):
        return base  # `Literal["fp8", "fp4"]`, `Optional[int]`: an annotation, standing for itself
    if isinstance(base, LayoutCtor) and base.name in ("S", "R"):
        return views.layout_subscript(st, base.name, node)
    if isinstance(base, PY_VALUES + (LoopRange,)) and len(node.indices) == 1:
        return pyeval.ct_subscript(st, base, node)
    if isinstance(base, BufferIndexer):  # `B.sub[...]`, `B.tile(...)[...]` (buffer_views.py)
        return buffer_views.buffer_indexer(st, base, node)
    if isinstance(base, ClassVal) and base.enum is not None and len(node.indices) == 1:  # `Mode["FAST"]`
        return class_enum.by_name(st, base, node, expr.elab(st, node.indices[0]))
    st.diags.error("E0306", f"{describe(base)} cannot be indexed", node.value.span)
    return POISON


def subscript_type(st, base, node: ast.Subscript):
    if isinstance(base, LetType):
        kind = elab(st, node.indices[0]) if len(node.indices) == 1 else POISON
        if isinstance(kind, typed_pointers.VarType):  # `T.let[T.Var("p", PointerType(...))]`
            return typed_pointers.let_annotation(kind)
        dtype = dtype_arg(st, ast.Value(node.indices[0].span, kind)) if kind is not POISON else None
        return LetType(dtype) if dtype else POISON
    if isinstance(base, DTypeVal):
        shape = [const_int(st, i, "a local array extent") for i in node.indices]
        if None in shape:
            return POISON
        return ArrayType(base.dtype, tuple(shape))
    st.diags.error("E0306", f"`{'.'.join(base.path)}` cannot be indexed", node.span)
    return POISON


def _elab_Attribute(st, node: ast.Attribute):
    base = elab(st, node.value)
    if isinstance(base, Poison):
        return POISON
    if isinstance(base, Namespace):
        return namespace_attr(st, base, node)
    if isinstance(base, ir.Buffer):
        if node.attr == "data":
            return Pointer(base)
        if node.attr == "shape":
            return tuple(base.shape) if not all(isinstance(s, ir.IntImm) for s in base.shape) \
                else PyConst(tuple(s.value for s in base.shape))
        if node.attr == "dtype":
            return PyConst(base.dtype.name)
        if node.attr == "allocated_addr" and base.scope == "tmem":  # TIRx's full addresses (tmem_packing.py)
            return tmem_packing.allocated_addr(st, base, node)
        if node.attr in BUFFER_ATTRS:
            return Method(base, node.attr)
        if node.attr in BUFFER_VIEW_ATTRS:  # `B.layout`, `B.sub[...]`, `B.rearrange(...)` ... (buffer_views.py)
            return buffer_views.buffer_view_attr(st, base, node)
        st.diags.error("E0301", f"buffers have no attribute `{node.attr}`", node.span,
                         help=did_you_mean(node.attr, BUFFER_ATTRS + BUFFER_VIEW_ATTRS))
        return POISON
    if isinstance(base, (SmemPool, TmemPool)):
        if node.attr == "offset":  # the cursor, a compile-time value (`T.meta_var(pool.offset)`)
            return PyConst(base.cursor)
        return Method(base, node.attr)
    if isinstance(base, PY_VALUES):
        return pyeval_builtins.ct_attribute(st, base, node)  # `d.items`, `", ".join` ...
    if isinstance(base, LibraryName):
        return library_name(st, base, node.value)
    if isinstance(base, LayoutVal):
        return layout_attrs.layout_attr(st, base, node)
    if isinstance(base, WITH_ATTRS):
        return classes.attribute(st, base, node)
    if isinstance(base, Builtin):  # `math.gcd`
        return pyeval_modules.module_attr(st, base, node)
    if isinstance(base, DTypeVal):  # `tvm.DataType("float16").bits`
        return pyeval_modules.dtype_attr(st, base, node)
    if node.attr.startswith("__") and node.attr.endswith("__"):  # (Python's objects have them: not the user's mistake)
        st.diags.error("E0306", f"`{node.attr}` of {describe(base)} is not supported yet", node.span)
    else:
        st.diags.error("E0306", f"{describe(base)} has no attribute `{node.attr}`", node.span)
    return POISON


def namespace_attr(st, base: Namespace, node: ast.Attribute):
    if base.path == ("T",):
        if node.attr == "handle":
            return HandleType()
        dtype = _dtype_value(node.attr)
        if dtype is not None:
            return dtype
        if node.attr == "let":
            return LetType(None)
        ctor = LAYOUT_CTORS.get(node.attr)
        if ctor is not None:  # the newer spelling: `T.TileLayout(T.S[...])`
            return ctor
    path = base.path + (node.attr,)
    dotted = ".".join(path[1:])
    if len(path) > 1 and path[1] == "ptx":
        return Namespace(path)  # PTX mnemonics are checked against the table when called
    names, names_and_prefixes = _known_dotted_names(len(HANDLERS))
    if dotted in names_and_prefixes or path[0] == "Tx":
        return Namespace(path)
    if base.path == ("T",) and node.attr in typed_pointers.NOT_YET:
        return typed_pointers.not_yet(st, node.attr, node)
    known = list(names)
    if base.path == ("T",):
        known += known_dtype_names() + ["handle", "let"]
    st.diags.error("E0301", f"`{'.'.join(path)}` is not a TIRx function tirxc knows", node.span,
                     help=_suggest(dotted, known, path[0]))
    return POISON


def layout_ctor(st, name: str, node: ast.Call):
    """`TileLayout(...)`, `ComposeLayout(...)` and the layout helpers, called."""
    if name == "tcgen05_atom_layout":
        return tcgen05_frag.tcgen05_atom_layout(st, node)
    return views.layout_ctor(st, name, node)


def _elab_Compare(st, node: ast.Compare):
    if "is" in node.ops or "is not" in node.ops:
        return classes.identity(st, node)  # identity of compile-time values
    if "in" in node.ops or "not in" in node.ops:
        return pyeval_lists.contains(st, node)  # membership in compile-time containers
    return expr.compare(st, node)


# -- statements -------------------------------------------------------------------------------------
def _stmt_Assign(st, stmt: ast.Assign):
    if isinstance(stmt.target, ast.Attribute):  # `self.x = v`
        statements.chained(st, stmt)
        return instance_attrs.assign_kernel(st, stmt.target, stmt.value, stmt)
    return statements._stmt_Assign(st, stmt)


def _stmt_AugAssign(st, stmt: ast.AugAssign):
    if isinstance(stmt.target, ast.Attribute) and stmt.op in _BINOPS:  # `self.x += v`
        return instance_attrs.aug_assign_kernel(st, stmt)
    return statements._stmt_AugAssign(st, stmt)


def _stmt_With(st, stmt: ast.With):
    done = classes.with_object(st, stmt)  # `with role:` of an instance
    return directives.with_statement(st, stmt, statements.block) if done is NotImplemented else done


def _run_Import(st, stmt) -> None:
    """`import` / `from m import x` in a plain helper: the names bound in the helper's scope, with
    the module level's meaning: a module tirxc does not have is refused at a use."""
    imports.import_(st.module, stmt, lambda name, binding: macros._local(st, name, binding.value, binding.span))


# -- the rules, joining the dispatch tables on node classes --------------------------------------------
expr._ELAB.update({ast.Call: _elab_Call, ast.Attribute: _elab_Attribute, ast.Subscript: _elab_Subscript,
                   ast.BinOp: _elab_BinOp, ast.Compare: _elab_Compare, ast.Lambda: macros._elab_Lambda})
statements._STMT.update({ast.Assign: _stmt_Assign, ast.AugAssign: _stmt_AugAssign, ast.With: _stmt_With,
                         ast.FunctionDef: macros.nested_def, ast.ClassDef: classes._stmt_ClassDef,
                         ast.Raise: classes._stmt_Raise})
macros._RUN.update({ast.Import: _run_Import, ast.ImportFrom: _run_Import, ast.ClassDef: classes._run_ClassDef,
                    ast.Raise: classes._run_Raise})
