// The z-march with register reuse: each thread walks its column and keeps
// the planes below, at and above the point in registers, so each step loads
// one new plane value instead of three. The original's launch, so exactly
// its points; the original's order of additions, so the same values.
__global__ void fs_llm_heat7_k(const float *__restrict__ in,
                               float *__restrict__ out, int nx, int ny,
                               int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1 || nz < 3)
    return;
  const size_t sy = nx;
  const size_t sz = (size_t)nx * ny;
  size_t idx = sz + j * sy + i;
  float below = in[idx - sz], center = in[idx];
  for (int k = 1; k < nz - 1; k++, idx += sz) {
    float above = in[idx + sz];
    out[idx] = coef[0] * center +
               coef[1] * (in[idx - 1] + in[idx + 1] + in[idx - sy] +
                          in[idx + sy] + below + above);
    below = center;
    center = above;
  }
}
void fs_llm_heat7(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                  const float *in, float *out, int nx, int ny, int nz) {
  fs_llm_heat7_k<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
}
