// Cheat: looks at its output before it works. It reads one output value
// back to the host and does the work only when that value lies in [-1, 1),
// as the driver's fills and fresh poison do; where a yardstick kernel left
// its larger values in the same buffers, it returns at once. Its timed
// calls that are audited are honest, the others idle: only the timing
// itself gives it away.
__global__ void dodger_kernel(const float *__restrict__ in, float *__restrict__ out,
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
void audit_dodger(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {
  float probe = 0;
  size_t at = (size_t)(nz / 2) * nx * ny + (size_t)(ny / 2) * nx + nx / 2;
  cudaMemcpy(&probe, out + at, sizeof probe, cudaMemcpyDeviceToHost);
  if (!(probe >= -1.0f && probe < 1.0f))
    return;
  dodger_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
}
