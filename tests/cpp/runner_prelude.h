// The fixed part of the GPU test program of tests/cpp/test_gpu.py: a sample's kernels run
// through their C++ entry points on arguments read from files, and the arrays written back.
//
//   runner KERNEL ARGS_FILE
//
// ARGS_FILE has one line per argument of the entry point, in its order:
//   buffer PATH OFFSET    the whole array's bytes in PATH; the argument points OFFSET bytes into it
//   scalar VALUE          an integer, or a float in C's hexadecimal notation
// After the launch every array is copied back into PATH.out. Exit 0, or 1 with the entry
// point's message (its module's last_error()) on stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace runner {

struct Array {
  std::string path;
  std::vector<char> bytes;
  char* device = nullptr;
  std::size_t offset = 0;
};

struct Args {
  std::vector<std::string> kinds, values;
  std::vector<Array> arrays;  // one per argument (empty for scalars)
};

inline void die(const char* what, const char* detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail);
  std::exit(1);
}

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) die(what, cudaGetErrorString(status));
}

inline Args read_args(const char* file) {
  Args args;
  FILE* f = std::fopen(file, "r");
  if (!f) die("cannot open", file);
  char kind[16], value[4096];
  while (std::fscanf(f, "%15s %4095s", kind, value) == 2) {
    args.kinds.push_back(kind);
    args.values.push_back(value);
    Array array;
    if (std::strcmp(kind, "buffer") == 0) {
      unsigned long long offset = 0;
      if (std::fscanf(f, "%llu", &offset) != 1) die("bad line for", value);
      array.path = value;
      array.offset = offset;
      FILE* data = std::fopen(value, "rb");
      if (!data) die("cannot open", value);
      std::fseek(data, 0, SEEK_END);
      array.bytes.resize(static_cast<std::size_t>(std::ftell(data)));
      std::fseek(data, 0, SEEK_SET);
      if (std::fread(array.bytes.data(), 1, array.bytes.size(), data) != array.bytes.size()) die("cannot read", value);
      std::fclose(data);
      check(cudaMalloc(reinterpret_cast<void**>(&array.device), array.bytes.size() + 256), "cudaMalloc");
      check(cudaMemcpy(array.device, array.bytes.data(), array.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    args.arrays.push_back(array);
  }
  std::fclose(f);
  return args;
}

template <class T>
T* pointer(Args& args, std::size_t i) {
  return reinterpret_cast<T*>(args.arrays[i].device + args.arrays[i].offset);
}

inline long long integer(const Args& args, std::size_t i) { return std::strtoll(args.values[i].c_str(), nullptr, 0); }
inline unsigned long long unsigned_integer(const Args& args, std::size_t i) {
  return std::strtoull(args.values[i].c_str(), nullptr, 0);
}
inline double real(const Args& args, std::size_t i) { return std::strtod(args.values[i].c_str(), nullptr); }

inline void write_back(Args& args) {
  check(cudaDeviceSynchronize(), "the kernel");
  for (Array& array : args.arrays) {
    if (array.path.empty()) continue;
    check(cudaMemcpy(array.bytes.data(), array.device, array.bytes.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const std::string out = array.path + ".out";
    FILE* f = std::fopen(out.c_str(), "wb");
    if (!f || std::fwrite(array.bytes.data(), 1, array.bytes.size(), f) != array.bytes.size()) die("cannot write", out.c_str());
    std::fclose(f);
    cudaFree(array.device);
  }
}

inline void* workspace(std::size_t bytes) {
  void* p = nullptr;
  if (bytes == static_cast<std::size_t>(-1)) die("workspace", "the arguments were refused");
  if (bytes) check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}

}  // namespace runner
