// rtm.cu - 3-D acoustic reverse-time migration proxy (single shot)
//
//   forward pass : propagate a Ricker source, record a plane of receivers,
//                  keep the source wavefield every snap_every steps
//   backward pass: propagate the recorded data backwards in time and build
//                  the image with the cross-correlation imaging condition
//
// Usage: rtm [--nx N] [--ny N] [--nz N] [--steps N] [--snap N] [--small]
//            [--out FILE]
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "rtm.h"

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__,       \
                    __LINE__, cudaGetErrorString(err_), #call);               \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

__constant__ float c0;
__constant__ float c1;
__constant__ float c2;
__constant__ float c3;
__constant__ float c4;

// ---------------------------------------------------------------------------
// kernels

// One time step of the wave equation. pnext holds p(n-1) on entry and
// p(n+1) on exit. 2-D launch over (x, y), each thread marches along z.
__global__ void fd3d_r4_kernel(float* __restrict__ pnext,
                               const float* __restrict__ pcur,
                               const float* __restrict__ vdt2,
                               int nx, int ny, int nz)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
    int iy = blockIdx.y * blockDim.y + threadIdx.y + RADIUS;
    if (ix >= nx - RADIUS || iy >= ny - RADIUS)
        return;

    const size_t sy = nx;
    const size_t sz = (size_t)nx * ny;
    for (int iz = RADIUS; iz < nz - RADIUS; iz++) {
        size_t idx = iz * sz + iy * sy + ix;
        float lap = c0 * pcur[idx]
            + c1 * (pcur[idx + 1] + pcur[idx - 1]
                  + pcur[idx + sy] + pcur[idx - sy]
                  + pcur[idx + sz] + pcur[idx - sz])
            + c2 * (pcur[idx + 2] + pcur[idx - 2]
                  + pcur[idx + 2 * sy] + pcur[idx - 2 * sy]
                  + pcur[idx + 2 * sz] + pcur[idx - 2 * sz])
            + c3 * (pcur[idx + 3] + pcur[idx - 3]
                  + pcur[idx + 3 * sy] + pcur[idx - 3 * sy]
                  + pcur[idx + 3 * sz] + pcur[idx - 3 * sz])
            + c4 * (pcur[idx + 4] + pcur[idx - 4]
                  + pcur[idx + 4 * sy] + pcur[idx - 4 * sy]
                  + pcur[idx + 4 * sz] + pcur[idx - 4 * sz]);
        pnext[idx] = 2.0f * pcur[idx] - pnext[idx] + vdt2[idx] * lap;
    }
}

__global__ void inject_source(float* p, size_t idx, float amp)
{
    p[idx] += amp;
}

// Cerjan-style sponge: both time levels are damped near the six faces.
__global__ void sponge_kernel(float* a, float* b, const float* damp,
                              int nx, int ny, int nz, int nb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    int dxy = min(min(i, nx - 1 - i), min(j, ny - 1 - j));
    for (int k = 0; k < nz; k++) {
        int d = min(dxy, min(k, nz - 1 - k));
        if (d < nb) {
            size_t idx = ((size_t)k * ny + j) * nx + i;
            a[idx] *= damp[d];
            b[idx] *= damp[d];
        }
    }
}

__global__ void record_receivers(const float* p, float* rec_t, int rec_z,
                                 int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    rec_t[j * nx + i] = p[((size_t)rec_z * ny + j) * nx + i];
}

__global__ void inject_receivers(float* p, const float* rec_t,
                                 const float* vdt2, int rec_z, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    size_t idx = ((size_t)rec_z * ny + j) * nx + i;
    p[idx] += vdt2[idx] * rec_t[j * nx + i];
}

__global__ void imaging_condition(float* image, const float* src,
                                  const float* rcv, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        image[i] += src[i] * rcv[i];
}

// ---------------------------------------------------------------------------
// driver

struct RtmResult {
    std::vector<float> image;
    std::vector<float> fwd_final;  // source wavefield after the forward pass
    std::vector<float> rec;        // receiver data, nt planes
    double loop_seconds;
};

