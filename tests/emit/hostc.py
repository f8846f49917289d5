"""A small host runner for value tests: a tirxc `.cu` compiled as host C++ by g++ (with
CUDA's own headers for half, bfloat16 and fp8, whose conversions and operators run on the
host too) and its first kernel run once per thread, threads in order. Enough for kernels
of plain arithmetic over global buffers: no shared memory traffic between threads, no
PTX, warp operations or transcendental functions compared bit for bit.

Built with UndefinedBehaviorSanitizer, so that C the GPU might compile differently (a
signed int overflow, a shift of a negative value) fails the test instead of passing by luck.
"""
from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

from tests.build_cache import host_program_output

CUDA_INCLUDE = Path("/usr/local/cuda/include")
GXX = shutil.which("g++")

PRELUDE = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)
#define __shared__ static
struct tirx_dim3 { unsigned int x, y, z; };
static tirx_dim3 threadIdx, blockIdx, blockDim, gridDim;
static inline void __trap() { std::abort(); }
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
static inline void __syncthreads() {}
// CUDA's integer intrinsics and min / max overloads (crt/math_functions.hpp): mixed
// signedness compares as unsigned; floats are fminf / fmaxf
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
#define TIRX_MINMAX(A, B, R) \
  static inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
  static inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
TIRX_MINMAX(int, int, int)
TIRX_MINMAX(unsigned int, unsigned int, unsigned int)
TIRX_MINMAX(int, unsigned int, unsigned int)
TIRX_MINMAX(unsigned int, int, unsigned int)
TIRX_MINMAX(long long, long long, long long)
TIRX_MINMAX(unsigned long long, unsigned long long, unsigned long long)
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
"""

# C type -> how an element is written into the C array and read back out
_INTS = {"signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long long",
         "unsigned long long", "bool"}
_FLOATS = {"float", "double", "half", "nv_bfloat16", "__nv_fp8_e4m3", "__nv_fp8_e5m2"}
_SIGNATURE = re.compile(r'extern "C" __global__ void(?: __launch_bounds__\(\d+\))?\s*\n(\w+)\(([^)]*)\) \{')
_PARAM = re.compile(r"^(?:const )?(.+?)(\*)? (?:__restrict__ )?(\w+)$")


def available() -> bool:
    return GXX is not None and (CUDA_INCLUDE / "cuda_fp16.h").exists()


def _literal(ctype: str, value) -> str:
    if ctype in _INTS:
        return f"({ctype}){int(value)}" + ("ull" if ctype == "unsigned long long" else "ll")
    value = float(value)
    text = "NAN" if math.isnan(value) else ("INFINITY" if value > 0 else "-INFINITY") if math.isinf(value) \
        else value.hex()
    return text if ctype in ("float", "double") else f"{ctype}((float){text})"


def run(cuda: str, buffers: dict[str, list], threads: int = 1, scalars: dict | None = None,
        workdir: Path | None = None) -> dict[str, list]:
    """Run the `.cu`'s first kernel for threads 0 .. threads-1 (one block) over the given
    buffers (by source name: `A` for `A_ptr`) and scalars; returns every buffer afterwards.
    The program's output is cached by content (tests/build_cache.py); workdir is not needed."""
    match = _SIGNATURE.search(cuda)
    symbol, params = match.group(1), [p.strip() for p in match.group(2).split(",") if p.strip()]
    decls, args, dumps = [], [], []
    kinds = {}
    for text in params:
        ctype, pointer, name = _PARAM.match(text).groups()
        if pointer:
            source = name[:-len("_ptr")]
            values = buffers[source]
            kinds[source] = ctype
            decls.append(f"static {ctype} {name}[{len(values)}] = {{{', '.join(_literal(ctype, v) for v in values)}}};")
            dumps.append(f'for (int i = 0; i < {len(values)}; ++i) std::printf("{source} %s\\n", '
                         f'tirx_show({name}[i]).c_str());')
            args.append(name)
        else:
            args.append(_literal(ctype, (scalars or {})[name]))
    main = "\n".join([
        "#include <string>",
        "template <typename T> static std::string tirx_show(T v) { char s[64];",
        "  if constexpr (std::is_integral<T>::value) std::snprintf(s, 64, std::is_signed<T>::value ? \"%lld\" : "
        "\"%llu\", (long long)v);",
        "  else std::snprintf(s, 64, \"%a\", (double)(float)v); return s; }",
        "static std::string tirx_show(double v) { char s[64]; std::snprintf(s, 64, \"%a\", v); return s; }",
        "int main() {", *decls, f"blockDim.x = {threads}; blockDim.y = blockDim.z = gridDim.x = gridDim.y = "
        "gridDim.z = 1;",
        f"for (unsigned t = 0; t < {threads}; ++t) {{ threadIdx.x = t; {symbol}({', '.join(args)}); }}",
        *dumps, "return 0; }"])
    source = PRELUDE + cuda + "\n" + main + "\n"
    stdout = host_program_output(source, ["-std=c++17", "-O0", "-ffp-contract=off", "-fsanitize=undefined",
                                          "-fno-sanitize-recover=all", f"-I{CUDA_INCLUDE}", "-w"],
                                 compiler=GXX, build_timeout=120, run_timeout=60, context=f"\n--- source ---\n{cuda}")
    out: dict[str, list] = {name: [] for name in kinds}
    for line in stdout.splitlines():
        name, text = line.split(" ", 1)
        out[name].append(float.fromhex(text.replace("-nan", "nan")) if kinds[name] in _FLOATS else int(text))
    return out
