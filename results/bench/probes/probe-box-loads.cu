// Probe: the 27-point f32 box, written out by hand as zsum computes it (each
// plane's three 3x3 sums added to the outputs one plane before, at and after
// it, four consecutive points per thread, runs of ZC planes), with two ways
// to spend fewer load instructions and L1 wavefronts per point:
//
//   SHFL: a thread's left and right neighbour columns come from the lanes
//         beside it (__shfl_up/down of the next group's first and the
//         previous group's last value); only lanes 0 and 31 load theirs.
//         A row then costs one float4 load, two shuffles and one load made
//         by two lanes, instead of a float4 and two scalar loads whose 32
//         lanes touch four 128-byte lines each.
//   YP:   rows per thread. With two, a thread loads four rows per plane for
//         two output rows instead of three for one.
//
// Every variant is checked against the first (32x4, one row, loads) over the
// whole output (same sums in the same order: bit-identical expected), then
// timed: median of 30 runs, GB/s of the compulsory 8 bytes per point and the
// fraction of a float4 copy kernel's on the same GPU.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-box results/bench/probes/probe-box-loads.cu &&
//   ./probe-box
#include "probe-common.cuh"

constexpr int N = 512;
__constant__ float C[27];

struct Row {
  float v[6]; // columns x0-1 .. x0+4
};

template <bool SHFL> __device__ __forceinline__ Row loadRow(const float *c, int lane) {
  Row r;
  const float4 m = __ldg((const float4 *)c);
  r.v[1] = m.x, r.v[2] = m.y, r.v[3] = m.z, r.v[4] = m.w;
  if (SHFL) {
    r.v[0] = __shfl_up_sync(0xffffffffu, m.w, 1);
    r.v[5] = __shfl_down_sync(0xffffffffu, m.x, 1);
    if (lane == 0)
      r.v[0] = __ldg(c - 1);
    if (lane == 31)
      r.v[5] = __ldg(c + 4);
  } else {
    r.v[0] = __ldg(c - 1);
    r.v[5] = __ldg(c + 4);
  }
  return r;
}

// Output rows y0 .. y0+YP-1 of columns x0 .. x0+3, planes zs .. ze-1. The
// domain is x in [4, 508) (whole groups), y and z in [1, N-1).
template <int BX, int BY, int YP, int ZC, bool SHFL>
__global__ void __launch_bounds__(BX *BY)
    boxK(const float *__restrict__ in, float *__restrict__ out) {
  constexpr int sy = N, sz = N * N;
  const int g = blockIdx.x * BX + threadIdx.x;
  const int x0 = 4 + 4 * g;
  const int y0 = 1 + (blockIdx.y * BY + threadIdx.y) * YP;
  const int zs = 1 + blockIdx.z * ZC;
  if (y0 >= N - 1 || zs >= N - 1)
    return; // whole warps: a warp is one row of BX >= 32 threads
  const bool xin = x0 + 4 <= N - 4;
  const int ze = min(zs + ZC, N - 1);
  const int lane = threadIdx.x & 31;
  float acc[3][YP][4]; // acc[k]: output plane p-1+k
#pragma unroll
  for (int k = 0; k < 3; ++k)
#pragma unroll
    for (int r = 0; r < YP; ++r)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        acc[k][r][i] = 0.0f;
  for (int p = zs - 1; p <= ze; ++p) {
    Row w[YP + 2];
#pragma unroll
    for (int j = 0; j < YP + 2; ++j) {
      // Rows past the domain's last (y0+YP-1 may be N-1 for YP=2) are read
      // but never stored.
      const int yy = min(y0 - 1 + j, N - 1);
      w[j] = loadRow<SHFL>(in + x0 + yy * sy + p * sz, lane);
    }
    // Plane p is dz = +1 of output p-1 (acc[0]), dz = 0 of p (acc[1]),
    // dz = -1 of p+1 (acc[2]).
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      const int cz = 2 - k;
#pragma unroll
      for (int r = 0; r < YP; ++r)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float s = acc[k][r][i];
#pragma unroll
          for (int dy = 0; dy < 3; ++dy)
#pragma unroll
            for (int dx = 0; dx < 3; ++dx)
              s = fmaf(C[cz * 9 + dy * 3 + dx], w[r + dy].v[i + dx], s);
          acc[k][r][i] = s;
        }
    }
    if (p - 1 >= zs && xin) {
#pragma unroll
      for (int r = 0; r < YP; ++r)
        if (y0 + r < N - 1)
          *(float4 *)(out + x0 + (y0 + r) * sy + (p - 1) * sz) =
              make_float4(acc[0][r][0], acc[0][r][1], acc[0][r][2], acc[0][r][3]);
    }
