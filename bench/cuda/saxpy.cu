// Hand-written twin of samples/saxpy.tx: y = a * x + y over n floats, one
// element per thread, ceil(n / 256) blocks of 256.
extern "C" __global__ void __launch_bounds__(256)
saxpy_kernel(const float* __restrict__ x_ptr, float* __restrict__ y_ptr, float a, int n) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) {
    y_ptr[i] = a * x_ptr[i] + y_ptr[i];
  }
}
