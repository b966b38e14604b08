// template_scale: one C++ template instantiated for float and double (mangled symbols
// _Z14template_scaleIfEvPT_PKS0_S0_j and _Z14template_scaleIdEvPT_PKS0_S0_j).
#include "prelude.h"

template <typename T>
__global__ void template_scale(T *out, const T *in, T s, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = in[i] * s - (T)i;
}

template __global__ void template_scale<float>(float *, const float *, float, uint);
template __global__ void template_scale<double>(double *, const double *, double, uint);
