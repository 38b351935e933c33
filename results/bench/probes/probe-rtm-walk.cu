// Probe: what the z-marching walk of fs-bench's rtm update costs before any
// arithmetic. rtm reads u at a radius-4 star, u_prev and vel at the point and
// writes u_next over x, y, z in [4, n-4) of an n^3 f32 grid (16 compulsory
// bytes per point). Its zmarch kernels give each thread VW consecutive points
// along x and march a run of ZC planes along z, keeping u's column at z-4 ..
// z+4 in a register queue; each step loads u's new plane z+4 at the point,
// plane z's row with x-4 .. x+VW+3 and its rows y-4 .. y+4, u_prev and vel at
// the point, and stores u_next.
//
// The kernels here make exactly those loads and stores in that walk, but
// fold what they load into the stored value with a few bitwise operations
// instead of the stencil's 30-odd floating-point ones: their time is what the
// walk and its memory traffic cost the real kernels at best. Variants: the
// block (BX x BY threads), VW, ZC; `line` starts the groups at x = 0 (whole
// 128-byte lines per warp; the groups before and after the domain load but
// store nothing); `whole` stores the groups before and after the domain too
// (wrong, timing only: no sector is then written in part). Median of 30
// launches against the float4 copy kernel of probe-common.cuh; the outputs
// are not checked (the values mean nothing).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-rtm-walk results/bench/probes/probe-rtm-walk.cu
//   ./probe-rtm-walk [n]       (n a multiple of 4, default 512)
#include "probe-common.cuh"

#include <cstdint>
#include <cstdlib>

template <int VW> struct Vec;
template <> struct Vec<2> {
  using T = float2;
  __device__ static unsigned fold(T v) {
    return __float_as_uint(v.x) ^ __float_as_uint(v.y);
  }
};
template <> struct Vec<4> {
  using T = float4;
  __device__ static unsigned fold(T v) {
    return __float_as_uint(v.x) ^ __float_as_uint(v.y) ^ __float_as_uint(v.z) ^
           __float_as_uint(v.w);
  }
};

template <int VW> __device__ __forceinline__ typename Vec<VW>::T ld(const float *p) {
  return __ldg((const typename Vec<VW>::T *)p);
}

enum : int { Masked = 0, Line = 1, Whole = 2 };

