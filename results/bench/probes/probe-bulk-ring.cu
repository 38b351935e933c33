// Probe: the 27-point f32 box marching along z with its planes brought into
// shared memory by bulk asynchronous copies (cp.async.bulk, sm_90), one
// producer warp per block and the other warps computing, against the same
// arithmetic read through L1 as the generated zsum kernels do.
//
// Why: the generated box kernels run at 76-82 % of the copy kernel and 77-82 %
// of fs-bench's footprint kernel (NOTES runs 32-34); every thread both issues
// its loads and waits for them, and a plane's loads of the next step are in
// flight only while a thread is not computing. Here the copies run up to
// D-1 planes ahead of the computing warps, issued by a few lanes of one warp
// (one instruction per row of the plane's tile), and completion is counted in
// bytes on an mbarrier per ring slot; a second mbarrier per slot tells the
// producer when all computing warps are done with it. No cp.async per
// thread, no barrier across the block in the loop.
//
// The box (domain [1, n-1)^3, weights in __constant__ memory) is computed as
// zsum does: each plane's three rows are added into the outputs one plane
// before, at and after it, each row as w0*a then two fused multiply-adds,
// the rows in the original's order (9 rows, plane after plane), so every
// kernel here does the same 9 multiplies, 18 fused multiply-adds and 8 adds
// per point and must agree bit for bit with the one-point-per-thread
// reference. Four consecutive points per thread (a float4 group); groups
// cut by x = 1 or x = n-1 store their points inside the domain only.
// Outputs are prefilled before the checked launch, so a write outside the
// domain is a mismatch too.
//
// Variants besides the exact kernels, for timing: `whole` stores every
// group whole (wrong at x = 0 and n-1: no sector is written in part), `light`
// keeps the loads and stores but replaces the 35 floating-point operations
// per point by about three (so what is left is the walk and its memory
// traffic), `atom` is exact and has a cut group's points outside the domain
// take an atomic no-op (atomicOr with 0: their values cannot change, even
// under a concurrent writer) so that the L2 holds the sector as written
// whole. `lean` is the ring with the steady part of the computing loop
// unrolled by six (constant slot offsets, partial sums renamed, not moved);
// `minN` asks __launch_bounds__ for N blocks per SM; `two groups` gives
// each thread two float4 groups (8 points) through L1.
// Block shapes: `L1 BXxTY` (BX threads of four points along x, TY rows),
// `ring N rows` (N computing warps of one row of 128 points each), zC the
// run of planes, dD the ring's slots.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o probe-ring results/bench/probes/probe-bulk-ring.cu
//   ./probe-ring [n [name]]     (n a multiple of 4, default 512; name: run only
//                                the variants whose name contains it)
#include "probe-common.cuh"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

__constant__ float W[27];

// Row k of the box (k = 3 * (3 * kz + ky)): w[k] a + w[k+1] b + w[k+2] c.
__device__ __forceinline__ float rowSum(int k, float a, float b, float c) {
  return fmaf(W[k + 2], c, fmaf(W[k + 1], b, W[k] * a));
}

// The reference: one thread per point, the nine rows in order.
__global__ void naive(const float *__restrict__ in, float *__restrict__ out, int nx,
                      int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  const int z = blockIdx.z + 1;
  if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
    return;
  const long long sy = nx, sz = (long long)nx * ny;
  const float *c = in + x + y * sy + z * sz;
  float s = 0.0f;
#pragma unroll
  for (int kz = 0; kz < 3; ++kz)
#pragma unroll
    for (int ky = 0; ky < 3; ++ky) {
      const float *r = c + (ky - 1) * sy + (kz - 1) * sz;
      const float v = rowSum(3 * (3 * kz + ky), r[-1], r[0], r[1]);
      s = (kz == 0 && ky == 0) ? v : s + v;
    }
  out[x + y * sy + z * sz] = s;
}

// The three rows of one plane a thread needs: columns x0-1 .. x0+4.
struct Rows {
  float v[3][6];
};

