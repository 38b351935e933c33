#include <cstdio>
#include <vector>
#include "forgestencil/use_ours.h"
#include "forgestencil/checks.h"

// Hotspot-style neighbours: linear indices chosen at the edges.
__global__ void k_lin_ternary(const float *t, float *out, int nx, int ny, float a) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int j = blockDim.y * blockIdx.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  int c = i + j * nx;
  int w = (i == 0) ? c : c - 1;
  int e = (i == nx - 1) ? c : c + 1;
  int n = (j == 0) ? c : c - nx;
  int s = (j == ny - 1) ? c : c + nx;
  out[c] = t[c] + a * (t[w] + t[e] + t[n] + t[s] - 4.0f * t[c]);
}
#include "forgestencil/fs_k_lin_ternary.cuh"
// The same choices made by ifs, and one by an inequality, in double.
__global__ void k_lin_if(const double *t, double *out, int nx, int ny) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int j = blockDim.y * blockIdx.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  int c = j * nx + i;
  int w = c - 1, e = c + 1, n = c - nx;
  if (i == 0) w = c;
  if (i == nx - 1) e = c;
  if (j == 0) n = c;
  int s = (j < ny - 1) ? c + nx : c;
  out[c] = 0.5 * t[c] + 0.125 * (t[w] + t[e] + t[n] + t[s]);
}
#include "forgestencil/fs_k_lin_if.cuh"
// Three dimensions, the plane stride a local.
__global__ void k_lin_3d(const float *t, float *out, int nx, int ny, int nz) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int j = blockDim.y * blockIdx.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  int xy = nx * ny;
  int c = i + j * nx + k * xy;
  int b = (k == 0) ? c : c - xy;
  int u = (k >= nz - 1) ? c : c + xy;
  int w = (i > 0) ? c - 1 : c;
  out[c] = 0.6f * t[c] + 0.2f * t[b] + 0.1f * t[u] + 0.1f * t[w];
}
#include "forgestencil/fs_k_lin_3d.cuh"
// Pointer parameters moved to the thread's point.
__global__ void k_ptr_param(float *dst, const float *src, int nx, int ny) {
  int i = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int j = blockDim.y * blockIdx.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  src += j * nx + i;
  dst += j * nx + i;
  dst[0] = 0.25f * (src[-1] + src[1] + src[-nx] + src[nx]) - src[0];
}
#include "forgestencil/fs_k_ptr_param.cuh"
// Pointer parameters stepped a plane at a time by a loop.
__global__ void k_ptr_loop(const double *in, double *out, int nx, int ny, int nz) {
  int i = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int j = blockDim.y * blockIdx.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  int xy = nx * ny;
  in += xy + j * nx + i;
  out += xy + j * nx + i;
  for (int k = 1; k < nz - 1; ++k) {
    *out = in[-xy] + in[xy] + in[-1] + in[1] + in[-nx] + in[nx] - 6.0 * in[0];
    in += xy;
    out += xy;
  }
}
#include "forgestencil/fs_k_ptr_loop.cuh"

// Coordinates clamped by inequalities that keep the point at the edge.
__global__ void k_coord_ineq(const float *t, float *out, int nx, int ny) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int j = blockDim.y * blockIdx.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  int w = (i > 0) ? i - 1 : i;
  int s = (j < ny - 1) ? j + 1 : j;
  int e = (nx - 1 > i) ? i + 1 : i;
  int n = (j >= 1) ? j - 1 : j;
  out[j * nx + i] = 0.4f * t[j * nx + i] + 0.1f * t[j * nx + w] + 0.2f * t[s * nx + i] + 0.1f * t[j * nx + e] + 0.2f * t[n * nx + i];
}
#include "forgestencil/fs_k_coord_ineq.cuh"
// Parameters first moved, and a scalar parameter scaled, inside the kernel.
__global__ void k_ptr_first_in_loop(const double *in, double *out, int nx, int ny, int nz, double a) {
  int i = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int j = blockDim.y * blockIdx.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  int xy = nx * ny;
  a *= 0.5;
  for (int k = 0; k < nz; ++k) {
    out[j * nx + i] = a * (in[j * nx + i - 1] + in[j * nx + i + 1]) + in[(j - 1) * nx + i];
    in += xy;
    out += xy;
  }
}
#include "forgestencil/fs_k_ptr_first_in_loop.cuh"

