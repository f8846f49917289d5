"""The C printer and the `.cu` renderer.

Expressions and statements are printed here by a small visitor with one rule
per node kind; Jinja only lays out the file skeleton (header, includes,
helpers, kernel signatures) from templates/kernel.cu.j2, the one copy of
it (docs/design.md, decision 22). Binary operations are fully
parenthesised, as in TVM's output, except at the top of a statement.
"""
from __future__ import annotations

import math
import struct

from transpiler import __version__
from transpiler.codegen.jinja import environment
from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.target.arch import arch_name
from transpiler.target.cnames import FIXED_WIDTH
from transpiler.target.dtypes import FLOAT32, DType, c_type, parse_dtype
from transpiler.ir.program import Program
from transpiler.target import ptx, tma

INDENT = "  "

_C_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "truncdiv": "/", "truncmod": "%", "<<": "<<", ">>": ">>",
          "&": "&", "|": "|", "^": "^", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!=",
          "&&": "&&", "||": "||"}


_FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]


def _f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def decimal_to_float32(text: str) -> float:
    """The float32 a C compiler makes of the decimal literal `text` (correctly
    rounded, nearest even; no double rounding through float64)."""
    from fractions import Fraction  # imported here: only files with float constants need it

    exact = Fraction(text)
    if exact == 0:
        return -0.0 if text.lstrip().startswith("-") else 0.0
    guess = ir.round_float(float(text), FLOAT32)
    if math.isinf(guess):
        limit = Fraction(_FLT_MAX) + Fraction(2) ** 103  # FLT_MAX plus half an ulp
        return guess if abs(exact) >= limit else math.copysign(_FLT_MAX, guess)
    bits = _f32_bits(guess)
    candidates = [guess] + [_f32_from_bits(b) for b in (bits - 1, bits + 1) if 0 <= b & 0x7FFFFFFF < 0x7F800000
                            and (b ^ bits) & 0x80000000 == 0]
    return min(candidates, key=lambda c: (abs(Fraction(c) - exact), _f32_bits(c) & 1))


def _format_decimal(sig: str, exp: int, negative: bool) -> str:
    """Digits `d.ddd` times 10**exp as C text that always has a `.` (and never `e+`)."""
    digits = sig.replace(".", "").rstrip("0") or "0"
    if -4 <= exp < 16:  # positional, like Python's repr
        if exp >= 0:
            whole = digits[:exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1:] or "0"
        else:
            whole, frac = "0", "0" * (-exp - 1) + digits
        text = f"{whole}.{frac}"
    else:
        text = f"{digits[0]}.{digits[1:] or '0'}e{exp}"
    return ("-" if negative else "") + text


