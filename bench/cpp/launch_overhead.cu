// Host time per launch of a tirxc C++ entry point against a bare <<<>>> launch of the same
// kernel (docs/benchmarks.md, docs/cpp.md). Built by bench/cpp/run.sh with the saxpy.cu and
// saxpy.h that tirxc writes for samples/saxpy.tx, included here so that <<<>>> can name the
// kernel in this translation unit.
//
// Launches are timed in batches smaller than the launch queue, with a synchronize between
// batches outside the timing, so that the host's cost is measured rather than the GPU's
// throughput; the two ways alternate batch by batch. Output: one JSON object.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "saxpy.cu"

namespace {

constexpr int kBatch = 256;
constexpr int kBatches = 400;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double batch_ns(F&& launch) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kBatch; ++i) launch();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() / kBatch;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&x), n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&y), n * sizeof(float)) != cudaSuccess) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 1;
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const float a = 2.0f;
  const dim3 grid((n + 255) / 256), block(256);
  auto bare = [&] { saxpy_kernel<<<grid, block, 0, stream>>>(x, y, a, n); };
  auto entry = [&] {
    if (tirxc::saxpy::saxpy(a, x, y, n, stream) != cudaSuccess) std::abort();
  };
  tirxc::launch_config config;
  auto config_only = [&] {
    if (tirxc::saxpy::saxpy_launch_config(a, x, y, n, &config) != cudaSuccess) std::abort();
  };
  for (int i = 0; i < 20; ++i) {  // warm-up: module load, the entry point's per-device set-up
    batch_ns(bare);
    batch_ns(entry);
    cudaStreamSynchronize(stream);
  }
  std::vector<double> bare_ns, entry_ns, config_ns;
  for (int b = 0; b < kBatches; ++b) {
    bare_ns.push_back(batch_ns(bare));
    cudaStreamSynchronize(stream);
    entry_ns.push_back(batch_ns(entry));
    cudaStreamSynchronize(stream);
    config_ns.push_back(batch_ns(config_only));
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("{\"error\": \"a launch failed\"}\n");
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const double b = median(bare_ns), e = median(entry_ns), c = median(config_ns);
  std::printf("{\"device\": \"%s\", \"n\": %d, \"batch\": %d, \"batches\": %d, \"bare_ns\": %.1f, "
              "\"entry_ns\": %.1f, \"overhead_ns\": %.1f, \"launch_config_ns\": %.1f}\n",
              prop.name, n, kBatch, kBatches, b, e, e - b, c);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
  return 0;
}
