"""The checker's tables stay consistent as handlers are added: a name that is known but not
supported yet never shadows (or is shadowed by) a handler of the same name."""
from __future__ import annotations

import transpiler.sema.check  # noqa: F401  (imports every handler module)
from transpiler.sema.registry import HANDLERS, KNOWN_UNSUPPORTED


def test_no_name_is_both_handled_and_known_unsupported():
    assert sorted(set(KNOWN_UNSUPPORTED) & set(HANDLERS)) == []
