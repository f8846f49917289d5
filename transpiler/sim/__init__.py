"""tirxc sim: kernels run on the CPU (docs/sim.md).

    from transpiler import sim
    module = sim.load("samples/saxpy.tx")   # sim.SimLoadError with the diagnostics if it cannot run
    module.saxpy(2.0, x, y)                 # NumPy arrays, written in place, as the CuPy launcher's
    module.saxpy.launch_config(2.0, x, y)   # (grid, block, dynamic shared bytes)

`load` transpiles the file (the driver, with the sim flavour of the CUDA), and gives one callable
per kernel (`module.KERNELS` names them); the first call compiles the program for the CPU
(transpiler/sim/build.py, cached) and each call runs one launch in a child process
(transpiler/sim/launch.py). Arguments are checked by the CuPy launcher's own checks.
"""
from __future__ import annotations

import types
from pathlib import Path

from transpiler.sim.launch import Options, SimError, SimFindings, SimKernel

__all__ = ["load", "load_source", "Options", "SimError", "SimFindings", "SimLoadError", "SimModule"]


class SimLoadError(Exception):
    """The file does not transpile, or uses what the simulator cannot run yet (E0810): `result`
    holds the driver's Result, its diagnostics among them."""

    def __init__(self, message: str, result=None):
        super().__init__(message)
        self.result = result


class SimModule:
    """One .tx file for the CPU: an attribute per kernel (a SimKernel), `KERNELS` their names."""

    def __init__(self, result, options: Options | None = None):
        from transpiler.sim.entry import render_entry

        self.result = result
        self.options = options or Options()
        self.source = result.sim_cuda + render_entry(result.program, result.sim_shared)
        self._executables = {}
        self._checked = None  # (source, sites, shared layout) of the checked flavour, made when first asked
        launcher = _launcher_module(result.launcher, result.source.name)
        self.KERNELS = list(launcher.KERNELS)
        self.kernels = {}
        for index, lk in enumerate(result.program.kernels):
            name = next(n for n, spec in launcher.KERNELS.items() if spec["symbol"] == lk.spec.symbol)
            kernel = SimKernel(self, index, getattr(launcher, name))
            self.kernels[name] = kernel
            setattr(self, name, kernel)

    def executable(self, checked: bool = False):
        """The compiled simulator; `checked`: the one with the checkers' hooks (docs/sim.md)."""
        if checked not in self._executables:
            from transpiler.sim.build import build

            source = self._checked_flavour()[0] if checked else self.source
            self._executables[checked] = build(source, Path(self.result.source.name).stem or "kernel")
        return self._executables[checked]

    def _checked_flavour(self):
        if self._checked is None:
            from functools import partial

            from transpiler.codegen.cuda import render_cuda
            from transpiler.codegen.cuda_sim import SimFlavour
            from transpiler.sim.entry import render_entry
            from transpiler.sim.ptx import cpu_helper

            flavour = SimFlavour(partial(cpu_helper, checked=True), checked=True)
            text = render_cuda(self.result.program, flavour=flavour)
            self._checked = (text + render_entry(self.result.program, flavour.static_shared), flavour.sites,
                             flavour.shared_layout)
        return self._checked

    def checked_tables(self, symbol: str):
        """The checked flavour's site table and kernel `symbol`'s shared arrays (findings.py)."""
        _, sites, shared = self._checked_flavour()
        return sites, shared.get(symbol, [])


def _launcher_module(text: str, file_name: str):
    """The CuPy launcher tirxc wrote for the file, as a module: its runtime checks the arguments
    (it imports CuPy only to launch, which the simulator never does)."""
    module = types.ModuleType(f"tirxc_sim_launcher_{abs(hash(text))}")
    module.__file__ = f"<tirxc launcher of {file_name}>"
    exec(compile(text, module.__file__, "exec"), module.__dict__)
    return module


def load_source(source, arch: str | None = None, options: Options | None = None) -> SimModule:
    """A SimModule from a transpiler.syntax.source.SourceFile."""
    from transpiler.driver import compile_source
    from transpiler.sim.ptx import cpu_helper

    result = compile_source(source, until="launcher", arch=arch, sim_helpers=cpu_helper)
    return _module(result, options)


def load(path, arch: str | None = None, options: Options | None = None) -> SimModule:
    """A SimModule from a .tx file."""
    from transpiler.driver import compile_file
    from transpiler.sim.ptx import cpu_helper

    path = str(path)
    with open(path, "rb") as handle:
        data = handle.read()
    result = compile_file(path, data, until="launcher", arch=arch, sim_helpers=cpu_helper)
    return _module(result, options)


def _module(result, options) -> SimModule:
    if not result.ok or result.sim_cuda is None:
        from transpiler.diag.diagnostics import Renderer

        raise SimLoadError(Renderer(result.source, colour=False).render_all(result.diagnostics), result)
    return SimModule(result, options)
