// Cheat: computes in half precision.
#include <cuda_fp16.h>
__global__ void half_kernel(const float *__restrict__ in, float *__restrict__ out,
                            int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1)
    return;
  const size_t sy = nx, sz = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; k++) {
    size_t idx = k * sz + j * sy + i;
    __half s = __float2half(in[idx - 1]) + __float2half(in[idx + 1]) +
               __float2half(in[idx - sy]) + __float2half(in[idx + sy]) +
               __float2half(in[idx - sz]) + __float2half(in[idx + sz]);
    out[idx] = __half2float(__float2half(coef[0]) * __float2half(in[idx]) +
                            __float2half(coef[1]) * s);
  }
}
void half_precision(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {
  half_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
}