def shortest_text(value: float, roundtrip) -> str:
    """The shortest decimal text t (at most 17 significant digits) with roundtrip(t) == value."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    for precision in range(1, 18):
        text = f"{value:.{precision - 1}e}"
        if roundtrip(text) == value:
            break
    sig, exp = text.split("e")
    return _format_decimal(sig.lstrip("-"), int(exp), sig.startswith("-"))


def float32_text(value: float) -> str:
    """The shortest decimal that a C compiler reads back as the same float32
    (the value is first rounded to float32). Without the `f` suffix."""
    return shortest_text(ir.round_float(value, FLOAT32), decimal_to_float32)


def float64_text(value: float) -> str:
    """The shortest decimal that reads back as the same double (Python's repr)."""
    return shortest_text(value, float)


def narrow_float_text(value: float, dtype: DType) -> str:
    """For half, bfloat16 and the fp8 / fp6 / fp4 formats, printed as a cast of a float
    literal: the shortest float32 text whose conversion to dtype gives the value."""
    target = ir.round_float(value, dtype)
    return shortest_text(target, lambda t: ir.round_float(decimal_to_float32(t), dtype))


# T.reinterpret between scalars of one width: CUDA's bit-cast intrinsics
_BITCASTS = {
    ("float32", "int32"): "__float_as_int", ("float32", "uint32"): "__float_as_uint",
    ("int32", "float32"): "__int_as_float", ("uint32", "float32"): "__uint_as_float",
    ("float64", "int64"): "__double_as_longlong", ("int64", "float64"): "__longlong_as_double",
    ("float16", "int16"): "__half_as_short", ("float16", "uint16"): "__half_as_ushort",
    ("int16", "float16"): "__short_as_half", ("uint16", "float16"): "__ushort_as_half",
    ("bfloat16", "int16"): "__bfloat16_as_short", ("bfloat16", "uint16"): "__bfloat16_as_ushort",
    ("int16", "bfloat16"): "__short_as_bfloat16", ("uint16", "bfloat16"): "__ushort_as_bfloat16",
}


def int_text_unsigned(value: int) -> str:
    """Unsigned constants: hex for bit masks (at most two distinct hex digits,
    e.g. 0xffffffff, 0xffff0000, 0x55555555), decimal for small or other values."""
    hex_digits = f"{value:x}"
    if value >= 0x10000 and len(set(hex_digits)) <= 2:
        return "0x" + hex_digits
    return str(value)


def _float_text(v: float, d: DType) -> str:
    """A float constant of dtype d (v already rounded to it) as C text, before
    any cast or parentheses."""
    wide = d.name == "float64"
    if math.isnan(v):
        return "CUDART_NAN" if wide else "CUDART_NAN_F"
    if math.isinf(v):
        return ("-" if v < 0 else "") + ("CUDART_INF" if wide else "CUDART_INF_F")
    if wide:
        return float64_text(v)
    if d.bits < 32:  # half, bfloat16 and narrower: a float literal, converted
        return narrow_float_text(v, d) + "f"
    return float32_text(v) + "f"


# (dtype, bits of the unrounded value) -> _float_text: finding the shortest text takes
# up to 17 exact conversions, and kernels repeat their constants.
_FLOAT_TEXTS: dict[tuple, str] = {}


def c_string(text: str) -> str:
    """A C string literal holding `text`: quotes, backslashes and every character that is
    not plainly printable (controls, bidi and other format characters, line separators,
    surrogates) are escaped, the latter as the octal bytes of their UTF-8 form; `??` is
    written `?\\?` so that no trigraph can form."""
    out = ['"']
    previous = ""
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "?" and previous == "?":
            out.append("\\?")
        elif ch == " " or ch.isprintable():
            out.append(ch)
        else:
            out.append("".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogatepass")))
        previous = ch
    out.append('"')
    return "".join(out)


def c_comment(text: str) -> str:
    """Text for the end of a `//` comment: as it is when it is plainly printable and cannot
    continue the comment onto the next line (no backslash, no trigraph), else as a quoted
    C string (so is text that starts with a quote, to stay unambiguous)."""
    if text.isprintable() and "\\" not in text and "??" not in text and not text.startswith('"'):
        return text
    return c_string(text)


class CPrinter:
    """Prints storage-level IR as CUDA C++."""

    def __init__(self, line_info: bool = False, source_name: str = "", var_names: dict[str, str] | None = None):
        self.lines: list[str] = []
        self.level = 1
        self.var_names = var_names or {}  # LoweredKernel.var_names
        self.line_info = line_info
        self.source_name = source_name
        # --line-info: the .tx line of the last `#line` directive, and the length of `lines` just
        # after it (no entry of `lines` holds a newline: comments and strings escape theirs)
        self.directive_line: int | None = None
        self.directive_end = 0

    # -- expressions --------------------------------------------------------------------------------
    def expr(self, e: ir.Expr, top: bool = False) -> str:
        return _EXPR_RULES[e.__class__](self, e, top)

    def _e_IntImm(self, e: ir.IntImm, top):
        d, v = e.dtype, e.value
        if v >= 0 and d.bits == 32 and d.kind == "int":  # the commonest constant, as the rules below print it
            return str(v)
        if d.is_bool:
            return "true" if v else "false"
        if d.bits == 128 and not (0 <= v < 2 ** 63):  # past C's widest literal: built from its 64-bit halves
            bits = v % 2 ** 128
            text = f"((({c_type(d)})0x{bits >> 64:x}ull << 64) | 0x{bits % 2 ** 64:x}ull)"
            return text if d.kind == "uint" else f"(({c_type(d)}){text})"
        if d.kind == "uint":
            return int_text_unsigned(v) + ("u" if d.bits <= 32 else "ull")
        if d.bits < 32:
            return f"(({c_type(d)}){v})"
        if d.bits == 64:
            text = "(-9223372036854775807LL - 1)" if v == -2 ** 63 else f"{v}LL"
        else:
            text = "(-2147483647 - 1)" if v == -2 ** 31 else str(v)
        return text if top or v >= 0 or text.startswith("(") else f"({text})"

    def _e_FloatImm(self, e: ir.FloatImm, top):
        d = e.dtype
        # the bits (0.0 and -0.0 print differently) as they are, before the rounding that
        # the text is made from: most constants are looked up, rounding them would cost more
        key = (d, struct.pack("<d", e.value))
        text = _FLOAT_TEXTS.get(key)
        if text is None:
            text = _float_text(ir.round_float(e.value, d), d)
            if len(_FLOAT_TEXTS) > 100_000:
                _FLOAT_TEXTS.clear()
            _FLOAT_TEXTS[key] = text
        if d.name not in ("float32", "float64"):
            return f"(({c_type(d)}){text})"
        if text.startswith("-") and not top:
            return f"({text})"
        return text

    def _e_Var(self, e: ir.Var, top):
        return self.var_names.get(e.name, e.name)

    def _e_Builtin(self, e: ir.Builtin, top):
        return f"((int){e.name})"

    def _e_StrImm(self, e: ir.StrImm, top):
        return c_string(e.value)

    def _e_BinOp(self, e: ir.BinOp, top):
        if e.op in ("min", "max"):
            name = e.op
            if e.dtype.bits == 16 and e.dtype.is_float:
                name = "__h" + e.op
            return f"{name}({self.expr(e.a, True)}, {self.expr(e.b, True)})"
        text = f"{self.expr(e.a)} {_C_OPS[e.op]} {self.expr(e.b)}"
        return text if top else f"({text})"

    def _e_UnaryOp(self, e: ir.UnaryOp, top):
        if e.op == "!":
            return f"!{self.expr(e.a)}" if isinstance(e.a, (ir.Var, ir.Load, ir.Call)) else f"!({self.expr(e.a, True)})"
        inner = self.expr(e.a)
        if isinstance(e.a, ir.UnaryOp) or inner.startswith(("-", "+", "~", "!")):
            inner = f"({inner})"  # never `--x`
        return f"{e.op}{inner}"

    def _e_Select(self, e: ir.Select, top):
        text = f"{self.expr(e.cond)} ? {self.expr(e.a)} : {self.expr(e.b)}"
        return text if top else f"({text})"

    def _e_Cast(self, e: ir.Cast, top):
        text = f"({c_type(e.dtype)}){self.expr(e.a)}"
        return text if top else f"({text})"

    def _e_Reinterpret(self, e: ir.Reinterpret, top):
        src, dst = e.a.dtype.name, e.dtype.name
        intrinsic = _BITCASTS.get((src, dst))
        if intrinsic is not None:
            return f"{intrinsic}({self.expr(e.a, True)})"
        if e.a.dtype.is_int and e.dtype.is_int and e.a.dtype.lanes == e.dtype.lanes == 1:
            return self._e_Cast(ir.Cast(e.dtype, e.a), top)  # same width: a two's-complement cast
        if isinstance(e.a, (ir.Load, ir.Var)):  # an lvalue: reinterpret its storage
            return f"(*reinterpret_cast<const {c_type(e.dtype)}*>(&{self.expr(e.a)}))"
        # an rvalue has no address: give it one in a local
        return (f"([&]() {{ const {c_type(e.a.dtype)} tirx_bits = {self.expr(e.a, True)}; "
                f"return *reinterpret_cast<const {c_type(e.dtype)}*>(&tirx_bits); }}())")

    def _e_Call(self, e: ir.Call, top):
        return f"{e.func}({', '.join(self.expr(a, True) for a in e.args)})"

    def _e_Load(self, e: ir.Load, top):
        return f"{e.storage.name}[{self.expr(e.index)}]"

    def _e_VecLoad(self, e: ir.VecLoad, top):
        # a read-only parameter is `const T*`: the vector cast keeps the const
        const = "const " if e.storage.readonly else ""
        return f"*({const}{c_type(e.dtype)}*){self.pointer(e.storage, e.index)}"

    def _e_Address(self, e: ir.Address, top):
        if e.index is None:
            # a tensor map is a `__grid_constant__` parameter: its address is the one TMA takes
            return f"&{e.storage.name}" if e.storage.kind == "tensormap" else e.storage.name
        return f"&{e.storage.name}[{self.expr(e.index)}]"

    def pointer(self, storage: ir.Storage, index: ir.Expr) -> str:
        """The operand of a vector cast: `B_ptr`, or `(B_ptr + i)`."""
        if ir.is_const(index, 0):
            return storage.name
        return f"({storage.name} + {self.expr(index)})"

    # -- statements ---------------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append(INDENT * self.level + text)

    def mark(self, s: ir.Stmt) -> None:
        """Under --line-info, make the next line count as the statement's .tx line: a `#line`
        directive unless the lines since the last one already bring the count there."""
        line = s.span.line
        if line <= 0:
            return
        lines = self.lines
        if self.directive_line is None or self.directive_line + len(lines) - self.directive_end != line:
            lines.append(line_directive(line, self.source_name))
            self.directive_line, self.directive_end = line, len(lines)

    def stmt(self, s: ir.Stmt) -> None:
        if self.line_info and s.__class__ is not ir.Seq and s.__class__ is not ir.Block:
            self.mark(s)
        _STMT_RULES[s.__class__](self, s)

    def body(self, s: ir.Stmt) -> None:
        self.level += 1
        self.stmt(s)
        self.level -= 1

    def _s_Seq(self, s: ir.Seq):
        for item in s.body:
            self.stmt(item)

    def _s_Comment(self, s: ir.Comment):
        self.emit("// " + s.text.replace("\n", " "))

    def _s_Block(self, s: ir.Block):
        self.emit("{")
        self.body(s.body)
        self.emit("}")

    def _s_ArrayDecl(self, s: ir.ArrayDecl):
        st = s.storage
        natural = st.dtype.nbytes
        if st.scope == "shared":
            self.emit(f"__shared__ alignas({st.align}) {c_type(st.dtype)} {st.name}[{st.size}];")
        elif st.align > natural:
            self.emit(f"alignas({st.align}) {c_type(st.dtype)} {st.name}[{st.size}];")
        else:
            self.emit(f"{c_type(st.dtype)} {st.name}[{st.size}];")

    def _s_PointerDecl(self, s: ir.PointerDecl):
        st, base = s.storage, s.storage.base
        ctype = c_type(st.dtype)
        if base is None:  # a typed view of a generic address (`T.decl_buffer(data=ptr)`, ptr from an integer)
            self.emit(f"{ctype}* {st.name} = ({ctype}*){self.expr(s.offset)};")
        elif st.byte_offset == 0:
            self.emit(f"{ctype}* {st.name} = ({ctype}*){base.name};")
        elif st.byte_offset % base.dtype.nbytes == 0:
            self.emit(f"{ctype}* {st.name} = ({ctype}*)({base.name} + {st.byte_offset // base.dtype.nbytes});")
        else:
            self.emit(f"{ctype}* {st.name} = ({ctype}*)((unsigned char*){base.name} + {st.byte_offset});")

    def _s_Store(self, s: ir.Store):
        self.emit(f"{s.storage.name}[{self.expr(s.index)}] = {self.expr(s.value, True)};")

    def _s_VecStore(self, s: ir.VecStore):
        self.emit(f"*({c_type(s.value.dtype)}*){self.pointer(s.storage, s.index)} = {self.expr(s.value, True)};")

    def _s_LetStmt(self, s: ir.LetStmt):
        self.emit(f"{c_type(s.var.dtype)} {self.expr(s.var)} = {self.expr(s.value, True)};")

    def _s_Evaluate(self, s: ir.Evaluate):
        self.emit(f"{self.expr(s.value, True)};")

    def _s_For(self, s: ir.For):
        if s.kind == "pragma_unroll":
            self.emit("#pragma unroll" if s.unroll_factor == -1 else
                      "#pragma unroll 1" if s.unroll_factor == -2 else f"#pragma unroll {s.unroll_factor}")
        v = self.expr(s.var)
        stop = self.expr(s.stop)
        direction = (1 if s.step.value > 0 else -1) if ir.is_const(s.step) else s.direction
        if ir.is_const(s.step, 1):
            step = f"++{v}"
        elif ir.is_const(s.step, -1):
            step = f"--{v}"
        elif ir.is_const(s.step) and s.step.value < 0:
            step = f"{v} -= {self.expr(ir.IntImm(s.step.dtype, -s.step.value), True)}"
        else:
            step = f"{v} += {self.expr(s.step, True)}"
        if direction > 0:
            cond = f"{v} < {stop}"
        elif direction < 0:
            cond = f"{v} > {stop}"
        else:  # Python's range: the step's sign picks the comparison
            cond = f"({self.expr(s.step)} > 0) ? ({v} < {stop}) : ({v} > {stop})"
        self.emit(f"for ({c_type(s.var.dtype)} {v} = {self.expr(s.start, True)}; {cond}; {step}) {{")
        self.body(s.body)
        self.emit("}")

    def _s_While(self, s: ir.While):
        self.emit(f"while ({self.expr(s.cond, True)}) {{")
        self.body(s.body)
        self.emit("}")

    def _s_If(self, s: ir.If, prefix: str = "if"):
        self.emit(f"{prefix} ({self.expr(s.cond, True)}) {{")
        self.body(s.then)
        orelse = s.orelse
        if orelse is not None and isinstance(orelse, ir.Seq) and not orelse.body:
            orelse = None
        if orelse is None:
            self.emit("}")
        elif isinstance(orelse, ir.If):
            self.level_close_else_if(orelse)
        else:
            self.emit("} else {")
            self.body(orelse)
            self.emit("}")

    def level_close_else_if(self, orelse: ir.If):
        self.emit(f"}} else if ({self.expr(orelse.cond, True)}) {{")
        self.body(orelse.then)
        nxt = orelse.orelse
        if nxt is not None and isinstance(nxt, ir.Seq) and not nxt.body:
            nxt = None
        if nxt is None:
            self.emit("}")
        elif isinstance(nxt, ir.If):
            self.level_close_else_if(nxt)
        else:
            self.emit("} else {")
            self.body(nxt)
            self.emit("}")

    def _s_Break(self, s):
        self.emit("break;")

    def _s_Continue(self, s):
        self.emit("continue;")

    def _s_Return(self, s):
        self.emit("return;")

    def _s_ReturnValue(self, s: ir.ReturnValue):
        self.emit(f"return {self.expr(s.value, True)};")

    def _s_Trap(self, s: ir.Trap):
        cond = s.cond
        self.emit(f"if ({self.expr(ir.unary('!', cond), True)}) {{")
        message = f"  // {c_comment(s.message)}" if s.message else ""
        self.lines.append(INDENT * (self.level + 1) + "__trap();" + message)
        self.emit("}")


# The rule of each node class by its exact class: building the method's name for every
# node took a tenth of the printing.
_EXPR_RULES = {cls: getattr(CPrinter, "_e_" + cls.__name__) for cls in (
    ir.IntImm, ir.FloatImm, ir.Var, ir.Builtin, ir.StrImm, ir.BinOp, ir.UnaryOp, ir.Select, ir.Cast,
    ir.Reinterpret, ir.Call, ir.Load, ir.VecLoad, ir.Address)}
_STMT_RULES = {cls: getattr(CPrinter, "_s_" + cls.__name__) for cls in (
    ir.Seq, ir.Block, ir.ArrayDecl, ir.PointerDecl, ir.Store, ir.VecStore, ir.LetStmt, ir.Evaluate, ir.For,
    ir.While, ir.If, ir.Break, ir.Continue, ir.Return, ir.ReturnValue, ir.Trap, ir.Comment)}


def line_directive(line: int, source_name: str) -> str:
    """`#line N "kernel.tx"`: the name as the command line gave it, never made absolute."""
    return f"#line {line} {c_string(source_name)}"


def func_source_parts(program: Program, line_info: bool = False) -> list[str]:
    """The `T.cuda.func_call` sources as pasted; under --line-info each starts with a `#line`
    for its first printed line (the template strips leading newlines), so that every line of
    it counts as its line in the .tx string."""
    parts = []
    for name, text in program.func_sources.items():
        line = program.func_lines.get(name) if line_info else None
        if line is not None:
            skipped = len(text) - len(text.lstrip("\n"))
            text = line_directive(line + skipped, program.source_name) + "\n" + text.lstrip("\n")
        parts.append(text)
    return parts


def fixed_width_parts(names: list[str]) -> dict:
    """The typedefs that give the func_call sources the <cstdint> names they use (docs/design.md, decision 18):
    `typedef int int32_t;` where NVRTC has none, and for a 64-bit name a macro for a type of
    tirxc's own spelling (`long long`), the one its pointers and atomics have, under nvcc too,
    where <cstdint> has made `int64_t` a `long`."""
    narrow = [(c_type(parse_dtype(FIXED_WIDTH[n])), n) for n in names if not n.endswith("64_t")]
    wide = [(c_type(parse_dtype(FIXED_WIDTH[n])), n) for n in names if n.endswith("64_t")]
    return {"fixed_width": bool(names), "narrow_ints": narrow, "wide_ints": wide}


def param_text(p: ir.Param, restrict: bool = True) -> str:
    """A parameter's C declaration; a device function's pointers (restrict=False) may alias, as its
    callers may pass one buffer twice."""
    if p.kind is ParamKind.BUFFER or p.kind is ParamKind.WORKSPACE:  # only a buffer's storage may be read-only
        const = "const " if p.buffer.storage.readonly else ""
        return f"{const}{c_type(p.dtype)}* {'__restrict__ ' if restrict else ''}{p.name}"
    if p.kind is ParamKind.TENSOR_MAP:
        return f"const __grid_constant__ {tma.C_TYPE} {p.name}"
    return f"{c_type(p.dtype)} {p.name}"


def kernel_qualifiers(spec: ir.LaunchSpec) -> list[str]:
    """`__launch_bounds__(threads[, min blocks])`, or `__maxnreg__(n)` in its place (docs/design.md,
    decision 25), and `__cluster_dims__(x, y, z)` (decision 17)."""
    out = []
    if spec.max_registers:
        out.append(f"__maxnreg__({spec.max_registers})")
    elif spec.launch_bounds:
        out.append(f"__launch_bounds__({', '.join(str(n) for n in (spec.launch_bounds, spec.min_blocks) if n)})")
    if spec.cluster:
        out.append(f"__cluster_dims__({', '.join(map(str, spec.cluster))})")
    return out


def function_parts(program: Program, line_info: bool = False, flavour=None) -> list[dict]:
    """The device functions (sema/kernel/device_functions.py), each `__device__ __forceinline__`:
    a small function its callers' registers hold, as TIRx's `__device__` ones end up after nvcc."""
    parts = []
    for f in program.functions:
        printer = CPrinter(line_info, program.source_name, f.var_names) if flavour is None else \
            flavour.function_printer(program, f)
        printer.stmt(f.body)
        parts.append({
            "returns": c_type(f.returns), "name": f.name, "params": [param_text(p, restrict=False) for p in f.params],
            "body": "\n".join(printer.lines),
            "line": line_directive(f.span.line, program.source_name) if line_info and f.span and f.span.line > 0
            else None,
        })
    return parts


def kernel_parts(program: Program, line_info: bool = False, flavour=None) -> list[dict]:
    """Each kernel's signature parts and printed body; `flavour` (codegen/cuda_sim.py) prints them
    for another host than the GPU."""
    parts = []
    for lk in program.kernels:
        if flavour is None:
            printer = CPrinter(line_info, program.source_name, lk.var_names)
            if lk.arena is not None:
                a = lk.arena
                printer.emit(f"extern __shared__ __align__({a.align}) {c_type(a.dtype)} {a.name}[];")
        else:
            printer = flavour.printer(program, lk)
        printer.stmt(lk.body)
        spec = lk.spec
        parts.append({
            "symbol": spec.symbol,
            "qualifiers": kernel_qualifiers(spec),
            "params": [param_text(p) for p in spec.params],
            "body": "\n".join(printer.lines),
            # the signature counts as the `def` line
            "line": line_directive(spec.span.line, program.source_name) if line_info and spec.span.line > 0
            else None,
        })
    return parts


def render_cuda(program: Program, line_info: bool = False, flavour=None) -> str:
    """The whole `.cu` file: the printed kernels laid out by templates/kernel.cu.j2. With a
    `flavour` (the sim flavour, codegen/cuda_sim.py) the same program for the CPU."""
    values = dict(
        version=__version__,
        source=c_comment(program.file_name),
        min_arch=arch_name(program.min_arch, program.arch_suffix),
        environment=c_comment(", ".join(program.environment_reads)),
        headers=program.headers,
        arch_guards=ptx.guard_definitions(program.helpers, program.ptx_instructions),
        helpers=[ptx.helper_source(h, program.ptx_instructions) for h in program.helpers] if flavour is None
        else flavour.helper_sources(program),
        tensor_map=tma.C_DEFINITION if any(p.kind is ParamKind.TENSOR_MAP for lk in program.kernels
                                            for p in lk.spec.params) else None,
        func_sources=func_source_parts(program, line_info) if flavour is None else flavour.func_sources(program),
        functions=function_parts(program, line_info, flavour),
        kernels=kernel_parts(program, line_info, flavour),
        **fixed_width_parts(program.fixed_width),
    )
    return environment().get_template("kernel.cu.j2").render(**values)

