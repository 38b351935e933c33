// Probe: what an update in place costs against the same streams out of place.
//
// rtm's app kernel updates pnext in place (pnext = 2 pcur - pnext + ...): it
// reads pcur, pnext and vdt2 and writes pnext, 16 bytes per point like the
// named rtm stencil of fs-bench, which reads u, u_prev and vel and writes a
// fourth array. This probe times flat, float4-wide streaming kernels with no
// stencil at all, so that only the memory system differs:
//   copy      b = a                      (8 B/point, fs-bench's reference)
//   out3r1w   d = 2a - b + c              (16 B/point, four arrays)
//   in3r1w    b = 2a - b + c              (16 B/point, b read and written)
//   out1r1w   b = 2a                      (8 B/point)
//   in1r1w    a = 2a                      (8 B/point, a read and written)
// Every kernel runs once per round, rounds interleaved, CUDA events, median.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-inplace results/bench/probes/probe-inplace.cu
//   ./probe-inplace 384 512
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe-common.cuh"

__global__ void fill(float4 *p, long long n, float v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    p[i] = make_float4(v, v + 1e-3f, v + 2e-3f, v + 3e-3f);
}

__global__ void copy(float4 *__restrict__ b, const float4 *__restrict__ a,
                     long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i];
}

__device__ float4 upd(float4 a, float4 b, float4 c) {
  return make_float4(2.f * a.x - b.x + c.x, 2.f * a.y - b.y + c.y,
                     2.f * a.z - b.z + c.z, 2.f * a.w - b.w + c.w);
}

__global__ void out3r1w(float4 *__restrict__ d, const float4 *__restrict__ a,
                        const float4 *__restrict__ b,
                        const float4 *__restrict__ c, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = upd(a[i], b[i], c[i]);
}

__global__ void in3r1w(float4 *__restrict__ b, const float4 *__restrict__ a,
                       const float4 *__restrict__ c, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = upd(a[i], b[i], c[i]);
}

__global__ void out1r1w(float4 *__restrict__ b, const float4 *__restrict__ a,
                        long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = a[i];
    b[i] = make_float4(2.f * v.x, 2.f * v.y, 2.f * v.z, 2.f * v.w);
  }
}

__global__ void in1r1w(float4 *__restrict__ a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = a[i];
    // Negated, so that the values stay bounded over the rounds.
    a[i] = make_float4(-v.x, -v.y, -v.z, -v.w);
  }
}

int main(int argc, char **argv) {
  std::vector<int> sizes;
  for (int k = 1; k < argc; ++k)
    sizes.push_back(std::atoi(argv[k]));
  if (sizes.empty())
    sizes = {384, 512};
  const int reps = 40, kinds = 5;
  const char *names[kinds] = {"copy", "out3r1w", "in3r1w", "out1r1w",
                              "in1r1w"};
  const int bytes[kinds] = {8, 16, 16, 8, 8};
  std::printf("%-6s %-8s %10s %9s %7s\n", "n", "kernel", "median_ms", "GB/s",
              "%copy");
  for (int n : sizes) {
    const long long pts = (long long)n * n * n, n4 = pts / 4;
    float4 *buf[4];
    for (float4 *&p : buf) {
      CHECK(cudaMalloc(&p, n4 * sizeof(float4)));
      fill<<<1024, 256>>>(p, n4, 1.0f + (float)(&p - buf));
    }
    CHECK(cudaDeviceSynchronize());
    const unsigned grid = (unsigned)((n4 + 255) / 256);
    auto launch = [&](int k) {
      switch (k) {
      case 0: copy<<<grid, 256>>>(buf[1], buf[0], n4); break;
      case 1: out3r1w<<<grid, 256>>>(buf[3], buf[0], buf[1], buf[2], n4); break;
      case 2: in3r1w<<<grid, 256>>>(buf[1], buf[0], buf[2], n4); break;
      case 3: out1r1w<<<grid, 256>>>(buf[1], buf[0], n4); break;
      case 4: in1r1w<<<grid, 256>>>(buf[0], n4); break;
      }
    };
    for (int w = 0; w < 5; ++w)
      for (int k = 0; k < kinds; ++k)
        launch(k);
    std::vector<cudaEvent_t> ev(2 * reps * kinds);
    for (cudaEvent_t &e : ev)
      CHECK(cudaEventCreate(&e));
    for (int r = 0; r < reps; ++r)
      for (int k = 0; k < kinds; ++k) {
        CHECK(cudaEventRecord(ev[2 * (r * kinds + k)]));
        launch(k);
        CHECK(cudaEventRecord(ev[2 * (r * kinds + k) + 1]));
      }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    double copyGBs = 0;
    for (int k = 0; k < kinds; ++k) {
      std::vector<float> ms(reps);
      for (int r = 0; r < reps; ++r)
        CHECK(cudaEventElapsedTime(&ms[r], ev[2 * (r * kinds + k)],
                                ev[2 * (r * kinds + k) + 1]));
      std::sort(ms.begin(), ms.end());
      const double med = ms[reps / 2];
      const double gbs = (double)bytes[k] * pts / (med * 1e-3) / 1e9;
      if (k == 0)
        copyGBs = gbs;
      std::printf("%-6d %-8s %10.4f %9.0f %7.1f\n", n, names[k], med, gbs,
                  100.0 * gbs / copyGBs);
    }
    for (cudaEvent_t &e : ev)
      CHECK(cudaEventDestroy(e));
    for (float4 *p : buf)
      CHECK(cudaFree(p));
  }
  return 0;
}
