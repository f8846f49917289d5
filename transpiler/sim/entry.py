"""The simulator's `main()`: C++ appended to the sim flavour of a file's CUDA, which runs one
launch of one of its kernels on the argument image the Python side wrote (transpiler/sim/launch.py).

The command line of the executable, all decimal except the hexadecimal scalar bytes:

    sim IMAGE KERNEL GX GY GZ BX BY BZ DYNAMIC_SHARED BLOCK_LIMIT STEP_LIMIT JOBS STACK_KIB
        CHECKS SCHEDULE SEED FINDINGS ARG...

IMAGE is a file the executable maps (shared, so that what the kernel writes lands in it); KERNEL
is the kernel's index in the program; each ARG is `pOFFSET` (a pointer to IMAGE's byte OFFSET),
`n` (a null pointer: an empty array), `xHEX` (a scalar's bytes, little-endian, as hex) or `m...` (a
tensor map's fields, tensor_map_arg below). CHECKS is 0, or 1 (--racecheck) + 2 (--synccheck);
SCHEDULE the order of the scheduler's passes (0 thread order, 1 reverse, else random from SEED);
FINDINGS the file the checkers write their findings to (include/tirx_sim_check.h gives its
format; blocks then run one at a time). Exit
status 0: every block ended; 2: a located error of the run (stderr says which); 3: a crash.
"""
from __future__ import annotations

from transpiler.ir.launch import ParamKind
from transpiler.ir.program import Program
from transpiler.target import tma
from transpiler.target.dtypes import c_type

_PRELUDE = r"""
// ---- tirxc sim: the launch (transpiler/sim/entry.py) ----
#include <csignal>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tirx_sim {
static unsigned char* image = nullptr;

static void* pointer_arg(const char* text) {
  if (text[0] == 'n') return nullptr;
  return image + strtoll(text + 1, nullptr, 10);
}

static void scalar_arg(const char* text, void* out, size_t size) {
  unsigned char bytes[16] = {0};
  size_t n = strlen(text + 1) / 2;
  for (size_t i = 0; i < n && i < sizeof bytes; ++i) {
    char pair[3] = {text[1 + 2 * i], text[2 + 2 * i], 0};
    bytes[i] = (unsigned char)strtoul(pair, nullptr, 16);
  }
  memcpy(out, bytes, size);
}

// a tensor map: `mOFFSET,ELEMENT_BYTES,DATA_TYPE,RANK,DIMS...,STRIDES...,BOX...,ELEMENT_STRIDES...,
// INTERLEAVE,SWIZZLE,OOB_FILL` (the mapped buffer's image offset, then cuTensorMapEncodeTiled's
// fields; the strides of dimensions 1 and up, in bytes), written as the runtime's TensorMap
static void tensor_map_arg(const char* text, void* out, size_t size) {
  TensorMap m{};
  char* next = (char*)text + 1;
  auto field = [&]() { unsigned long long v = strtoull(next, &next, 10); if (*next == ',') ++next; return v; };
  m.address = (unsigned long long)(image + field());
  m.element_bytes = (unsigned char)field();
  m.data_type = (unsigned char)field();
  m.rank = (unsigned char)field();
  for (int i = 0; i < m.rank; ++i) m.dims[i] = field();
  m.strides[0] = m.element_bytes;
  for (int i = 1; i < m.rank; ++i) m.strides[i] = field();
  for (int i = 0; i < m.rank; ++i) m.box[i] = (unsigned short)field();
  for (int i = 0; i < m.rank; ++i) m.element_strides[i] = (unsigned char)field();
  m.interleave = (unsigned char)field();
  m.swizzle = (unsigned char)field();
  m.oob_fill = (unsigned char)field();
  m.valid = 1;
  memset(out, 0, size);
  memcpy(out, &m, sizeof m);
}

static void on_crash(int sig) {
  char text[400];
  const char* what = sig == SIGSEGV || sig == SIGBUS ? "a memory access outside every buffer (or a stack overflow: --stack-kib)"
                     : sig == SIGFPE ? "an integer division by zero" : "a fatal signal";
  std::string at = current_block != nullptr ? where(current_block, current_fiber) : std::string("the simulator");
  int n = snprintf(text, sizeof text, "tirxc sim: %s: %s\n", at.c_str(), what);
  if (write(2, text, n) < 0) {}
  _exit(3);
}

static void on_crashes() {
  static thread_local char alternate[65536];
  stack_t ss{};
  ss.ss_sp = alternate;
  ss.ss_size = sizeof alternate;
  sigaltstack(&ss, nullptr);
}
}  // namespace tirx_sim
"""

