"""One kernel of a simulated module: its arguments checked by the CuPy launcher's own checks
(the launch description's, run by the launcher's runtime on NumPy arrays), copied into an
argument image, the compiled simulator run on it in a child process (bounded in time; a crash
cannot take the caller down), and what the kernel wrote copied back into the arrays."""
from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
import tempfile

IMAGE_ALIGN = 256  # each array keeps its address modulo this in the image: the kernel's vector accesses stay aligned


class SimError(RuntimeError):
    """The simulated run stopped: a trap, a deadlock, a crash, a limit (the message says where)."""


class SimFindings(SimError):
    """A simulated run with findings of the checkers (--racecheck, --synccheck): `diagnostics` are
    tirxc Diagnostic objects (transpiler/sim/findings.py makes them; render them with
    transpiler.diag.diagnostics.Renderer). str() lists them, one line each."""

    def __init__(self, message: str, diagnostics: list):
        super().__init__(message)
        self.diagnostics = diagnostics


class HostArray:
    """A NumPy array as the launcher's runtime reads an argument (__cuda_array_interface__ is
    the array's own __array_interface__: the same keys): only the checks see it, nothing is
    launched on a device.

    Its data pointer is an address in a device-like space where each allocation the arguments
    are views of (`roots`: one entry per allocation of this call) starts on its own 256-byte
    boundary, 2^40 bytes from the next, as CUDA allocations are aligned (NumPy aligns to 16
    bytes only): an array is refused for its alignment exactly when the same view of a device
    allocation would be, and views of one allocation keep their places, so the overlap checks
    see them as they are. `SHIFT` is the move, which the image undoes."""

    SHIFT = "tirxc_sim_shift"
    SPACING = 1 << 40

    def __init__(self, array, roots: dict):
        self.array = array
        self.dtype = array.dtype
        self.shape = array.shape
        root = array
        while hasattr(getattr(root, "base", None), "__array_interface__"):
            root = root.base
        slot = roots.setdefault(id(root), (len(roots) + 1, root))[0]  # (the root kept alive for the call)
        real = array.__array_interface__["data"][0]
        shift = slot * self.SPACING + (real - root.__array_interface__["data"][0]) - real
        iface = dict(array.__array_interface__)
        iface["data"] = (real + shift, iface["data"][1])
        iface[self.SHIFT] = shift
        self.__cuda_array_interface__ = iface


class Options:
    """How a launch runs (docs/sim.md, "The engine"): block_limit (--grid-limit; None: all),
    step_limit (scheduling points per block; 0: none), jobs (OS threads), stack_kib, timeout (s);
    the checkers (docs/sim.md, "Race checking", "Barrier protocols"): racecheck, synccheck, and
    schedules (runs of each launch: thread order, reverse, then random orders from `seed`)."""

    def __init__(self, block_limit=None, step_limit=0, jobs=None, stack_kib=64, timeout=600.0, racecheck=False,
                 synccheck=False, schedules=1, seed=0):
        self.block_limit = block_limit
        self.step_limit = step_limit
        self.jobs = jobs or os.cpu_count() or 1
        self.stack_kib = stack_kib
        self.timeout = timeout
        self.racecheck = racecheck
        self.synccheck = synccheck
        self.schedules = max(1, schedules)
        self.seed = seed

    @property
    def checks(self) -> int:
        """The executable's CHECKS word (transpiler/sim/entry.py)."""
        return (1 if self.racecheck else 0) | (2 if self.synccheck else 0)


