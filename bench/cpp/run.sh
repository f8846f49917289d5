#!/usr/bin/env bash
# The launch-overhead benchmark of the C++ entry points (docs/benchmarks.md): needs nvcc and a GPU.
#   bench/cpp/run.sh [OUT.json]          (from the repository root)
# tirxc is run as TIRXC (default: .venv/bin/tirxc, else `python3 -m transpiler`); where neither
# works (a GPU machine without tirxc's dependencies), generate bench/out/cpp/saxpy.{cu,h} first.
set -euo pipefail
cd "$(dirname "$0")/../.."
gen=bench/out/cpp  # ignored by git
mkdir -p "$gen"
if [ ! -f "$gen/saxpy.cu" ] || [ samples/saxpy.tx -nt "$gen/saxpy.cu" ]; then
  tirxc=${TIRXC:-$([ -x .venv/bin/tirxc ] && echo .venv/bin/tirxc || echo "python3 -m transpiler")}
  $tirxc samples/saxpy.tx -o "$gen/saxpy.cu" --header "$gen/saxpy.h"
fi
arch=${ARCH:-native}
nvcc -std=c++17 -O2 -arch="$arch" -I"$gen" bench/cpp/launch_overhead.cu -o "$gen/launch_overhead"
if [ $# -ge 1 ]; then
  "$gen/launch_overhead" 1024 | tee "$1"
else
  "$gen/launch_overhead" 1024
fi