_MAIN = r"""
int main(int argc, char** argv) {
  using namespace tirx_sim;
  if (argc < 18) {
    fprintf(stderr, "tirxc sim: the executable takes IMAGE KERNEL GRID BLOCK ... (transpiler/sim/entry.py)\n");
    return 2;
  }
  struct sigaction action {};
  action.sa_handler = on_crash;
  action.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &action, nullptr);
  worker_start = on_crashes;
  int fd = open(argv[1], O_RDWR);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    fprintf(stderr, "tirxc sim: cannot open the argument image %s\n", argv[1]);
    return 2;
  }
  if (st.st_size > 0) {
    image = (unsigned char*)mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (image == MAP_FAILED) {
      fprintf(stderr, "tirxc sim: cannot map the argument image\n");
      return 2;
    }
  }
  Launch L;
  L.grid = dim3{(unsigned)atol(argv[3]), (unsigned)atol(argv[4]), (unsigned)atol(argv[5])};
  L.block = dim3{(unsigned)atol(argv[6]), (unsigned)atol(argv[7]), (unsigned)atol(argv[8])};
  size_t dynamic_shared = (size_t)atoll(argv[9]);
  L.block_limit = atoll(argv[10]);
  L.step_limit = atoll(argv[11]);
  L.jobs = atoi(argv[12]);
  L.stack_bytes = (size_t)atoll(argv[13]) * 1024;
  L.schedule = atoi(argv[15]);
  L.seed = strtoull(argv[16], nullptr, 10);
  static Checker check;
  int checks = atoi(argv[14]);
  if (checks != 0) {
    check.races = checks & 1;
    check.protocols = (checks & 2) != 0;
    check.out = fopen(argv[17], "w");
    check.global_base = image;
    check.global_bytes = image != nullptr ? (size_t)st.st_size : 0;
    check.global_cells.assign(check.global_bytes / 4 + 1, Cell());
    checker = &check;
    L.jobs = 1;
  }
  int kernel = atoi(argv[2]);
  char** args = argv + 18;
  int count = argc - 18;
  std::string error;
  switch (kernel) {
@CASES@
    default:
      fprintf(stderr, "tirxc sim: no kernel %d\n", kernel);
      return 2;
  }
  if (image != nullptr) msync(image, st.st_size, MS_SYNC);
  if (check.out != nullptr) fclose(check.out);
  if (!error.empty()) {
    fprintf(stderr, "tirxc sim: %s\n", error.c_str());
    return 2;
  }
  return 0;
}
"""


def render_entry(program: Program, static_shared: dict[str, int]) -> str:
    """The C++ that runs one launch: an argument struct and a body per kernel, and main()."""
    parts = [_PRELUDE]
    cases = []
    for index, lk in enumerate(program.kernels):
        spec = lk.spec
        fields, unpack, call = [], [], []
        for slot, p in enumerate(spec.params):
            member = f"a{slot}"
            if p.kind is ParamKind.TENSOR_MAP:
                fields.append(f"  {tma.C_TYPE} {member};")
                unpack.append(f"      tensor_map_arg(args[{slot}], &a.{member}, sizeof a.{member});")
            elif p.kind is ParamKind.BUFFER or p.kind is ParamKind.WORKSPACE:
                ctype = c_type(p.dtype) + "*"
                fields.append(f"  {ctype} {member};")
                unpack.append(f"      a.{member} = ({ctype})pointer_arg(args[{slot}]);")
            else:
                ctype = c_type(p.dtype)
                fields.append(f"  {ctype} {member};")
                unpack.append(f"      scalar_arg(args[{slot}], &a.{member}, sizeof a.{member});")
            call.append(f"a.{member}")
        parts.append(f"struct tirx_sim_args_{index} {{\n" + "\n".join(fields) + "\n};\n"
                     f"static void tirx_sim_body_{index}(const void* p) {{\n"
                     f"  const tirx_sim_args_{index}& a = *(const tirx_sim_args_{index}*)p;\n"
                     f"  {spec.symbol}({', '.join(call)});\n}}\n")
        cases.append(
            f"    case {index}: {{\n"
            f"      if (count != {len(spec.params)}) {{ fprintf(stderr, \"tirxc sim: {spec.symbol} takes "
            f"{len(spec.params)} arguments\\n\"); return 2; }}\n"
            f"      static tirx_sim_args_{index} a;\n" + "\n".join(unpack) + "\n"
            f"      L.body = tirx_sim_body_{index};\n"
            f"      L.args = &a;\n"
            f"      L.shared_bytes = {static_shared.get(spec.symbol, 0)} + dynamic_shared;\n"
            f"      L.cluster = dim3{{{', '.join(map(str, spec.cluster or (1, 1, 1)))}}};\n"
            f"      error = run_grid(L);\n"
            f"      break;\n"
            f"    }}")
    parts.append(_MAIN.replace("@CASES@", "\n".join(cases)))
    return "\n".join(parts)