class SimKernel:
    """A kernel called like the CuPy launcher's, with NumPy arrays, which it writes in place."""

    def __init__(self, module, index: int, launcher_kernel):
        self._module = module  # the SimModule: its executable, built on the first call
        self.index = index
        self.kernel = launcher_kernel  # the launcher runtime's kernel: the checks and the launch plan
        self.name = self.__name__ = launcher_kernel.name
        self.args = list(launcher_kernel.spec["args"])

    @property
    def spec(self) -> dict:
        """The kernel's entry of the launcher's table (parameters, grid, block ...)."""
        return self.kernel.spec

    @property
    def params(self) -> dict:
        return self.kernel.params

    @property
    def cluster_size(self) -> int:
        """The blocks of one cluster (1: the kernel runs in no cluster of several blocks)."""
        x, y, z = self.kernel.spec.get("cluster") or (1, 1, 1)
        return x * y * z

    def __repr__(self) -> str:
        return f"<tirxc sim kernel {self.name}({', '.join(self.args)})>"

    def _arguments(self, args, kwargs):
        if kwargs:
            unknown = sorted(set(kwargs) - set(self.args))
            if unknown:
                raise TypeError(f"{self.name}(): no parameter {', '.join(map(repr, unknown))} "
                                f"(parameters: {', '.join(self.args)})")
            args = list(args) + [kwargs[n] for n in self.args[len(args):] if n in kwargs]
        for name, value in zip(self.args, args):  # (the launcher's own message asks for a GPU array)
            if self.kernel.params.get(name, {}).get("kind") == "buffer" and not _is_ndarray(value):
                raise TypeError(f"{self.name}(): argument '{name}' must be a NumPy array, got {type(value).__name__}")
        roots = {}
        return [HostArray(a, roots) if _is_ndarray(a) else _scalar(a) for a in args]

    def launch_config(self, *args, **kwargs):
        """(grid, block, dynamic shared bytes) for these arguments, checked as a call checks them."""
        return self.kernel.launch_config(*self._arguments(args, kwargs))

    def written(self) -> list[str]:
        """The buffer parameters the kernel may write (not read-only), by name."""
        return [p["name"] for p in self.kernel.spec["params"] if p["kind"] == "buffer" and not p["readonly"]]

    def __call__(self, *args, options: Options | None = None, **kwargs):
        options = options or self._module.options
        shims = self._arguments(args, kwargs)
        grid, block, dynamic = self.kernel.launch_config(*shims)  # every check of the CuPy launcher
        values, arrays, scalars = self.kernel._bind(shims)
        workspaces = self.kernel.workspace_bytes(*shims)
        if not all(grid) or not all(block):
            return  # an empty problem: nothing to launch
        maps = {p["name"]: self.kernel._tensor_map(p, values, arrays)[1] for p in self.kernel.spec["params"]
                if p["kind"] == "tensormap" and "buffer" in p}  # the fields the launcher would encode
        size, argv, copies, buffers = _image(self.kernel.spec["params"], values, arrays, scalars, workspaces, maps)
        executable = self._module.executable(checked=bool(options.checks))
        # with several schedules the others run first, each on the arguments as given, and
        # thread order last, whose results the arrays get
        schedules = list(range(1, options.schedules)) + [0]
        findings = []
        handle, path = tempfile.mkstemp(prefix="tirxc-sim-", suffix=".img")
        try:
            os.ftruncate(handle, max(size, 1))  # zero-filled: the workspaces start so, as the launcher's do
            with mmap.mmap(handle, max(size, 1)) as image:
                window = ctypes.c_char.from_buffer(image)
                try:
                    base = ctypes.addressof(window)
                    for schedule in schedules:
                        ctypes.memset(base, 0, max(size, 1))
                        for address, start, nbytes, _ in copies:
                            ctypes.memmove(base + start, address, nbytes)
                        before = len(findings)
                        error = self._run(executable, path, grid, block, dynamic, argv, options, schedule, findings)
                        if error is not None and len(findings) == before:
                            raise SimError(error)  # a stop the checkers did not report
                    for address, start, nbytes, written in copies:
                        if written:
                            ctypes.memmove(address, base + start, nbytes)
                finally:
                    del window  # (the map cannot close while a pointer into it exists)
        finally:
            os.close(handle)
            os.unlink(path)
        if findings:
            self._findings(findings, buffers, block)

    def _run(self, executable, path, grid, block, dynamic, argv, options, schedule=0, findings=None):
        """One run of the launch; the error that stopped it, or None. The checkers' finding lines
        are added to `findings`."""
        limit = -1 if options.block_limit is None else options.block_limit
        handle, found = tempfile.mkstemp(prefix="tirxc-sim-", suffix=".findings")
        os.close(handle)
        command = [str(executable), path, str(self.index), *map(str, grid), *map(str, block), str(dynamic),
                   str(limit), str(options.step_limit), str(options.jobs), str(options.stack_kib),
                   str(options.checks), str(schedule), str(options.seed), found, *argv]
        try:
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=options.timeout)
            except subprocess.TimeoutExpired:
                raise SimError(f"tirxc sim: {self.name}: the run did not end in {options.timeout:g} s (a thread "
                               f"that spins on memory no other thread writes?)") from None
            if findings is not None:
                from transpiler.sim.findings import parse
                with open(found, encoding="utf-8", errors="replace") as handle:
                    findings += parse(handle.read())
        finally:
            os.unlink(found)
        if done.stdout:
            print(done.stdout, end="")
        if done.returncode != 0:
            message = done.stderr.strip() or f"the simulator ended with status {done.returncode}"
            return f"{message} (kernel {self.name})"
        return None

    def _findings(self, records, buffers, block):
        """Raise SimFindings for the checkers' finding lines (each code and pair of sites once)."""
        from transpiler.sim.findings import Layout, diagnostics

        unique = {}
        for r in records:
            unique.setdefault((r[1], min(r[2], r[3]), max(r[2], r[3])), r)
        sites, shared = self._module.checked_tables(self.kernel.spec["symbol"])
        found = diagnostics(list(unique.values()), sites, Layout(tuple(buffers), tuple(shared), tuple(block)))
        found.sort(key=lambda d: (d.span.line, d.span.col, d.code))
        lines = "".join(f"\n  {d.span}: {d.code} {d.message}" for d in found)
        raise SimFindings(f"tirxc sim: {self.name}: {len(found)} finding(s) of the checkers:{lines}", found)


