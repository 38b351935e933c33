// Probe: forms of fs-bench's footprint kernel (the yardstick that moves a
// stencil's compulsory bytes over its domain and nothing else), on one read
// and one written f32 array, against the float4 copy kernel of the tables.
// The forms differ in where a row's cut vectors go, how many vectors a
// thread moves, whether the arrays' roles are known at compile time and
// whether read-only loads go through __ldg:
//   rows   one vector per thread, whole vectors first and the cut ones
//          after them, roles read at run time;
//   flat   the same work as a flat grid-stride loop over (vector, row);
//   k4     four rows per thread, every load issued before the stores;
//   nat    one vector per thread in row order, a cut vector loaded point
//          by point; natF: loaded whole when it lies in the row;
//   fpn    row order, roles as constant expressions, __ldg for the
//          read-only array; fpnF: cut vectors loaded whole (the form the
//          driver uses, lib/Forge/BenchDriverTemplate.inc);
//   probe  probe-partial-sectors.cu's kernel (whole rows read).
// Medians of 30 launches after 3 warm-up launches (probe-common.cuh's timeIt),
// against its float4 copy kernel.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-footprint results/bench/probes/probe-footprint-forms.cu
//   ./probe-footprint
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "probe-common.cuh"

typedef float Elem;
#define FS_NARR 2
struct FsFootprint {
  Elem *arr[FS_NARR];
  long long off[FS_NARR]; // an array's element offset: its write offset
  unsigned char rd[FS_NARR], wr[FS_NARR];
  // Rows along the contiguous axis: [lo, hi) with stride sc; the rows'
  // starts l1 + i1, l2 + i2 (i1 < n1, i2 < n2) along strides s1, s2.
  long long lo, hi, sc, l1, n1, s1, l2, n2, s2;
  // Per row: nw whole vectors from vector gw0, then the vectors cutA and
  // cutB (-1: none) that the domain's ends cut. See fs_footprint_groups.
  long long gw0, nw, cutA, cutB;
};
template <int VW> struct alignas(VW * sizeof(Elem)) FsVec { Elem v[VW]; };
// Whole vectors move as 16 bytes. The stores go through __stwb (a plain
// write-back store): a vector store after loads in the same loop compiles
// to four point stores otherwise.
template <int VW> __device__ __forceinline__ FsVec<VW> fs_vload(const Elem *p) {
  union { uint4 u; FsVec<VW> v; } x;
  x.u = *(const uint4 *)p;
  return x.v;
}
template <int VW> __device__ __forceinline__ void fs_vstore(Elem *p, const FsVec<VW> &v) {
  if constexpr (std::is_same<Elem, float>::value && VW == 4) {
    __stwb((float4 *)p, make_float4(v.v[0], v.v[1], v.v[2], v.v[3]));
  } else if constexpr (std::is_same<Elem, double>::value && VW == 2) {
    __stwb((double2 *)p, make_double2(v.v[0], v.v[1]));
  } else {
    union { uint4 u; FsVec<VW> v; } x;
    x.v = v;
    __stwb((uint4 *)p, x.u);
  }
}
template <> __device__ __forceinline__ FsVec<1> fs_vload<1>(const Elem *p) {
  FsVec<1> v;
  v.v[0] = *p;
  return v;
}
template <> __device__ __forceinline__ void fs_vstore<1>(Elem *p, const FsVec<1> &v) {
  *p = v.v[0];
}

/// Vector g of a row (whole vectors first, then those cut by the row's
/// ends), as the `rows` and `flat` forms move it: an if/else on one vector
/// lets the compiler turn its whole store into point stores.
template <int VW>
__device__ __forceinline__ void fs_move_vector(const FsFootprint &f, long long row,
                                               long long g) {
  FsVec<VW> s;
  for (int l = 0; l < VW; ++l) s.v[l] = (Elem)0;
  if (g < f.nw) {
    const long long x0 = (f.gw0 + g) * VW;
    for (int a = 0; a < FS_NARR; ++a)
      if (f.rd[a]) {
        const FsVec<VW> v = fs_vload<VW>(f.arr[a] + f.off[a] + row + x0 * f.sc);
        for (int l = 0; l < VW; ++l) s.v[l] = s.v[l] + v.v[l];
      }
    for (int a = 0; a < FS_NARR; ++a)
      if (f.wr[a]) fs_vstore<VW>(f.arr[a] + f.off[a] + row + x0 * f.sc, s);
    return;
  }
  const long long x0 = (g == f.nw && f.cutA >= 0 ? f.cutA : f.cutB) * VW;
  for (int a = 0; a < FS_NARR; ++a)
    if (f.rd[a])
      for (int l = 0; l < VW; ++l)
        if (x0 + l >= f.lo && x0 + l < f.hi)
          s.v[l] = s.v[l] + f.arr[a][f.off[a] + row + (x0 + l) * f.sc];
  for (int a = 0; a < FS_NARR; ++a)
    if (f.wr[a])
      for (int l = 0; l < VW; ++l)
        if (x0 + l >= f.lo && x0 + l < f.hi)
          f.arr[a][f.off[a] + row + (x0 + l) * f.sc] = s.v[l];
}

