"""The arguments of one simulated launch, by parameter name: the ones given (an `.npz` of
`tirxc sim --inputs`, or a dict), the others made as `tirxc run` makes them (docs/sim.md,
"The interfaces"): buffers from NumPy's default_rng(seed) -- floats uniform in [-1, 1),
integers uniform in [0, 100), bools at random --, symbolic extents that no given array fixes
take `size`, integer scalars 1 and float scalars 1.5 unless `scalars` names them."""
from __future__ import annotations


def arguments(kernel, given: dict, size: int, seed: int, scalars: dict | None = None) -> list:
    """The arguments of `kernel` (a SimKernel) in declaration order."""
    unknown = sorted(set(given) - set(kernel.args))
    if unknown:
        raise ValueError(f"{kernel.name}: the inputs name no parameter {', '.join(map(repr, unknown))} "
                         f"(parameters: {', '.join(kernel.args)})")
    return launch_arguments(kernel.kernel, given, size, seed, scalars)


def launch_arguments(launcher, given: dict, size: int, seed: int, scalars: dict | None = None, xp=None) -> list:
    """The arguments of one kernel of a generated launcher (`launcher`), in declaration order:
    `tirxc sim`'s (NumPy arrays) and, with `xp=cupy`, `tirxc run`'s (device arrays, made from
    the same host values)."""
    import numpy

    xp = xp or numpy
    scalars = scalars or {}
    values = {}  # extents and integer scalars, by C name, as the launcher's host expressions read them
    names = launcher.spec["args"]
    for name in names:
        param = launcher.params[name]
        if param["kind"] == "buffer" and name in given:
            for dim, extent in zip(getattr(given[name], "shape", ()), param["shape"]):
                if isinstance(extent, str):
                    values.setdefault(extent, int(dim))
    for param in launcher.spec["params"]:
        for extent in param.get("shape", ()):
            if isinstance(extent, str):
                values.setdefault(extent, size)
    rng = numpy.random.default_rng(seed)
    out = []
    for name in names:
        param = launcher.params[name]
        if param["kind"] != "buffer":
            if name in given:
                value = given[name]
            else:
                default = 1 if param["dtype"].startswith(("int", "uint")) else 1.5
                value = type(default)(scalars.get(name, default))
            out.append(value)
            if param["dtype"].startswith(("int", "uint", "bool")):
                values[param["c_name"]] = int(value[()] if hasattr(value, "shape") else value)
            continue
        if name in given:
            out.append(given[name])
            continue
        shape = launcher._host(param["shape"], values, f"the shape of argument '{name}'")
        dtype = numpy.dtype(param["typestr"])
        if dtype.kind == "f":
            host = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
        elif dtype.kind == "b":
            host = rng.integers(0, 2, size=shape).astype(dtype)
        else:
            host = rng.integers(0, 100, size=shape).astype(dtype)
        out.append(_with_layout(host, param, launcher, values, xp))
    return out


def _with_layout(host, param, launcher, values, xp):
    """`host` as an array of `xp` with the strides the parameter's layout asks for, in a backing
    allocation that starts `offset` elements before it (where the kernel's pointer points)."""
    strides, offset = param["strides"], param["offset"]
    if (strides is None and not offset) or not host.size:
        return xp.asarray(host)
    if strides is None:
        elements, span = None, host.size
    else:
        elements = launcher._host(strides, values, f"the strides of argument '{param['name']}'")
        span = 1 + sum((d - 1) * s for d, s in zip(host.shape, elements))
    backing = xp.zeros(offset + span, dtype=host.dtype)[offset:]
    if elements is None:
        view = backing.reshape(host.shape)
    else:
        view = xp.lib.stride_tricks.as_strided(backing, host.shape, tuple(s * host.itemsize for s in elements))
    view[...] = xp.asarray(host)
    return view
