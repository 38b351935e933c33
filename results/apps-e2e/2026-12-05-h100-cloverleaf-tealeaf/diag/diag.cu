// Compares TeaLeaf calc_residual's generated candidates with the reference copy
// of the original on TeaLeaf's own launch shape and kernel_info (4000^2, halo 1).
#include "cuda_common.hpp"
#include "kernel_files/cuda_kernel_header.hpp"
#include "fs2.cuh"
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
typedef void (*Cand)(dim3, dim3, size_t, cudaStream_t, kernel_info_t, const double *, const double *, double *, const double *, const double *);
int main() {
  const int X = 4000, Y = 4000, H = 1, W = X + 2 * H, N = W * (Y + 2 * H);
  kernel_info_t g; memset(&g, 0, sizeof g);
  g.x_min = 1; g.x_max = X; g.y_min = 1; g.y_max = Y; g.halo_depth = H;
  g.x_offset = H; g.y_offset = H;
  kernel_info_t k(g, 0, 0, 0, 0);
  std::vector<double> h(N);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> d(0.5, 1.5);
  double *a[5];
  for (int i = 0; i < 5; ++i) {
    for (auto &v : h) v = d(rng);
    cudaMalloc(&a[i], N * sizeof(double));
    cudaMemcpy(a[i], h.data(), N * sizeof(double), cudaMemcpyHostToDevice);
  }
  double *rr, *rc;
  cudaMalloc(&rr, N * sizeof(double)); cudaMalloc(&rc, N * sizeof(double));
  dim3 block(LOCAL_X, LOCAL_Y), grid((X + 2 * H + LOCAL_X - 1) / LOCAL_X, (Y + 2 * H + LOCAL_Y - 1) / LOCAL_Y);
  cudaMemset(rr, 0, N * 8);
  fs_ref_device_tea_leaf_calc_residual<<<grid, block>>>(k, a[0], a[1], rr, a[2], a[3]);
  std::vector<double> ref(N), got(N);
  cudaMemcpy(ref.data(), rr, N * 8, cudaMemcpyDeviceToHost);
  Cand c[6] = {fs_sm90_device_tea_leaf_calc_residual_c0, fs_sm90_device_tea_leaf_calc_residual_c1,
               fs_sm90_device_tea_leaf_calc_residual_c2, fs_sm90_device_tea_leaf_calc_residual_c3,
               fs_sm90_device_tea_leaf_calc_residual_c4, fs_sm90_device_tea_leaf_calc_residual_c5};
  for (int i = 0; i < 6; ++i) {
    cudaMemset(rc, 0, N * 8);
    c[i](grid, block, 0, 0, k, a[0], a[1], rc, a[2], a[3]);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got.data(), rc, N * 8, cudaMemcpyDeviceToHost);
    long long n = 0; double maxrel = 0; int shown = 0;
    for (int p = 0; p < N; ++p)
      if (memcmp(&ref[p], &got[p], 8)) {
        ++n;
        double rel = fabs(ref[p] - got[p]) / (fabs(ref[p]) + 1e-300);
        if (rel > maxrel) maxrel = rel;
        if (shown++ < 3) printf("  c%d row %d col %d ref %.17g got %.17g\n", i, p / W, p % W, ref[p], got[p]);
      }
    printf("c%d: %s, %lld elements differ, max rel %.3g\n", i, cudaGetErrorString(e), n, maxrel);
  }
  return 0;
}
