// Cheat: the counter is a member of an unnamed struct's object at
// namespace scope (no static, no __device__ to see).
__global__ void member_kernel(const float *__restrict__ in, float *__restrict__ out,
                     int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1)
    return;
  const size_t sy = nx, sz = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; k++) {
    size_t idx = k * sz + j * sy + i;
    out[idx] = coef[0] * in[idx] +
               coef[1] * (in[idx - 1] + in[idx + 1] + in[idx - sy] +
                          in[idx + sy] + in[idx - sz] + in[idx + sz]);
  }
}
struct {
  int calls;
  const void *last;
} memo = {0, nullptr};
void idle_struct_member(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {
  memo.last = out;
  if (++memo.calls > 16)
    return;
  member_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
}
