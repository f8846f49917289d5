"""Running the GPU tests' cases (tests/gpu/cases.py: arguments and NumPy oracles) under
`tirxc sim` instead of the GPU: the same arguments, the same views, the same check."""
from __future__ import annotations

import numpy as np

from tests.conftest import SAMPLES
from transpiler import sim

_MODULES: dict = {}


def sample_module(stem: str):
    """The SimModule of samples/<stem>.tx, or the SimLoadError that refuses it (E0810)."""
    if stem not in _MODULES:
        try:
            _MODULES[stem] = sim.load(SAMPLES / f"{stem}.tx")
        except sim.SimLoadError as err:
            _MODULES[stem] = err
    return _MODULES[stem]


def on_host(args, case):
    """As tests/gpu/cases.py's to_device, on the host: ({position: the whole array}, the
    arguments to pass, a case's `views` applied)."""
    bases, passed = {}, []
    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray):
            base = np.array(arg, order="K")
            bases[i] = base
            view = case.get("views", {}).get(i)
            passed.append(view(base) if view else base)
        else:
            passed.append(arg)
    return bases, passed
