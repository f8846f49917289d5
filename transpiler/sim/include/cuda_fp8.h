// tirxc sim: cuda_fp8.h's e4m3 / e5m2 types: a byte, made from a float as CUDA's constructors make
// it (round to nearest even, saturating to the largest finite value; include/tirx_sim_formats.h)
// and read back exactly. (e8m0 is not simulated yet: a kernel that uses it does not compile.)
#pragma once

#define TIRX_FP8_TYPE(NAME, FORMAT)                                                                 \
  struct NAME {                                                                                     \
    unsigned char __x;                                                                              \
    NAME() = default;                                                                               \
    NAME(float f) : __x((unsigned char)tirx_sim::format_encode(f, FORMAT, false, true, false)) {}   \
    NAME(double d) : __x((unsigned char)tirx_sim::format_encode(d, FORMAT, false, true, false)) {}  \
    NAME(__half h) : NAME((float)h) {}                                                              \
    NAME(__nv_bfloat16 h) : NAME((float)h) {}                                                       \
    NAME(int i) : NAME((double)i) {}                                                                \
    operator float() const { return (float)tirx_sim::format_decode(__x, FORMAT); }                  \
    explicit operator __half() const { return __half((float)*this); }                               \
    explicit operator __nv_bfloat16() const { return __nv_bfloat16((float)*this); }                 \
  };
TIRX_FP8_TYPE(__nv_fp8_e4m3, tirx_sim::FORMAT_E4M3)
TIRX_FP8_TYPE(__nv_fp8_e5m2, tirx_sim::FORMAT_E5M2)
#undef TIRX_FP8_TYPE
