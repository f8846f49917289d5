// Hand-written twin of samples/smem_pool.tx: each of 16 blocks of 256 threads
// stages a 128x64 float tile of A and of B in 64 KiB of dynamic shared memory
// (the launch raises the kernel's dynamic shared limit), computes
// C = 2 * A + reverse_rows(B) into registers, then reuses the A tile's bytes
// for the result tile and copies it out.
#define ROWS 128
#define COLS 64
#define TILE (ROWS * COLS)
#define PER_THREAD (TILE / 256)

extern "C" __global__ void __launch_bounds__(256)
smem_pool_kernel(const float* __restrict__ A_ptr, const float* __restrict__ B_ptr, float* __restrict__ C_ptr) {
  extern __shared__ __align__(128) unsigned char smem[];
  float* As = reinterpret_cast<float*>(smem);                          // bytes 0 .. 32767
  float* Bs = reinterpret_cast<float*>(smem + TILE * sizeof(float));   // bytes 32768 .. 65535
  const int tx = threadIdx.x;
  const float* a = A_ptr + blockIdx.x * TILE;
  const float* b = B_ptr + blockIdx.x * TILE;
  float* c = C_ptr + blockIdx.x * TILE;
  for (int k = 0; k < PER_THREAD; ++k) {
    As[k * 256 + tx] = a[k * 256 + tx];
    Bs[k * 256 + tx] = b[k * 256 + tx];
  }
  __syncthreads();
  float sums[PER_THREAD];
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int flat = k * 256 + tx;
    sums[k] = As[flat] * 2.0f + Bs[(ROWS - 1 - flat / COLS) * COLS + flat % COLS];
  }
  __syncthreads();
  float* Cs = As;   // the A tile is dead: the result tile takes its bytes
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    Cs[k * 256 + tx] = sums[k];
  }
  __syncthreads();
  for (int k = 0; k < PER_THREAD; ++k) {
    c[k * 256 + tx] = Cs[k * 256 + tx];
  }
}
