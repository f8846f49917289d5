"""TMA tensor maps for the launcher (docs/design.md, decision 24): each tensor-map parameter of a
kernel is encoded by the CUDA driver's cuTensorMapEncodeTiled, reached through ctypes (the
driver library every CUDA process has loaded; CuPy exposes no binding of it), and passed by
value as the 128 bytes of a NumPy void scalar, which CuPy copies into the launch's parameters.

A module of the runtime that tirxc embeds in each launcher (launch.py's docstring). It imports
nothing of tirxc: the limits and enumerations come with the launcher's program
(program.TENSOR_MAP_LIMITS, from transpiler/target/tma.py).
"""
from . import program
from .program import describe as _describe, refusal

_ENCODER = [None]  # the driver's cuTensorMapEncodeTiled, once looked up
_NUMPY_UINT64 = [None]
_ENCODED_CACHE_SIZE = 64  # encoded maps kept per plan and map, by data pointer


def tensor_map_fields(kernel, param, values) -> tuple:
    """The fields of one map for these arguments (every one but the address), checked as the
    driver would check them, with errors that say which map and which field."""
    name = kernel.name
    dims = kernel._host(param["dims"], values, f"the extents of tensor map '{param['name']}'")
    strides = kernel._host(param["strides"], values, f"the strides of tensor map '{param['name']}'")
    limits = program.TENSOR_MAP_LIMITS
    for i, dim in enumerate(dims):
        if not 1 <= dim <= limits["max_dim"]:
            raise refusal(name, "tensor_map.extent", map=param["name"], extent=dim, dim=i)
    for i, stride in enumerate(strides):
        if stride % limits["align"] or not 0 <= stride < limits["max_stride"]:
            raise refusal(name, "tensor_map.stride", map=param["name"], stride=stride, dim=i + 1,
                          align=limits["align"])
    return (param["data_type"], len(dims), dims, strides, tuple(param["box"]), tuple(param["element_strides"]),
            param["interleave"], param["swizzle"], param["l2_promotion"], param["oob_fill"])