// `rows`: one vector per thread, rows along the grid's y and z.
template <int VW>
__global__ void fs_footprint(FsFootprint f) {
  const long long ng = f.nw + (f.cutA >= 0) + (f.cutB >= 0);
  for (long long i2 = blockIdx.z; i2 < f.n2; i2 += gridDim.z)
    for (long long i1 = blockIdx.y * (long long)blockDim.y + threadIdx.y; i1 < f.n1;
         i1 += (long long)gridDim.y * blockDim.y) {
      const long long row = (f.l1 + i1) * f.s1 + (f.l2 + i2) * f.s2;
      for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ng;
           g += (long long)gridDim.x * blockDim.x)
        fs_move_vector<VW>(f, row, g);
    }
}

/// A row [lo, hi) in vectors of vw (lo >= 0): the whole ones, and the ones
/// the ends cut (both ends may cut one vector).
static void fs_footprint_groups(FsFootprint &f, long long vw) {
  f.gw0 = (f.lo + vw - 1) / vw;
  const long long gw1 = f.hi / vw;
  f.nw = gw1 > f.gw0 ? gw1 - f.gw0 : 0;
  f.cutA = f.cutB = -1;
  if (f.lo % vw != 0) f.cutA = f.lo / vw;
  if (f.hi % vw != 0 && (f.hi - 1) / vw != f.cutA) {
    if (f.cutA < 0) f.cutA = (f.hi - 1) / vw;
    else f.cutB = (f.hi - 1) / vw;
  }
}


// `flat`: persistent, t -> (vector g, row r), r -> (i1, i2).
template <int VW>
__global__ void fpflat(FsFootprint f) {
  const long long ng = f.nw + (f.cutA >= 0) + (f.cutB >= 0);
  const long long total = ng * f.n1 * f.n2;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long r = t / ng, g = t - r * ng;
    const long long i2 = r / f.n1, i1 = r - i2 * f.n1;
    fs_move_vector<VW>(f, (f.l1 + i1) * f.s1 + (f.l2 + i2) * f.s2, g);
  }
}
// Natural order: vector g0 + g, cut or whole.
template <int VW, bool FullLoad>
__global__ void fpnat(FsFootprint f) {
  const long long g0 = f.lo / VW, ng = (f.hi + VW - 1) / VW - g0;
  for (long long i2 = blockIdx.z; i2 < f.n2; i2 += gridDim.z)
    for (long long i1 = blockIdx.y * (long long)blockDim.y + threadIdx.y; i1 < f.n1;
         i1 += (long long)gridDim.y * blockDim.y) {
      const long long row = (f.l1 + i1) * f.s1 + (f.l2 + i2) * f.s2;
      for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ng;
           g += (long long)gridDim.x * blockDim.x) {
        const long long x0 = (g0 + g) * VW;
        const bool whole = x0 >= f.lo && x0 + VW <= f.hi;
        FsVec<VW> s;
        for (int l = 0; l < VW; ++l) s.v[l] = (Elem)0;
        for (int a = 0; a < FS_NARR; ++a)
          if (f.rd[a]) {
            if (whole || FullLoad) {
              const FsVec<VW> v = fs_vload<VW>(f.arr[a] + f.off[a] + row + x0 * f.sc);
              for (int l = 0; l < VW; ++l) s.v[l] = s.v[l] + v.v[l];
            } else {
              for (int l = 0; l < VW; ++l)
                if (x0 + l >= f.lo && x0 + l < f.hi)
                  s.v[l] = s.v[l] + f.arr[a][f.off[a] + row + (x0 + l) * f.sc];
            }
          }
        for (int a = 0; a < FS_NARR; ++a)
          if (f.wr[a]) {
            if (whole) {
              fs_vstore<VW>(f.arr[a] + f.off[a] + row + x0 * f.sc, s);
            } else {
              for (int l = 0; l < VW; ++l)
                if (x0 + l >= f.lo && x0 + l < f.hi)
                  f.arr[a][f.off[a] + row + (x0 + l) * f.sc] = s.v[l];
            }
          }
      }
    }
}
// K rows per thread, the loads of all K issued before any store.
template <int VW, int K>
__global__ void fpk(FsFootprint f) {
  const long long ng = f.nw + (f.cutA >= 0) + (f.cutB >= 0);
  for (long long i2 = blockIdx.z; i2 < f.n2; i2 += gridDim.z)
    for (long long b1 = blockIdx.y * (long long)K; b1 < f.n1; b1 += (long long)gridDim.y * K)
      for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ng;
           g += (long long)gridDim.x * blockDim.x) {
        const int nk = (int)(f.n1 - b1 < K ? f.n1 - b1 : K);
        FsVec<VW> s[K];
        long long row[K];
        for (int k = 0; k < K; ++k) {
          row[k] = (f.l1 + b1 + k) * f.s1 + (f.l2 + i2) * f.s2;
          for (int l = 0; l < VW; ++l) s[k].v[l] = (Elem)0;
        }
        if (g < f.nw) {
          const long long x0 = (f.gw0 + g) * VW;
          for (int a = 0; a < FS_NARR; ++a)
            if (f.rd[a])
              for (int k = 0; k < K; ++k)
                if (k < nk) {
                  const FsVec<VW> v = fs_vload<VW>(f.arr[a] + f.off[a] + row[k] + x0 * f.sc);
                  for (int l = 0; l < VW; ++l) s[k].v[l] = s[k].v[l] + v.v[l];
                }
          for (int a = 0; a < FS_NARR; ++a)
            if (f.wr[a])
              for (int k = 0; k < K; ++k)
                if (k < nk) fs_vstore<VW>(f.arr[a] + f.off[a] + row[k] + x0 * f.sc, s[k]);
          continue;
        }
        const long long x0 = (g == f.nw && f.cutA >= 0 ? f.cutA : f.cutB) * VW;
        for (int a = 0; a < FS_NARR; ++a)
          if (f.rd[a])
            for (int k = 0; k < K; ++k)
              for (int l = 0; l < VW; ++l)
                if (k < nk && x0 + l >= f.lo && x0 + l < f.hi)
                  s[k].v[l] = s[k].v[l] + f.arr[a][f.off[a] + row[k] + (x0 + l) * f.sc];
        for (int a = 0; a < FS_NARR; ++a)
          if (f.wr[a])
            for (int k = 0; k < K; ++k)
              for (int l = 0; l < VW; ++l)
                if (k < nk && x0 + l >= f.lo && x0 + l < f.hi)
                  f.arr[a][f.off[a] + row[k] + (x0 + l) * f.sc] = s[k].v[l];
      }
}

