// The example program of docs/cpp.md: calls two tirxc kernels from C++ through their headers.
// Without a GPU it shows the argument checks and exits 0; with one it runs both kernels and
// checks them against the CPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include "global_workspace.h"  // tirxc::global_workspace::global_sum, from samples/global_workspace.tx
#include "saxpy.h"             // tirxc::saxpy::saxpy, from samples/saxpy.tx

namespace {

bool check(cudaError_t status, const char* message) {
  if (status == cudaSuccess) return true;
  std::printf("error %d: %s\n", static_cast<int>(status), message);
  return false;
}

template <class T>
cudaError_t allocate(T** pointer, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}

}  // namespace

int main() {
  namespace sx = tirxc::saxpy;
  namespace gw = tirxc::global_workspace;

  // The checks need no GPU: a NULL array with elements is refused with a message.
  cudaError_t status = sx::saxpy(2.0f, nullptr, nullptr, 1000);
  std::printf("refused: %s\n", status == cudaErrorInvalidValue ? sx::last_error() : "(not refused)");
  status = sx::saxpy(2.0f, nullptr, nullptr, 0);  // an empty problem launches nothing
  std::printf("empty: %s\n", status == cudaSuccess ? "ok" : sx::last_error());

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: the launches are skipped\n");
    return 0;
  }

  const int n = 100000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 100) * 0.5f;
    y[i] = 1.0f;
  }
  float *dx = nullptr, *dy = nullptr, *dtotal = nullptr;
  void* workspace = nullptr;
  if (!check(allocate(&dx, n * sizeof(float)), "cudaMalloc") || !check(allocate(&dy, n * sizeof(float)), "cudaMalloc") ||
      !check(allocate(&dtotal, sizeof(float)), "cudaMalloc")) return 1;
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  // saxpy: y = 2 x + y
  tirxc::launch_config config;
  if (!check(sx::saxpy_launch_config(2.0f, dx, dy, n, &config), sx::last_error())) return 1;
  std::printf("saxpy: grid %u, block %u\n", config.grid[0], config.block[0]);
  if (!check(sx::saxpy(2.0f, dx, dy, n), sx::last_error())) return 1;
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    if (y[i] != 2.0f * x[i] + 1.0f) {
      std::printf("saxpy: y[%d] = %g, expected %g\n", i, y[i], 2.0f * x[i] + 1.0f);
      return 1;
    }
  }

  // global_sum: a kernel with a global workspace, which the caller allocates
  const std::size_t bytes = gw::global_sum_workspace_bytes(dx, dtotal, n);
  if (bytes == static_cast<std::size_t>(-1)) return check(cudaErrorInvalidValue, gw::last_error()) ? 0 : 1;
  if (!check(allocate(&workspace, bytes), "cudaMalloc")) return 1;
  if (!check(gw::global_sum(dx, dtotal, n, workspace, bytes), gw::last_error())) return 1;
  float total = 0.0f;
  cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost);
  double expected = 0.0;
  for (int i = 0; i < n; ++i) expected += x[i];
  if (std::fabs(total - expected) > 1e-4 * expected) {
    std::printf("global_sum: %g, expected %g\n", total, expected);
    return 1;
  }
  std::printf("global_sum: workspace %zu bytes, total %g\n", bytes, total);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dtotal);
  cudaFree(workspace);
  std::printf("ok\n");
  return 0;
}
