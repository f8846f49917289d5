"""The generated launcher's compiler: the embedded CUDA compiled through CuPy's NVRTC for each
device once per process, and NVRTC's errors as CompileError, mapped back to the .tx file.

A module of the runtime that tirxc embeds in each launcher (launch.py's docstring): it reads
the program that `load` set (program.py).
"""
import os
import re
import tempfile
import threading

from . import program

_modules = {}
_modules_lock = threading.Lock()


def compiled_module(device: int):
    """The embedded CUDA, compiled for `device` once per process: the first launch of any of
    this launcher's kernels there compiles it, for all of them."""
    import cupy
    with _modules_lock:
        module = _modules.get(device)
        if module is not None:
            return module
        cc = int(cupy.cuda.Device(device).compute_capability)
        if cc < program.MIN_ARCH:
            raise RuntimeError(f"{program.SOURCE_FILE} needs sm_{program.MIN_ARCH}{program.ARCH_SUFFIX} or newer, but "
                               f"device {device} is sm_{cc}")
        try:
            if program.ARCH_SUFFIX:
                module = _compile_arch_specific(f"sm_{cc}{program.ARCH_SUFFIX}")
            else:
                module = cupy.RawModule(code=program.CUDA_SOURCE, options=("--std=c++17",))
                module.compile()
        except cupy.cuda.compiler.CompileException as err:
            raise compile_error(err.get_message()) from None
        _modules[device] = module
        return module


class CompileError(RuntimeError):
    """NVRTC rejected the embedded CUDA. `errors` lists (file, line, message) of each error:
    the .tx file and line where the CUDA carries `#line` directives (tirxc --line-info),
    else file None and the line of program.CUDA_SOURCE; `log` is NVRTC's own text."""

    def __init__(self, message: str, errors: list, log: str):
        super().__init__(message)
        self.errors = errors
        self.log = log


# `file(LINE): error: message` and `file(LINE): warning #177-D: message` in NVRTC's log
_LOG_ENTRY = re.compile(r"(?P<file>.+?)\((?P<line>[0-9]+)\): (?P<kind>catastrophic error|error|warning|remark)"
                        r"(?: #[\w-]+)?: (?P<message>.*)")
_LINE_DIRECTIVE = re.compile(r'^#line [0-9]+ "((?:[^"\\\n]|\\.)*)"$', re.M)


def compile_error(log: str) -> CompileError:
    """NVRTC's log as a C compiler's errors, each followed by its source line:
    `kernel.tx:12: error: ...` where `#line` directives map the CUDA to the .tx file (the
    line is quoted when that file is readable from the working directory), else
    `kernel.tx (generated CUDA, line 40): error: ...` with the line of the embedded CUDA.
    The one file ever read is the .tx file the launcher was made from, at the path tirxc's
    own `#line` directives give (program.LINE_FILE, whose name is program.SOURCE_FILE): a file
    that another `#line` names (one in inline CUDA) is reported by name and line, never quoted."""
    mapped = {_c_unescape(name) for name in _LINE_DIRECTIVE.findall(program.CUDA_SOURCE)}
    errors, lines = [], []
    for text in log.splitlines():
        entry = _LOG_ENTRY.fullmatch(text)
        if entry is None or not entry["kind"].endswith("error"):
            continue
        name, line, message = entry["file"], int(entry["line"]), entry["message"]
        if name in mapped:
            errors.append((name, line, message))
            lines.append(f"{name}:{line}: {entry['kind']}: {message}")
            mine = name == program.LINE_FILE and _base_name(name) == program.SOURCE_FILE
            quoted = _file_line(name, line) if mine else None
        else:
            errors.append((None, line, message))
            lines.append(f"{program.SOURCE_FILE} (generated CUDA, line {line}): {entry['kind']}: {message}")
            source = program.CUDA_SOURCE.split("\n")
            quoted = source[line - 1] if 0 < line <= len(source) else None
        if quoted is not None and quoted.strip():
            lines.append(f"  {line} | {quoted.rstrip()}")
    if not errors:
        return CompileError(f"{program.SOURCE_FILE}: NVRTC rejected the generated CUDA:\n{log}", [], log)
    count = f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
    lines.append(f"{program.SOURCE_FILE}: NVRTC rejected the generated CUDA ({count}; NVRTC's log is the `log` "
                 f"attribute)")
    return CompileError("\n".join(lines), errors, log)


def _base_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _file_line(path: str, line: int):
    """Line `line` of a regular file (never a device or FIFO, which could block or be endless)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    return text.lstrip("\ufeff") if number == 1 else text
    except OSError:
        return None
    return None


def _c_unescape(text: str) -> str:
    """The file name a `#line` directive's C string literal spells (as tirxc escapes it)."""
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            digits = re.match(r"[0-7]{1,3}", text[i + 1:i + 4])
            if digits:
                out.append(int(digits.group(), 8) & 0xFF)
                i += 1 + len(digits.group())
                continue
            out += {"n": b"\n", "t": b"\t"}.get(text[i + 1], text[i + 1].encode("utf-8", "surrogatepass"))
            i += 2
            continue
        out += text[i].encode("utf-8", "surrogatepass")
        i += 1
    return out.decode("utf-8", "replace")


def _compile_arch_specific(arch: str):
    """CuPy appends its own -arch=sm_XX; features of sm_90a/sm_100a need the suffix, so
    compile to a cubin with NVRTC directly and load that."""
    import cupy
    from cupy_backends.cuda.libs import nvrtc
    options = [f"--gpu-architecture={arch}", "--std=c++17"]
    include = os.path.join(cupy.cuda.get_cuda_path() or "", "include")
    if os.path.isdir(include):
        options.append(f"-I{include}")
    compiled = nvrtc.createProgram(program.CUDA_SOURCE, program.SOURCE_FILE + ".cu", [], [])
    try:
        try:
            nvrtc.compileProgram(compiled, options)
        except nvrtc.NVRTCError:
            raise cupy.cuda.compiler.CompileException(nvrtc.getProgramLog(compiled), program.CUDA_SOURCE,
                                                      program.SOURCE_FILE + ".cu", options, "nvrtc") from None
        cubin = nvrtc.getCUBIN(compiled)
    finally:
        nvrtc.destroyProgram(compiled)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as handle:
        handle.write(cubin)
    try:
        module = cupy.RawModule(path=handle.name)
        for spec in program.KERNELS.values():  # RawModule loads lazily: load before the file goes
            module.get_function(spec["symbol"])
        return module
    finally:
        os.unlink(handle.name)
