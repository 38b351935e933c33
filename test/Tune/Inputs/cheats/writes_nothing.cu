// Cheat: returns at once and writes nothing.
void writes_nothing(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {}
