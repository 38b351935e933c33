// fdtd_kernels.cuh - Yee-scheme update kernels (3-D launch, one thread per cell)
#ifndef FDTD_KERNELS_CUH
#define FDTD_KERNELS_CUH

#include "fdtd.h"

// Faraday: H(n+1/2) = H(n-1/2) - db * curl E(n)
__global__ void update_h(float* hx, float* hy, float* hz,
                         const float* ex, const float* ey, const float* ez,
                         float db, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1)
        return;

    hx[IDX(i, j, k)] += db * ((ey[IDX(i, j, k + 1)] - ey[IDX(i, j, k)])
                            - (ez[IDX(i, j + 1, k)] - ez[IDX(i, j, k)]));
    hy[IDX(i, j, k)] += db * ((ez[IDX(i + 1, j, k)] - ez[IDX(i, j, k)])
                            - (ex[IDX(i, j, k + 1)] - ex[IDX(i, j, k)]));
    hz[IDX(i, j, k)] += db * ((ex[IDX(i, j + 1, k)] - ex[IDX(i, j, k)])
                            - (ey[IDX(i + 1, j, k)] - ey[IDX(i, j, k)]));
}

// Ampere with losses: E(n+1) = ca * E(n) + cb * curl H(n+1/2)
// ca, cb are per-cell material coefficients.
__global__ void update_e(float* ex, float* ey, float* ez,
                         const float* hx, const float* hy, const float* hz,
                         const float* ca, const float* cb,
                         int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i >= nx || j >= ny || k >= nz)
        return;

    int c = IDX(i, j, k);
    ex[c] = ca[c] * ex[c] + cb[c] * ((hz[c] - hz[IDX(i, j - 1, k)])
                                   - (hy[c] - hy[IDX(i, j, k - 1)]));
    ey[c] = ca[c] * ey[c] + cb[c] * ((hx[c] - hx[IDX(i, j, k - 1)])
                                   - (hz[c] - hz[IDX(i - 1, j, k)]));
    ez[c] = ca[c] * ez[c] + cb[c] * ((hy[c] - hy[IDX(i - 1, j, k)])
                                   - (hx[c] - hx[IDX(i, j - 1, k)]));
}

// Perfect electric conductor on the box faces: tangential E is zero.
__global__ void pec_x_faces(float* ey, float* ez, int nx, int ny, int nz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int k = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= ny || k >= nz)
        return;
    ey[IDX(0, j, k)] = 0.0f;
    ez[IDX(0, j, k)] = 0.0f;
    ey[IDX(nx - 1, j, k)] = 0.0f;
    ez[IDX(nx - 1, j, k)] = 0.0f;
}

__global__ void pec_y_faces(float* ex, float* ez, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || k >= nz)
        return;
    ex[IDX(i, 0, k)] = 0.0f;
    ez[IDX(i, 0, k)] = 0.0f;
    ex[IDX(i, ny - 1, k)] = 0.0f;
    ez[IDX(i, ny - 1, k)] = 0.0f;
}

__global__ void pec_z_faces(float* ex, float* ey, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    ex[IDX(i, j, 0)] = 0.0f;
    ey[IDX(i, j, 0)] = 0.0f;
    ex[IDX(i, j, nz - 1)] = 0.0f;
    ey[IDX(i, j, nz - 1)] = 0.0f;
}

// Soft point dipole: adds the source current to one Ez sample.
__global__ void add_source(float* ez, int idx, float value)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        ez[idx] += value;
}

#endif
