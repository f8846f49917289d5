"""The runtime of every generated launcher: argument checks, launch plans, workspaces, the
launch. The package's other modules complete it: program.py (the launcher's program and the
checks' messages), nvrtc.py (compiling the embedded CUDA, CompileError), arith.py (the kernel's
integer arithmetic on the host) and tensormap.py (TMA tensor maps).

tirxc embeds the package's modules in each launcher it writes (templates/launcher.py.j2,
transpiler/codegen/launcher.py RUNTIME_MODULES), which runs each in a module object of its own,
under a private package name, and then calls `load` with the launcher's program: its .tx file's
name, architecture, CUDA source, kernel table, the target's limits and the launch description's
messages. So they import nothing from tirxc -- the standard library, each other, and CuPy and
NumPy when a kernel is first checked or launched -- and their names never meet the kernels'
names, which are the launcher module's globals. Imported as `transpiler.runtime.launch` (for its
tests) it has no program until `load` is called, and neither compiles nor computes a program's
host expressions.

Each check of the launch description (transpiler/ir/launch_checks.py) is made in one place here
or in tensormap.py, and refused with its message (`program.refusal`); the checks of the CuPy
host's own argument protocol (an object that is no GPU array, a mask, a stream ...) are worded
here.

The per-call path (`_Kernel.__call__`) was tuned for speed (docs/benchmarks.md): measure
before adding work to it.
"""
from __future__ import annotations

import threading

from . import arith, nvrtc, program, tensormap
from .cooperative import CooperativeFunction
from .program import describe as _describe, refusal
from .tensormap import attach_tensor_maps, check_address, check_reach, tensor_map_argument, tensor_map_fields

WORKSPACE_CACHE_SIZE = 8  # cached workspace allocations per kernel; the oldest goes first
CALLABLES = program.CALLABLES  # {name: the kernel's callable}, which the launcher exports


def load(source_file: str, min_arch: int, arch_suffix: str, cuda_source: str, kernels: dict,
         line_file: str = "", static_shared_limit: int = 0, index_limit: int = 0, grid_limits: tuple = (),
         tensor_map_limits: dict | None = None, messages: dict | None = None) -> dict:
    """Make this package the runtime of one launcher and return its kernels' callables."""
    program.SOURCE_FILE, program.MIN_ARCH, program.ARCH_SUFFIX = source_file, min_arch, arch_suffix
    program.CUDA_SOURCE, program.LINE_FILE, program.KERNELS = cuda_source, line_file, kernels
    program.STATIC_SHARED_LIMIT, program.INDEX_LIMIT, program.GRID_LIMITS = \
        static_shared_limit, index_limit, tuple(grid_limits)
    program.TENSOR_MAP_LIMITS.update(tensor_map_limits or {})
    program.MESSAGES.update(messages or {})
    program.CALLABLES.clear()
    program.CALLABLES.update((name, _Kernel(name, spec)) for name, spec in kernels.items())
    return program.CALLABLES


# The modules whose names the launcher module shows (its `__getattr__`), in this order.
_NAMESPACES = (program, nvrtc, tensormap, arith)


