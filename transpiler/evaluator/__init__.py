"""The compile-time evaluator of a `.tx` file's Python level: constants, tuples, lists, sets,
dicts, comprehensions, `*` / `**` unpacking, f-strings, Python's builtins and the few standard
modules a kernel file computes with (`math`, `functools`, `operator`, `typing`, `copy`, `os`,
TVM's `DataType`). CPython never runs the file: the evaluator walks it, and computes every
operation on plain values with CPython's own (ops.py), on CPython's own objects: a list, set or
dict is a real `list`, `set` or `dict` of CPython objects (box.py), so that it compares, prints
and copies as CPython's by construction; a dataclass instance or enum member enters CPython's
containers, comparisons and `str()` through a stand-in, and a value the checker owns (a kernel
expression, a buffer) as a held object compared by identity (standins.py).

It sits below the checker (sema/) and imports nothing of it. Its interface:

- **Values in, values out.** Every function takes the evaluation context `st` and values or
  syntax nodes (transpiler.syntax.ast), and returns a value: one of values.py (`PyConst`,
  `PyDict`, `Builtin`, `Helper`, `Method`, `SliceVal`, `LoopRange`, `DTypeVal`, `Void` ...), a
  list or set view (box.py), a Python tuple of values, or a value of the checker's own (an IR
  expression, a buffer, a layout ...), which it passes through untouched and names by
  `values.describe` (the checker's values are `values.CheckerValue`s). An error is reported on
  `st.diags` and gives `POISON` (or None where a function says so); errors never raise.
- **The host.** Whatever is not Python's (a kernel expression, a class or function of the file,
  a name of TIRx's library) it asks the checker through the `Host` of host.py, reached as
  `st.host`. The checker's entry points into the evaluator are plain calls: the node rules of
  nodes.py (taken into the checker's dispatch on node classes), `core` (`sequence`,
  `expand_call`, `unpack`, `ct_subscript`, `items_of`, `truth`, `split_items` ...), `lists`
  (`seq_arith`, `contains`, `expand_subscript`, `set_item`), `builtins` (`call_builtin`,
  `ct_attribute`, `ct_method`, `slice_index`, `meta_var`) and `modules` (`module_attr`,
  `dtype_attr`, `modules`, `imported`).
- **The context.** `st` carries `diags` (where errors go), `scopes` (a list of name -> `Binding`
  dicts; a comprehension pushes its own), `module` (the file: its `globals`, its `source`, and
  the step budget's counter) and `host`.
- **Cost.** Every compile-time step (a comprehension item, a loop iteration, a helper
  statement, an item copied or unpacked) draws from one budget per file, `budget.STEP_BUDGET`
  steps, through `budget.step(st, span, count)`; the first overdraft is reported once (E0135) and
  evaluation stops with POISON.
"""
