"""Names a kernel cannot have because the generated launcher module uses them: none.

The launcher runs its runtime in a module object of its own (templates/launcher.py.j2),
so its globals are the kernels and `__dunder__` names, which no kernel may take anyway.
Kept, empty, only while transpiler/sema/check.py still imports it."""
RESERVED = frozenset()
