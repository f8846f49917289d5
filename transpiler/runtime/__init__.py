"""The generated launcher's runtime, as a package of plain modules that import each other:
`program` (the launcher's program), `arith`, `nvrtc`, `tensormap` and `launch`. tirxc embeds
their sources in every launcher it writes, which loads each as a module of a private package
(transpiler/codegen/launcher.py RUNTIME_MODULES, templates/launcher.py.j2), so nothing here imports
from tirxc."""