def check_reach(kernel, param, fields, held, offset_bytes: int) -> None:
    """Refuse a map that reaches bytes outside the array it is encoded over: the map starts at the
    buffer's start (`offset_bytes` before the array's data pointer) and reaches its innermost
    extent's elements plus each outer extent less one times its byte stride; `held` is where the
    array's bytes lie around its data pointer (_check_array's (low, high, ...); None when it has no
    element)."""
    dims, strides = fields[2], fields[3]
    reach = -(-dims[0] * param["element_bits"] // 8)
    for dim, stride in zip(dims[1:], strides):
        reach += (dim - 1) * stride
    holds = 0
    if held is not None and held[0] <= -offset_bytes < held[1]:
        holds = held[1] + offset_bytes
    if reach > holds:
        raise refusal(kernel.name, "tensor_map_reach.array", map=param["name"], arg=param["buffer"], reach=reach,
                      holds=holds, extents=tuple(dims), strides=tuple(strides))


def check_address(kernel, param, address: int) -> None:
    """Refuse a global address TMA cannot take for the map (it must be 16-byte aligned)."""
    if address % program.TENSOR_MAP_LIMITS["align"]:
        raise refusal(kernel.name, "tensor_map.align", map=param["name"], arg=param["buffer"], pointer=address,
                      align=program.TENSOR_MAP_LIMITS["align"])


def encode_tensor_map(kernel, param, fields, address: int):
    """The 128 bytes of the driver's CUtensorMap for these fields at this global address, as a
    NumPy void scalar (a launch argument CuPy passes by value)."""
    import ctypes
    import numpy
    check_address(kernel, param, address)
    encode = _ENCODER[0] or _encoder()
    data_type, rank, dims, strides, box, element_strides, interleave, swizzle, l2, oob = fields
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    storage = (ctypes.c_uint8 * (2 * program.TENSOR_MAP_LIMITS["bytes"]))()
    base = (ctypes.addressof(storage) + 63) // 64 * 64  # the driver wants the map 64-byte aligned
    result = encode(ctypes.c_void_p(base), data_type, rank, ctypes.c_void_p(address), (u64 * rank)(*dims),
                    (u64 * max(rank - 1, 1))(*(strides or (0,))), (u32 * rank)(*box), (u32 * rank)(*element_strides),
                    interleave, swizzle, l2, oob)
    if result != 0:
        raise ValueError(f"{kernel.name}(): the CUDA driver refused tensor map '{param['name']}' (CUresult "
                         f"{result}) with extents {dims}, byte strides {strides}, box {box}, element strides "
                         f"{element_strides}, interleave {interleave}, swizzle {swizzle}")
    raw = ctypes.string_at(base, program.TENSOR_MAP_LIMITS["bytes"])
    return numpy.frombuffer(raw, dtype=numpy.dtype((numpy.void, program.TENSOR_MAP_LIMITS["bytes"])))[0]


def _encoder():
    import ctypes
    try:
        driver = ctypes.CDLL("libcuda.so.1") if not hasattr(ctypes, "WinDLL") else ctypes.WinDLL("nvcuda.dll")
        function = driver.cuTensorMapEncodeTiled
    except (OSError, AttributeError) as err:
        raise RuntimeError(f"the CUDA driver's cuTensorMapEncodeTiled is not available ({err}): TMA tensor maps "
                           f"need a CUDA 12 driver or newer") from None
    u64p, u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p, u32p, u32p,
                         ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    _ENCODER[0] = function
    return function


def attach_tensor_maps(kernel, plan, values) -> None:
    """Put each tensor map among the launch's values, encoded for the address of the array it
    maps (values[its slot] is the CuPy array or the address as numpy.uint64); a map already
    encoded for that address is reused."""
    if _NUMPY_UINT64[0] is None:
        import numpy
        _NUMPY_UINT64[0] = numpy.uint64
    for slot, buffer_slot, param, fields, cache in plan.tensor_maps:
        array = values[buffer_slot]  # the kernel's pointer: the buffer's start, as the map's
        address = array.data.ptr if type(array) is not _NUMPY_UINT64[0] else int(array)
        encoded = cache.get(address)
        if encoded is None:
            if len(cache) >= _ENCODED_CACHE_SIZE:
                cache.clear()
            encoded = cache[address] = encode_tensor_map(kernel, param, fields, address)
        values[slot] = encoded


def tensor_map_argument(kernel, param, value):
    """A tensor map the caller encoded (a `T.TensorMap()` parameter): its 128 bytes, from a NumPy
    void scalar or any bytes-like object of that size (what `tensor_map` below returns)."""
    import numpy
    size = program.TENSOR_MAP_LIMITS["bytes"]
    if isinstance(value, numpy.void) and value.nbytes == size:
        return value
    try:
        raw = bytes(memoryview(value))
    except TypeError:
        raw = None
    if raw is None or len(raw) != size:
        raise TypeError(f"{kernel.name}(): argument '{param['name']}' must be an encoded tensor map ({size} bytes, "
                        f"as `tensor_map(...)` of this module returns), got {_describe(value)}")
    return numpy.frombuffer(raw, dtype=numpy.dtype((numpy.void, size)))[0]


def tensor_map(array, box, *, dtype=None, element_strides=None, interleave=0, swizzle=0, l2_promotion=0,
               oob_fill=0):
    """Encode a TMA tensor map over a GPU array for a kernel's `T.TensorMap()` parameter: `box` and
    `element_strides` in the array's dimension order (outermost first, as its shape); `dtype` names
    the element type where the array's own cannot ("bfloat16" for a uint16 array)."""
    iface = getattr(array, "__cuda_array_interface__", None)
    if iface is None:
        raise TypeError(f"tensor_map(): the array must expose __cuda_array_interface__, got {_describe(array)}")
    typestr = iface["typestr"][1:]
    # CUtensorMapDataType by the dtype the caller names, else by the typestr of the array interface
    limits = program.TENSOR_MAP_LIMITS
    data_type = limits["data_types"].get(dtype) if dtype is not None else \
        limits["typestr_data_types"].get(typestr)
    if data_type is None:
        raise ValueError(f"tensor_map(): no TMA data type for {dtype or iface['typestr']!r}")
    shape = tuple(iface["shape"])
    itemsize = int(typestr[1:])
    strides = iface.get("strides") or tuple(itemsize * _product(shape[i + 1:]) for i in range(len(shape)))
    if len(box) != len(shape):
        raise ValueError(f"tensor_map(): the box {tuple(box)} has {len(box)} dimensions, the array {len(shape)}")
    element_strides = tuple(element_strides or (1,) * len(shape))
    if strides[-1] != itemsize:
        raise ValueError("tensor_map(): the array's innermost dimension must be contiguous")

    param = {"name": "map", "buffer": "array", "data_type": data_type, "dims": shape[::-1],
             "strides": tuple(strides[:-1])[::-1], "box": tuple(box)[::-1], "element_strides": element_strides[::-1],
             "interleave": interleave, "swizzle": swizzle, "l2_promotion": l2_promotion, "oob_fill": oob_fill}
    for i, size in enumerate(param["box"]):
        if not 1 <= size <= program.TENSOR_MAP_LIMITS["max_box"]:
            raise ValueError(f"tensor_map(): a box is 1 to {program.TENSOR_MAP_LIMITS['max_box']} elements per dimension, "
                             f"not {size}")
    fields = (data_type, len(shape), param["dims"], param["strides"], param["box"], param["element_strides"],
              interleave, swizzle, l2_promotion, oob_fill)
    return encode_tensor_map(_TENSOR_MAP_CALLER, param, fields, iface["data"][0])


class _TensorMapCaller:
    """What encode_tensor_map's messages name when `tensor_map` calls it: `tensor_map(): ...`."""
    name = "tensor_map"


_TENSOR_MAP_CALLER = _TensorMapCaller()


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out