template <int BX, int BY, int VW, int ZC, int MODE>
__global__ void __launch_bounds__(BX *BY)
    walk(const float *__restrict__ u, const float *__restrict__ up,
         const float *__restrict__ vel, float *__restrict__ un, int n) {
  using V = Vec<VW>;
  const int first = (MODE & (Line | Whole)) ? 0 : 4; // first group's column
  const int x0 = first + VW * (blockIdx.x * BX + threadIdx.x);
  const int y = 4 + blockIdx.y * BY + threadIdx.y;
  const int zs = 4 + blockIdx.z * ZC, ze = min(zs + ZC, n - 4);
  if (x0 >= n || y >= n - 4)
    return;
  const bool store = (MODE & Whole) ? true : (x0 >= 4 && x0 + VW <= n - 4);
  // Loads of x-4 .. x+VW+3 clamped to the row (the end groups' values are
  // never stored in the masked walks).
  const int xl = max(x0 - 4, 0), xr = min(x0 + VW, n - VW);
  const long long sy = n, sz = (long long)n * n;
  unsigned q = 0;
  // The queue's first eight planes z-4 .. z+3 of the run.
  for (int p = zs - 4; p < zs + 4; ++p)
    q ^= V::fold(ld<VW>(u + x0 + y * sy + p * sz));
  for (int z = zs; z < ze; ++z) {
    const long long c = x0 + y * sy + z * sz;
    unsigned h = q ^ V::fold(ld<VW>(u + c + 4 * sz)); // the new plane z+4
    h ^= V::fold(ld<VW>(u + xl + y * sy + z * sz));
    if (VW == 2)
      h ^= V::fold(ld<VW>(u + xl + 2 + y * sy + z * sz));
    h ^= V::fold(ld<VW>(u + xr + y * sy + z * sz));
    if (VW == 2)
      h ^= V::fold(ld<VW>(u + xr + 2 + y * sy + z * sz));
#pragma unroll
    for (int d = 1; d <= 4; ++d)
      h ^= V::fold(ld<VW>(u + c - d * sy)) ^ V::fold(ld<VW>(u + c + d * sy));
    h ^= V::fold(ld<VW>(up + c)) ^ V::fold(ld<VW>(vel + c));
    q = h;
    if (store) {
      const float f = __uint_as_float(h & 0x3fffffffu);
      if (VW == 2)
        __stwb((float2 *)(un + c), make_float2(f, f));
      else
        __stwb((float4 *)(un + c), make_float4(f, f, f, f));
    }
  }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 512;
  if (n < 16 || n % 4) {
    fprintf(stderr, "n must be a multiple of 4, at least 16\n");
    return 1;
  }
  const size_t cells = (size_t)n * n * n, bytes = cells * sizeof(float);
  float *u, *up, *vel, *un;
  CHECK(cudaMalloc(&u, bytes));
  CHECK(cudaMalloc(&up, bytes));
  CHECK(cudaMalloc(&vel, bytes));
  CHECK(cudaMalloc(&un, bytes));
  CHECK(cudaMemset(u, 0, bytes));
  CHECK(cudaMemset(up, 0, bytes));
  CHECK(cudaMemset(vel, 0, bytes));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const double points = (double)(n - 8) * (n - 8) * (n - 8);
  printf("rtm's walk (loads and stores, no arithmetic), f32, %d^3, domain [4, %d)^3\n", n,
         n - 4);
  const double copyGBs = copyRow(u, un, bytes, a, b, 28);
  auto run = [&](const char *name, auto kernel, int bx, int by, int vw, int zc,
                 bool line) {
    const int groups = line ? n / vw : (n - 8 + vw - 1) / vw;
    const dim3 grid((groups + bx - 1) / bx, (n - 8 + by - 1) / by, (n - 8 + zc - 1) / zc);
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, kernel));
    const double ms =
        timeIt([&] { kernel<<<grid, dim3(bx, by)>>>(u, up, vel, un, n); }, a, b);
    CHECK(cudaGetLastError());
    const double gbs = 16.0 * points / ms / 1e6;
    printf("%-28s %8.4f ms %7.0f GB/s  %5.1f %%  regs %3d\n", name, ms, gbs,
           100.0 * gbs / copyGBs, fa.numRegs);
    return 0;
  };
  run("32x4 v2 z16", walk<32, 4, 2, 16, Masked>, 32, 4, 2, 16, false);
  run("32x4 v2 z16 line", walk<32, 4, 2, 16, Line>, 32, 4, 2, 16, true);
  run("32x4 v2 z16 whole", walk<32, 4, 2, 16, Whole>, 32, 4, 2, 16, true);
  run("32x8 v2 z32", walk<32, 8, 2, 32, Masked>, 32, 8, 2, 32, false);
  run("32x8 v2 z32 line", walk<32, 8, 2, 32, Line>, 32, 8, 2, 32, true);
  run("32x8 v2 z32 whole", walk<32, 8, 2, 32, Whole>, 32, 8, 2, 32, true);
  run("32x8 v2 z16", walk<32, 8, 2, 16, Masked>, 32, 8, 2, 16, false);
  run("32x4 v2 z8", walk<32, 4, 2, 8, Masked>, 32, 4, 2, 8, false);
  run("32x4 v2 z32", walk<32, 4, 2, 32, Masked>, 32, 4, 2, 32, false);
  run("32x16 v2 z32", walk<32, 16, 2, 32, Masked>, 32, 16, 2, 32, false);
  run("64x4 v2 z16", walk<64, 4, 2, 16, Masked>, 64, 4, 2, 16, false);
  run("32x4 v4 z16", walk<32, 4, 4, 16, Masked>, 32, 4, 4, 16, false);
  run("32x4 v4 z16 line", walk<32, 4, 4, 16, Line>, 32, 4, 4, 16, true);
  run("32x4 v4 z16 whole", walk<32, 4, 4, 16, Whole>, 32, 4, 4, 16, true);
  run("32x4 v4 z32", walk<32, 4, 4, 32, Masked>, 32, 4, 4, 32, false);
  run("32x8 v4 z16", walk<32, 8, 4, 16, Masked>, 32, 8, 4, 16, false);
  return 0;
}
