"""tirxc's sources of TIRx's helper library (read by sema/library/prelude.py with importlib.resources)."""
