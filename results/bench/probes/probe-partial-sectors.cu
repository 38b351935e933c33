// Probe: what writing only part of each row's first and last 32-byte sector
// costs a streaming kernel.
//
// A stencil's domain usually leaves its halo untouched: the 27-point box of
// fs-bench writes x in [1, n-1) of every row, rtm's app kernel x in [4, n-4).
// The sectors holding x = 0 and x = n-1 (or 0..3 and n-4..n-1) are then
// written in part, while the copy kernel the tables compare against writes
// whole sectors. This probe times, on an n^3 f32 grid, kernels that read every
// row whole (as the stencils do) and write x in [a, b) of every row: whole
// float4 groups with a vector store, the groups cut by a or b with one store
// per point inside [a, b) (no write outside it). Every kernel runs once per
// round, rounds interleaved, CUDA events, median of the rounds; the figure is
// the time of the full-row kernel [0, n) over the kernel's own time, so
// 100 % means the partial sectors cost nothing (its bytes are slightly fewer).
//
// A range written A:B:p has the threads whose sector of `out` is written in
// part first prefetch it into L2 (prefetch.global.L2), A:B:l load it (ld.global.cg,
// the value discarded): both make the sector whole in L2 before the partial
// store reaches it, and read nothing outside the arrays. A:B:w has the cut
// groups store a whole float4 with `out`'s own values outside [a, b) (read
// just before): the sectors are written whole, but a concurrent writer of
// those points would lose its update, so no generated kernel may do this;
// it measures what the partial writes themselves cost. A:B:a stores the
// points inside [a, b) as the plain kernel does and has the cut group's
// points outside [a, b) take an atomic no-op (atomicOr with 0 on their bits):
// the value cannot change, even under a concurrent writer, but the L2 now
// holds every byte of the sector as written.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-partial results/bench/probes/probe-partial-sectors.cu
//   ./probe-partial 512 0:512 1:511 1:511:p 1:511:l 1:511:w 1:511:a 4:508 8:504
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe-common.cuh"

// One block per row, one thread per float4 group: out[x] = 2 in[x] for x in
// [a, b). The loads are whole groups; the stores never leave [a, b).
// Mode: 0 nothing more, 'p' prefetch, 'l' load the partial sector first,
// 'w' write the cut groups whole, 'a' atomic no-ops outside [a, b) in the
// cut groups (see above).
template <char Mode>
__global__ void rowKernel(const float *__restrict__ in, float *__restrict__ out,
                          int n, int a, int b) {
  const int x0 = 4 * threadIdx.x;
  if (x0 >= n)
    return;
  const long long row = ((long long)blockIdx.z * n + blockIdx.y) * n;
  // This group's 32-byte sector (8 floats) is written in part.
  const int sec = x0 & ~7;
  const bool part = (sec < a && sec + 8 > a) || (sec < b && sec + 8 > b);
  if (Mode == 'p' && part)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(out + row + x0));
  if (Mode == 'l' && part) {
    float d;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(d) : "l"(out + row + x0));
  }
  const float4 v = *(const float4 *)(in + row + x0);
  const float4 r = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  if (x0 >= a && x0 + 4 <= b) {
    *(float4 *)(out + row + x0) = r;
    return;
  }
  if (Mode == 'w') {
    const float4 o = *(const float4 *)(out + row + x0);
    *(float4 *)(out + row + x0) =
        make_float4(x0 + 0 >= a && x0 + 0 < b ? r.x : o.x,
                    x0 + 1 >= a && x0 + 1 < b ? r.y : o.y,
                    x0 + 2 >= a && x0 + 2 < b ? r.z : o.z,
                    x0 + 3 >= a && x0 + 3 < b ? r.w : o.w);
    return;
  }
  const float p[4] = {r.x, r.y, r.z, r.w};
  for (int l = 0; l < 4; ++l)
    if (x0 + l >= a && x0 + l < b)
      out[row + x0 + l] = p[l];
    else if (Mode == 'a')
      atomicOr((unsigned *)(out + row + x0 + l), 0u);
}

