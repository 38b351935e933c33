// Probe: how fast is the zsum traversal of a 3-D f32 box of radius 1 by
// itself, without its arithmetic? Each kernel walks the 512^3 domain as
// zsum.BXxBY.v4.y1.zZC does (a (BX, BY) block of threads, four consecutive
// points per thread, runs of ZC planes, the halo planes before and after a
// run) and loads exactly what it loads, but combines the values with one
// max per value instead of the 27-point sums. If these reach the copy's
// bandwidth, the box's gap is its arithmetic and instruction stream; if
// not, the traversal itself bounds it. Blocks 128 threads wide cover whole
// rows (504 of 512 columns).
//
//   nvcc -O3 -arch=sm_90 -o probe results/bench/probes/probe-traversal.cu && ./probe
//
// The same walks also run with the planes (or rows) padded, so that their
// strides are not powers of two.
//
// Prints one line per kernel: median of 30 timed runs, GB/s of the
// compulsory 8 bytes per point, and the fraction of the copy's.
#include "probe-common.cuh"

constexpr int N = 512;

__device__ __forceinline__ float4 mx(float4 a, float4 b) {
  return make_float4(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z),
                     fmaxf(a.w, b.w));
}

// HALO: also the rows above and below and the columns left and right, and
// the planes before and after each run, as the box reads them.
template <int BX, int BY, int ZC, bool HALO>
__global__ void __launch_bounds__(BX * BY)
    traverse(const float *__restrict__ in, float *__restrict__ out, int sy,
             int sz) {
  const int x0 = 4 + (blockIdx.x * BX + threadIdx.x) * 4; // first aligned column
  const int y = 1 + blockIdx.y * BY + threadIdx.y;
  const int zs = 1 + blockIdx.z * ZC;
  if (x0 + 4 > N - 1 || y >= N - 1 || zs >= N - 1)
    return;
  const int ze = min(zs + ZC, N - 1);
  float4 prev = make_float4(0, 0, 0, 0);
  const int first = HALO ? zs - 1 : zs, last = HALO ? ze + 1 : ze;
  for (int p = first; p < last; ++p) {
    const float *c = in + x0 + y * sy + p * sz;
    float4 v = __ldg((const float4 *)c);
    if (HALO) {
      const float4 n = __ldg((const float4 *)(c - sy));
      const float4 s = __ldg((const float4 *)(c + sy));
      const float l0 = __ldg(c - 1), l1 = __ldg(c - sy - 1), l2 = __ldg(c + sy - 1);
      const float r0 = __ldg(c + 4), r1 = __ldg(c - sy + 4), r2 = __ldg(c + sy + 4);
      v = mx(v, mx(n, s));
      v.x = fmaxf(v.x, fmaxf(l0, fmaxf(l1, l2)));
      v.w = fmaxf(v.w, fmaxf(r0, fmaxf(r1, r2)));
    }
    // Output p - 1 once its last plane has been read, as zsum stores.
    if (!HALO || (p - 1 >= zs && p - 1 < ze))
      *(float4 *)(out + x0 + y * sy + (HALO ? p - 1 : p) * sz) = mx(prev, v);
    prev = v;
  }
}

__device__ __forceinline__ float2 mx2(float2 a, float2 b) {
  return make_float2(fmaxf(a.x, b.x), fmaxf(a.y, b.y));
}