def module_getattr(name: str):
    """The launcher module's `__getattr__`: a name that is not a kernel's is the runtime's
    (`KERNELS`, `CUDA_SOURCE`, `SOURCE_FILE`, `CompileError` ...), as if they were one module."""
    if not (name.startswith("__") and name.endswith("__")):
        for namespace in (globals(), *map(vars, _NAMESPACES)):
            if name in namespace:
                return namespace[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A parameter's dtype facts come with it, from tirxc's launch description: "typestr" (the kind and
# size an array's or a scalar's __cuda_array_interface__ typestr has), "scalar" (the NumPy scalar
# type a scalar argument becomes; None where NumPy has none and the bits travel as the unsigned
# integer of the typestr), "itemsize", and "refused" (array dtypes that name the format but store
# it otherwise, with why).


def _scalar_dtype(param: dict):
    """The NumPy dtype a scalar parameter is passed as."""
    import numpy
    return numpy.dtype(param["scalar"] or param["typestr"])


def _refused_dtype(param: dict, value) -> str | None:
    """Why an array's own dtype is refused for this parameter (a format packing several elements
    into a byte), or None. Read off `value.dtype` before its __cuda_array_interface__, which a
    library may not offer for such a dtype."""
    refused = param.get("refused")
    if not refused:
        return None
    dtype = getattr(value, "dtype", None)
    name = str(dtype).rsplit(".", 1)[-1] if dtype is not None else ""
    return refused.get(name) and f"{name}: {refused[name]}"


def _whole(value) -> int:
    """An int, or a NumPy integer (anything with __index__); TypeError for anything else
    (a float, which int() would truncate)."""
    try:
        return value.__index__()
    except AttributeError:
        raise TypeError(f"{value!r} is not an integer") from None


class _Kernel:
    """One kernel of the module: validates arguments, computes the launch, launches."""

    def __init__(self, name: str, spec: dict):
        self.__name__ = name
        self.name = name
        self.spec = spec
        self.params = {p["name"]: p for p in spec["params"] if p["kind"] != "workspace"}
        self.workspaces = [(slot, p) for slot, p in enumerate(spec["params"]) if p["kind"] == "workspace"]
        self._functions = {}
        self._workspace_cache = {}
        self._arity = len(spec["args"])
        # the slots of the buffer pairs that must not share memory (the kernel writes one of them)
        self._apart = frozenset(tuple(pair) for pair in spec["overlaps"])
        # the integer scalars whose values a plan's checks and launch configuration depend on
        self._keyed = tuple(spec["args"].index(name) for name in spec["keyed"])
        self._plans = {}
        self._last = None  # the plan of the latest launch: most calls repeat the one before
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<tirxc kernel {self.name}({', '.join(self.spec['args'])}) from {program.SOURCE_FILE}>"

    # -- arguments ---------------------------------------------------------------------------
    def _bind(self, args):
        names = self.spec["args"]
        if len(args) != len(names):
            raise refusal(self.name, "arguments.count", count=len(names), names=", ".join(names), got=len(args))
        values, arrays, scalars = {}, {}, {}
        for name, value in zip(names, args):
            param = self.params[name]
            if param["kind"] == "buffer":
                arrays[name] = self._array(param, value)
            elif param["kind"] == "tensormap":  # a map the caller encoded (`T.TensorMap()`)
                scalars[name] = tensor_map_argument(self, param, value)
                values[param["c_name"]] = None
            else:
                scalars[name] = self._scalar(param, value)
                integral = param["dtype"].startswith(("int", "uint", "bool"))
                values[param["c_name"]] = int(scalars[name]) if integral else None
        self._infer_extents(arrays, values)
        for name, (iface, shape) in arrays.items():
            arrays[name] = (iface, shape, self._check_array(self.params[name], iface, shape, values))
        return values, arrays, scalars

    def _array(self, param, value):
        refused = _refused_dtype(param, value)
        if refused is not None:
            raise refusal(self.name, "dtype.refused", arg=param["name"], dtype=param["dtype"], refused=refused)
        iface = getattr(value, "__cuda_array_interface__", None)
        if iface is None:
            raise TypeError(f"{self.name}(): argument '{param['name']}' must be a GPU array exposing "
                            f"__cuda_array_interface__ (CuPy, PyTorch, Numba), got {_describe(value)}")
        if iface.get("mask") is not None:
            raise TypeError(f"{self.name}(): argument '{param['name']}' is a masked array; the kernel reads and "
                            f"writes every element, so pass the data without a mask")
        if iface["data"][1] and not param["readonly"]:
            raise refusal(self.name, "readonly.written", arg=param["name"])
        try:
            shape = tuple(_whole(d) for d in iface["shape"])
            if any(d < 0 for d in shape):
                raise TypeError("negative")
        except TypeError:
            raise ValueError(f"{self.name}(): argument '{param['name']}' has the shape {iface['shape']!r}: an "
                             f"array's extents are non-negative integers") from None
        return iface, shape

    def _scalar(self, param, value):
        if param["kind"] == "tensormap":
            return tensor_map_argument(self, param, value)
        import numpy
        dtype = _scalar_dtype(param)
        if getattr(value, "__cuda_array_interface__", None) is not None or isinstance(value, (str, bytes)) \
                or getattr(value, "shape", ()) != ():
            raise refusal(self.name, "scalar.kind", arg=param["name"], dtype=param["dtype"], got=_describe(value))
        if dtype.kind in "iu":
            if param["scalar"]:
                wanted, room = f"an integer ({param['dtype']})", param["dtype"]
            else:
                room = f"an unsigned {dtype.itemsize * 8}-bit integer"
                wanted = f"the bits of a {param['dtype']} as {room}"
            if isinstance(value, float) or (hasattr(value, "dtype") and numpy.dtype(value.dtype).kind not in "iub"):
                raise refusal(self.name, "scalar.integer", arg=param["name"], wanted=wanted, value=value)
            info = numpy.iinfo(dtype)
            if not info.min <= int(value) <= info.max:
                raise refusal(self.name, "scalar.range", arg=param["name"], value=int(value), room=room)
            return dtype.type(int(value))
        if dtype.kind == "b":
            return dtype.type(bool(value))
        return dtype.type(value)

    def _infer_extents(self, arrays, values):
        for name, (iface, shape) in arrays.items():
            param = self.params[name]
            if len(shape) != len(param["shape"]):
                raise refusal(self.name, "shape.rank", arg=name, rank=len(param["shape"]),
                              declared=self._shape_text(param), shape=shape)
            for dim, expected in zip(shape, param["shape"]):
                if isinstance(expected, str):
                    known = values.get(expected)
                    if known is None:
                        if dim > program.INDEX_LIMIT:
                            raise refusal(self.name, "extent.limit", arg=name, shape=shape, extent=expected,
                                          limit=program.INDEX_LIMIT)
                        values[expected] = dim
                    elif known != dim:
                        raise refusal(self.name, "extent.agree", extent=expected, known=known, arg=name, shape=shape)

    @staticmethod
    def _shape_text(param) -> str:
        dims = [d if not callable(d) else "expr" for d in param["shape"]]
        return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"

    @staticmethod
    def _eval(entry, values):
        if isinstance(entry, int):
            return entry
        if isinstance(entry, str):
            return values[entry]
        return entry(values)

    def _host(self, entries, values, what: str) -> tuple:
        """The values of host expressions (ints, extents' names, the program's lambdas), computed
        as the kernel's C would; a ValueError naming `what` where C leaves them undefined."""
        try:
            return tuple(self._eval(entry, values) for entry in entries)
        except ArithmeticError as err:  # arith.py's HostArithmeticError, which C leaves undefined
            raise refusal(self.name, "host_value.computable", what=what, reason=err) from None

    def _check_array(self, param, iface, shape, values):
        """Check one array against its parameter. Return where its elements lie around its data
        pointer: (low, high, dense, shape, byte strides, itemsize), its bytes from pointer + low
        to pointer + high, all of them an element's if dense; None when it has no element."""
        name = param["name"]
        expected_shape = self._host(param["shape"], values, f"the shape of argument '{name}'")
        if any(d < 0 for d in expected_shape):
            raise refusal(self.name, "shape.negative", arg=name, expected=expected_shape)
        if shape != expected_shape:
            raise refusal(self.name, "shape.mismatch", arg=name, expected=expected_shape, shape=shape)
        kind = param["typestr"]
        typestr = iface["typestr"]
        if kind is None or typestr[1:] != kind or typestr[0] == ">":
            raise refusal(self.name, "dtype.typestr", arg=name, dtype=param["dtype"], typestr=kind, got=typestr)
        itemsize = param["itemsize"]
        strides = param["strides"]
        if strides == "unsupported":
            raise refusal(self.name, "strides.unsupported", arg=name)
        if strides is None:
            expected = self._c_strides(shape, itemsize)
        else:
            expected = tuple(s * itemsize for s in self._host(strides, values, f"the strides of argument '{name}'"))
        actual = iface.get("strides")
        if actual is not None:
            try:
                actual = tuple(_whole(s) for s in actual)
            except TypeError:
                raise TypeError(f"{self.name}(): argument '{name}' has the strides {actual!r}: byte strides are "
                                f"integers") from None
            if len(actual) != len(shape):
                raise refusal(self.name, "strides.count", arg=name, count=len(actual), strides=actual, rank=len(shape))
        if not all(shape):
            pass  # no element to address: any strides will do (NumPy and CuPy call it contiguous)
        elif actual is not None:
            mismatch = [i for i, (a, e) in enumerate(zip(actual, expected)) if shape[i] > 1 and a != e]
            if mismatch:
                layout = "contiguous (C order)" if strides is None else "the strides its layout implies"
                raise refusal(self.name, "strides.mismatch", arg=name, layout=layout, expected=expected,
                              strides=tuple(actual))
        elif strides is not None and any(s != e for s, e, d in zip(self._c_strides(shape, itemsize), expected, shape)
                                         if d > 1):
            raise refusal(self.name, "strides.contiguous", arg=name, expected=expected)
        if all(shape):  # the kernel indexes with C ints: no element past 2^31 - 1 (docs/reliability.md)
            last = param["offset"]
            for dim, stride in zip(shape, expected):
                last += (dim - 1) * (stride // itemsize)
            limit = program.INDEX_LIMIT
            if last > limit or any(dim > limit for dim in shape):
                raise refusal(self.name, "index_limit.reach", arg=name, shape=shape, last=last, limit=limit)
        pointer = self._pointer(name, iface)
        if not all(shape):
            return None
        if not pointer:
            raise refusal(self.name, "null_pointer.elements", arg=name)
        if (pointer - param["offset"] * itemsize) % param["align"]:
            raise refusal(self.name, "alignment.pointer", arg=name, align=param["align"], pointer=pointer)
        low = sum((dim - 1) * stride for dim, stride in zip(shape, expected) if stride < 0)
        high = sum((dim - 1) * stride for dim, stride in zip(shape, expected) if stride > 0) + itemsize
        count = 1
        for dim in shape:
            count *= dim
        return low, high, high - low == count * itemsize, shape, expected, itemsize

    def _pointer(self, name: str, iface) -> int:
        """An array's data pointer: an integer address."""
        pointer = iface["data"][0]
        try:
            pointer = _whole(pointer)
        except TypeError:
            pointer = -1
        if not 0 <= pointer < 1 << 64:
            raise ValueError(f"{self.name}(): argument '{name}' has the data pointer {iface['data'][0]!r}, which is "
                             f"not an address")
        return pointer

    @staticmethod
    def _c_strides(shape, itemsize):
        out, running = [], itemsize
        for dim in reversed(shape):
            out.append(running)
            running *= dim
        return tuple(reversed(out))

    # -- launch ----------------------------------------------------------------------------
    def launch_config(self, *args):
        """(grid, block, dynamic shared bytes) for these arguments, without launching. The
        arguments are checked as a call checks them (tensor maps and overlap included), but for
        what only the launch itself asks of the device: its architecture and shared memory, and
        that every array is on the current device."""
        values, arrays, _ = self._bind(args)
        self._workspace_sizes(values)
        config = self._config(values)
        pointers, extents = {}, {}
        for slot, param in enumerate(self.spec["params"]):
            if param["kind"] == "buffer":
                iface, _, extents[slot] = arrays[param["name"]]
                pointers[slot] = self._pointer(param["name"], iface)
        for param in self.spec["params"]:
            if param["kind"] == "tensormap" and "buffer" in param:
                buffer_slot, _ = self._tensor_map(param, values, arrays)
                mapped = self.spec["params"][buffer_slot]
                check_address(self, param, pointers[buffer_slot] - mapped["offset"] * mapped["itemsize"])
        self._refuse_overlap(self._pairs(extents), extents, pointers)
        return config

    def workspace_bytes(self, *args):
        """{workspace name: bytes} the launcher allocates for these arguments."""
        values, _, _ = self._bind(args)
        return {param["name"]: size for _, param, size in self._workspace_sizes(values)}

    def _workspace_sizes(self, values):
        """(slot, param, bytes) of each workspace, from the extents and scalars in `values`."""
        sizes = []
        for slot, param in self.workspaces:
            shape = self._host(param["shape"], values, f"the shape of workspace '{param['name']}'")
            count = 1
            for dim in shape:
                count *= dim
            if any(dim < 0 for dim in shape):
                raise refusal(self.name, "workspace.negative", arg=param["name"], shape=shape)
            if count - 1 > program.INDEX_LIMIT:
                raise refusal(self.name, "workspace.count", arg=param["name"], shape=shape, count=count,
                              most=program.INDEX_LIMIT + 1)
            sizes.append((slot, param, count * param["itemsize"]))
        return sizes

    def _config(self, values):
        grid = tuple(int(g) for g in self._host((self.spec["grid"],), values, "the grid")[0])
        limits = program.GRID_LIMITS
        if not all(0 <= g <= limit for g, limit in zip(grid, limits)):
            raise refusal(self.name, "grid.limits", grid=grid, limits=limits)
        cluster = self.spec.get("cluster")
        if cluster and any(g % c for g, c in zip(grid, cluster)):
            raise refusal(self.name, "cluster.divides", grid=grid, cluster=tuple(cluster))
        return grid, tuple(self.spec["block"]), self.spec["dynamic_shared"]

    def __call__(self, *args, stream=None):
        """Check the arguments, then launch. A call whose arrays have the shapes, dtypes and
        strides of an earlier call reuses that call's checks and launch configuration;
        pointers (alignment, NULL, device, overlap) and scalar values are checked on every call."""
        # The common case in a few tests per array: one device, arrays like the latest call's,
        # each a C-contiguous CuPy array with elements that starts where its buffer does (the
        # plan's `fast`), at the pointer the plan last checked for it (`checked`: aligned, not
        # NULL, apart from the other arrays) or at one that passes those checks. Anything else,
        # or a failed test, takes the full path, which words the errors.
        plan = self._last
        values = None
        if _ONLY_DEVICE[0] == 0 and plan is not None and plan.fast is not None and len(args) == self._arity \
                and (not plan.keyed or self._keyed_values(args) == plan.keyed):
            values = list(plan.constants)
            checked = plan.checked
            fresh = False
            cupy_array = _CUPY_ARRAY[0]
            for index, slot, shape, dtype, align in plan.fast:
                value = args[index]
                # (`is not dtype` may miss an equal dtype that is another object: the full path
                # then decides)
                if type(value) is not cupy_array or not value._c_contiguous or value.shape != shape \
                        or value.dtype is not dtype:
                    values = None
                    break
                pointer = value.data.ptr
                if pointer != checked[slot]:  # else aligned, not NULL and apart from the others
                    if pointer % align or not pointer:
                        values = None
                        break
                    fresh = True
                values[slot] = value
            else:
                if fresh:
                    pointers = list(plan.constants)
                    for _, slot, _, _, _ in plan.fast:
                        pointers[slot] = values[slot].data.ptr
                    self._check_overlap(plan, pointers)
        if values is None:
            plan, values, device = self._checked_buffers(args)
        else:
            device = 0
        for index, slot, param, exact, convertible, low, high, latest in plan.scalars:
            value = args[index]
            kind = type(value)
            if kind is exact:
                values[slot] = value
            elif kind is convertible and low <= value <= high:
                # making a NumPy scalar costs about a quarter of a microsecond, and loops mostly
                # pass the same (immutable) object again
                last, converted = latest[0]
                if value is not last:
                    converted = exact(value)
                    latest[0] = (value, converted)  # one store: a racing thread reads a whole pair
                values[slot] = converted
            else:
                values[slot] = self._scalar(param, value)
        if plan.empty:
            return  # an empty problem: nothing to launch
        function = self._functions.get(device) or self._function(device)
        if plan.tensor_maps:
            attach_tensor_maps(self, plan, values)
        if stream is None:
            if plan.workspaces:
                self._attach_workspaces(plan, values, device)
            function(plan.grid, plan.block, tuple(values), shared_mem=plan.shared)
        else:
            with _as_stream(stream):
                if plan.workspaces:
                    self._attach_workspaces(plan, values, device)
                function(plan.grid, plan.block, tuple(values), shared_mem=plan.shared)

    def _checked_buffers(self, args):
        """The plan for `args` and the launch's values with every array in its slot, each
        array checked against the plan (device and alignment too), and the current device."""
        device = _ONLY_DEVICE[0]
        several = device is None
        if several:
            device = (_CUDA_RUNTIME[0] or _cuda_runtime()).getDevice()
        # most calls repeat the latest one: try its plan, comparing each array's signature with
        # the plan's while collecting the pointers, rather than hashing a key for every call
        plan = self._last
        looked_up = False
        if plan is None or len(args) != self._arity or plan.keyed and self._keyed_values(args) != plan.keyed:
            plan, looked_up = self._lookup(args), True
        cupy_array = _CUPY_ARRAY[0]
        while True:  # once, or twice when the latest plan is not these arguments'
            values = list(plan.constants)
            pointers = list(plan.constants)
            for index, slot, signature, offset_bytes, align, nonempty, param in plan.buffers:
                value = args[index]
                if type(value) is cupy_array:
                    # as _signature has it; reading `strides` costs as much as the rest of this
                    if value._c_contiguous:
                        if (value.shape, value.dtype) != signature:
                            break
                    elif (value.shape, value.strides, value.dtype) != signature:
                        break
                    memory = value.data
                    pointer = memory.ptr
                    owner = memory.device_id if several else device
                    passed = value if not offset_bytes else None
                else:
                    iface = getattr(value, "__cuda_array_interface__", None)
                    if iface is None or _interface_signature(value, iface) != signature:
                        break
                    pointer = self._pointer(param["name"], iface)
                    owner = (_CUDA_RUNTIME[0] or _cuda_runtime()).pointerGetAttributes(pointer).device if pointer \
                        else device
                    passed = None
                if not pointer and nonempty:
                    raise refusal(self.name, "null_pointer.elements", arg=param["name"])
                if owner != device and nonempty:
                    raise ValueError(f"{self.name}(): argument '{param['name']}' is on device {owner}, but the "
                                     f"current device is {device}")
                address = pointer - offset_bytes
                if address % align and nonempty:
                    raise refusal(self.name, "alignment.pointer", arg=param["name"], align=align, pointer=pointer)
                if passed is None:
                    import numpy
                    passed = numpy.uint64(address)
                values[slot] = passed
                pointers[slot] = pointer
            else:
                if pointers != plan.checked:
                    self._check_overlap(plan, pointers)
                break
            if looked_up:  # the plan made for these very arrays: one changed while it was read
                raise ValueError(f"{self.name}(): an argument's shape, strides or dtype changed while the "
                                 f"arguments were checked")
            plan, looked_up = self._lookup(args), True
        return plan, values, device

    def _attach_workspaces(self, plan, values, device):
        """Put each workspace among the launch's values: this kernel's allocation for the device,
        the current stream and the size, zero-filled on that stream, so the launch starts from
        zeros and launches on other streams (which have their own) cannot touch it."""
        import cupy
        import numpy
        stream = cupy.cuda.get_current_stream().ptr
        cache = self._workspace_cache
        for slot, c_name, size in plan.workspaces:
            if not size:
                values[slot] = numpy.uint64(0)  # an empty workspace: nothing to point at
                continue
            key = (c_name, device, stream, size)
            memory = cache.get(key)
            if memory is None:
                # dropping an older allocation is safe: CuPy's pool reuses memory in the order of
                # the stream it was allocated on, after the launches already queued there
                memory = cupy.empty(size, dtype=cupy.uint8)
                with self._lock:
                    while len(cache) >= WORKSPACE_CACHE_SIZE:
                        del cache[next(iter(cache))]
                    cache[key] = memory
            cupy.cuda.runtime.memsetAsync(memory.data.ptr, 0, size, stream)
            values[slot] = memory

    def _plan(self, args, key):
        """Validate every argument in full and record, under `key` (`_key(args)`), what later
        calls with the same key can reuse."""
        import numpy
        values, arrays, scalars = self._bind(args)
        grid, block, shared = self._config(values)
        position = {name: i for i, name in enumerate(self.spec["args"])}
        plan = _Plan()
        plan.grid, plan.block, plan.shared = grid, block, shared
        plan.empty = 0 in grid
        signature, plan.keyed = key
        plan.buffers, plan.scalars, plan.tensor_maps = [], [], []
        plan.workspaces = [(slot, param["c_name"], size) for slot, param, size in self._workspace_sizes(values)]
        constants = []
        for slot, param in enumerate(self.spec["params"]):
            if param["kind"] == "extent":
                constants.append(numpy.int32(values[param["name"]]))
                continue
            if param["kind"] == "workspace":
                constants.append(None)
                continue
            if param["kind"] == "tensormap" and "buffer" in param:  # encoded at each launch for its array's address
                constants.append(None)
                buffer_slot, fields = self._tensor_map(param, values, arrays)
                plan.tensor_maps.append((slot, buffer_slot, param, fields, {}))
                continue
            constants.append(None)
            index = position[param["name"]]
            if param["kind"] == "buffer":
                # what the per-call checks need, looked up once: the parameter's slot, the array's
                # signature, how far the buffer's start lies before the array's (elem_offset),
                # alignment, emptiness
                plan.buffers.append((index, slot, signature[index], param["offset"] * param["itemsize"],
                                     param["align"], all(arrays[param["name"]][1]), param))
            elif param["kind"] == "tensormap":  # the caller's map: checked at every call by _scalar
                plan.scalars.append((index, slot, param, None, None, None, None, [(None, None)]))
            else:
                # the kernel's NumPy scalar type, passed as it is, and the Python type that converts
                # to it after a range check alone; anything else (NaN included) takes the full
                # check, _scalar, which words the errors but costs microseconds
                dtype = _scalar_dtype(param)
                exact = dtype.type
                convertible, low, high = None, None, None
                if dtype.kind == "b":
                    convertible, low, high = bool, False, True
                elif dtype.kind == "f":
                    convertible, low, high = float, -float("inf"), float("inf")
                else:
                    info = numpy.iinfo(dtype)
                    convertible, low, high = int, int(info.min), int(info.max)
                plan.scalars.append((index, slot, param, exact, convertible, low, high, [(None, None)]))
        plan.constants = tuple(constants)
        # the pairs of arrays that must not overlap, the kernel's buffer parameters being __restrict__:
        # both have elements and the kernel writes one; by slot, with where each one's bytes lie
        # around its pointer
        plan.extents = {slot: arrays[param["name"]][2] for _, slot, *_, param in plan.buffers}
        plan.pairs = self._pairs(plan.extents)
        plan.checked = [None] * len(constants)  # by slot: the latest pointers found not to overlap
        # what __call__'s common case checks, when every array of this signature is a C-contiguous
        # CuPy array (signature (shape, dtype)) with elements that starts where its buffer does
        plan.fast = None
        if all(len(signature) == 2 and not offset_bytes and nonempty
               for _, _, signature, offset_bytes, _, nonempty, _ in plan.buffers):
            plan.fast = tuple((index, slot, *signature, align)
                              for index, slot, signature, _, align, _, _ in plan.buffers)
        if len(self._plans) >= 64:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def _tensor_map(self, param, values, arrays):
        """(the slot of the array a map is encoded over, the map's fields), checked: the fields as
        the driver takes them, the map's reach within the array."""
        buffer_slot, mapped = next((i, p) for i, p in enumerate(self.spec["params"]) if p["name"] == param["buffer"])
        fields = tensor_map_fields(self, param, values)
        check_reach(self, param, fields, arrays[param["buffer"]][2], mapped["offset"] * mapped["itemsize"])
        return buffer_slot, fields

    def _check_overlap(self, plan, pointers):
        """Refuse arrays that share memory when the kernel writes one of them: its parameters are
        __restrict__, so nvcc may read one through the non-coherent cache while the other is
        written. `pointers` holds each array's data pointer in its slot, each already checked for
        alignment. Pairs whose bytes lie apart are told by two comparisons; the pointers are then
        remembered (`checked`), so that a call passing the same arrays again pays one comparison
        per array for all three checks."""
        self._refuse_overlap(plan.pairs, plan.extents, pointers)
        plan.checked = pointers

    def _pairs(self, extents):
        """The pairs of arrays that must not share memory (both have elements, the kernel writes
        one), by slot, with where each one's bytes lie around its pointer; `extents` by slot."""
        return tuple((i, j, *extents[i][:2], *extents[j][:2]) for j in extents for i in extents
                     if i < j and extents[i] and extents[j] and (i, j) in self._apart)

    def _refuse_overlap(self, pairs, extents, pointers):
        for i, j, low_i, high_i, low_j, high_j in pairs:
            a, b = pointers[i], pointers[j]
            if a + low_i < b + high_j and b + low_j < a + high_i and _shares_memory(extents[i], a, extents[j], b):
                first, second = self.spec["params"][i], self.spec["params"][j]
                written = " and ".join(repr(p["name"]) for p in (first, second) if not p["readonly"])
                raise refusal(self.name, "overlap.shared", first=first["name"], second=second["name"], written=written)

    def _lookup(self, args):
        """The plan for `args`, made (validating every argument) if there is none yet; it
        becomes the latest."""
        key = self._key(args)
        plan = self._plans.get(key) or self._plan(args, key)
        self._last = plan
        return plan

    def _key(self, args):
        """A plan's key: the arguments' signature, and the values of the keyed scalars (by repr
        unless a plain int, so that any value is a key)."""
        if len(args) != self._arity:
            return _signature(args), ()
        return _signature(args), self._keyed_values(args)

    def _keyed_values(self, args):
        return tuple(v if type(v) is int else repr(v) for v in (args[i] for i in self._keyed))

    def _function(self, device: int):
        function = self._functions.get(device)
        if function is None:
            with self._lock:
                function = self._functions.get(device)
                if function is None:
                    function = nvrtc.compiled_module(device).get_function(self.spec["symbol"])
                    if self.spec["static_shared"] + self.spec["dynamic_shared"] > program.STATIC_SHARED_LIMIT:
                        function.max_dynamic_shared_size_bytes = self.spec["dynamic_shared"]
                    if self.spec.get("cooperative"):
                        function = CooperativeFunction(self.name, function, device, self.spec)
                    self._functions[device] = function
        return function


class _Plan:
    """What one argument signature of a kernel (with the values of its keyed scalars) needs
    at launch: grid, block, shared bytes, symbolic extents, and where each argument goes
    among the kernel's parameters."""
    __slots__ = ("grid", "block", "shared", "empty", "keyed", "constants", "buffers", "scalars",
                 "workspaces", "fast", "extents", "pairs", "checked", "tensor_maps")


_CUPY_ARRAY = [None]  # cupy.ndarray once CuPy is imported: its arrays take a faster path
# cupy.cuda.runtime, looked up once: an `import` statement and an attribute chain at
# every launch cost a measurable part of the launcher's time
_CUDA_RUNTIME = [None]
# 0 when the process sees a single device, so that a launch need not ask which one is current
# (a few tenths of a microsecond a launch); the count is fixed once CUDA is initialised
_ONLY_DEVICE = [None]


def require_gpu() -> None:
    """Raise NoGPUError (with why) unless CuPy is installed and CUDA sees a GPU: what `tirxc run`
    asks before it makes inputs; a launch asks the same at its first call."""
    if _CUDA_RUNTIME[0] is None:
        _cuda_runtime()


def _cuda_runtime():
    """CuPy's CUDA runtime, at the first launch; NoGPUError, worded here, when there is no GPU."""
    try:
        import cupy
    except ImportError:
        raise program.no_gpu("CuPy is not installed (from a tirxc checkout: pip install '.[cuda]'; or a "
                             "cupy-cuda12x / cupy-cuda13x wheel that matches the CUDA driver)") from None
    runtime = cupy.cuda.runtime
    try:
        count = runtime.getDeviceCount()
    except Exception as err:  # CuPy's own error types (CUDARuntimeError) when the driver is missing
        raise program.no_gpu(program.cuda_reason(err)) from None
    if count == 0:
        raise program.no_gpu("CUDA sees no GPU")
    if count == 1:
        _ONLY_DEVICE[0] = 0
    if hasattr(cupy.ndarray, "_c_contiguous"):  # else CuPy's arrays take the path of other libraries'
        _CUPY_ARRAY[0] = cupy.ndarray
    _CUDA_RUNTIME[0] = runtime
    return runtime


class _Bytes:
    """The byte layout of an array at a pointer, as a NumPy array interface (never read)."""

    def __init__(self, extent, pointer):
        _, _, _, shape, strides, itemsize = extent
        self.__array_interface__ = {"data": (pointer, True), "shape": shape, "strides": strides,
                                    "typestr": f"|V{itemsize}", "version": 3}


def _shares_memory(first, a, second, b) -> bool:
    """Whether two arrays (extents of _check_array) at pointers a and b, whose bytes lie within
    each other's range, have a byte in common: certainly when both are dense, else as NumPy's
    exact solver says (interleaved strided views do not); a problem too hard for it counts as
    shared."""
    if first[2] and second[2]:
        return True
    import numpy
    try:
        return bool(numpy.shares_memory(numpy.asarray(_Bytes(first, a)), numpy.asarray(_Bytes(second, b)),
                                        max_work=1 << 20))
    except getattr(numpy, "exceptions", numpy).TooHardError:
        return True


def _signature(args):
    """What validation depends on: each CuPy array's shape, dtype and, unless it is
    C-contiguous (its strides then follow from its shape, where they matter), strides (CuPy's
    arrays are always writable and never masked); each other array's signature; each
    scalar's type. The kinds of entries never compare equal: 2-, 3- and 6-tuples and types."""
    out = []
    cupy_array = _CUPY_ARRAY[0]
    for value in args:
        if type(value) is cupy_array:
            out.append((value.shape, value.dtype) if value._c_contiguous else
                       (value.shape, value.strides, value.dtype))
            continue
        try:
            iface = getattr(value, "__cuda_array_interface__", None)
        except Exception:  # a dtype its library offers no typestr for: the full check words the refusal
            iface = None
        out.append(type(value) if iface is None else _interface_signature(value, iface))
    return tuple(out)


def _interface_signature(value, iface):
    """The signature of an array other than CuPy's: its type, shape, strides and typestr,
    read-only flag and whether it has a mask."""
    strides = iface.get("strides")
    return (type(value), tuple(iface["shape"]), None if strides is None else tuple(strides), iface["typestr"],
            bool(iface["data"][1]), iface.get("mask") is not None)


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _as_stream(stream):
    """A CuPy stream context for `stream`: None, a CuPy stream, or a PyTorch stream."""
    if stream is None:
        return _NullContext()
    import cupy
    if isinstance(stream, cupy.cuda.Stream):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise TypeError(f"stream must be a CuPy or PyTorch stream, got {_describe(stream)}")
    return cupy.cuda.ExternalStream(handle)
