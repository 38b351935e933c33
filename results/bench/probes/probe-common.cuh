// What the GPU probes (results/bench/probes/probe-*.cu) share: an error check for
// main, the float4 copy kernel they compare against (and its row of their
// tables), the median of 30 timed launches after 3 warm-up launches, and a
// hashed fill and bitwise comparison for the probes that check their
// kernels against a reference.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__global__ void copyKernel(const float4 *__restrict__ in, float4 *__restrict__ out,
                           long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

/// p[i] for i < n: values in [-0.5, 0.5) from a hash of i and seed.
__global__ void fill(float *p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = (float)(h & 0xffff) / 65536.0f - 0.5f;
  }
}

/// Adds to *bad the number of i < n where a[i] and b[i] differ in any bit.
__global__ void countDiff(const float *a, const float *b, long long n,
                          unsigned long long *bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    if (__float_as_uint(a[i]) != __float_as_uint(b[i]))
      atomicAdd(bad, 1ull);
}

template <class F>
static float timeIt(F launch, cudaEvent_t a, cudaEvent_t b) {
  std::vector<float> ms;
  for (int r = 0; r < 33; ++r) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    if (r >= 3)
      ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

/// GB/s of the float4 copy of `bytes` from in to out (read + written).
static double copyBandwidth(const float *in, float *out, size_t bytes,
                            cudaEvent_t a, cudaEvent_t b) {
  const double ms = timeIt(
      [&] {
        copyKernel<<<132 * 16, 256>>>((const float4 *)in, (float4 *)out,
                                      (long long)(bytes / 16));
      },
      a, b);
  return 2.0 * bytes / ms / 1e6;
}

/// copyBandwidth, with the table's copy row printed (name column Width wide).
static double copyRow(const float *in, float *out, size_t bytes, cudaEvent_t a,
                      cudaEvent_t b, int width) {
  const double gbs = copyBandwidth(in, out, bytes, a, b);
  printf("%-*s %8.4f ms %7.0f GB/s  100.0 %%\n", width, "copy",
         2.0 * bytes / gbs / 1e6, gbs);
  return gbs;
}