using RowKernel = void (*)(const float *__restrict__, float *__restrict__, int, int, int);

// The kernel of each mode, by the letter after A:B (none: 0).
static RowKernel kernelOf(char mode) {
  switch (mode) {
  case 0:
    return rowKernel<0>;
  case 'p':
    return rowKernel<'p'>;
  case 'l':
    return rowKernel<'l'>;
  case 'w':
    return rowKernel<'w'>;
  case 'a':
    return rowKernel<'a'>;
  default:
    return nullptr;
  }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  struct Range {
    int a, b;
    char mode;
  };
  std::vector<Range> ranges;
  for (int i = 2; i < argc; ++i) {
    Range r{0, 0, 0};
    char m = 0;
    const int k = std::sscanf(argv[i], "%d:%d:%c", &r.a, &r.b, &m);
    if (k < 2 || (k == 3 && (!m || !kernelOf(m))) || r.a < 0 || r.b > n || r.a >= r.b) {
      std::fprintf(stderr, "range %s: expected A:B[:p|:l|:w|:a], 0 <= A < B <= n\n",
                   argv[i]);
      return 2;
    }
    r.mode = k == 3 ? m : 0;
    ranges.push_back(r);
  }
  if (ranges.empty())
    ranges = {{0, n, 0}, {1, n - 1, 0}, {1, n - 1, 'p'}, {8, n - 8, 0}};
  if (n % 4 != 0 || n / 4 > 1024) {
    std::fprintf(stderr, "n must be a multiple of 4, at most 4096\n");
    return 2;
  }
  const size_t points = (size_t)n * n * n;
  float *in, *out;
  CHECK(cudaMalloc(&in, points * sizeof(float)));
  CHECK(cudaMalloc(&out, points * sizeof(float)));
  CHECK(cudaMemset(in, 0, points * sizeof(float)));
  CHECK(cudaMemset(out, 0, points * sizeof(float)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const dim3 grid(1, n, n), block(n / 4);
  auto launch = [&](const Range &r) {
    kernelOf(r.mode)<<<grid, block>>>(in, out, n, r.a, r.b);
  };
  for (const Range &r : ranges)
    for (int w = 0; w < 3; ++w)
      launch(r);
  CHECK(cudaDeviceSynchronize());
  const int rounds = 30;
  std::vector<std::vector<float>> ms(ranges.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t k = 0; k < ranges.size(); ++k) {
      CHECK(cudaEventRecord(e0));
      launch(ranges[k]);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float t;
      CHECK(cudaEventElapsedTime(&t, e0, e1));
      ms[k].push_back(t);
    }
  CHECK(cudaGetLastError());
  std::vector<float> med;
  for (auto &v : ms) {
    std::sort(v.begin(), v.end());
    med.push_back(v[v.size() / 2]);
  }
  // The reference: the first range that writes whole rows, else the first.
  size_t ref = 0;
  for (size_t k = 0; k < ranges.size(); ++k)
    if (ranges[k].a == 0 && ranges[k].b == n && !ranges[k].mode) {
      ref = k;
      break;
    }
  std::printf("n=%d, %d rounds; reference [%d, %d)\n", n, rounds,
              ranges[ref].a, ranges[ref].b);
  std::printf("%-14s %10s %9s %12s %8s\n", "x range", "median ms", "GB/s",
              "partial/row", "% ref");
  for (size_t k = 0; k < ranges.size(); ++k) {
    const int a = ranges[k].a, b = ranges[k].b;
    const char mode[3] = {' ', ranges[k].mode ? ranges[k].mode : ' ', 0};
    const double bytes = (double)n * n * (4.0 * n + 4.0 * (b - a));
    const int partial = (a % 8 != 0) + (b % 8 != 0);
    std::printf("[%4d,%4d)%s  %10.4f %9.0f %12d %8.1f\n", a, b, mode, med[k],
                bytes / med[k] / 1e6, partial, 100.0 * med[ref] / med[k]);
  }
  return 0;
}
