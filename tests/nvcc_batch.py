"""Many generated `.cu` files compiled by one nvcc run: most of a small file's compile is nvcc's
fixed cost (the host compiler reading the CUDA headers), so the suite compiles the files that
share a target and the same `#include` lines as one translation unit, each file in a namespace
of its own (its kernels lose `extern "C"`, which would put them all in one global name space),
after `#line 1 "<name>.cu"` so that a message names the file, with the macros it defines
undefined after it. A file whose `#include`s do not all come before its code compiles alone.

The unit passing stands for each of its files passing: a file sees the headers it includes
and nothing another file defines. A unit that fails (a real error, or a clash the namespaces
cause) is not the answer: each of its files is then compiled alone, and that is its result.
Both runs go through the content cache (tests/build_cache.py)."""
from __future__ import annotations

import re

from tests.build_cache import compile_cuda

EXTERN_C_KERNEL = re.compile(r'^extern "C" (?=__global__)', re.M)
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)


def split_includes(cuda: str) -> tuple[tuple[str, ...], str] | None:
    """(the `#include` lines, the text without them) when no code or other directive comes
    before the last `#include`; else None."""
    includes, rest, code_seen = [], [], False
    for line in cuda.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#include"):
            if code_seen:
                return None
            includes.append(stripped)
            continue
        if stripped and not stripped.startswith("//"):
            code_seen = True
        rest.append(line)
    return tuple(includes), "\n".join(rest)


def translation_unit(includes: tuple[str, ...], parts: list[tuple[str, str]]) -> str:
    """includes, then each (name, text without includes) in a namespace of its own."""
    out = list(includes)
    for number, (name, body) in enumerate(parts):
        out += [f"namespace tirxc_case_{number} {{", f'#line 1 "{name}.cu"', EXTERN_C_KERNEL.sub("", body), "}"]
        out += [f"#undef {macro}" for macro in dict.fromkeys(DEFINE.findall(body))]
    return "\n".join(out) + "\n"


def compile_many(sources: dict[str, str], flags, *, timeout: int = 600) -> dict[str, tuple[int, str]]:
    """{name: (return code, output)} of `nvcc *flags -c name.cu` for every source, by as few nvcc
    runs as the sources' `#include` lines allow."""
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    results: dict[str, tuple[int, str]] = {}
    for name, cuda in sources.items():
        split = split_includes(cuda)
        if split is None:
            results[name] = compile_cuda(cuda, flags, name=name, timeout=timeout)
        else:
            groups.setdefault(split[0], []).append((name, split[1]))
    for includes, parts in groups.items():
        if len(parts) > 1:
            code, output = compile_cuda(translation_unit(includes, parts), flags, name="cases", timeout=timeout)
            if code == 0:
                results.update((name, (code, output)) for name, _ in parts)
                continue
        for name, _ in parts:
            results[name] = compile_cuda(sources[name], flags, name=name, timeout=timeout)
    return results
