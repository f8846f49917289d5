// Hand-written twin of samples/control_flow.tx (see the sample for what each
// column of B holds); plain C locals for the sample's mutable scalars.
extern "C" __global__ void __launch_bounds__(64)
control_flow_kernel(const int* __restrict__ A_ptr, int* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  int* out = B_ptr + tx * 5;
  const int v = A_ptr[tx];
  if (v < 0) {
    out[0] = -1;
  } else if (v == 0) {
    out[0] = 0;
  } else if (v < 10) {
    out[0] = 1;
  } else {
    out[0] = 2;
  }

  int s = 0;
  for (int k = tx % 5; k < 40; k += 3) {
    s += k;
  }
  for (int k = 0; k < 4; ++k) {
    s += A_ptr[(tx + k) & 63];
  }
  out[1] = s;

  int g = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      g += (i + 1) * (j + tx);
    }
  }
  out[2] = g;

  int c = 0;
  int w = tx;
  while (w < 1000) {
    ++w;
    if (w % 2 == 0) {
      continue;
    }
    ++c;
    if (w % 7 == 0) {
      break;
    }
  }
  out[3] = c * 1000 + w;
  out[4] = 1;
}
