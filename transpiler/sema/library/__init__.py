"""tirxc's sources of TIRx's helper library (read by sema/prelude.py with importlib.resources)."""
