"""Import statements: what `import m` / `from m import x` binds, at module level and in a plain
helper (its own names). The dialect and its layout names, the modules the evaluator computes with
(evaluator/modules.py, and the host's library modules), TIRx's helper library (tirxc's own `.tx`
sources, prelude.py); a module tirxc does not evaluate is bound as a LibraryName, refused where it
is used."""
from __future__ import annotations

from transpiler.diag.diagnostics import did_you_mean
from transpiler.ir.layout import KNOWN_AXES
from transpiler.syntax import ast
from transpiler.evaluator import modules as pyeval_modules
from transpiler.sema.library import prelude
from transpiler.sema.memory import typed_pointers
from transpiler.sema.registry import LAYOUT_CTORS
from transpiler.evaluator.values import POISON, Binding, Builtin
from transpiler.sema.values import Axis, LibraryName, Namespace


DIALECT_MODULES = ("tvm.script.tirx", "tvm.script.tir", "tvm.tirx")


LAYOUT_MODULE = "tvm.tirx.layout"


def import_(ms, stmt, bind=None) -> None:
    """An import statement: its names bound by `bind(name, binding)` (module-level names by default;
    a plain helper's `import` binds its own names, macros.py)."""
    bind = bind or (lambda name, binding: bind_global(ms, name, binding))
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.name in DIALECT_MODULES and alias.asname:
                bind(alias.asname, Binding(Namespace(("T",)), "namespace", alias.span))
            elif alias.name in pyeval_modules.modules(ms.host):  # `import math`: evaluated by tirxc, not imported
                bind(alias.asname or alias.name, Binding(Builtin(alias.name), "import", alias.span))
            elif alias.name.split(".")[0] == "tvm" and not alias.asname:  # `import tvm.testing` binds `tvm`
                bind("tvm", Binding(Builtin("tvm"), "import", alias.span))
            else:
                bound = alias.asname or alias.name.split(".")[0]
                bind(bound, Binding(LibraryName(bound, alias.name, False), "import", alias.span))
        return
    for alias in stmt.names:
        name = alias.asname or alias.name
        if stmt.module in ("tvm.script", "tvm") and alias.name in ("tirx", "tir"):
            bind(name, Binding(Namespace(("T",)), "namespace", alias.span))
        elif stmt.module in ("tvm.script.tirx", "tvm.script.tir") and alias.name == "tile":
            bind(name, Binding(Namespace(("Tx",)), "namespace", alias.span))
        elif stmt.module == LAYOUT_MODULE:
            if alias.name in LAYOUT_CTORS:
                bind(name, Binding(LAYOUT_CTORS[alias.name], "layout", alias.span))
            elif alias.name in KNOWN_AXES:
                bind(name, Binding(Axis(alias.name), "axis", alias.span))
            else:
                hint = did_you_mean(alias.name, list(LAYOUT_CTORS) + list(KNOWN_AXES)) or \
                    f"tirxc knows {', '.join(LAYOUT_CTORS)} and the axes {', '.join(KNOWN_AXES)}"
                ms.diags.error("E0200", f"`{alias.name}` is not a layout name tirxc knows", alias.span,
                                 help=hint)
                bind(name, Binding(POISON, "import", alias.span))
        elif stmt.module == "__future__":
            continue
        elif stmt.module in LIBRARY_MODULES:
            library_import(ms, stmt.module, alias, bind)
        elif stmt.module in pyeval_modules.modules(ms.host):
            value = pyeval_modules.imported(ms.host, stmt.module, alias.name)
            if value is None and stmt.module in pyeval_modules.PARTIAL:  # `from os import path`: refused at a use
                bind(name, Binding(LibraryName(alias.name, stmt.module, False), "import", alias.span))
                continue
            if value is None:
                ms.diags.error("E0200", f"`{stmt.module}.{alias.name}` is not supported yet", alias.span,
                               help=did_you_mean(alias.name, pyeval_modules.modules(ms.host)[stmt.module]))
            bind(name, Binding(POISON if value is None else value, "import", alias.span))
        else:
            for other in stmt.names:  # a use is refused (expr.library_name), an unused import is fine
                # (TVM's pointer types are TIRx's, refused by name where they are used: typed_pointers.py)
                known = (stmt.module, other.name) in typed_pointers.POINTER_TYPES
                bind(other.asname or other.name, Binding(LibraryName(other.name, stmt.module, known), "import",
                                                         other.span))
            return


# TIRx's helper library (python/tvm/backend/cuda/lang/, re-exported as tvm.tirx.lang.*): the names each
# module exports. Its pools are the dialect's `T.SMEMPool` / `T.TMEMPool`; the rest are `@T.meta_class`
# classes with `@T.inline` methods, written again in tirxc's own library (sema/library/); a name it
# lacks is a LibraryName, refused where it is used.
_LANG = {
    "pipeline": ("MBarrier", "TMABar", "TCGen05Bar", "PipelineState", "Pipeline"),
    "warp_role": ("WarpRole", "WarpgroupRole"),
    "tile_scheduler": ("BaseTileScheduler", "ClusterPersistentScheduler2D", "GroupMajor3D",
                       "RankAwareGroupMajorTileScheduler", "IndexedTripleTileScheduler", "FlashAttentionLinearScheduler",
                       "FlashAttentionLPTScheduler", "ClusterLaunchControlScheduler"),
    "alloc_pool": ("SMEMPool", "TMEMPool"),
    "smem_desc": ("SmemDescriptor",),
}


LIBRARY_MODULES = {f"{prefix}.{name}": names for name, names in _LANG.items()
                   for prefix in ("tvm.tirx.lang", "tvm.backend.cuda.lang")}
LIBRARY_MODULES.update({prefix: sum(_LANG.values(), ()) for prefix in ("tvm.tirx.lang", "tvm.backend.cuda.lang")})
LIBRARY_MODULES["tvm.tirx.bench"] = ("bench", "DistributedBenchContext", "CudaProfiler", "EventType",
                                     "export_to_perfetto_trace", "decode_tag")
LIBRARY_MODULES["enum"] = ("Enum", "IntEnum")  # a class derived from them is an enum (class_enum.py)


def library_import(ms, module: str, alias, bind) -> None:
    name = alias.asname or alias.name
    if alias.name not in LIBRARY_MODULES[module]:
        ms.diags.error("E0200", f"`{alias.name}` is not a name of `{module}` that tirxc knows", alias.span,
                       help=did_you_mean(alias.name, LIBRARY_MODULES[module]))
        bind(name, Binding(POISON, "import", alias.span))
    elif alias.name in ("SMEMPool", "TMEMPool"):
        bind(name, Binding(Namespace(("T", alias.name)), "import", alias.span))
    else:
        value = prelude.lookup(ms, module, alias.name)  # tirxc's own library (sema/library/), or None
        bind(name, Binding(value if value is not None else LibraryName(alias.name, module), "import", alias.span))


def bind_global(ms, name: str, binding: Binding) -> None:
    ms.globals[name] = binding
