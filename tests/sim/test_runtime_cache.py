"""The simulator's runtime objects (transpiler/sim/build.py): built once per content key, and
two builders of one key at once (parallel pytest workers, two `tirxc sim` runs) both get the
whole set. A stand-in compiler that only writes its output keeps this test free of g++."""
from __future__ import annotations

import os
import stat
import threading

from transpiler.sim import build


def _stand_in_compiler(tmp_path):
    script = tmp_path / "fake-cxx"
    script.write_text('#!/bin/sh\nwhile [ "$#" -gt 0 ]; do [ "$1" = -o ] && touch "$2"; shift; done\nsleep 0.2\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_two_builders_of_one_key_both_get_every_object(tmp_path, monkeypatch):
    monkeypatch.setenv("TIRXC_CACHE", str(tmp_path / "cache"))
    cxx = _stand_in_compiler(tmp_path)
    results, errors = [], []

    def one():
        try:
            results.append(build.runtime_objects(cxx))
        except Exception as err:  # noqa: BLE001 (reported below)
            errors.append(err)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results[0] == results[1] and len(results[0]) == len(list(build.INCLUDE.glob("*.cpp")))
    assert all(p.is_file() for p in results[0])
    # one folder for the key, no scratch folder left behind
    assert os.listdir(tmp_path / "cache" / "sim") == [results[0][0].parent.name]


def test_the_key_follows_the_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("TIRXC_CACHE", str(tmp_path / "cache"))
    assert build._runtime_key("g++") != build._runtime_key("clang++")
    assert build._runtime_key("g++") == build._runtime_key("g++")