__host__ __device__ constexpr bool t_reads(int a) { return a == 0; }
__host__ __device__ constexpr bool t_writes(int a) { return a == 1; }
// One vector per thread in natural order; constexpr flags; __ldg for read-only.
template <int VW, bool FULL>
__global__ void fpn(FsFootprint f, long long ext) {
  const long long x0 = (f.lo / VW + blockIdx.x * (long long)blockDim.x + threadIdx.x) * VW;
  if (x0 >= f.hi) return;
  const bool whole = x0 >= f.lo && x0 + VW <= f.hi;
  const bool vload = whole || (FULL && x0 + VW <= ext);
  for (long long i2 = blockIdx.z; i2 < f.n2; i2 += gridDim.z)
    for (long long i1 = blockIdx.y * (long long)blockDim.y + threadIdx.y; i1 < f.n1;
         i1 += (long long)gridDim.y * blockDim.y) {
      const long long row = (f.l1 + i1) * f.s1 + (f.l2 + i2) * f.s2;
      FsVec<VW> s;
      for (int l = 0; l < VW; ++l) s.v[l] = (Elem)0;
#pragma unroll
      for (int a = 0; a < FS_NARR; ++a)
        if (t_reads(a)) {
          const Elem *p = f.arr[a] + f.off[a] + row + x0;
          if (vload) {
            FsVec<VW> v;
            if (!t_writes(a)) { union { uint4 u; FsVec<VW> v; } x; x.u = __ldg((const uint4 *)p); v = x.v; }
            else v = fs_vload<VW>(p);
            for (int l = 0; l < VW; ++l) s.v[l] = s.v[l] + v.v[l];
          } else {
            for (int l = 0; l < VW; ++l)
              if (x0 + l >= f.lo && x0 + l < f.hi) s.v[l] = s.v[l] + p[l];
          }
        }
#pragma unroll
      for (int a = 0; a < FS_NARR; ++a)
        if (t_writes(a)) {
          Elem *p = f.arr[a] + f.off[a] + row + x0;
          if (whole) fs_vstore<VW>(p, s);
          else
            for (int l = 0; l < VW; ++l)
              if (x0 + l >= f.lo && x0 + l < f.hi) p[l] = s.v[l];
        }
    }
}
// The probe's kernel, rows of the domain only.
__global__ void probek(const float *__restrict__ in, float *__restrict__ out, long long s1, long long s2, int a, int b, int n) {
  const int x0 = 4 * threadIdx.x;
  if (x0 >= n) return;
  const long long row = (blockIdx.y + 1) * s1 + (blockIdx.z + (s2 ? 1 : 0)) * s2;
  const float4 v = *(const float4 *)(in + row + x0);
  const float4 r = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  if (x0 >= a && x0 + 4 <= b) { *(float4 *)(out + row + x0) = r; return; }
  const float p[4] = {r.x, r.y, r.z, r.w};
  for (int l = 0; l < 4; ++l) if (x0 + l >= a && x0 + l < b) out[row + x0 + l] = p[l];
}
// One domain: rows [lo, nx - lo) of rows 1..ny-2 (and planes 1..nz-2 in 3-D).
// % is of the float4 copy kernel's bandwidth, the domain's bytes (4 read
// + 4 written per point) over each form's median time.
static void run(long long nx, long long ny, long long nz, int lo) {
  const long long n = nx * ny * nz;
  float *in, *out;
  cudaMalloc(&in, n * 4);
  cudaMalloc(&out, n * 4);
  cudaMemset(in, 0, n * 4);
  cudaMemset(out, 0, n * 4);
  const long long dz = nz > 1 ? nz - 2 : 1;
  const double bytes = (double)(nx - 2 * lo) * (ny - 2) * dz * 8;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto med = [&](auto launch) { return timeIt(launch, e0, e1); };
  const float tc = med([&] { copyKernel<<<132 * 32, 256>>>((const float4 *)in, (float4 *)out, n / 4); });
  const double cbw = 2.0 * n * 4 / tc / 1e6;
  printf("%lldx%lldx%lld, x in [%d,%lld): copy %.4f ms %6.0f GB/s\n", nx, ny, nz, lo,
         nx - lo, tc, cbw);
  auto row = [&](const char *name, float t) {
    printf("  %-6s %.4f ms %6.0f GB/s %5.1f%%\n", name, t, bytes / t / 1e6,
           100 * bytes / t / 1e6 / cbw);
  };
  FsFootprint f;
  f.arr[0] = in, f.arr[1] = out, f.off[0] = f.off[1] = 0;
  f.rd[0] = 1, f.rd[1] = 0, f.wr[0] = 0, f.wr[1] = 1;
  f.lo = lo, f.hi = nx - lo, f.sc = 1, f.l1 = 1, f.n1 = ny - 2, f.s1 = nx;
  f.l2 = nz > 1 ? 1 : 0, f.n2 = dz, f.s2 = nx * ny;
  fs_footprint_groups(f, 4);
  const long long ng = f.nw + (f.cutA >= 0) + (f.cutB >= 0); // cut vectors last
  const long long ngn = (f.hi + 3) / 4 - f.lo / 4;           // in row order
  const int bx = (int)std::min(256LL, (ng + 31) / 32 * 32);
  const int bxn = (int)std::min(256LL, (ngn + 31) / 32 * 32);
  const dim3 rows((ng + bx - 1) / bx, std::min(ny - 2, 65535LL), std::min(dz, 65535LL));
  const dim3 rowsn((ngn + bxn - 1) / bxn, std::min(ny - 2, 65535LL), std::min(dz, 65535LL));
  row("rows", med([&] { fs_footprint<4><<<rows, bx>>>(f); }));
  row("flat", med([&] { fpflat<4><<<132 * 64, 256>>>(f); }));
  row("k4", med([&] {
        fpk<4, 4><<<dim3(rows.x, std::min((ny - 2 + 3) / 4, 65535LL), rows.z), bx>>>(f);
      }));
  row("nat", med([&] { fpnat<4, false><<<rowsn, bxn>>>(f); }));
  row("natF", med([&] { fpnat<4, true><<<rowsn, bxn>>>(f); }));
  row("fpn", med([&] { fpn<4, false><<<rowsn, bxn>>>(f, nx); }));
  row("fpnF", med([&] { fpn<4, true><<<rowsn, bxn>>>(f, nx); }));
  if (nx / 4 <= 1024)
    row("probe", med([&] {
          probek<<<dim3(1, std::min(ny - 2, 65535LL), std::min(dz, 65535LL)), nx / 4>>>(
              in, out, nx, nz > 1 ? nx * ny : 0, (int)f.lo, (int)f.hi, (int)nx);
        }));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(in);
  cudaFree(out);
  cudaError_t e = cudaGetLastError();
  if (e) printf("%s\n", cudaGetErrorString(e));
}

int main() {
  run(8192, 8192, 1, 1);
  run(512, 512, 512, 1);
  run(512, 512, 512, 4);
  run(384, 384, 384, 4);
}