// Guards kept in flags cleared by ifs of their block.
__global__ void k_flag(const float *in, float *out, int nx, int ny) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  bool valid = true;
  if (i < 1) valid = false;
  if (i >= nx - 1) valid = false;
  if (j < 1 || j >= ny - 1) { valid = false; }
  if (valid) {
    const int c = j * nx + i;
    out[c] = 0.2f * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]) + 0.2f * in[c];
  }
}
#include "forgestencil/fs_k_flag.cuh"
__global__ void k_flag_return(const double *in, double *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  bool inside = true;
  if (i >= nx) inside = false;
  if (j >= ny) inside = false;
  if (!inside) return;
  int w = (i == 0) ? i : i - 1;
  int e = (i == nx - 1) ? i : i + 1;
  out[j * nx + i] = 0.5 * in[j * nx + i] + 0.25 * (in[j * nx + w] + in[j * nx + e]);
}
#include "forgestencil/fs_k_flag_return.cuh"

int main() {
  const int nx = 64, ny = 24, nz = 6, n = nx * ny * nz;
  std::vector<float> h(n);
  std::vector<double> hd(n);
  for (int i = 0; i < n; ++i) {
    h[i] = float((i * 37) % 101) / 7.0f - 6.0f;
    hd[i] = double((i * 53) % 89) / 3.0 - 14.0;
  }
  float *a, *b;
  double *da, *db;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&da, n * sizeof(double));
  cudaMalloc(&db, n * sizeof(double));
  cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(da, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  dim3 block(32, 8), grid(nx / 32, ny / 8), grid3(nx / 32, ny / 8, nz);
  if (forgestencil::use_ours()) {
    fs_launch_k_lin_ternary(grid, block, 0, 0, a, b, nx, ny, 0.2f);
  } else {
    k_lin_ternary<<<grid, block>>>(a, b, nx, ny, 0.2f);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_lin_3d(grid3, block, 0, 0, b, a, nx, ny, nz);
  } else {
    k_lin_3d<<<grid3, block>>>(b, a, nx, ny, nz);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_ptr_param(grid, block, 0, 0, b, a, nx, ny);
  } else {
    k_ptr_param<<<grid, block>>>(b, a, nx, ny);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_lin_if(grid, block, 0, 0, da, db, nx, ny);
  } else {
    k_lin_if<<<grid, block>>>(da, db, nx, ny);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_ptr_loop(grid, block, 0, 0, db, da, nx, ny, nz);
  } else {
    k_ptr_loop<<<grid, block>>>(db, da, nx, ny, nz);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_ptr_first_in_loop(grid, block, 0, 0, da, db, nx, ny, nz, 0.3);
  } else {
    k_ptr_first_in_loop<<<grid, block>>>(da, db, nx, ny, nz, 0.3);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_coord_ineq(grid, block, 0, 0, b, a, nx, ny);
  } else {
    k_coord_ineq<<<grid, block>>>(b, a, nx, ny);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_flag(grid, block, 0, 0, a, b, nx, ny);
  } else {
    k_flag<<<grid, block>>>(a, b, nx, ny);
  }
  if (forgestencil::use_ours()) {
    fs_launch_k_flag_return(grid, block, 0, 0, db, da, nx, ny);
  } else {
    k_flag_return<<<grid, block>>>(db, da, nx, ny);
  }
  cudaMemcpy(h.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hd.data(), da, n * sizeof(double), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += h[i] * double(i % 13 + 1) + hd[i];
  std::printf("checksum %.6f\n", sum);
  return 0;
}