// acc[0] is output plane p-1, acc[1] plane p, acc[2] plane p+1; plane p is
// their dz = +1, 0 and -1 rows. K2/K1/K0: whether each of them is an output of
// this run (the first and last two planes of a run feed only some).
template <bool K2, bool K1, bool K0, bool LIGHT, int NP = 4>
__device__ __forceinline__ void addPlane3(const float (&v)[3][NP + 2], float (&A)[NP],
                                          float (&B)[NP], float (&C)[NP]) {
  float *acc[3] = {A, B, C};
  if constexpr (LIGHT) { // timing only: the loads, one multiply-add per point and plane
#pragma unroll
    for (int i = 0; i < NP; ++i) {
      if (K2)
        acc[0][i] = fmaf(W[13], v[0][i] + v[1][i + 1] + v[2][i + 2], acc[0][i]);
      if (K1)
        acc[1][i] = fmaf(W[13], v[0][i + 2] + v[1][i + 1] + v[2][i], acc[1][i]);
      if (K0)
        acc[2][i] = W[13] * (v[1][i] + v[1][i + 2]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < NP; ++i)
#pragma unroll
      for (int ky = 0; ky < 3; ++ky) {
        if (K2)
          acc[0][i] += rowSum(3 * (6 + ky), v[ky][i], v[ky][i + 1], v[ky][i + 2]);
        if (K1)
          acc[1][i] += rowSum(3 * (3 + ky), v[ky][i], v[ky][i + 1], v[ky][i + 2]);
        if (K0) {
          const float t = rowSum(3 * ky, v[ky][i], v[ky][i + 1], v[ky][i + 2]);
          acc[2][i] = ky == 0 ? t : acc[2][i] + t;
        }
      }
  }
}

// f(K2, K1, K0) with the three flags as compile-time constants
// (std::integral_constant), so each combination gets code of its own.
template <class F>
__device__ __forceinline__ void withFlags(bool k2, bool k1, bool k0, F f) {
  using T = std::true_type;
  using N = std::false_type;
  if (k2 && k1 && k0)
    f(T{}, T{}, T{});
  else if (k2 && k1)
    f(T{}, T{}, N{});
  else if (k1 && k0)
    f(N{}, T{}, T{});
  else if (k2 && k0) // a run of one plane never has this
    f(T{}, N{}, T{});
  else if (k2)
    f(T{}, N{}, N{});
  else if (k1)
    f(N{}, T{}, N{});
  else if (k0)
    f(N{}, N{}, T{});
}

template <bool LIGHT>
__device__ __forceinline__ void addPlane(const Rows &r, float (&acc)[3][4], bool k2,
                                         bool k1, bool k0) {
  withFlags(k2, k1, k0, [&](auto K2, auto K1, auto K0) {
    addPlane3<K2.value, K1.value, K0.value, LIGHT>(r.v, acc[0], acc[1], acc[2]);
  });
}

// Variant flags of the kernels below: what they leave out, for timing.
enum : int { Exact = 0, Whole = 1, Light = 2, Atom = 4 };

// Stores acc[0] (output plane p-1) at the thread's group, points inside
// [1, nx-1) only, then shifts the queue. WHOLE (timing only, wrong): every
// group stores all four points, so no sector is written in part.
// ATOM: a cut group's points outside the domain take an atomic no-op
// (atomicOr with 0), which leaves their values as they are even under a
// concurrent writer but completes the sector the group's stores write in
// part.
template <bool WHOLE, bool ATOM = false>
__device__ __forceinline__ void storeGroup(float *o, int x0, int nx,
                                           const float (&a)[4]) {
  if (WHOLE || (x0 >= 1 && x0 + 4 <= nx - 1)) {
    __stwb((float4 *)o, make_float4(a[0], a[1], a[2], a[3]));
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (x0 + i >= 1 && x0 + i < nx - 1)
        o[i] = a[i];
      else if (ATOM)
        atomicOr((unsigned *)(o + i), 0u);
  }
}

template <bool WHOLE, bool ATOM = false>
__device__ __forceinline__ void storeShift(float *out, long long at, int x0, int nx,
                                           bool store, float (&acc)[3][4]) {
  if (store)
    storeGroup<WHOLE, ATOM>(out + at, x0, nx, acc[0]);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    acc[0][i] = acc[1][i];
    acc[1][i] = acc[2][i];
  }
}