// The rtm update's walk (zmarch.BXxBY.v2.y1.zZC.q): pairs of points, the
// centre column of u in a queue of nine planes (one new plane per step),
// u's four neighbours each way along x and y in the current plane, u_prev
// and vel at the point; 16 compulsory bytes per point.
template <int BX, int BY, int ZC>
__global__ void __launch_bounds__(BX * BY)
    traverseRtm(const float *__restrict__ u, const float *__restrict__ up,
                const float *__restrict__ vel, float *__restrict__ out) {
  const int x0 = 4 + (blockIdx.x * BX + threadIdx.x) * 2;
  const int y = 4 + blockIdx.y * BY + threadIdx.y;
  const int zs = 4 + blockIdx.z * ZC;
  if (x0 + 2 > N - 4 || y >= N - 4 || zs >= N - 4)
    return;
  const int ze = min(zs + ZC, N - 4);
  const int sy = N, sz = N * N;
  float2 q[9];
#pragma unroll
  for (int d = 0; d < 8; ++d)
    q[d] = __ldg((const float2 *)(u + x0 + y * sy + (zs - 4 + d) * sz));
  for (int z = zs; z < ze; ++z) {
    const int c = x0 + y * sy + z * sz;
    q[8] = __ldg((const float2 *)(u + c + 4 * sz));
    float2 v = mx2(__ldg((const float2 *)(up + c)), __ldg((const float2 *)(vel + c)));
#pragma unroll
    for (int d = 1; d <= 4; ++d) {
      v = mx2(v, __ldg((const float2 *)(u + c + d * sy)));
      v = mx2(v, __ldg((const float2 *)(u + c - d * sy)));
    }
#pragma unroll
    for (int d = 2; d <= 4; d += 2) {
      v = mx2(v, __ldg((const float2 *)(u + c + d)));
      v = mx2(v, __ldg((const float2 *)(u + c - d)));
    }
#pragma unroll
    for (int d = 0; d < 9; ++d)
      v = mx2(v, q[d]);
    *(float2 *)(out + c) = v;
#pragma unroll
    for (int d = 0; d < 8; ++d)
      q[d] = q[d + 1];
  }
}

