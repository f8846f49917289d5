"""The generated launcher's runtime, as plain Python modules: `launch`, `nvrtc`, `arith` and
`tensormap` are embedded verbatim, in that order and in one namespace, in every launcher tirxc writes
(transpiler/codegen/launcher.py RUNTIME_MODULES), so nothing here imports from tirxc."""