// Through L1, as the generated zsum kernels read: block BX x TY threads, one
// row of four-point groups per row of threads, runs of ZC planes.
template <int TY, int ZC, int V = Exact, int BX = 32>
__global__ void __launch_bounds__(BX *TY)
    l1box(const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {
  const int x0 = 4 * (blockIdx.x * BX + threadIdx.x);
  const int y = 1 + blockIdx.y * TY + threadIdx.y;
  const int zs = 1 + blockIdx.z * ZC, ze = min(zs + ZC, nz - 1);
  if (y >= ny - 1 || x0 >= nx)
    return;
  const long long sy = nx, sz = (long long)nx * ny;
  const int xl = max(x0 - 1, 0), xr = min(x0 + 4, nx - 1);
  float acc[3][4] = {};
  for (int p = zs - 1; p <= ze; ++p) {
    Rows r;
#pragma unroll
    for (int ky = 0; ky < 3; ++ky) {
      const long long row = (y - 1 + ky) * sy + p * sz;
      const float4 m = __ldg((const float4 *)(in + row + x0));
      r.v[ky][0] = __ldg(in + row + xl);
      r.v[ky][1] = m.x, r.v[ky][2] = m.y, r.v[ky][3] = m.z, r.v[ky][4] = m.w;
      r.v[ky][5] = __ldg(in + row + xr);
    }
    const bool k2 = p - 1 >= zs, k1 = p >= zs && p < ze, k0 = p + 1 < ze;
    addPlane<(V & Light) != 0>(r, acc, k2, k1, k0);
    storeShift<(V & Whole) != 0, (V & Atom) != 0>(out, x0 + y * sy + (p - 1) * sz, x0, nx,
                                                  k2, acc);
  }
}

// Through L1 with PX float4 groups per thread (4 PX consecutive points): a
// row costs PX vector loads and two scalar loads for 4 PX points, and the
// thread's setup is shared by more points, at the price of registers.
template <int TY, int ZC, int PX>
__global__ void __launch_bounds__(32 * TY)
    l1wide(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
           int nz) {
  constexpr int NP = 4 * PX;
  const int x0 = NP * (blockIdx.x * 32 + threadIdx.x);
  const int y = 1 + blockIdx.y * TY + threadIdx.y;
  const int zs = 1 + blockIdx.z * ZC, ze = min(zs + ZC, nz - 1);
  if (y >= ny - 1 || x0 >= nx)
    return;
  const long long sy = nx, sz = (long long)nx * ny;
  const int xl = max(x0 - 1, 0), xr = min(x0 + NP, nx - 1);
  float acc[3][NP] = {};
  for (int p = zs - 1; p <= ze; ++p) {
    float v[3][NP + 2];
#pragma unroll
    for (int ky = 0; ky < 3; ++ky) {
      const long long row = (y - 1 + ky) * sy + p * sz;
      v[ky][0] = __ldg(in + row + xl);
#pragma unroll
      for (int g = 0; g < PX; ++g) {
        const float4 m = __ldg((const float4 *)(in + row + x0 + 4 * g));
        v[ky][1 + 4 * g] = m.x, v[ky][2 + 4 * g] = m.y, v[ky][3 + 4 * g] = m.z,
                      v[ky][4 + 4 * g] = m.w;
      }
      v[ky][NP + 1] = __ldg(in + row + xr);
    }
    const bool k2 = p - 1 >= zs, k1 = p >= zs && p < ze, k0 = p + 1 < ze;
    withFlags(k2, k1, k0, [&](auto K2, auto K1, auto K0) {
      addPlane3<K2.value, K1.value, K0.value, false, NP>(v, acc[0], acc[1], acc[2]);
    });
    if (k2) {
      float *o = out + x0 + y * sy + (p - 1) * sz;
#pragma unroll
      for (int g = 0; g < PX; ++g) {
        const float a[4] = {acc[0][4 * g], acc[0][4 * g + 1], acc[0][4 * g + 2],
                            acc[0][4 * g + 3]};
        storeGroup<false>(o + 4 * g, x0 + 4 * g, nx, a);
      }
    }
#pragma unroll
    for (int i = 0; i < NP; ++i) {
      acc[0][i] = acc[1][i];
      acc[1][i] = acc[2][i];
    }
  }
}

// ---- mbarrier and bulk copy (PTX, sm_90) ----
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbarInit(uint64_t *b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(b)), "r"(count)
               : "memory");
}
__device__ __forceinline__ void mbarExpectTx(uint64_t *b, unsigned bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(b)),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void mbarArrive(uint64_t *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(b)) : "memory");
}
__device__ __forceinline__ void mbarWait(uint64_t *b, unsigned parity) {
  uint32_t done;
  do {
    asm volatile("{\n .reg .pred p;\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(smemAddr(b)), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ __forceinline__ void bulkCopy(void *dst, const void *src, unsigned bytes,
                                         uint64_t *b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], %2, [%3];" ::"r"(smemAddr(dst)),
               "l"(src), "r"(bytes), "r"(smemAddr(b))
               : "memory");
}