int main() {
  const size_t n = (size_t)N * N * N, bytes = n * sizeof(float);
  // Room for the padded layouts: rows of N + 32, planes of N rows + 8.
  const size_t alloc = (size_t)(N + 32) * (N + 8) * N * sizeof(float);
  float *in, *out;
  CHECK(cudaMalloc(&in, alloc));
  CHECK(cudaMalloc(&out, alloc));
  CHECK(cudaMemset(in, 0, alloc));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  // Whole groups cover columns 4..507 (the box's edge columns are left out).
  const double points = 504.0 * (N - 2) * (N - 2);
  const double copyGBs = copyRow(in, out, bytes, a, b, 22);
  int sy = N, sz = N * N;
  auto run = [&](const char *name, auto kernel, int bx, int by, int zc) {
    dim3 block(bx, by), grid(((N - 8) / 4 + bx - 1) / bx, (N - 2 + by - 1) / by,
                             (N - 2 + zc - 1) / zc);
    double ms = timeIt([&] { kernel<<<grid, block>>>(in, out, sy, sz); }, a, b);
    CHECK(cudaGetLastError());
    double gbs = 8.0 * points / ms / 1e6;
    printf("%-22s %8.4f ms %7.0f GB/s  %5.1f %%\n", name, ms, gbs,
           100.0 * gbs / copyGBs);
    return 0;
  };
  run("32x4 columns z8", traverse<32, 4, 8, false>, 32, 4, 8);
  run("32x4 columns z16", traverse<32, 4, 16, false>, 32, 4, 16);
  run("32x4 columns z32", traverse<32, 4, 32, false>, 32, 4, 32);
  run("32x4 box loads z8", traverse<32, 4, 8, true>, 32, 4, 8);
  run("32x4 box loads z16", traverse<32, 4, 16, true>, 32, 4, 16);
  run("32x4 box loads z32", traverse<32, 4, 32, true>, 32, 4, 32);
  run("128x1 columns z8", traverse<128, 1, 8, false>, 128, 1, 8);
  run("128x1 columns z32", traverse<128, 1, 32, false>, 128, 1, 32);
  run("128x1 box loads z8", traverse<128, 1, 8, true>, 128, 1, 8);
  run("128x1 box loads z16", traverse<128, 1, 16, true>, 128, 1, 16);
  run("128x1 box loads z32", traverse<128, 1, 32, true>, 128, 1, 32);
  run("128x2 box loads z8", traverse<128, 2, 8, true>, 128, 2, 8);
  run("128x2 box loads z16", traverse<128, 2, 16, true>, 128, 2, 16);
  run("64x2 box loads z8", traverse<64, 2, 8, true>, 64, 2, 8);
  run("64x4 box loads z8", traverse<64, 4, 8, true>, 64, 4, 8);
  // One plane per thread (three read), two, four.
  run("32x4 box loads z1", traverse<32, 4, 1, true>, 32, 4, 1);
  run("128x2 box loads z1", traverse<128, 2, 1, true>, 128, 2, 1);
  run("128x2 box loads z2", traverse<128, 2, 2, true>, 128, 2, 2);
  run("128x2 box loads z4", traverse<128, 2, 4, true>, 128, 2, 4);
  run("64x4 box loads z4", traverse<64, 4, 4, true>, 64, 4, 4);
  run("128x4 box loads z8", traverse<128, 4, 8, true>, 128, 4, 8);
  // Runs so long that the whole grid is resident at once (one wave): every
  // block marches through its planes at the same time as all the others.
  run("32x4 columns z128", traverse<32, 4, 128, false>, 32, 4, 128);
  run("32x4 columns z255", traverse<32, 4, 255, false>, 32, 4, 255);
  run("32x4 box loads z64", traverse<32, 4, 64, true>, 32, 4, 64);
  run("32x4 box loads z128", traverse<32, 4, 128, true>, 32, 4, 128);
  run("32x4 box loads z255", traverse<32, 4, 255, true>, 32, 4, 255);
  run("64x4 box loads z128", traverse<64, 4, 128, true>, 64, 4, 128);
  run("64x4 box loads z255", traverse<64, 4, 255, true>, 64, 4, 255);
  {
    float *up, *vel;
    CHECK(cudaMalloc(&up, bytes));
    CHECK(cudaMalloc(&vel, bytes));
    CHECK(cudaMemset(up, 0, bytes));
    CHECK(cudaMemset(vel, 0, bytes));
    const double rtmPoints = 504.0 * (N - 8) * (N - 8);
    auto rtm = [&](const char *name, auto kernel, int bx, int by, int zc) {
      dim3 block(bx, by), grid((252 + bx - 1) / bx, (N - 8 + by - 1) / by,
                               (N - 8 + zc - 1) / zc);
      double ms = timeIt([&] { kernel<<<grid, block>>>(in, up, vel, out); }, a, b);
      double gbs = 16.0 * rtmPoints / ms / 1e6;
      printf("%-22s %8.4f ms %7.0f GB/s  %5.1f %%\n", name, ms, gbs,
             100.0 * gbs / copyGBs);
    };
    rtm("rtm 32x8 z32", traverseRtm<32, 8, 32>, 32, 8, 32);
    rtm("rtm 32x8 z16", traverseRtm<32, 8, 16>, 32, 8, 16);
    rtm("rtm 32x4 z32", traverseRtm<32, 4, 32>, 32, 4, 32);
    rtm("rtm 64x4 z32", traverseRtm<64, 4, 32>, 64, 4, 32);
    rtm("rtm 128x2 z32", traverseRtm<128, 2, 32>, 128, 2, 32);
    CHECK(cudaGetLastError());
  }
  sz = N * (N + 8); // planes 8 rows apart more
  printf("planes of %d rows\n", N + 8);
  run("32x4 columns z8", traverse<32, 4, 8, false>, 32, 4, 8);
  run("32x4 box loads z8", traverse<32, 4, 8, true>, 32, 4, 8);
  run("32x4 box loads z32", traverse<32, 4, 32, true>, 32, 4, 32);
  run("128x2 box loads z8", traverse<128, 2, 8, true>, 128, 2, 8);
  sy = N + 32, sz = (N + 32) * N; // rows of N + 32
  printf("rows of %d\n", N + 32);
  run("32x4 columns z8", traverse<32, 4, 8, false>, 32, 4, 8);
  run("32x4 box loads z8", traverse<32, 4, 8, true>, 32, 4, 8);
  run("32x4 box loads z32", traverse<32, 4, 32, true>, 32, 4, 32);
  run("128x2 box loads z8", traverse<128, 2, 8, true>, 128, 2, 8);
  return 0;
}
