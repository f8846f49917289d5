"""The generated launcher's runtime, as plain Python modules: `launch` is embedded verbatim
in every launcher tirxc writes (transpiler/codegen/launcher.py reads its text), so nothing
here imports from tirxc."""
