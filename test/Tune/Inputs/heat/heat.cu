// A small 3-D heat app: a 7-point star with __constant__ coefficients.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "heat.h"

__constant__ float coef[2];

__global__ void heat7(const float *__restrict__ in, float *__restrict__ out,
                      int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1)
    return;
  const size_t sy = nx;
  const size_t sz = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; k++) {
    size_t idx = k * sz + j * sy + i;
    out[idx] = coef[0] * in[idx] +
               coef[1] * (in[idx - 1] + in[idx + 1] + in[idx - sy] +
                          in[idx + sy] + in[idx - sz] + in[idx + sz]);
  }
}

int main() {
  const int n = 64;
  std::vector<float> h(initial_field(n));
  float c[2] = {0.4f, 0.1f};
  cudaMemcpyToSymbol(coef, c, sizeof c);
  float *a, *b;
  cudaMalloc(&a, h.size() * sizeof(float));
  cudaMalloc(&b, h.size() * sizeof(float));
  cudaMemcpy(a, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, a, h.size() * sizeof(float), cudaMemcpyDeviceToDevice);
  dim3 block(32, 4), grid((n - 2 + 31) / 32, (n - 2 + 3) / 4);
  for (int t = 0; t < 10; ++t) {
    heat7<<<grid, block>>>(a, b, n, n, n);
    std::swap(a, b);
  }
  cudaMemcpy(h.data(), a, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("CHECK %s\n", h[n * n * n / 2] == h[n * n * n / 2] ? "PASS" : "FAIL");
  return 0;
}