#pragma unroll
    for (int r = 0; r < YP; ++r)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        acc[0][r][i] = acc[1][r][i];
        acc[1][r][i] = acc[2][r][i];
        acc[2][r][i] = 0.0f;
      }
  }
}

int main() {
  const size_t n = (size_t)N * N * N, bytes = n * sizeof(float);
  const size_t alloc = bytes + 4096; // the last lanes' loads run past the end
  float *in, *out, *ref;
  unsigned long long *bad;
  CHECK(cudaMalloc(&in, alloc));
  CHECK(cudaMalloc(&out, alloc));
  CHECK(cudaMalloc(&ref, alloc));
  CHECK(cudaMalloc(&bad, sizeof(*bad)));
  fill<<<1024, 256>>>(in, (long long)(alloc / 4), 1u);
  float coef[27];
  for (int i = 0; i < 27; ++i)
    coef[i] = 0.01f * (i + 1) - 0.13f;
  CHECK(cudaMemcpyToSymbol(C, coef, sizeof(coef)));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const double points = 504.0 * (N - 2) * (N - 2);
  const double copyGBs = copyRow(in, out, bytes, a, b, 26);
  bool first = true;
  auto run = [&](const char *name, auto kernel, int bx, int by, int yp, int zc) {
    dim3 block(bx, by), grid((126 + bx - 1) / bx, (N - 2 + by * yp - 1) / (by * yp),
                             (N - 2 + zc - 1) / zc);
    float *dst = first ? ref : out;
    cudaMemset(dst, 0, bytes);
    kernel<<<grid, block>>>(in, dst);
    CHECK(cudaDeviceSynchronize());
    unsigned long long nbad = 0;
    if (!first) {
      cudaMemset(bad, 0, sizeof(*bad));
      countDiff<<<1024, 256>>>(ref, out, (long long)n, bad);
      cudaMemcpy(&nbad, bad, sizeof(nbad), cudaMemcpyDeviceToHost);
    }
    first = false;
    double ms = timeIt([&] { kernel<<<grid, block>>>(in, dst); }, a, b);
    CHECK(cudaGetLastError());
    double gbs = 8.0 * points / ms / 1e6;
    printf("%-26s %8.4f ms %7.0f GB/s  %5.1f %%  %s\n", name, ms, gbs,
           100.0 * gbs / copyGBs, nbad ? "MISMATCH" : "same");
    return 0;
  };
  run("32x4 y1 z8 loads", boxK<32, 4, 1, 8, false>, 32, 4, 1, 8);
  run("32x4 y1 z8 shfl", boxK<32, 4, 1, 8, true>, 32, 4, 1, 8);
  run("32x4 y2 z8 loads", boxK<32, 4, 2, 8, false>, 32, 4, 2, 8);
  run("32x4 y2 z8 shfl", boxK<32, 4, 2, 8, true>, 32, 4, 2, 8);
  run("32x2 y2 z8 shfl", boxK<32, 2, 2, 8, true>, 32, 2, 2, 8);
  run("64x4 y1 z4 loads", boxK<64, 4, 1, 4, false>, 64, 4, 1, 4);
  run("64x4 y1 z4 shfl", boxK<64, 4, 1, 4, true>, 64, 4, 1, 4);
  run("64x4 y1 z8 shfl", boxK<64, 4, 1, 8, true>, 64, 4, 1, 8);
  run("64x2 y2 z8 shfl", boxK<64, 2, 2, 8, true>, 64, 2, 2, 8);
  run("32x4 y1 z16 shfl", boxK<32, 4, 1, 16, true>, 32, 4, 1, 16);
  run("32x4 y2 z16 shfl", boxK<32, 4, 2, 16, true>, 32, 4, 2, 16);
  run("32x8 y1 z8 shfl", boxK<32, 8, 1, 8, true>, 32, 8, 1, 8);
  run("128x1 y1 z8 shfl", boxK<128, 1, 1, 8, true>, 128, 1, 1, 8);
  run("128x2 y1 z8 shfl", boxK<128, 2, 1, 8, true>, 128, 2, 1, 8);
  return 0;
}
