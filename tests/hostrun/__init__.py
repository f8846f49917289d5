"""The host-run value oracle: generated CUDA compiled as host C++ and run, compared with
TIRx's semantics (oracle.py, prelude.h, reference.py, kernels.py; docs/reliability.md)."""
