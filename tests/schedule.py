"""The order the suite's files are handed to the parallel workers: the slowest first.

`make test` runs `pytest -n auto --dist loadfile --no-loadscope-reorder`: each file goes whole to
one worker (its module-scoped batch fixtures are built once), in collection order, a new file to
whichever worker runs out first. Left in the directories' order, a few files that run long (an
nvcc batch, the C++ builds, the simulator's mutants) come last and one worker runs them while the
other has nothing left. Handed out longest first, the short files fill the end, and the workers
finish within seconds of each other.

The seconds come from tests/file_seconds.txt: one `seconds path` line per file, measured on the
2-core machine from a run with `--durations=0` and written by

    python -m tests.schedule DURATIONS_LOG [MORE_LOGS...] > tests/file_seconds.txt

(with several logs, a file's figure comes from the last log that ran it: a rerun of the
directories that changed updates their figures and keeps the others')

A file not in it (a new one) counts as short and keeps its place among the short ones; a stale
figure only costs time, never a result."""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

SECONDS = Path(__file__).with_name("file_seconds.txt")
DURATION = re.compile(r"^([0-9.]+)s (?:setup|call|teardown)\s+(\S+?)::")
SHORTEST_LISTED = 2.0  # files below this many seconds are not worth a line


def file_seconds() -> dict[str, float]:
    """{path relative to the repository: measured seconds} of the listed files."""
    table = {}
    if SECONDS.is_file():
        for line in SECONDS.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                seconds, path = line.split()
                table[path] = float(seconds)
    return table


def slowest_files_first(items: list, root: Path) -> list:
    """items reordered so that the files run longest come first (a file's tests stay together, in
    their order; files not listed keep their collection order after the listed ones)."""
    table = file_seconds()

    def seconds(item) -> float:
        try:
            path = Path(item.path).resolve().relative_to(root).as_posix()
        except ValueError:
            return 0.0
        return table.get(path, 0.0)

    return sorted(items, key=lambda item: -seconds(item))


def measured(log: str) -> dict[str, float]:
    """{file: seconds of its tests' setup, call and teardown} from a `--durations=0` report."""
    total: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        match = DURATION.match(line.strip())
        if match:
            total[match.group(2)] += float(match.group(1))
    return dict(total)


def main(argv: list[str]) -> int:
    total: dict[str, float] = {}
    for log in argv:
        total.update(measured(Path(log).read_text(encoding="utf-8")))
    print("# seconds per test file on the 2-core machine (tests/schedule.py; regenerate with")
    print("# `python -m tests.schedule LOG...` from `pytest -n 2 --dist loadfile --durations=0` runs)")
    for path, seconds in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
        if seconds >= SHORTEST_LISTED:
            print(f"{seconds:.1f} {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
