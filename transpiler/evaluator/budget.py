"""The step budget of a file's compile-time evaluation: every operation of the evaluator draws
from it (docs/design.md, decision 26), here or through `step`; E0135 when it is spent.

Its own module, below the evaluator's others, so that the values (box.py), CPython's operations
(ops.py) and the evaluation (core.py) all charge it. Every reader reads STEP_BUDGET here when it
charges, so a test may lower it (monkeypatch) to reach the same limit sooner."""
from __future__ import annotations

from transpiler.evaluator.standins import DataclassObject, Held

STEP_BUDGET = 100_000  # comprehension items, compile-time loop iterations and helper statements, per file
ITEMS_SEEN = "items"  # a conversion memo's count of the items it went through (charge_items draws it)


def step(st, span, count: int = 1) -> bool:
    """Draw `count` steps from the file's budget; False (reported once) when it is spent."""
    ms = st.module
    left = getattr(ms, "pyeval_steps", STEP_BUDGET) - count
    ms.pyeval_steps = left
    if left >= 0:
        return True
    if not getattr(ms, "pyeval_spent", False):
        ms.pyeval_spent = True
        st.diags.error("E0135", f"compile-time evaluation takes more than {STEP_BUDGET} steps", span,
                       help="a comprehension, compile-time loop or helper function runs too long; "
                            "use a kernel loop (`T.serial`) instead")
    return False


def charge_items(st, span, memo: dict) -> bool:
    """Draw the items a conversion went through (its memo's count) from the budget, one step per 64;
    False when the budget is spent (reported)."""
    items = memo.get(ITEMS_SEEN, 0)
    return items < 64 or step(st, span, items // 64)


def weight(value, limit: int) -> int:
    """How many objects CPython goes through to hash or print value (each item of each container,
    a shared sub-tuple each time it is reached, as CPython's hash and repr do; a list or dict once),
    counted up to just past limit: a value built cheaply by repetition (`(t,) * 1000` three times
    over) may hold far more than its construction was charged."""
    count, stack, seen = 0, [value], set()
    while stack and count <= limit:
        v = stack.pop()
        count += 1
        if isinstance(v, (list, dict, set, frozenset)):
            if id(v) in seen:
                continue
            seen.add(id(v))
            stack.extend(v.items() if isinstance(v, dict) else v)
        elif isinstance(v, tuple):
            stack.extend(v)
        elif isinstance(v, DataclassObject):
            stack.extend(f for _, f in v.fields)
        elif isinstance(v, Held):  # (counted as the stand-in it is to CPython)
            made = v.stand_in()
            if made is not None:
                count -= 1
                stack.append(made)
    return count