static void upload_coefficients()
{
    CUDA_CHECK(cudaMemcpyToSymbol(c0, &COEF_C0, sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c1, &COEF_C1, sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c2, &COEF_C2, sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c3, &COEF_C3, sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c4, &COEF_C4, sizeof(float)));
}

static void rtm_gpu(const RtmParams& p, const std::vector<float>& vdt2,
                    const std::vector<float>& damp,
                    const std::vector<float>& wavelet, bool keep_all,
                    RtmResult& res)
{
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const size_t n = grid_size(p);
    const size_t plane = (size_t)nx * ny;
    const size_t src = ((size_t)p.sz * ny + p.sy) * nx + p.sx;
    const int nsnap = num_snapshots(p);

    float *d_vdt2, *d_damp, *d_p0, *d_p1, *d_q0, *d_q1, *d_snap, *d_rec, *d_image;
    CUDA_CHECK(cudaMalloc(&d_vdt2, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_damp, p.nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_p0, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_p1, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_q0, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_q1, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_snap, (size_t)nsnap * n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_rec, (size_t)p.nt * plane * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_image, n * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_vdt2, vdt2.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_damp, damp.data(), p.nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_p0, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_p1, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_q0, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_q1, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_rec, 0, (size_t)p.nt * plane * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_image, 0, n * sizeof(float)));

    dim3 block(32, 8);
    dim3 grid((nx - 2 * RADIUS + block.x - 1) / block.x,
              (ny - 2 * RADIUS + block.y - 1) / block.y);
    dim3 grid_xy((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    const int threads = 256;
    const unsigned int blocks_n = (unsigned int)((n + threads - 1) / threads);

    cudaEvent_t t_start, t_stop;
    CUDA_CHECK(cudaEventCreate(&t_start));
    CUDA_CHECK(cudaEventCreate(&t_stop));
    CUDA_CHECK(cudaEventRecord(t_start));

    // forward pass
    float* pprev = d_p0;
    float* pcur = d_p1;
    for (int it = 0; it < p.nt; it++) {
        fd3d_r4_kernel<<<grid, block>>>(pprev, pcur, d_vdt2, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        inject_source<<<1, 1>>>(pprev, src, wavelet[it] * vdt2[src]);
        CUDA_CHECK(cudaGetLastError());
        sponge_kernel<<<grid_xy, block>>>(pprev, pcur, d_damp, nx, ny, nz, p.nb);
        CUDA_CHECK(cudaGetLastError());
        record_receivers<<<grid_xy, block>>>(pprev, d_rec + (size_t)it * plane, p.rec_z, nx, ny);
        CUDA_CHECK(cudaGetLastError());
        if (it % p.snap_every == 0) {
            CUDA_CHECK(cudaMemcpyAsync(d_snap + (size_t)(it / p.snap_every) * n, pprev,
                                       n * sizeof(float), cudaMemcpyDeviceToDevice));
        }
        std::swap(pprev, pcur);
    }
    float* fwd_last = pcur;

    // backward pass: the receiver data become the source
    float* qprev = d_q0;
    float* qcur = d_q1;
    for (int it = p.nt - 1; it >= 0; it--) {
        fd3d_r4_kernel<<<grid, block>>>(qprev, qcur, d_vdt2, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        inject_receivers<<<grid_xy, block>>>(qprev, d_rec + (size_t)it * plane, d_vdt2, p.rec_z, nx, ny);
        CUDA_CHECK(cudaGetLastError());
        sponge_kernel<<<grid_xy, block>>>(qprev, qcur, d_damp, nx, ny, nz, p.nb);
        CUDA_CHECK(cudaGetLastError());
        if (it % p.snap_every == 0) {
            imaging_condition<<<blocks_n, threads>>>(d_image, d_snap + (size_t)(it / p.snap_every) * n, qprev, n);
            CUDA_CHECK(cudaGetLastError());
        }
        std::swap(qprev, qcur);
    }

    CUDA_CHECK(cudaEventRecord(t_stop));
    CUDA_CHECK(cudaEventSynchronize(t_stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t_start, t_stop));
    res.loop_seconds = ms * 1.0e-3;

    res.image.resize(n);
    CUDA_CHECK(cudaMemcpy(res.image.data(), d_image, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (keep_all) {
        res.fwd_final.resize(n);
        CUDA_CHECK(cudaMemcpy(res.fwd_final.data(), fwd_last, n * sizeof(float), cudaMemcpyDeviceToHost));
        res.rec.resize((size_t)p.nt * plane);
        CUDA_CHECK(cudaMemcpy(res.rec.data(), d_rec, (size_t)p.nt * plane * sizeof(float),
                              cudaMemcpyDeviceToHost));
    }

    CUDA_CHECK(cudaEventDestroy(t_start));
    CUDA_CHECK(cudaEventDestroy(t_stop));
    CUDA_CHECK(cudaFree(d_vdt2));
    CUDA_CHECK(cudaFree(d_damp));
    CUDA_CHECK(cudaFree(d_p0));
    CUDA_CHECK(cudaFree(d_p1));
    CUDA_CHECK(cudaFree(d_q0));
    CUDA_CHECK(cudaFree(d_q1));
    CUDA_CHECK(cudaFree(d_snap));
    CUDA_CHECK(cudaFree(d_rec));
    CUDA_CHECK(cudaFree(d_image));
}

// ---------------------------------------------------------------------------
// host helpers

static double rel_l2(const std::vector<float>& a, const std::vector<float>& ref)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < ref.size(); i++) {
        double d = (double)a[i] - (double)ref[i];
        num += d * d;
        den += (double)ref[i] * ref[i];
    }
    if (den == 0.0)
        return num == 0.0 ? 0.0 : INFINITY;
    return std::sqrt(num / den);
}

static void set_geometry(RtmParams& p)
{
    p.sx = p.nx / 2;
    p.sy = p.ny / 2;
    p.sz = p.nb + 6;
    p.rec_z = p.nb + 2;
}

static void usage(const char* prog)
{
    printf("usage: %s [--nx N] [--ny N] [--nz N] [--steps N] [--snap N] [--small] [--out FILE]\n"
           "  default grid 384^3, 1200 steps per pass; --small: 96^3, 120 steps\n"
           "  --out FILE writes the image (float32, x fastest) to FILE\n",
           prog);
}

int main(int argc, char** argv)
{
    int nx = -1, ny = -1, nz = -1, nt = -1, snap = -1;
    bool small = false;
    std::string out_file;
    for (int a = 1; a < argc; a++) {
        std::string arg = argv[a];
        bool has_value = a + 1 < argc;
        if (arg == "--nx" && has_value) nx = atoi(argv[++a]);
        else if (arg == "--ny" && has_value) ny = atoi(argv[++a]);
        else if (arg == "--nz" && has_value) nz = atoi(argv[++a]);
        else if (arg == "--steps" && has_value) nt = atoi(argv[++a]);
        else if (arg == "--snap" && has_value) snap = atoi(argv[++a]);
        else if (arg == "--out" && has_value) out_file = argv[++a];
        else if (arg == "--small") small = true;
        else if (arg == "--help" || arg == "-h") { usage(argv[0]); return 0; }
        else {
            fprintf(stderr, "rtm: unknown or incomplete argument '%s'\n", arg.c_str());
            usage(argv[0]);
            return 2;
        }
    }

    RtmParams p;
    p.nx = nx > 0 ? nx : (small ? 96 : 384);
    p.ny = ny > 0 ? ny : (small ? 96 : 384);
    p.nz = nz > 0 ? nz : (small ? 96 : 384);
    p.nt = nt > 0 ? nt : (small ? 120 : 1200);
    p.snap_every = snap > 0 ? snap : (small ? 5 : 30);
    p.nb = small ? 12 : 20;
    p.dx = 10.0f;
    p.dt = 1.0e-3f;                 // CFL 0.3 at 3000 m/s
    p.fpeak = small ? 30.0f : 15.0f;
    set_geometry(p);
    if (p.nx < 2 * p.nb + 16 || p.ny < 2 * p.nb + 16 || p.nz < 2 * p.nb + 16) {
        fprintf(stderr, "rtm: grid must be at least %d points in each direction\n", 2 * p.nb + 16);
        return 2;
    }

    double gib = (double)grid_size(p) * sizeof(float) * (7 + num_snapshots(p)) / (1 << 30)
               + (double)p.nt * p.nx * p.ny * sizeof(float) / (1 << 30);
    printf("RTM proxy: grid %d x %d x %d, sponge %d, %d steps per pass, snapshot every %d steps\n",
           p.nx, p.ny, p.nz, p.nb, p.nt, p.snap_every);
    printf("  device memory %.2f GiB, source at (%d,%d,%d), receivers at z index %d\n",
           gib, p.sx, p.sy, p.sz, p.rec_z);

    int dev = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    printf("  device %s\n", prop.name);
    upload_coefficients();

    // ---- production run
    std::vector<float> vdt2;
    build_velocity_model(p, vdt2);
    std::vector<float> damp = sponge_profile(p.nb);
    std::vector<float> wav = ricker_wavelet(p.nt, p.dt, p.fpeak);
    RtmResult res;
    rtm_gpu(p, vdt2, damp, wav, false, res);
    printf("TIMER rtm_loops_s=%.6f\n", res.loop_seconds);

    bool finite = true;
    double img_max = 0.0;
    for (size_t i = 0; i < res.image.size(); i++) {
        if (!std::isfinite(res.image[i])) { finite = false; break; }
        img_max = std::fmax(img_max, std::fabs(res.image[i]));
    }
    printf("image: max |value| %.6e\n", img_max);

    if (!out_file.empty()) {
        FILE* f = fopen(out_file.c_str(), "wb");
        if (!f || fwrite(res.image.data(), sizeof(float), res.image.size(), f) != res.image.size()) {
            fprintf(stderr, "rtm: cannot write %s\n", out_file.c_str());
            return 1;
        }
        fclose(f);
        printf("image written to %s (%zu floats)\n", out_file.c_str(), res.image.size());
    }

    // ---- correctness: the same migration on a small grid, GPU against CPU
    RtmParams q;
    q.nx = 44; q.ny = 38; q.nz = 34; q.nb = 8; q.nt = 72; q.snap_every = 3;
    q.dx = 10.0f; q.dt = 1.0e-3f; q.fpeak = 35.0f;
    set_geometry(q);
    std::vector<float> qv, qdamp = sponge_profile(q.nb), qwav = ricker_wavelet(q.nt, q.dt, q.fpeak);
    build_velocity_model(q, qv);
    RtmResult gq;
    rtm_gpu(q, qv, qdamp, qwav, true, gq);
    std::vector<float> ref_image, ref_fwd, ref_rec;
    rtm_cpu(q, qv, qdamp, qwav, ref_image, ref_fwd, ref_rec);
    const double tol = 1.0e-4;
    double e_img = rel_l2(gq.image, ref_image);
    double e_fwd = rel_l2(gq.fwd_final, ref_fwd);
    double e_rec = rel_l2(gq.rec, ref_rec);
    double worst = std::fmax(e_img, std::fmax(e_fwd, e_rec));
    bool pass = finite && img_max > 0.0 && worst <= tol;   // NaN compares false
    printf("CHECK %s rel_l2_image=%.3e rel_l2_wavefield=%.3e rel_l2_receivers=%.3e tol=%.1e "
           "(CPU reference %dx%dx%d, %d steps; production image finite=%s)\n",
           pass ? "PASS" : "FAIL", e_img, e_fwd, e_rec, tol, q.nx, q.ny, q.nz, q.nt,
           finite ? "yes" : "no");
    return pass ? 0 : 1;
}