// The rings' barriers, one pair per slot: full[s] completes when the
// producer's copies into slot s have all arrived (one arrival, counted in
// bytes), empty[s] when the TY computing warps are done with it.
template <int TY, int D>
__device__ __forceinline__ void ringInit(uint64_t *full, uint64_t *empty) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < D; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], TY);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
}

// A computing warp's three rows (tile rows of kRingRow floats, t at its
// group's first point), then its release of the slot.
constexpr int kRingRow = 136;
__device__ __forceinline__ void takeRows(const float *t, uint64_t *empty, int lane,
                                         Rows &r) {
#pragma unroll
  for (int ky = 0; ky < 3; ++ky) {
    const float4 m = *(const float4 *)(t + ky * kRingRow);
    r.v[ky][0] = t[ky * kRingRow - 1];
    r.v[ky][1] = m.x, r.v[ky][2] = m.y, r.v[ky][3] = m.z, r.v[ky][4] = m.w;
    r.v[ky][5] = t[ky * kRingRow + 4];
  }
  __syncwarp();
  if (lane == 0)
    mbarArrive(empty);
}

// The producer warp of the rings below: plane zs-1+i goes to slot i % D
// once the computing warps have released that slot's previous plane; lane j
// copies row y0-1+j (clamped to the grid) of the tile, x in [xt-4, xt+132)
// clamped to the row.
template <int TY, int D>
__device__ __forceinline__ void produce(float *tile, uint64_t *full, uint64_t *empty,
                                        const float *in, int xt, int y0, int zs,
                                        int planes, int lane, int nx, int ny) {
  constexpr int RW = kRingRow, SLOT = (TY + 2) * RW;
  const long long sy = nx, sz = (long long)nx * ny;
  const int xs = max(xt - 4, 0), xe = min(xt + 132, nx);
  const unsigned rowBytes = 4u * (xe - xs);
  const int col = xs - (xt - 4);
  const int y = min(y0 - 1 + lane, ny - 1);
  const float *src = in + xs + y * sy + (long long)(zs - 1) * sz;
  for (int i = 0; i < planes; ++i, src += sz) {
    const int s = i % D, k = i / D;
    if (k > 0)
      mbarWait(&empty[s], (k - 1) & 1);
    if (lane == 0)
      mbarExpectTx(&full[s], rowBytes * (TY + 2));
    __syncwarp();
    if (lane < TY + 2)
      bulkCopy(tile + s * SLOT + lane * RW + col, src, rowBytes, &full[s]);
  }
}