def _is_ndarray(value) -> bool:
    return hasattr(value, "__array_interface__") and getattr(value, "shape", ()) != ()


def _scalar(value):
    """A 0-d array (an .npz entry) as the scalar it holds; anything else as it is."""
    if hasattr(value, "__array_interface__") and getattr(value, "shape", None) == () and hasattr(value, "item"):
        return value[()]
    return value


def _image(params, values, arrays, scalars, workspaces, maps):
    """The argument image's size, the executable's argument words, and the copies:
    (host address, image offset, bytes, whether the kernel may write it) of each array, and each
    buffer's (name, image offset of its element 0, bytes, item size) for the checkers' reports;
    `maps`, each encoded tensor map's fields (the launcher's tensor_map_fields), by name."""
    size = 0
    argv, copies, buffers = [], [], []
    starts = {}  # buffer name -> the image offset of the kernel's pointer (a map's address)

    def place(address: int, nbytes: int) -> int:
        nonlocal size
        start = size + (address - size) % IMAGE_ALIGN
        size = start + nbytes
        return start

    for param in params:
        kind = param["kind"]
        if kind == "buffer":
            iface, _, extent = arrays[param["name"]]
            if extent is None:
                argv.append("n")
                continue
            low, high = extent[0], extent[1]
            shifted = iface["data"][0]
            pointer = shifted - iface[HostArray.SHIFT]  # the array's own address
            start = place(shifted + low, high - low)
            # the kernel's pointer is to element 0 of the buffer, `offset` elements before the array's first
            origin = starts[param["name"]] = start - low - param['offset'] * param['itemsize']
            argv.append(f"p{origin}")
            copies.append((pointer + low, start, high - low, not param["readonly"]))
            buffers.append((param["name"], origin, start + high - low - origin, param["itemsize"]))
        elif kind == "workspace":
            argv.append(f"p{place(0, max(workspaces[param['name']], 1))}")
        elif kind == "extent":  # read off the arrays' shapes by the checks
            import numpy
            argv.append("x" + numpy.dtype(param["dtype"]).type(values[param["c_name"]]).tobytes().hex())
        elif kind == "scalar":
            argv.append("x" + scalars[param["name"]].tobytes().hex())
        elif kind == "tensormap" and param["name"] in maps:
            if param["element_bits"] % 8:
                raise SimError(f"not supported yet by tirxc sim: tensor map '{param['name']}' of packed "
                               f"{param['element_bits']}-bit elements")
            argv.append(param)  # written below, once every buffer has its place
        else:
            raise SimError(f"a {kind} parameter ('{param['name']}') is not simulated yet")
    for i, param in enumerate(argv):
        if isinstance(param, dict):
            data_type, rank, dims, strides, box, element_strides, interleave, swizzle, _, oob = maps[param["name"]]
            words = [starts[param["buffer"]], param["element_bits"] // 8, data_type, rank, *dims, *strides,
                     *box, *element_strides, interleave, swizzle, oob]
            argv[i] = "m" + ",".join(str(int(w)) for w in words)
    return size, argv, copies, buffers
