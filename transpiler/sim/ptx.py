"""The CPU implementations of the PTX helpers tirxc emits (docs/sim.md, "PTX"): helper name ->
C++ source with the helper's signature, for the sim flavour of the printer
(codegen/cuda_sim.py), which refuses a helper that wraps inline PTX and has none here (E0810)."""
from __future__ import annotations

CPU_HELPERS: dict[str, str] = {}
