"""tirxc: TIRx kernel files (.tx) to CUDA (.cu) and a CuPy launcher."""

__version__ = "0.1.0"
