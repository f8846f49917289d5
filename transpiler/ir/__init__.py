"""The kernel IR, as one namespace: `from transpiler import ir`, then `ir.Var`,
`ir.binop`, `ir.all_stmts`. The schema is nodes.py, the folding constructors and
integer semantics fold.py, traversal walk.py; layout.py (layout algebra) and
program.py (what the stages hand each other) are imported by name."""
from transpiler.ir.nodes import *  # noqa: F401,F403
from transpiler.ir.nodes import LEAVES, NODE_EXPRS, NOWHERE  # noqa: F401
from transpiler.ir.fold import *  # noqa: F401,F403
from transpiler.ir.fold import COMPARISONS, HOST_OPS  # noqa: F401
from transpiler.ir.walk import *  # noqa: F401,F403