// Bulk-copied ring: TY computing warps (one output row of 128 points each)
// and one producer warp; D slots of TY+2 rows of RW floats, the tile's column
// c holding x = 128 bx - 4 + c. Needs nx % 4 == 0 (rows of whole 16-byte
// chunks).
template <int TY, int ZC, int D, int V = Exact>
__global__ void __launch_bounds__(32 * (TY + 1))
    ringbox(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
            int nz) {
  constexpr int RW = kRingRow, SLOT = (TY + 2) * RW;
  extern __shared__ __align__(128) float tile[];
  __shared__ __align__(8) uint64_t full[D], empty[D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int xt = 128 * blockIdx.x, y0 = 1 + blockIdx.y * TY;
  const int zs = 1 + blockIdx.z * ZC, ze = min(zs + ZC, nz - 1);
  const int planes = ze - zs + 2; // zs-1 .. ze
  ringInit<TY, D>(full, empty);
  const long long sy = nx, sz = (long long)nx * ny;
  if (warp == TY) {
    produce<TY, D>(tile, full, empty, in, xt, y0, zs, planes, lane, nx, ny);
    return;
  }
  const int x0 = xt + 4 * lane, y = y0 + warp;
  const bool rowIn = y < ny - 1;
  float acc[3][4] = {};
  for (int i = 0; i < planes; ++i) {
    const int s = i % D, p = zs - 1 + i;
    mbarWait(&full[s], (i / D) & 1);
    Rows r;
    takeRows(tile + s * SLOT + warp * RW + 4 + 4 * lane, &empty[s], lane, r);
    const bool k2 = p - 1 >= zs, k1 = p >= zs && p < ze, k0 = p + 1 < ze;
    addPlane<(V & Light) != 0>(r, acc, k2, k1, k0);
    storeShift<(V & Whole) != 0, (V & Atom) != 0>(out, x0 + y * sy + (p - 1) * sz, x0, nx,
                                                  k2 && rowIn, acc);
  }
}

// The same ring with the computing warps' loop written for issue: the
// planes of a run's steady part (all three outputs in the run) in groups of
// six, so that the ring slot of each step is a constant offset (D divides 6)
// and the three partial sums are renamed rather than moved; the first two
// and the last planes take the general step.
template <int TY, int ZC, int D, int V = Exact, int MINB = 1>
__global__ void __launch_bounds__(32 * (TY + 1), MINB)
    ringlean(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
             int nz) {
  static_assert(6 % D == 0, "the slot of an unrolled step must be constant");
  constexpr int RW = kRingRow, SLOT = (TY + 2) * RW;
  constexpr bool LT = (V & Light) != 0, WH = (V & Whole) != 0;
  extern __shared__ __align__(128) float tile[];
  __shared__ __align__(8) uint64_t full[D], empty[D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int xt = 128 * blockIdx.x, y0 = 1 + blockIdx.y * TY;
  const int zs = 1 + blockIdx.z * ZC, ze = min(zs + ZC, nz - 1);
  const int planes = ze - zs + 2;
  ringInit<TY, D>(full, empty);
  if (warp == TY) {
    produce<TY, D>(tile, full, empty, in, xt, y0, zs, planes, lane, nx, ny);
    return;
  }
  const long long sy = nx, sz = (long long)nx * ny;
  const int x0 = xt + 4 * lane, y = y0 + warp;
  const bool rowIn = y < ny - 1;
  const float *tb = tile + warp * RW + 4 + 4 * lane;
  float *o = out + x0 + y * sy + (long long)(zs - 2) * sz; // output p-1 of plane p
  auto take = [&](int s, unsigned parity, Rows &r) {
    mbarWait(&full[s], parity);
    takeRows(tb + s * SLOT, &empty[s], lane, r);
  };
  float acc[3][4] = {};
  int i = 0;
  auto general = [&] {
    const int p = zs - 1 + i;
    Rows r;
    take(i % D, (i / D) & 1, r);
    const bool k2 = p - 1 >= zs, k1 = p >= zs && p < ze, k0 = p + 1 < ze;
    addPlane<LT>(r, acc, k2, k1, k0);
    storeShift<WH>(o, 0, x0, nx, k2 && rowIn, acc);
    o += sz;
    ++i;
  };
  general();
  general();
  // Steady steps: plane i = 2 + 6m + j has slot (2 + j) % D and fill index
  // (2 + j + 6m) / D.
  for (; i + 6 <= planes - 2; i += 6) {
    const int m = (i - 2) / 6;
#pragma unroll
    for (int j = 0; j < 6; ++j) {
      Rows r;
      const int s = (2 + j) % D;
      take(s, (unsigned)((2 + j + 6 * m) / D) & 1u, r);
      float(&A)[4] = acc[j % 3];
      float(&B)[4] = acc[(j + 1) % 3];
      float(&C)[4] = acc[(j + 2) % 3];
      addPlane3<true, true, true, LT>(r.v, A, B, C);
      if (rowIn)
        storeGroup<WH>(o, x0, nx, A);
      o += sz;
    }
  }
  while (i < planes)
    general();
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 512;
  const char *only = argc > 2 ? argv[2] : nullptr; // run the variants naming this
  if (n < 8 || n % 4) {
    fprintf(stderr, "n must be a multiple of 4, at least 8\n");
    return 1;
  }
  const size_t cells = (size_t)n * n * n, bytes = cells * sizeof(float);
  float *in, *out, *ref;
  unsigned long long *bad;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&ref, bytes));
  CHECK(cudaMalloc(&bad, sizeof(*bad)));
  fill<<<1024, 256>>>(in, (long long)cells, 1u);
  float w[27];
  for (int i = 0; i < 27; ++i)
    w[i] = 0.01f * (i + 1) - 0.13f;
  CHECK(cudaMemcpyToSymbol(W, w, sizeof(w)));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const double points = (double)(n - 2) * (n - 2) * (n - 2);
  printf("27-point box, f32, %d^3, domain [1, %d)^3\n", n, n - 1);
  const double copyGBs = copyRow(in, out, bytes, a, b, 32);

  fill<<<1024, 256>>>(ref, (long long)cells, 7u);
  naive<<<dim3((n - 2 + 31) / 32, (n - 2 + 3) / 4, n - 2), dim3(32, 4)>>>(in, ref, n, n,
                                                                          n);
  CHECK(cudaDeviceSynchronize());

  auto run = [&](const char *name, auto kernel, dim3 grid, dim3 block, size_t smem) {
    if (only && !strstr(name, only))
      return 0;
    if (smem > 48 * 1024)
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)smem));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, kernel));
    int perSM = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, block.x * block.y,
                                                        smem));
    fill<<<1024, 256>>>(out, (long long)cells, 7u);
    kernel<<<grid, block, smem>>>(in, out, n, n, n);
    CHECK(cudaDeviceSynchronize());
    cudaMemset(bad, 0, sizeof(*bad));
    countDiff<<<1024, 256>>>(ref, out, (long long)cells, bad);
    unsigned long long nbad = 0;
    CHECK(cudaMemcpy(&nbad, bad, sizeof(nbad), cudaMemcpyDeviceToHost));
    const double ms =
        timeIt([&] { kernel<<<grid, block, smem>>>(in, out, n, n, n); }, a, b);
    CHECK(cudaGetLastError());
    const double gbs = 8.0 * points / ms / 1e6;
    printf("%-32s %8.4f ms %7.0f GB/s  %5.1f %%  regs %3d  blocks/SM %2d  %s\n", name, ms,
           gbs, 100.0 * gbs / copyGBs, fa.numRegs, perSM,
           nbad ? "MISMATCH" : "bit-identical");
    return 0;
  };
  auto l1 = [&](const char *name, auto kernel, int ty, int zc, int bx = 32) {
    return run(name, kernel,
               dim3((n / 4 + bx - 1) / bx, (n - 2 + ty - 1) / ty, (n - 2 + zc - 1) / zc),
               dim3(bx, ty), 0);
  };
  auto wide = [&](const char *name, auto kernel, int ty, int zc, int px) {
    return run(
        name, kernel,
        dim3((n / (4 * px) + 31) / 32, (n - 2 + ty - 1) / ty, (n - 2 + zc - 1) / zc),
        dim3(32, ty), 0);
  };
  auto ring = [&](const char *name, auto kernel, int ty, int zc, int d) {
    return run(name, kernel,
               dim3((n + 127) / 128, (n - 2 + ty - 1) / ty, (n - 2 + zc - 1) / zc),
               dim3(32 * (ty + 1)), (size_t)d * (ty + 2) * 136 * sizeof(float));
  };
  run("naive 32x4", naive, dim3((n - 2 + 31) / 32, (n - 2 + 3) / 4, n - 2), dim3(32, 4),
      0);
  l1("L1 32x4 z8", l1box<4, 8>, 4, 8);
  l1("L1 32x4 z8 whole", l1box<4, 8, Whole>, 4, 8);
  l1("L1 32x4 z8 light", l1box<4, 8, Light>, 4, 8);
  l1("L1 32x4 z8 light whole", l1box<4, 8, Light | Whole>, 4, 8);
  wide("L1 32x4 z8 two groups", l1wide<4, 8, 2>, 4, 8, 2);
  wide("L1 32x4 z8 one group (wide)", l1wide<4, 8, 1>, 4, 8, 1);
  wide("L1 32x2 z8 two groups", l1wide<2, 8, 2>, 2, 8, 2);
  wide("L1 32x8 z8 two groups", l1wide<8, 8, 2>, 8, 8, 2);
  wide("L1 32x4 z16 two groups", l1wide<4, 16, 2>, 4, 16, 2);
  l1("L1 32x4 z8 atom", l1box<4, 8, Atom>, 4, 8);
  l1("L1 32x4 z8 light atom", l1box<4, 8, Light | Atom>, 4, 8);
  l1("L1 32x4 z16 atom", l1box<4, 16, Atom>, 4, 16);
  l1("L1 64x4 z8 atom", l1box<4, 8, Atom, 64>, 4, 8, 64);
  ring("ring 8 rows z32 d6 atom", ringbox<8, 32, 6, Atom>, 8, 32, 6);
  ring("ring 8 rows z32 d6", ringbox<8, 32, 6>, 8, 32, 6);
  ring("ring 8 rows z32 d6 light", ringbox<8, 32, 6, Light>, 8, 32, 6);
  ring("ring 8 rows z32 d6 light whole", ringbox<8, 32, 6, Light | Whole>, 8, 32, 6);
  ring("ring 4 rows z32 d6", ringbox<4, 32, 6>, 4, 32, 6);
  ring("ring 8 rows z16 d4", ringbox<8, 16, 4>, 8, 16, 4);
  ring("ring 16 rows z32 d3", ringbox<16, 32, 3>, 16, 32, 3);
  ring("lean 8 rows z32 d6", ringlean<8, 32, 6>, 8, 32, 6);
  ring("lean 8 rows z32 d6 min3", ringlean<8, 32, 6, Exact, 3>, 8, 32, 6);
  // The walk: block shape and run length, without the arithmetic (light).
  l1("L1 32x4 z4 light", l1box<4, 4, Light>, 4, 4);
  l1("L1 32x4 z16 light", l1box<4, 16, Light>, 4, 16);
  l1("L1 64x2 z8 light", l1box<2, 8, Light, 64>, 2, 8, 64);
  l1("L1 64x4 z4 light", l1box<4, 4, Light, 64>, 4, 4, 64);
  l1("L1 64x4 z8 light", l1box<4, 8, Light, 64>, 4, 8, 64);
  l1("L1 128x1 z8 light", l1box<1, 8, Light, 128>, 1, 8, 128);
  l1("L1 128x2 z4 light", l1box<2, 4, Light, 128>, 2, 4, 128);
  l1("L1 128x2 z8 light", l1box<2, 8, Light, 128>, 2, 8, 128);
  l1("L1 128x2 z16 light", l1box<2, 16, Light, 128>, 2, 16, 128);
  l1("L1 128x4 z4 light", l1box<4, 4, Light, 128>, 4, 4, 128);
  l1("L1 128x4 z8 light", l1box<4, 8, Light, 128>, 4, 8, 128);
  l1("L1 128x2 z8 light whole", l1box<2, 8, Light | Whole, 128>, 2, 8, 128);
  l1("L1 128x4 z4 light whole", l1box<4, 4, Light | Whole, 128>, 4, 4, 128);
  // The same walks with the arithmetic.
  l1("L1 32x4 z4", l1box<4, 4>, 4, 4);
  l1("L1 64x4 z4", l1box<4, 4, Exact, 64>, 4, 4, 64);
  l1("L1 64x4 z8", l1box<4, 8, Exact, 64>, 4, 8, 64);
  l1("L1 128x1 z8", l1box<1, 8, Exact, 128>, 1, 8, 128);
  l1("L1 128x2 z4", l1box<2, 4, Exact, 128>, 2, 4, 128);
  l1("L1 128x2 z8", l1box<2, 8, Exact, 128>, 2, 8, 128);
  l1("L1 128x4 z4", l1box<4, 4, Exact, 128>, 4, 4, 128);
  l1("L1 128x4 z8", l1box<4, 8, Exact, 128>, 4, 8, 128);
  return 0;
}
