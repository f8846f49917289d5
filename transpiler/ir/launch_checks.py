"""The checks a host makes before a launch, as data: a kind, a case, the parameter it is about,
its operands (the values it compares with, known before the launch) and its message.

A message is a `str.format` template. Its holes are filled by the host: the operands of the
check (`kernel`, `arg`, `align` ...) and the values only the launch knows (`shape`, `pointer`
...; a hole with the spec `#x` is an address). Every host words a refusal with the template of
its check, so that they all say the same thing: the CuPy launcher's runtime reads the templates
from its program (`MESSAGES`), the C++ entry points print them as printf formats. Each host
renders each kind in one place (its table of renderers); a kind that its interface makes
impossible (a wrong argument count in C++) is rendered as nothing, said there.

`error` says which exception a host with typed errors raises: "type" for an argument of the
wrong kind or type, "value" for everything else.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class CheckKind(enum.Enum):
    ARGUMENTS = "arguments"  # how many arguments a call passes
    SCALAR = "scalar"  # a scalar argument's type and range
    DTYPE = "dtype"  # an array's element type
    READONLY = "readonly"  # an array the kernel writes is writable
    SHAPE = "shape"  # an array's rank and extents
    EXTENT = "extent"  # a symbolic extent: in range, and the same in every array
    HOST_VALUE = "host_value"  # a shape, stride, grid or map field computable for these arguments
    STRIDES = "strides"  # an array's strides are the ones its layout implies
    INDEX_LIMIT = "index_limit"  # no element past the kernel's 32-bit index
    NULL_POINTER = "null_pointer"  # an array with elements has an address
    ALIGNMENT = "alignment"  # an array's address is as aligned as the kernel assumes
    OVERLAP = "overlap"  # __restrict__ arrays, one of them written, do not share memory
    GRID = "grid"  # the grid CUDA takes
    CLUSTER = "cluster"  # clusters divide the grid
    WORKSPACE = "workspace"  # a workspace's size
    TENSOR_MAP = "tensor_map"  # a tensor map the host encodes: its fields and its address
    TENSOR_MAP_REACH = "tensor_map_reach"  # a tensor map reaches no byte outside the array it is encoded over
    ARCHITECTURE = "architecture"  # the device runs the kernel's code
    SHARED_MEMORY = "shared_memory"  # the device allows the kernel's shared memory
    COOPERATIVE = "cooperative"  # a grid that synchronizes as a whole fits on the device at once


# "kind.case" -> (error, template)
MESSAGES: dict[str, tuple[str, str]] = {
    "arguments.count": ("type", "{kernel}() takes {count} arguments ({names}), got {got}"),
    "scalar.kind": ("type", "{kernel}(): argument '{arg}' must be a {dtype} scalar, got {got}"),
    "scalar.integer": ("type", "{kernel}(): argument '{arg}' must be {wanted}, got {value!r}"),
    "scalar.range": ("value", "{kernel}(): argument '{arg}' = {value} does not fit in {room}"),
    "dtype.refused": ("type", "{kernel}(): argument '{arg}' must hold {dtype} elements, got dtype {refused}"),
    "dtype.typestr": ("type", "{kernel}(): argument '{arg}' must have dtype {dtype} (typestr '<{typestr}'), got "
                              "typestr '{got}'"),
    "readonly.written": ("value", "{kernel}(): argument '{arg}' is read-only, but the kernel writes '{arg}': pass a "
                                  "writable array"),
    "shape.rank": ("value", "{kernel}(): argument '{arg}' must have {rank} dimensions {declared}, got shape {shape}"),
    "shape.negative": ("value", "{kernel}(): argument '{arg}' would have the shape {expected} for these arguments: "
                                "an extent is negative"),
    "shape.mismatch": ("value", "{kernel}(): argument '{arg}' must have shape {expected}, got {shape}"),
    "extent.limit": ("value", "{kernel}(): argument '{arg}' has shape {shape}, but the kernel indexes with 32-bit "
                              "ints: extent '{extent}' is at most {limit}"),
    "extent.agree": ("value", "{kernel}(): extent '{extent}' is {known} from an earlier argument but argument "
                              "'{arg}' has shape {shape}"),
    "extent.range": ("value", "{kernel}(): extent '{extent}' is {value}, but an extent is from 0 to {limit} (the "
                              "kernel indexes with 32-bit ints)"),
    "host_value.computable": ("value", "{kernel}(): {what} cannot be computed for these arguments: {reason}"),
    "strides.unsupported": ("type", "{kernel}(): the layout of '{arg}' cannot be described by array strides"),
    "strides.count": ("value", "{kernel}(): argument '{arg}' has {count} strides {strides} for its {rank} "
                               "dimensions"),
    "strides.mismatch": ("value", "{kernel}(): argument '{arg}' must be {layout}: byte strides {expected}, got "
                                  "{strides}"),
    "strides.contiguous": ("value", "{kernel}(): argument '{arg}' must have byte strides {expected} (its layout), "
                                    "got a C-contiguous array"),
    "index_limit.reach": ("value", "{kernel}(): argument '{arg}' of shape {shape} reaches element {last}, but the "
                                   "kernel indexes with 32-bit ints: at most element {limit} (2^31 - 1)"),
    "null_pointer.elements": ("value", "{kernel}(): argument '{arg}' has a NULL data pointer, but it has elements"),
    "alignment.pointer": ("value", "{kernel}(): argument '{arg}' must be {align}-byte aligned, its data pointer is "
                                   "{pointer:#x}"),
    "overlap.shared": ("value", "{kernel}(): arguments '{first}' and '{second}' share memory, but the kernel writes "
                                "{written} and takes its buffers as __restrict__ pointers (nvcc may read one through "
                                "the read-only cache while the other is written): pass arrays that do not overlap"),
    "grid.limits": ("value", "{kernel}(): the grid would be {grid} for these arguments, but CUDA takes from 0 to "
                             "{limits} blocks per dimension"),
    "cluster.divides": ("value", "{kernel}(): the grid would be {grid} for these arguments, which clusters of "
                                 "{cluster} blocks do not divide (the kernel's __cluster_dims__)"),
    "workspace.negative": ("value", "{kernel}(): workspace '{arg}' would have the shape {shape} for these "
                                    "arguments: an extent is negative"),
    "workspace.count": ("value", "{kernel}(): workspace '{arg}' of shape {shape} would have {count} elements, but "
                                 "the kernel indexes with 32-bit ints: at most {most} elements"),
    "tensor_map.extent": ("value", "{kernel}(): tensor map '{map}' would have the extent {extent} in dimension "
                                   "{dim} (innermost first) for these arguments; TMA takes 1 to 2**32"),
    "tensor_map.stride": ("value", "{kernel}(): tensor map '{map}' would have the byte stride {stride} in "
                                   "dimension {dim} for these arguments; TMA takes multiples of {align} below 2**40"),
    "tensor_map.align": ("value", "{kernel}(): tensor map '{map}' maps argument '{arg}', whose data pointer "
                                  "{pointer:#x} is not {align}-byte aligned, as TMA needs"),
    "tensor_map_reach.array": ("value", "{kernel}(): tensor map '{map}' would reach {reach} bytes from the start of "
                                        "argument '{arg}' for these arguments (extents {extents}, byte strides "
                                        "{strides}, innermost first), but '{arg}' holds {holds} bytes from there: TMA "
                                        "would touch memory the kernel was not given"),
    "architecture.device": ("value", "{kernel}(): the kernel needs {arch} or newer, but device {device} is "
                                     "{device_arch}"),
    "shared_memory.optin": ("value", "{kernel}(): the kernel needs {total} bytes of shared memory per block "
                                     "({static} static, {dynamic} dynamic), but device {device} allows {optin}"),
    "cooperative.resident": ("value", "{kernel}(): the kernel synchronizes its whole grid (T.cuda.grid_sync at "
                                      "{where}), so all its {blocks} blocks must be resident at once, but device "
                                      "{device} holds at most {most} ({per_sm} per SM x {sms} SMs with {threads} "
                                      "threads and {shared} bytes of shared memory a block): launch fewer blocks"),
}


@dataclass(frozen=True)
class Check:
    """One check of a launch: `subject` is the C name of the parameter it is about ("" for the
    launch as a whole); `operands` the values it compares with and names, by hole."""
    kind: CheckKind
    case: str
    subject: str = ""
    operands: tuple[tuple[str, object], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.kind.value}.{self.case}"

    @property
    def error(self) -> str:
        return MESSAGES[self.key][0]

    @property
    def template(self) -> str:
        return MESSAGES[self.key][1]

    def operand(self, name: str):
        return dict(self.operands)[name]

    def message(self) -> str:
        """The template with the operands filled in; the holes only a launch knows stay."""
        return fill(self.template, dict(self.operands))

    def to_json(self) -> dict:
        return {"kind": self.kind.value, "case": self.case, "subject": self.subject, "error": self.error,
                "operands": {name: list(v) if isinstance(v, tuple) else v for name, v in self.operands},
                "message": self.message()}


def fill(template: str, values: dict) -> str:
    """`template` with the holes that `values` names filled; the others kept as holes."""
    import string
    out = []
    for text, field, spec, conversion in string.Formatter().parse(template):
        out.append(text.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        if field in values:
            out.append(("{0" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
                       .format(values[field]).replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return "".join(out)
