"""The simulator's runtime objects (transpiler/sim/build.py): built once per content key, and
two builders of one key at once (parallel pytest workers, two `tirxc sim` runs) both get the
whole set. A stand-in compiler that only writes its output keeps this test free of g++."""
from __future__ import annotations

import os
import stat
import threading

import pytest

from transpiler.sim import build


def _stand_in_compiler(tmp_path):
    script = tmp_path / "fake-cxx"
    script.write_text(f'#!/bin/sh\necho run >> "{tmp_path}/runs"\n'
                      'while [ "$#" -gt 0 ]; do [ "$1" = -o ] && touch "$2"; shift; done\nsleep 0.2\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.parametrize("lock", [True, False], ids=["locked", "renamed-only"])
def test_two_builders_of_one_key_both_get_every_object(tmp_path, monkeypatch, lock):
    monkeypatch.setenv("TIRXC_CACHE", str(tmp_path / "cache"))
    if not lock:  # (as where flock is missing: both build, the rename keeps one)
        monkeypatch.setattr(build, "fcntl", None)
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
    units = len(results[0])
    runs = len((tmp_path / "runs").read_text().split())
    # locked: the second builder waited and found it built; unlocked, both may build
    assert runs == units if lock else units <= runs <= 2 * units
    # one folder for the key, no scratch folder left behind
    left = [name for name in os.listdir(tmp_path / "cache" / "sim") if not name.endswith(".lock")]
    assert left == [results[0][0].parent.name]


def test_the_key_follows_the_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("TIRXC_CACHE", str(tmp_path / "cache"))
    assert build._runtime_key("g++") != build._runtime_key("clang++")
    assert build._runtime_key("g++") == build._runtime_key("g++")
