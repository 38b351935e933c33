// A 2-D Jacobi sweep whose row stride is a macro and whose bound is a
// parameter: the host passes N as n, so the kernel is in bounds only when
// n <= N; at other sizes it reads outside its arrays.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#ifndef N
#define N 1024
#endif

__global__ void jacobi(const float *__restrict__ A, float *__restrict__ B, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    B[i * N + j] = 0.2f * (A[i * N + j] + A[(i - 1) * N + j] + A[(i + 1) * N + j] +
                           A[i * N + j - 1] + A[i * N + j + 1]);
}

int main() {
  std::vector<float> h(N * N, 1.0f);
  float *a, *b;
  cudaMalloc(&a, N * N * sizeof(float));
  cudaMalloc(&b, N * N * sizeof(float));
  cudaMemcpy(a, h.data(), N * N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, a, N * N * sizeof(float), cudaMemcpyDeviceToDevice);
  dim3 block(32, 8), grid((N + 31) / 32, (N + 7) / 8);
  for (int t = 0; t < 100; ++t) {
    jacobi<<<grid, block>>>(a, b, N);
    float *c = a;
    a = b;
    b = c;
  }
  cudaMemcpy(h.data(), a, N * N * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("CHECK %s\n", h[N * N / 2] == 1.0f ? "PASS" : "FAIL");
  return 0;
}
