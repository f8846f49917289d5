"""In-process timing of the reference implementation, run by bench/transpile.py
in bench/.venv-ref: for each sample, the parse (executing bench/reference/<s>.py,
whose @T.function decorators parse the kernels) and the compile to CUDA text,
each the median CPU time (time.process_time) of --repeat runs after one
warm-up. Prints JSON to stdout.

    bench/.venv-ref/bin/python bench/reference/_inprocess.py [--repeat N] SAMPLE...
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _emit  # noqa: E402  (imports tvm_tirx once, outside the timings)
from tvm_tirx.tirx import Function  # noqa: E402


def functions_of(namespace: dict) -> dict:
    return {name: value for name, value in namespace.items() if isinstance(value, Function)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("samples", nargs="+")
    args = ap.parse_args()
    rows = []
    for name in args.samples:
        path = os.path.join(HERE, f"{name}.py")
        if not os.path.exists(path):
            rows.append({"sample": name, "error": "no translation"})
            continue
        try:
            namespace = runpy.run_path(path, run_name="bench_reference")  # warm-up
            _emit.cuda_source(functions_of(namespace))
            parse, compile_ = [], []
            for _ in range(args.repeat):
                t0 = time.process_time()
                namespace = runpy.run_path(path, run_name="bench_reference")
                t1 = time.process_time()
                _emit.cuda_source(functions_of(namespace))
                t2 = time.process_time()
                parse.append(t1 - t0)
                compile_.append(t2 - t1)
            kernels = len(functions_of(namespace))
            rows.append({"sample": name, "kernels": kernels,
                         "parse_ms": round(statistics.median(parse) * 1000, 3),
                         "compile_ms": round(statistics.median(compile_) * 1000, 3),
                         "total_ms": round((statistics.median(parse) + statistics.median(compile_)) * 1000, 3)})
        except Exception as err:  # report, keep going
            rows.append({"sample": name, "error": f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"})
    json.dump(rows, sys.stdout)


if __name__ == "__main__":
    main()
