"""The diagnostic code table: one stable code per kind of problem.

`tirxc --explain CODE` prints an entry; `python -m transpiler.codes` writes
docs/errors.md from this table, so the two never disagree.
"""
from transpiler.diag.codes_sim import SIM_CHECK_CODES

CODES: dict[str, tuple[str, str]] = {
    # ---- input -----------------------------------------------------------------
    "E0001": ("the file is not UTF-8 text",
              "tirxc reads `.tx` files as UTF-8 (a leading byte-order mark is allowed and ignored). "
              "The error points at the first byte that is not valid UTF-8, or at a NUL byte, which "
              "usually means a binary file was passed by mistake."),
    # ---- syntax ----------------------------------------------------------------
    "E0100": ("invalid syntax",
              "The parser met a token that cannot continue the statement. The message names what it "
              "found and, where one thing is clearly missing, what it expected. `.tx` files use "
              "Python's syntax restricted to the subset TIRx kernels need."),
    "E0101": ("unexpected character",
              "A character that cannot start any token, such as `$`, `?` or a backtick, or a "
              "non-ASCII symbol outside a string or comment."),
    "E0102": ("unterminated string literal",
              "A string opened with a quote is not closed on the same line. Use a triple-quoted "
              "string (`\"\"\"...\"\"\"`) for text that spans lines, for example the CUDA source of "
              "`T.cuda.func_call`."),
    "E0103": ("unclosed bracket",
              "A `(`, `[` or `{` is never closed. The error points at the opening bracket; brackets "
              "allow an expression to span several lines, so the parser only notices at the end of "
              "the file or at a token that cannot appear inside brackets."),
    "E0104": ("unmatched closing bracket",
              "A `)`, `]` or `}` has no opening bracket of the same kind before it."),
    "E0105": ("inconsistent indentation",
              "A line is indented where no block starts, or is dedented to a column that matches no "
              "enclosing block. Blocks are delimited by indentation as in Python; a tab counts as "
              "reaching the next multiple of 8 columns."),
    "E0106": ("expected an indented block",
              "A statement ending with `:` (`def`, `if`, `for`, `while`, `with`, `else`) must be "
              "followed by an indented block, or by a statement on the same line. Write `pass` for an "
              "empty block."),
    "E0107": ("missing `:`",
              "Compound statements (`def`, `if`, `elif`, `else`, `for`, `while`, `with`) end their "
              "header with a colon."),
    "E0108": ("nesting too deep",
              "Brackets, blocks or expressions are nested deeper than tirxc allows (100 levels of "
              "brackets or blocks, 200 levels of expression). Real kernels never come close; split "
              "the expression or name intermediate values with `T.let`."),
    "E0109": ("construct not supported in a kernel file",
              "`.tx` files are parsed, never executed, so Python features that need an interpreter "
              "(`try`, `global`, `yield`, `import *`, `**`, `in` and so on) are rejected with the name "
              "of the construct (comprehensions, lambdas, f-strings and `*` unpacking are evaluated when "
              "the kernel is compiled: E0130-E0139, E0340-E0349). The message "
              "suggests the TIRx spelling where one exists (for example `T.pow` for `**`)."),
    "E0110": ("invalid number literal",
              "Integers may be decimal, hexadecimal (`0x`), octal (`0o`) or binary (`0b`), with `_` "
              "between digits; a decimal integer other than 0 may not start with 0. Complex literals "
              "(`1j`) are not supported."),
    "E0111": ("keyword used as a name",
              "A Python keyword (`if`, `for`, `class`, `None` ...) cannot name a variable, parameter "
              "or function."),
    "E0112": ("too many syntax errors",
              "tirxc stops reading a file after 100 syntax errors: beyond that the file is usually "
              "not a kernel at all (a binary, a file in another language, a bad merge), and later "
              "errors are more likely to be consequences of earlier ones. Fix the errors shown and "
              "run tirxc again."),
    # ---- module level ----------------------------------------------------------
    # ---- the Python level, evaluated at compile time (evaluator/core.py, macros.py) -----------
    "E0130": ("misplaced `*` or `**`",
              "`*seq` unpacks a compile-time sequence into a call's positional arguments, a tuple or "
              "list display, or (one per tuple) a tuple assignment's targets; `**d` unpacks a "
              "compile-time dict into a call's keyword arguments or a dict display. Anywhere else "
              "there is nothing to unpack into."),
    "E0131": ("cannot unpack",
              "`*x`, `**x` and tuple assignment unpack values known when the kernel is compiled: a "
              "tuple, list, string, dict, a `range` of constant integers, or the ids of "
              "`T.cta_id([...])`. A buffer or a value known only at run time cannot be unpacked."),
    "E0132": ("not a compile-time sequence",
              "A comprehension (`[f(i) for i in range(4)]`) is evaluated when the kernel is "
              "compiled, as TVMScript evaluates it with Python: it iterates over a tuple, list, "
              "string, dict or a `range` whose bounds are constants. A loop over run-time bounds "
              "is a kernel loop: write a `for` statement."),
    "E0133": ("compile-time condition required",
              "A comprehension's `if`, `bool(...)`, `any` and `all` decide while the kernel is "
              "compiled, so their condition must be known then. A condition known only at run time "
              "belongs in an `if` statement or a `T.if_then_else`."),
    "E0135": ("compile-time evaluation too long",
              "Compile-time evaluation has one budget of 100,000 steps per file, so that a mistake "
              "such as `range(10**9)` stops with an error instead of running for hours. Every "
              "operation draws from it: a comprehension item, a loop iteration, a helper function's "
              "statement, an `@T.inline` / `@T.macro` expansion (one step plus one per statement of "
              "its body), an item copied or unpacked, and each value a builtin or method makes (one "
              "step, plus one per 64 bits of an integer or per 64 items or characters of a string "
              "or container)."),
    "E0136": ("helper recursion too deep",
              "A helper function (a plain `def` evaluated at compile time, or an `@T.inline` / "
              "`@T.macro` inlined at each call) called itself, directly or not, more than 64 levels "
              "deep. Recursion over a compile-time value must reach its base case within that depth."),
    "E0137": ("compile-time evaluation failed",
              "A builtin or an operation on compile-time values failed as it would in Python: "
              "`int(\"x\")`, a missing dict key, `min` of an empty sequence, a slice step of zero, "
              "or a builtin such as `min` applied to a value known only at run time (use `T.min`). "
              "Iterating or printing a set that holds strings, enum members, None or a nan is refused "
              "by name: CPython's order of it changes from run to run (their hashes are randomised "
              "or are addresses), and tirxc's output must not; iterate `sorted(s)` instead (its "
              "length, membership, comparisons and `sorted` are computed, but `sorted`, `min` and "
              "`max` of a set holding a nan)."),
    "E0138": ("invalid call of a helper function",
              "A call of a helper function of the file must bind each of its parameters exactly "
              "once, positionally or by name, unless the parameter has a default value. The same "
              "holds for a call of a device function (a `@T.prim_func` that returns a value), "
              "whose parameters have no defaults."),
    "E0139": ("helper function not supported here",
              "A plain helper function (without a decorator) is evaluated when the kernel is compiled "
              "and computes compile-time values: numbers, strings, tuples, dicts, dtypes and layouts. "
              "Device code (stores, allocations, kernel loops) belongs in an `@T.inline` or "
              "`@T.macro` helper, which is inlined where it is called."),
    "E0200": ("import not available in a standalone kernel file",
              "A `.tx` file may import the TIRx dialect (`from tvm.script import tirx as T`) and "
              "layout names (`from tvm.tirx.layout import TileLayout, S, ...`). Other modules cannot "
              "be imported: tirxc never runs Python, so nothing they define would exist."),
    "E0201": ("statement not allowed at module level",
              "At module level a `.tx` file holds imports, constant assignments, docstrings and "
              "decorated kernels. Loops, calls and other statements belong inside a kernel."),
    "E0202": ("not a compile-time constant",
              "Module-level constants, `T.meta_var` values and the arguments that fix sizes, dtypes, "
              "layouts and unroll counts must fold to a constant at compile time: literals, tuples "
              "and arithmetic over earlier constants."),
    "E0203": ("invalid kernel definition",
              "A kernel is a `def` decorated with `@T.prim_func` (optionally "
              "`@T.prim_func(private=True)`). Other decorators, nested functions and default "
              "parameter values are not supported. A kernel's name becomes its C symbol (`name_kernel`) "
              "and the name of its callable in the launcher module, so it must be ASCII and must not be "
              "a name the launcher module uses itself: a Python builtin its code calls (`len`, `int`, "
              "`tuple` ...), one of its own names (`os`, `KERNELS`, `_Kernel` ...) or a `__dunder__`."),
    # ---- names and types -------------------------------------------------------
    "E0210": ("a kernel mixes an older spelling of TIRx with today's",
              "tirxc reads the older spellings of TIRx (the fork's wheel, apache/tvm's May and June "
              "2026 spellings) by rewriting them into today's (docs/older-spellings.md). A kernel "
              "written half in one and half in the other has no one meaning to rewrite: write it in "
              "one spelling; `tirxc migrate FILE` rewrites an older file into today's."),
    "E0211": ("an older spelling of TIRx that tirxc cannot migrate yet",
              "This form of an older spelling of TIRx has no rewrite into today's spelling yet "
              "(docs/older-spellings.md lists the forms tirxc reads). Write it in today's spelling; "
              "the rest of the file may stay as it is."),
    "E0212": ("a 128-bit parameter",
              "TIRx's `uint128` and `int128` scalars (a PTX `.b128` value, CUDA's `unsigned __int128`) "
              "live in registers: declared with `T.local_scalar(\"uint128\")`, set, copied, packed from "
              "and unpacked into uint64 halves with `T.ptx.mov.b128`, loaded and stored with the `.b128` "
              "forms of `ld` / `st` / `atom`. A kernel parameter of 128 bits, or a buffer parameter of "
              "128-bit elements, is not supported yet: the generated launcher's NumPy has no 128-bit "
              "integer. Pass the value as uint64 pairs and pack them in the kernel."),
    "E0213": ("a view over a typed pointer of another element type",
              "`T.decl_buffer(shape, dtype, data=ptr)` over a pointer made from an integer is a typed "
              "view of that address (`float* v_ptr = (float*)(ptr);`). Where `ptr` is written as a "
              "`PointerType(PrimType(t))` (`T.reinterpret(PointerType(...), u64)`), the view's dtype "
              "must be that `t`: the pointer says what the address holds."),
    "E0300": ("unknown name",
              "The name is not a parameter, a local binding, a module constant or an imported name. "
              "Names must be defined before they are used; the help line suggests a close match when "
              "there is one."),
    "E0301": ("unknown TIRx function or attribute",
              "The dialect has no function or attribute by that name, or tirxc does not implement it. "
              "The help line suggests a close match."),
    "E0302": ("unknown dtype",
              "Dtype strings are the TIRx ones: `bool`, `int8`...`int64`, `uint8`...`uint64`, "
              "`float16`, `bfloat16`, `float32`, `float64`, the float8/float6/float4 formats, and "
              "vectors of those with `x2`, `x4`, `x8`, `x16`, `x32` or `x64` lanes."),
    "E0303": ("operands of different dtypes",
              "A literal operand adopts the dtype of the other side (`A[i] * 2.0` is float32 when A "
              "is), and two scalars of different dtypes are promoted as TIRx promotes them (the wider "
              "integer or float, a float over an integer). What has no promotion is an error: a vector "
              "and a scalar, vectors of different lanes, a value stored into a buffer of another lane "
              "count, a float literal used as an integer. Convert explicitly: `T.cast(x, \"float32\")`."),
    "E0304": ("`/` on integers",
              "`/` is true division and is only defined for floating-point operands. For integers use "
              "`//` (floor division), `%` (floor modulo), or `T.truncdiv` / `T.truncmod` for C "
              "semantics. At module level (and in plain helpers and classes evaluated there), `/` "
              "between two compile-time Python integers is Python's true division (`6 / 4` is 1.5), "
              "as the file's Python reads; in a kernel the rule holds for kernel values and "
              "compile-time integers alike."),
    "E0305": ("wrong arguments",
              "The call has too many or too few positional arguments, or an argument of the wrong "
              "kind (a buffer where a value is expected, a string where a shape is expected...). The "
              "message names the parameter. `T.unroll` expands its body at compile time: a loop makes "
              "at most 4096 copies, nested unrolled loops together too, and the unrolled code holds at "
              "most 32768 statements and 524288 expression nodes and statements (copies times the "
              "size of the body, nested unrolled loops multiplied out)."),
    "E0306": ("operation not valid on this value",
              "The value does not support the operation: for example indexing a scalar, calling a "
              "buffer, taking `.data` of a number, using a buffer region or a pointer as a value, or "
              "an integer division by a constant zero -- also one that only becomes constant in a "
              "copy of `T.unroll` (`7 // i` where `i` is 0), unless a condition keeps that copy from "
              "running it (`if i != 0:`, `T.if_then_else(i > 0, 7 // i, 0)`)."),
    "E0307": ("immutable binding reassigned",
              "`x: T.let = v` is an immutable binding, and so are thread ids, loop variables, kernel "
              "parameters, symbolic extents, pointer bindings and module constants. Bind the new "
              "value to a new name, or copy the value into a mutable scalar (`x: T.int32 = v`) and "
              "assign that. A buffer is changed through its elements (`A[i] = v`)."),
    "E0308": ("chained assignment",
              "`a = b = c` in a kernel body (or before `T.device_entry()`, or in a `@T.macro`) is "
              "refused, as TIRx's parser refuses it; the first assignment is still checked. Write "
              "two assignments. At module level and in plain helper functions it is Python's "
              "chained assignment: the value is computed once and bound to each target."),
    "E0309": ("operand of the wrong type",
              "Conditions of `if`, `while` and `T.if_then_else` are `bool` or integer values, never "
              "floating point; `and`, `or`, `not` take `bool` or integer operands; bitwise operators "
              "and shifts take integers; indices are integers."),
    "E0310": ("invalid parameter annotation",
              "Every kernel parameter is annotated with `T.handle` (bound later with "
              "`T.match_buffer`), `T.Buffer(shape, dtype)`, or a scalar dtype such as `T.int32` or "
              "`T.float32`."),
    "E0311": ("unknown keyword argument",
              "The function does not take a keyword argument of that name. The help line suggests a "
              "close match."),
    "E0312": ("invalid assignment target",
              "Only names, buffer elements (`A[i, j]`) and tuples of names (for the results of "
              "`T.cta_id` and friends) can be assigned."),
    "E0313": ("value has no result",
              "A call that returns nothing (a barrier, a store, a `func_call` with "
              "`return_type=\"void\"`) is used where a value is needed."),
    "E0314": ("name already defined",
              "The name already refers to a parameter, buffer, thread id, scalar or module constant "
              "and cannot be bound again with a different meaning (TIRx has no shadowing). The note "
              "shows the first definition; use another name."),
    "E0315": ("invalid annotation",
              "An annotated assignment takes a scalar dtype (`x: T.int32 = 0`), an immutable binding "
              "(`x: T.let = v`, `x: T.let[T.int32] = v`) or a local array type (`x: T.float32[8]`, "
              "which takes no initial value)."),
    "E0316": ("`break` or `continue` outside a loop",
              "`break` and `continue` are only allowed inside `for` and `while` loops. The body of "
              "`T.unroll` is expanded at compile time, so `break` / `continue` directly inside it "
              "would leave the enclosing C loop instead; use `T.serial(n, unroll=True)` for a loop "
              "that can be left early."),
    "E0317": ("static assertion failed",
              "An `assert` whose condition is a compile-time constant, or a `T.static_assert`, is "
              "checked by tirxc; this one is false. `T.static_assert` also requires its condition to "
              "be a compile- time constant."),
    "E0318": ("literal out of range",
              "An integer literal does not fit the dtype it takes from the other operand or from its "
              "destination (for example 3000000000 in an int32 expression, -1 with a uint32), or a "
              "constant shift count is negative or not smaller than the operand's width (also one that "
              "becomes constant in a copy of `T.unroll`). Convert the "
              "other side to a wider or signed type first, e.g. `T.int64(x) + 3000000000`. Compile-time "
              "constants themselves are bounded, however they are computed (an operator, `operator.pow`, "
              "`math.prod`, `math.factorial`, `math.comb`, `str.join`, `str.replace` ...: a bound is "
              "checked before the value is made, and the value's own size after): integers have at most "
              "4096 bits, strings at most "
              "1,048,576 characters, a container made by one operation at most 1,048,576 items, and "
              "strings and tuples built with `+` at most 64 MiB per file."),
    "E0319": ("name not visible here",
              "The name was bound inside a block (`if`, `for`, `while`) that has ended. The generated "
              "CUDA declares it inside that block, so it cannot be used after it; bind it before the "
              "block instead."),
    "E0320": ("unsupported on this architecture",
              "The intrinsic needs a newer GPU architecture than the one given with `--arch`. The "
              "message names the instruction, its minimum architecture and the target."),
    "E0321": ("string that is not text",
              "A string that reaches the generated files (a printf format, an assertion message, the "
              "source or name of a `T.cuda.func_call`) holds a lone surrogate (an escape from `\\ud800` "
              "to `\\udfff`), which has no UTF-8 encoding. Write the character itself or its full code "
              "point (`\\U0001F600`)."),
    "E0322": ("misplaced global workspace",
              "`T.alloc_buffer(shape, dtype, scope=\"global\")` asks the launcher for a global-memory "
              "workspace (docs/design.md, decision 19): one buffer per launch, passed to the kernel as a hidden pointer "
              "parameter. It is allocated once per launch, so it belongs at the top level of the kernel "
              "body, after `T.device_entry()`, not inside an `if`, `for` or `while`."),
    "E0323": ("`T.decl_buffer` of global memory without `data=`",
              "`T.decl_buffer` declares a view of storage that exists. With `scope=\"global\"` and no "
              "`data=` it has nothing to view. Allocate a workspace with "
              "`T.alloc_buffer(shape, dtype, scope=\"global\")`, or give `data=` (the `.data` of a "
              "parameter buffer or of a workspace)."),
    "E0324": ("invalid workspace element type",
              "A global workspace holds scalar elements of a dtype the launcher can allocate (ints, "
              "floats, bool, bfloat16, float8). Vector dtypes such as `float32x4` are read and written "
              "through `vload` / `vstore` of a scalar buffer instead."),
    "E0325": ("workspace size not known before launch",
              "The launcher allocates a workspace before it launches the kernel, so every extent must "
              "be computable on the host: constants, symbolic extents of the parameter buffers and "
              "integer scalar parameters, combined with `+ - * // %`, `T.ceildiv`, `T.min` and `T.max`. "
              "Thread ids, loaded values and loop variables are only known on the GPU."),
    "E0326": ("layout on a workspace",
              "A workspace is a dense row-major allocation; it takes no `layout=`, `elem_offset=` or "
              "`byte_offset=`. Declare a view with a layout over it instead: "
              "`T.decl_buffer(shape, dtype, data=ws.data, layout=...)`."),
    "E0327": ("workspace alignment above 256 bytes",
              "The launcher allocates workspaces through CuPy, whose allocations are aligned to 256 "
              "bytes. A workspace cannot promise more (`align=` up to 256)."),
    "E0328": ("global workspace spelled with another allocator",
              "Only `T.alloc_buffer(shape, dtype, scope=\"global\")` allocates a global workspace. "
              "`T.alloc_shared`, `T.alloc_local` and the scalar allocators with `scope=\"global\"` are "
              "errors: they name another kind of memory, and a global scalar would be shared by every "
              "thread of the launch."),
    # ---- classes (sema/library/classes.py) -----------------------------------------------
    "E0330": ("exception raised at compile time",
              "tirxc evaluates the Python of a `.tx` file while it compiles (the classes' `__init__` "
              "and plain methods, plain helper functions, the compile-time branches of inlined "
              "methods), and a `raise` it reaches there is this error, at the `raise`, with the "
              "exception's message. When the `raise` is inside TIRx's helper library (MBarrier, ...), "
              "the error points at the call in your file. `raise` names one of Python's builtin "
              "exceptions (`ValueError(\"...\")`, `TypeError`, `RuntimeError` ...) with a compile-time "
              "message."),
    "E0331": ("invalid class definition",
              "A class of a `.tx` file is decorated `@T.meta_class` or not at all; its bases are "
              "classes of the file or of the library, in an order Python accepts; its methods take the "
              "instance first and are plain, `@T.inline`, `@T.macro`, `@staticmethod` or `@property`."),
    "E0332": ("no such attribute",
              "The instance (or class) has no attribute of that name: neither `__init__` nor another "
              "method set it, and no class of its hierarchy defines it."),
    "E0333": ("invalid instantiation",
              "A class without `__init__` takes no arguments, and `__init__` returns None."),
    "E0334": ("attribute assignment to something that is not an instance",
              "`x.attr = value` sets an attribute of an instance of one of the file's classes (`self.n "
              "= n`). Buffers, pools, layouts and classes themselves have no attributes to set."),
    "E0335": ("`raise` under a run-time condition",
              "An inlined method (`@T.inline`) is checked as kernel code, where an `if` on a run-time "
              "value becomes a CUDA `if`. A `raise` inside one cannot be honoured: tirxc raises at "
              "compile time, and the condition is known only on the GPU. Use `assert cond, \"...\"` "
              "for a run-time check, or make the condition a compile-time one."),
    "E0339": ("class feature not supported yet",
              "A Python class feature tirxc's evaluator does not implement yet: `@classmethod`, "
              "`Enum` bases, nested classes and statements other than methods and `name = value` in a "
              "class body, `is` chained with other comparisons."),
    "E0340": ("not a set item",
              "A compile-time set holds numbers, strings, bools, None and tuples of them, instances "
              "of a frozen `@dataclass` and enum members, as Python's hashable values; lists, dicts, "
              "instances of a non-frozen dataclass, run-time expressions and buffers cannot be set "
              "items."),
    "E0341": ("invalid list or set operation",
              "A compile-time list changes in place (`append`, `extend`, `insert`, `pop`, `remove`, "
              "`xs[i] = v` in a plain helper function) as Python's does; the message names what went "
              "wrong: an index out of range, a position that is not a compile-time integer, a value "
              "that is not in the list, item assignment into a tuple or a set."),
    "E0342": ("invalid `*args` / `**kwargs` parameters",
              "A helper's parameters follow Python's rules: at most one `*args` (or bare `*`), a bare "
              "`*` followed by a keyword-only parameter, nothing after `**kwargs`. A kernel takes neither: "
              "its parameters are named buffers, handles and scalars."),
    "E0343": ("`str.format` failed",
              "`\"...\".format(...)` formats compile-time values with Python's rules. The message is "
              "Python's (a missing argument, a bad format spec); fields that read an attribute or an "
              "item (`{0.x}`, `{0[1]}`) are not supported yet, nor a field wider than 4096 characters."),
    "E0344": ("the environment is private",
              "A kernel file reads the environment one variable at a time, by name: "
              "`os.environ.get(\"M\", \"8192\")`, `os.environ[\"M\"]`, `\"M\" in os.environ` or "
              "`os.getenv(\"M\")`. Anything that would enumerate it (`items()`, `keys()`, `values()`, "
              "iteration, `len`, `dict(os.environ)`, `str(os.environ)`, `**os.environ`) is refused, so "
              "that a file cannot copy the environment into its output; so is `os.environ[name]` of a "
              "variable that is not set (give a default with `get`). The names a file reads are listed "
              "in the `.cu` header and by `tirxc info --json`; `tirxc --no-env` makes every read see an "
              "empty environment."),
    "E0345": ("assignment to a field of a frozen dataclass",
              "An instance of a `@dataclass(frozen=True)` class cannot be changed after it is made: "
              "`obj.x = v` (in a helper, a method, `__post_init__` or a kernel) raises "
              "`dataclasses.FrozenInstanceError` in CPython, so tirxc refuses it where CPython would "
              "(the instance is of the frozen class itself, or `x` is one of its fields). Make a "
              "changed copy instead: `dataclasses.replace(obj, x=v)`."),
    "E0346": ("`nonlocal` without an enclosing binding",
              "`nonlocal n` in a nested plain helper function makes its assignments to `n` rebind the "
              "`n` of an enclosing function, as in Python; that function must have bound `n` before the "
              "nested function runs (CPython refuses a `nonlocal` name no enclosing function binds)."),
    "E0347": ("a function's local name read before it is assigned",
              "A name that a plain helper function assigns anywhere in its body (`x = ...`, `for x in`, "
              "`del x`, `import x`, a nested `def x`) is, as Python's compiler decides, a local variable of "
              "the whole function. Reading it before the function binds it, or after `del x`, raises "
              "UnboundLocalError in CPython (NameError for an enclosing function's name), even where the "
              "module has a name `x`: tirxc reports it instead of reading the module's `x`. Assign it "
              "first, or declare `global x` (or `nonlocal x`)."),
    # ---- thread hierarchy ------------------------------------------------------
    "E0400": ("misplaced `T.device_entry()`",
              "Every kernel has exactly one `T.device_entry()` statement at the top level of its body "
              "(not inside `if`, `for`, `while`), on a line of its own. Statements before it "
              "(`T.match_buffer`, symbolic extents, constants) form the host part; everything after "
              "it is the CUDA kernel body. When it is missing, tirxc still checks the rest of the "
              "kernel, starting the device part at the first statement that cannot be host code."),
    "E0401": ("statement not allowed before `T.device_entry()`",
              "The host part of a kernel only binds parameters (`T.match_buffer`), declares symbolic "
              "extents (`n = T.int32()`) and names constants. Device work goes after "
              "`T.device_entry()`."),
    "E0402": ("misplaced thread id",
              "Thread-hierarchy ids (`T.cta_id`, `T.thread_id`, `T.warp_id`, `T.lane_id` ...) are "
              "declared after `T.device_entry()`, at the top level of the kernel body, not inside "
              "`if`, `for` or `while`."),
    "E0403": ("inconsistent thread extents",
              "The extents of the thread hierarchy must agree with the block size: warps = threads / "
              "32, lanes = 32 (fewer in a block smaller than a warp), warpgroups = threads / 128, 4 "
              "warps and 128 threads per warpgroup; a block with several warps (warpgroups) is a "
              "whole number of them. A kind of id declared twice has the same extents both times; "
              "leaving the extents out (`T.warp_id()`) infers them. A multi-dimensional `T.thread_id` "
              "must come before the warp- level ids, which are computed from the linear thread index. "
              "The note shows the declaration the block size comes from."),
    "E0404": ("block too large",
              "A CUDA block has at most 1024 threads (and at most 64 in dimension z): the product of "
              "the `T.thread_id` extents, or the size implied by `T.warp_id` / `T.warpgroup_id`, must "
              "not exceed it. Use more blocks instead."),
    "E0405": ("invalid thread extents",
              "Extents are positive integers given in a list, one per dimension: `T.cta_id` and "
              "`T.thread_id` take one to three, warp, lane and warpgroup ids exactly one. Thread "
              "extents are compile-time constants; grid extents may use scalar parameters and "
              "symbolic extents, and a constant grid has at most 2^31-1 blocks in x and 65535 in y "
              "and z. Ids are int32 or uint32. Warp-level extents may be left out when the block size "
              "is known."),
    "E0406": ("unsupported cluster feature",
              "tirxc supports thread-block clusters whose shape is a compile-time constant of at most "
              "8 CTAs (the portable size), written into the kernel as `__cluster_dims__`. Preferred "
              "cluster shapes (`preferred=`, `T.cuda.LaunchConfig(preferred_cluster=...)`), larger "
              "clusters and the `T.cuda.cluster_*` names that TIRx does not define are not supported "
              "yet."),
    # ---- memory ----------------------------------------------------------------
    "E0500": ("second dynamic shared memory allocation",
              "A kernel has at most one `scope=\"shared.dyn\"` allocation: the dynamic shared arena, "
              "whose size becomes the launch's `sharedMemBytes`. Declare further dynamic buffers as "
              "views with `T.decl_buffer(shape, dtype, data=arena.data, elem_offset=..., "
              "scope=\"shared.dyn\")`, or use `T.SMEMPool`."),
    "E0501": ("tensor memory without `allocated_addr`",
              "Blackwell tensor memory is not allocated like other scopes: a warp allocates columns "
              "with `tcgen05.alloc`, and buffers are declared on top with `T.decl_buffer(shape, "
              "dtype, scope=\"tmem\", allocated_addr=<column>, layout=...)` or `T.TMEMPool.alloc`. "
              "`T.alloc_buffer(scope=\"tmem\")` and a tmem `T.decl_buffer` without `allocated_addr` "
              "cannot be used."),
    "E0502": ("global memory allocated inside a kernel by default",
              "`T.alloc_buffer`, `T.alloc_scalar` and `T.decl_buffer` without `data=` default to "
              "`scope=\"global\"`, which is almost always a forgotten `scope=`: give `scope=\"shared\"`, "
              "`\"shared.dyn\"` or `\"local\"` (or `data=` for a view), or add a parameter. A global "
              "workspace that the launcher allocates is asked for explicitly, with "
              "`T.alloc_buffer(shape, dtype, scope=\"global\")` (E0322)."),
    "E0503": ("invalid buffer size",
              "Buffers allocated inside a kernel have a constant, positive size in every dimension. "
              "Symbolic extents are only allowed for parameter buffers. Element indices are 32-bit C "
              "`int`s, so no buffer may reach past element 2147483647 (2^31 - 1): a constant shape, "
              "layout or offset that does is an error here, and the launcher rejects arrays that make a "
              "symbolic shape do so."),
    "E0504": ("both `elem_offset` and `byte_offset`",
              "A view is placed either by an element offset or by a byte offset, not both. A "
              "`byte_offset` must be a multiple of the element size."),
    "E0505": ("view outside its storage",
              "A `T.decl_buffer` view over the dynamic arena (or another buffer) must lie inside it: "
              "its offset is not negative and offset plus the view's extent does not exceed the "
              "storage's size. The message states both in bytes."),
    "E0506": ("wrong number of indices",
              "An element access gives exactly one index per buffer dimension (`A[i, j]` for a 2-D "
              "buffer). Slices (`A[0:4, :]`) name a region, which is not a value."),
    "E0507": ("index out of bounds",
              "A constant index is outside the buffer's extent in that dimension."),
    "E0508": ("too much static shared memory",
              "Static `__shared__` arrays of one kernel may total at most 48 KiB (49152 bytes): "
              "NVRTC, which the launcher compiles with, rejects more. Put large tiles in the dynamic "
              "arena (`scope=\"shared.dyn\"` or `T.SMEMPool`), which may grow to the device's opt-in "
              "limit."),
    "E0509": ("too much shared memory in total",
              "Static plus dynamic shared memory of one kernel may total at most 227 KiB (232448 "
              "bytes) on sm_90 and sm_100, the per-block opt-in limit."),
    "E0510": ("invalid `T.cuda.func_call`",
              "`T.cuda.func_call(name, *args, source_code=SRC, return_type=dtype)`: the name is a C "
              "identifier given as a compile-time string (not a keyword, not starting with `tirx_`, "
              "`tvm_builtin_` or `__`), the source is a compile-time string that defines it and is "
              "pasted once and verbatim into the `.cu`, the return type a dtype or \"void\" (the "
              "default), and one name may not come with two different sources (the note shows the "
              "first)."),
    "E0511": ("invalid buffer parameter binding",
              "Each `T.handle` parameter is bound by exactly one `T.match_buffer`, before "
              "`T.device_entry()`, and its result is bound to a name (`A = T.match_buffer(A_ptr, "
              "shape, dtype)`). `T.match_buffer` takes a handle parameter; parameter buffers are in "
              "global memory."),
    "E0512": ("symbolic extent cannot be inferred",
              "A symbolic extent (`n = T.int32()`) must appear as a whole dimension of some parameter "
              "buffer's shape, so that the launcher can read it from an array's shape."),
    "E0513": ("misaligned offset",
              "`byte_offset` must be a multiple of the element size, `align` a power of two, and a "
              "view declared with `align=` must start at a multiple of it."),
    "E0514": ("invalid view",
              "`view` keeps the number of elements (one `-1` extent may be inferred), `permute` takes "
              "a permutation of the dimensions, and `ptr_to`, `vload` and `vstore` take one index per "
              "dimension in a list."),
    "E0515": ("invalid vector access",
              "`vload` / `vstore` need a vector dtype of the buffer's element type (`float32x4` on a "
              "float32 buffer) that CUDA can move at once (at most 16 bytes), a buffer aligned to the "
              "vector's size (`align=16` on the declaration: parameters promise 64 bytes unless told "
              "otherwise, local arrays only their element size), a start index that is a multiple of "
              "the lane count where tirxc can tell, and lanes that lie inside a contiguous innermost "
              "dimension."),
    "E0516": ("invalid `data=` pointer",
              "`T.decl_buffer(..., data=...)` takes the `.data` of another buffer (the arena for "
              "`shared.dyn` views); its scope must match the view's scope."),
    "E0517": ("invalid layout",
              "`TileLayout(S[extents : strides])`: the product of the extents equals the number of "
              "elements of the buffer, extents and strides have the same length, and memory buffers "
              "use memory strides only (thread axes such as `laneid` are for distributed register "
              "buffers). Extents are positive, extents and strides fit in a 32-bit `int`, a layout "
              "covers at most 2^31 - 1 elements (indices are `int`s), and `S[...]` / `R[...]` take "
              "extents and strides only (`S[:]` and a third `:` part are errors)."),
    "E0518": ("unsupported feature",
              "The construct is part of TIRx but tirxc does not support it yet. The message names it; "
              "see docs/ for the list of supported constructs. Among them: a call with side effects "
              "whose value tirxc would need twice (`0 < f() < 10`, `T.ceildiv(x, f())`) inside an "
              "operand that may not run (after `and` / `or`, in a branch of a conditional): tirxc "
              "evaluates such a call once, in a local before the statement, which is not possible "
              "there."),
    "E0519": ("register buffer spread over threads indexed directly",
              "A local buffer whose layout has thread axes (`S[(32, 8) : (1 @ laneid, 1)]`) describes "
              "registers spread over the threads of a warp or CTA; an index alone does not say whether "
              "this thread holds the element. Index this thread's registers through "
              "`R.local()` (1-D, in physical order) or `R.local(d0, d1, ...)` (a row-major reshape)."),
    "E0520": ("invalid launch configuration",
              "`T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))` gives the launch up front: "
              "`launch=` takes a `T.cuda.LaunchConfig(...)` written in place, `grid` and `block` are one to "
              "three extents (the block's are compile-time constants) and `dynamic_smem_bytes` a "
              "compile-time byte count. tirxc supports no other LaunchConfig field (clusters, streams, "
              "cooperative launches ...): the launcher chooses them."),
    "E0521": ("thread binding contradicts the launch configuration",
              "When `T.device_entry(launch=...)` gives the grid and block, a `T.cta_id` or `T.thread_id` "
              "declared as well must repeat the same extents; the note shows the launch configuration. "
              "Leave the extents out of the binding, or use `T.cuda.block_idx(\"x\")` / "
              "`T.cuda.thread_idx(\"x\")`."),
    "E0522": ("`dynamic_smem_bytes` disagrees with the dynamic arena",
              "tirxc sizes the dynamic shared memory of a launch from the kernel's one `shared.dyn` arena. "
              "A `dynamic_smem_bytes=` in the launch configuration must equal the arena's size in bytes "
              "(0 when the kernel has no arena)."),
    "E0523": ("invalid launch index",
              "`T.cuda.block_idx(axis)`, `T.cuda.thread_idx(axis)`, `T.cuda.block_dim(axis)` and "
              "`T.cuda.grid_dim(axis)` take the axis as \"x\", \"y\" or \"z\" and need the launch "
              "shape: a `launch=T.cuda.LaunchConfig(...)` on `T.device_entry`, or `T.cta_id` / "
              "`T.thread_id` declarations before them. Like the other thread ids they are declared at "
              "the top level of the kernel body."),
    "E0524": ("invalid `T.ramp` index",
              "`A[i, T.ramp(base, 1, lanes)]` loads or stores `lanes` consecutive elements as one vector "
              "(like `vload` / `vstore`): the ramp is the last index, its stride is 1 and its lane count a "
              "compile-time integer of at least 2, and the vector (`float32x4` ...) is one CUDA can move "
              "at once. The value stored is a vector of the same type."),
    "E0525": ("invalid tensor type argument",
              "`T.alloc_tensor(ty_args=[T.Tensor(shape, dtype, scope=..., align=..., layout=...)])` and "
              "`T.decl_tensor(data, ty_args=[T.Tensor(...)])` take exactly one `T.Tensor(...)`, written "
              "in place, in a list. A view's offset is part of its layout: "
              "`layout=T.TileLayout(T.S[64] + 64)`."),
    "E0526": ("invalid tensor map",
              "A TMA tensor map is allocated with `A_map = T.tvm_stack_alloca(\"tensormap\", 1)` and "
              "encoded once, before `T.device_entry()`, with `T.call_packed(\"runtime.cuTensorMapEncodeTiled\", "
              "A_map, dtype, rank, A.data, *extents, *byte_strides, *box, *element_strides, interleave, "
              "swizzle, l2_promotion, oob_fill)`, innermost dimension first: rank 1 to 5, a box of 1 to 256 "
              "elements per dimension whose inner row is a multiple of 16 bytes and fits the swizzle span "
              "(32, 64 or 128 bytes for swizzle 1, 2, 3), element strides 1 to 8, byte strides multiples "
              "of 16. What depends on the arrays (their address, extents and strides) is checked by the "
              "launcher before each launch."),
    "E0527": ("invalid kernel attribute",
              "`T.attr({...})`, in the device region, sets kernel attributes once each: "
              "\"tirx.launch_bounds_min_blocks_per_sm\" (the second argument of `__launch_bounds__`, at "
              "least 1), \"tirx.max_registers\" (CUDA's `__maxnreg__`, 24 to 255, which replaces "
              "`__launch_bounds__` and so excludes the first) and \"tirx.dyn_smem_bytes\" (the dynamic "
              "shared memory the launch asks for: at least the kernel's arena)."),
    # ---- PTX and tensor memory ---------------------------------------------------
    "E0601": ("unknown PTX instruction",
              "`T.ptx[\"mnemonic\"](...)` and `T.ptx.a.b.c(...)` accept the instructions of tirxc's PTX "
              "table (docs/ptx.md lists every family with example spellings): ld / st / red / atom, "
              "mov, prefetch, barriers, fences, elect.sync, mapa, packed cvt, f32x2 arithmetic, "
              "ldmatrix / stmatrix, mma.sync, wgmma, setmaxnreg, cp.async, cp.async.bulk(.tensor), "
              "mbarrier and the tcgen05 family. The help line shows close spellings. In "
              "the attribute form `__` stands for `::` and a trailing `_` escapes a Python keyword "
              "(`T.ptx.cp.async_.commit_group()`)."),
    "E0602": ("invalid PTX operand",
              "Operands are given in the instruction's order: output registers as elements of a "
              "register buffer of the right dtype (`r[0]` of a uint32 buffer for b16/b32 registers, "
              "of a float32 buffer for f32), inputs as values of the register's dtype, memory "
              "operands as pointers into the right memory (`A.ptr_to([i])`, `bar.data`), and "
              "immediates as compile-time integers. A `.bN` operand takes any N-bit value or register "
              "(`.b32`: int32, uint32 or float32); a predicate operand any integer or bool value."),
    "E0603": ("invalid PTX form",
              "The mnemonic belongs to a family of tirxc's PTX table, but this combination of "
              "modifiers is not an instruction of the PTX ISA (a shape with no such type, a "
              "semantics without a scope, a modifier the instruction does not take). The message "
              "says which rule the spelling breaks; docs/ptx.md shows valid spellings."),
    "E0604": ("`pred=` on an instruction with a destination",
              "`pred=` guards an instruction with a predicate (`@p` in PTX): it runs only where the "
              "value is non-zero. An instruction that writes registers or returns a value would leave "
              "them unset where it does not run, so on such an instruction tirxc wants "
              "`preserve_dst=True` beside `pred=`: the destinations are then read and written, and keep "
              "their values where it does not run. `preserve_dst=True` without `pred=`, or on an "
              "instruction without a destination, is this error too."),
    "E0605": ("PTX immediate out of range",
              "The immediate operand must be one of the values the PTX ISA allows for it, such as "
              "wgmma's scale (-1 or 1) and transpose (0 or 1) immediates or setmaxnreg's register "
              "count (24 to 256, a multiple of 8)."),
    "E0606": ("a CTA-pair instruction outside a cluster of CTA pairs",
              "A tcgen05 instruction of `cta_group::2` (alloc, dealloc, relinquish_alloc_permit, mma, "
              "commit, cp, shift) works on a pair of CTAs of one cluster, so the kernel's cluster, "
              "declared before the instruction (`T.cta_id_in_cluster([2])` or a launch "
              "configuration's `cluster=`), must have an even number of CTAs."),
    "E0607": ("a tcgen05.ld / st fragment that does not exist",
              "`T.alloc_tcgen05_ldst_frag(instr_shape, (rows, cols), dtype)` lays a warpgroup's "
              "registers out as one `.xN` repetition of a tcgen05.ld / st shape does: `32x32b` (128 "
              "rows, or 64 for a CTA pair's float32 accumulator), `16x64b`, `16x128b` or `16x256b` "
              "(64 or 128 rows), of 32- or 16-bit data, with columns a power-of-two multiple of what "
              "one repetition covers (the repetition count within the ISA's limit for the shape)."),
    "E0608": ("the sink operand `T.ptx.SINK` where the ISA takes none",
              "`T.ptx.SINK` writes PTX's sink symbol `_` in place of an operand whose value is not "
              "wanted. The ISA allows it only at some operands (the halves of a `mov` unpack: "
              "`T.ptx.mov.b64(T.ptx.SINK, hi, packed)`), and never at all of them at once."),
    "E0719": ("tensor memory accessed directly",
              "Tensor memory is not addressable by loads and stores: only tcgen05 instructions "
              "(`tcgen05.ld` / `tcgen05.st` between tensor memory and registers, tcgen05.mma, "
              "tcgen05.cp) touch it. Pass the tmem buffer (or a region of it) as their address "
              "operand."),
    "E0701": ("invalid tensor-memory column count",
              "Tensor memory is allocated in columns: a power of two from 32 to 512 (the PTX rule; "
              "the 16-column example in the TIRx docs is wrong), per CTA (`cta_group=1`) or per CTA "
              "pair (`cta_group=2`)."),
    "E0703": ("tcgen05 allocation not warp-uniform",
              "`tcgen05.alloc`, `tcgen05.dealloc` and `tcgen05.relinquish_alloc_permit` are "
              "`.sync.aligned`: every lane of exactly one warp executes them. Put them under a test "
              "on a warp-uniform id, such as `if warp_id == 0:` with `warp_id = T.warp_id([n])`; a "
              "lane or thread test, or `T.cuda.elect_sync()`, splits the warp."),
    "E0704": ("invalid tensor-memory slot",
              "`tcgen05.alloc` writes the allocation's base address into a 32-bit slot in shared "
              "memory: `addr = T.alloc_shared((1,), \"uint32\")` (or `pool.alloc((1,), \"uint32\")`)."),
    "E0705": ("second tensor-memory allocation",
              "tirxc supports one `tcgen05.alloc` per kernel (or one `T.TMEMPool.commit()`): tensor "
              "memory buffers are column offsets from that allocation's base address."),
    "E0706": ("dealloc of a different column count",
              "`tcgen05.dealloc` must free exactly the number of columns `tcgen05.alloc` allocated."),
    "E0707": ("tensor memory used before it is allocated",
              "A tensor-memory buffer is an offset from the address `tcgen05.alloc` wrote into its "
              "slot, so the kernel must allocate before it uses the buffer."),
    "E0708": ("tensor-memory columns exhausted",
              "A `T.TMEMPool.alloc` (or a tmem `T.decl_buffer`'s `allocated_addr`) goes past the "
              "columns the pool or the allocation has."),
    "E0709": ("TMEMPool without warp ids",
              "`T.TMEMPool` issues its allocation from one warp, chosen by the kernel's warp id: "
              "declare `warp_id = T.warp_id([n])` at the top of the kernel body."),
    "E0710": ("pool used out of order",
              "An `SMEMPool` is committed once, after its last allocation (the commit fixes the "
              "arena's size); a `TMEMPool` is committed once and deallocated once, after the commit."),
    "E0711": ("committed size too small",
              "`pool.commit(size)` may reserve more than the allocations reach, never less."),
    "E0712": ("tensor memory never freed",
              "Every tensor-memory allocation must be freed before the kernel ends: call "
              "`tmem_pool.dealloc()` (or relinquish and dealloc by hand)."),
    # ---- the T.cuda helper library ------------------------------------------------
    "E0720": ("invalid pointer argument of a T.cuda helper",
              "The argument is a pointer (`A.data`, `A.ptr_to([i])`, `T.address_of(A[i])`, "
              "`A.access_ptr(...)`) into the memory the helper works on: an mbarrier, a matrix "
              "described by a wgmma or tcgen05 descriptor and the scratch of `T.cuda.cta_sum` live in "
              "shared memory, `T.cuda.ldg` reads global memory."),
    "E0721": ("wrong dtype for a T.cuda helper",
              "The helper takes or points to values of one dtype, as in TIRx: an mbarrier is a "
              "uint64, a matrix descriptor a uint64, a wgmma fence register a float32 or uint32 "
              "element of a local buffer, a packed float2 a uint64 and a bfloat16x2 or fp8x4 a "
              "uint32. Convert the value or declare the buffer with that dtype."),
    "E0722": ("invalid compile-time argument of a T.cuda helper",
              "The argument selects the code the helper generates and must be a constant from the "
              "list the message gives: a swizzle mode (0 none, 1 32B, 2 64B, 3 128B; tcgen05 also "
              "4), a reduction width or warp count (a power of two up to 32), a reduction (`\"sum\"`, "
              "`\"max\"`, `\"min\"`), a vector width, a special register's name and width."),
    "E0800": ("kernel not supported by the C++ host interface yet",
              "`--header` (and `--emit header`) write a C++ entry point per kernel (docs/cpp.md). A "
              "kernel that needs something the C++ interface does not compute on the host yet (a "
              "parameter kind such as a TMA tensor map, or cluster dimensions that are not constants) "
              "is reported at the kernel; the CUDA and the CuPy launcher are still available without "
              "`--header`."),
    "E0810": ("not supported yet by tirxc sim",
              "`tirxc sim` (docs/sim.md) runs the code tirxc generates on the CPU. The kernel uses "
              "something the CPU runtime does not implement yet (a PTX instruction, a TMA tensor map, "
              "clusters, tensor memory, fp8 types); the message names it, at its first use. Nothing is "
              "approximated: run the kernel on a GPU (`tirxc run`) until the simulator supports it."),
    # ---- tirxc sim --racecheck (races) and --synccheck (barrier protocols): codes_sim.py ----
    **SIM_CHECK_CODES,
    # ---- warnings --------------------------------------------------------------
    "W0001": ("no kernels in file",
              "The file parsed and checked cleanly but defines no `@T.prim_func` kernel, so the "
              "generated `.cu` contains only its header."),
    "W0002": ("unused value",
              "An expression statement computes a value that is never used."),
    "W0004": ("`@T.jit` kernel never specialized",
              "A `@T.jit` kernel becomes a kernel only where it is specialized at module level "
              "(`add_256 = add.specialize(N=256)`), named by the name it is assigned to; one that "
              "never is emits nothing."),
    "W0006": ("a function without `T.device_entry()`",
              "TIRx's parser accepts a `@T.prim_func` whose body declares its thread hierarchy "
              "(`bx = T.cta_id([1])` ...) right after the parameter bindings, with no "
              "`T.device_entry()` (TVM's own tests write functions that way). tirxc compiles it as the "
              "kernel it would be with `T.device_entry()` before that first scope id, and says so. A "
              "function with no device code at all (parameter bindings, constants, `T.call_packed` "
              "launches of kernels by name: a host `main` as TIRx prints it) is one TIRx compiles for "
              "the host; tirxc emits nothing for it, since the generated launcher is the host side of "
              "each kernel, and says so. A body whose device code starts with anything else needs the "
              "entry (E0400)."),
    "W0508": ("constant index out of bounds in a run-time branch",
              "A constant index outside its buffer's extent (E0507) inside an `if` whose condition is "
              "known only at run time: TIRx compiles the access, and the kernel is correct as long as "
              "the branch never runs, so tirxc warns and compiles it as written."),
    "W0723": ("a grid of one block with a larger cluster",
              "The kernel's grid is one block, but its cluster shape (E0723) has more CTAs: TIRx compiles "
              "such a kernel, and so does tirxc, but CUDA refuses to launch a grid that is not a whole "
              "number of clusters. Grow the grid before launching it."),
    "W0303": ("a store converts a float to an integer",
              "A buffer store (or an assignment to a mutable scalar) converts its value to the buffer's "
              "dtype, as TIRx's `BufferStore` does. Converting a float to an integer drops the "
              "fraction (it truncates toward zero), so tirxc warns, as TIRx does; write the "
              "conversion (`T.int32(x)`) to say it is meant."),
    "W0005": ("read in an older spelling of TIRx",
              "A note, not a problem: the file is written in an older spelling of TIRx (the fork's "
              "wheel that a public course pins, or apache/tvm's May or June 2026 spelling), and tirxc "
              "read it by rewriting it into today's spelling, which gives the same CUDA as the "
              "rewritten file. `tirxc migrate FILE -o NEW` writes that rewrite, keeping comments and "
              "layout; `tirxc migrate --check FILE` exits 1 while a file needs it."),
    "W0101": ("pool views overlap while in use",
              "After `pool.move_base_to(...)` rewinds an `SMEMPool`, a new allocation reuses bytes of "
              "an earlier one. That is the point of rewinding, but here the earlier view is still "
              "read or written after the new one is declared, so the two may clobber each other."),
    # ---- traps for a new user (tile primitives, registers) ----------------------------------
    "E0906": ("tile primitive reached by only part of its scope",
              "A tile primitive at warp, warpgroup, CTA or cluster scope is one cooperative operation: "
              "the threads of the scope share its work, so every one of them must reach the call "
              "(TIRx's rule; its fast variants check that no enclosing `if` narrows the scope). Under "
              "an `if` that depends on a finer id (`if tx < 128:` around `Tx.cta.copy`) only some "
              "threads run it, and none of them can know which part is theirs: each would do the "
              "whole tile's work, or wait at a barrier the others never reach. Move the call out of "
              "the `if`, narrow the scope to the threads the test keeps (`Tx.warp.copy` under a warp "
              "test), or let one thread do the copy at thread scope (`if tx == 0: Tx.copy(...)`)."),
    "W0901": ("a thread-scope copy that many threads repeat",
              "`Tx.copy` without a scope runs at thread scope: the thread that runs it copies the "
              "whole tile. Run by every thread of the CTA (or of each warp an `if` keeps) with the "
              "same operands, it copies the same tile many times over into shared or global memory: "
              "correct values, at many times the cost, and a race for anything that reads the tile "
              "meanwhile. Run it in one thread (`if tx == 0:`), or give it the scope of the threads "
              "that run it (`Tx.cta.copy`), which splits the work among them."),
    "E0528": ("register array index out of bounds",
              "A register array (`scope=\"local\"`) is private to its thread and has no bounds check on "
              "the GPU: an index past its end reads or writes some other variable (or makes the "
              "compiler move the array to slow local memory). tirxc works out the values a run-time "
              "index takes from the loop variables with constant bounds, the thread ids, the `T.let`s "
              "over them and the enclosing tests that compare them with constants; when some thread "
              "in some iteration surely takes a value outside the extent, the access is an error "
              "(`R[tx]` for an array of 8 in a block of 256 threads)."),
    "W0507": ("register array index may be out of bounds",
              "As E0528, but the range tirxc works out for the index is only an upper bound (the "
              "index combines a variable with itself, multiplies two variables, or follows a loop "
              "with a step or an early `return`), so the value outside the extent may never be "
              "taken. Keep the index inside the extent in a way tirxc can see (`% extent`, or a test "
              "around the access), or make the array larger."),
}

def errors_markdown() -> str:
    """docs/errors.md, generated from the code table."""
    out = ["# tirxc diagnostic codes", "",
           "Generated by `python -m transpiler.diag.codes` from `transpiler/diag/codes.py`; do not edit by hand.",
           "`tirxc --explain CODE` prints one entry.", ""]
    for code, (title, text) in CODES.items():
        out += [f"## {code}: {title}", "", text, ""]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - a docs generator
    import sys
    from pathlib import Path

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/errors.md")
    target.write_text(errors_markdown())
