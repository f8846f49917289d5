// Hand-written twin of samples/warp_reduce.tx: one sum per warp of 32 floats
// (16 blocks x 4 warps), with a shuffle-xor butterfly and with shuffle-down.
extern "C" __global__ void __launch_bounds__(128)
warp_reduce_xor_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  const int warp = tx / 32;
  const int lane = tx % 32;
  float v = A_ptr[blockIdx.x * 128 + tx];
  for (int offset = 16; offset >= 1; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset, 32);
  }
  if (lane == 0) {
    B_ptr[blockIdx.x * 4 + warp] = v;
  }
}

extern "C" __global__ void __launch_bounds__(128)
warp_reduce_down_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  const int warp = tx / 32;
  const int lane = tx % 32;
  float v = A_ptr[blockIdx.x * 128 + tx];
#pragma unroll
  for (int delta = 16; delta >= 1; delta /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, delta, 32);
  }
  if (lane == 0) {
    B_ptr[blockIdx.x * 4 + warp] = v;
  }
}
