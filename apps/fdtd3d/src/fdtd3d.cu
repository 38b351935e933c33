// fdtd3d.cu - 3-D Maxwell FDTD (Yee) proxy: dipole in a PEC cavity with a
// dielectric sphere and a lossy slab.
//
// Usage: fdtd3d [--nx N] [--ny N] [--nz N] [--steps N] [--small] [--out FILE]
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fdtd.h"
#include "fdtd_kernels.cuh"

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: CUDA error %d (%s) in %s\n", __FILE__,    \
                    __LINE__, (int)e_, cudaGetErrorString(e_), #call);        \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// Runs p.steps Yee steps on the GPU from zero fields; returns the time of the
// time loop in milliseconds and the final fields in f.
static float run_fdtd_gpu(const FdtdParams& p, const std::vector<float>& ca,
                          const std::vector<float>& cb, Fields& f)
{
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const size_t n = (size_t)nx * ny * nz;
    const size_t bytes = n * sizeof(float);

    float *ex, *ey, *ez, *hx, *hy, *hz, *d_ca, *d_cb;
    CUDA_CHECK(cudaMalloc(&ex, bytes));
    CUDA_CHECK(cudaMalloc(&ey, bytes));
    CUDA_CHECK(cudaMalloc(&ez, bytes));
    CUDA_CHECK(cudaMalloc(&hx, bytes));
    CUDA_CHECK(cudaMalloc(&hy, bytes));
    CUDA_CHECK(cudaMalloc(&hz, bytes));
    CUDA_CHECK(cudaMalloc(&d_ca, bytes));
    CUDA_CHECK(cudaMalloc(&d_cb, bytes));
    CUDA_CHECK(cudaMemset(ex, 0, bytes));
    CUDA_CHECK(cudaMemset(ey, 0, bytes));
    CUDA_CHECK(cudaMemset(ez, 0, bytes));
    CUDA_CHECK(cudaMemset(hx, 0, bytes));
    CUDA_CHECK(cudaMemset(hy, 0, bytes));
    CUDA_CHECK(cudaMemset(hz, 0, bytes));
    CUDA_CHECK(cudaMemcpy(d_ca, ca.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_cb, cb.data(), bytes, cudaMemcpyHostToDevice));

    dim3 block(32, 4, 4);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y,
              (nz + block.z - 1) / block.z);
    dim3 fblock(16, 16);
    dim3 gx((ny + 15) / 16, (nz + 15) / 16);
    dim3 gy((nx + 15) / 16, (nz + 15) / 16);
    dim3 gz((nx + 15) / 16, (ny + 15) / 16);
    const int src = IDX(p.srcx, p.srcy, p.srcz);
    const float db = p.dt;

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    for (int step = 0; step < p.steps; step++) {
        update_h<<<grid, block>>>(hx, hy, hz, ex, ey, ez, db, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        update_e<<<grid, block>>>(ex, ey, ez, hx, hy, hz, d_ca, d_cb, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        pec_x_faces<<<gx, fblock>>>(ey, ez, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        pec_y_faces<<<gy, fblock>>>(ex, ez, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        pec_z_faces<<<gz, fblock>>>(ex, ey, nx, ny, nz);
        CUDA_CHECK(cudaGetLastError());
        add_source<<<1, 1>>>(ez, src, source_value(p, step));
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    f.resize(n);
    CUDA_CHECK(cudaMemcpy(f.ex.data(), ex, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(f.ey.data(), ey, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(f.ez.data(), ez, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(f.hx.data(), hx, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(f.hy.data(), hy, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(f.hz.data(), hz, bytes, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    float* bufs[] = {ex, ey, ez, hx, hy, hz, d_ca, d_cb};
    for (float* b : bufs)
        CUDA_CHECK(cudaFree(b));
    return ms;
}

static void setup_problem(FdtdParams& p, int nx, int ny, int nz, int steps)
{
    p.nx = nx;
    p.ny = ny;
    p.nz = nz;
    p.steps = steps;
    p.dt = 0.5f;                   // Courant number 0.5 < 1/sqrt(3)
    p.freq = 0.05f;                // 20 cells per vacuum wavelength
    p.tw = 30.0f;
    p.t0 = 2.0f * p.tw;
    p.srcx = nx / 2;
    p.srcy = ny / 2;
    p.srcz = nz / 2;
}

// relative L2 difference over the three components of a field
static double rel_l2(const std::vector<float>* a, const std::vector<float>* ref)
{
    double num = 0.0, den = 0.0;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < ref[c].size(); i++) {
            double d = (double)a[c][i] - ref[c][i];
            num += d * d;
            den += (double)ref[c][i] * ref[c][i];
        }
    return den > 0.0 ? std::sqrt(num / den) : (num > 0.0 ? INFINITY : 0.0);
}

int main(int argc, char** argv)
{
    int nx = 0, ny = 0, nz = 0, steps = 0;
    bool small = false;
    const char* out = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--nx") && i + 1 < argc) nx = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ny") && i + 1 < argc) ny = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--nz") && i + 1 < argc) nz = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--small")) small = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s [--nx N] [--ny N] [--nz N] [--steps N] [--small] [--out FILE]\n"
                   "  default 384^3 cells, 2000 steps; --small 64^3, 100 steps\n"
                   "  --out FILE writes Ez (float32, i fastest) after the last step\n", argv[0]);
            return 0;
        } else {
            fprintf(stderr, "fdtd3d: bad argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (nx <= 0) nx = small ? 64 : 384;
    if (ny <= 0) ny = small ? 64 : 384;
    if (nz <= 0) nz = small ? 64 : 384;
    if (steps <= 0) steps = small ? 100 : 2000;
    if (nx < 8 || ny < 8 || nz < 8 || (double)nx * ny * nz >= 2147483647.0) {
        fprintf(stderr, "fdtd3d: grid %d x %d x %d out of range (8 .. 2^31 cells)\n", nx, ny, nz);
        return 2;
    }

    FdtdParams p;
    setup_problem(p, nx, ny, nz, steps);
    printf("FDTD3D: %d x %d x %d cells, %d steps, dt = %.3f (Courant), f = %.3f\n",
           nx, ny, nz, steps, p.dt, p.freq);

    std::vector<float> ca, cb;
    build_materials(p, ca, cb);
    Fields f;
    float ms = run_fdtd_gpu(p, ca, cb, f);
    printf("Time loop: %.3f ms\n", ms);
    double energy = field_energy(f, nx, ny, nz);
    printf("Field energy after %d steps: %.6e\n", steps, energy);

    if (out) {
        FILE* fp = fopen(out, "wb");
        if (!fp) {
            fprintf(stderr, "fdtd3d: cannot open %s\n", out);
            return 1;
        }
        size_t w = fwrite(f.ez.data(), sizeof(float), f.ez.size(), fp);
        fclose(fp);
        if (w != f.ez.size()) {
            fprintf(stderr, "fdtd3d: short write to %s\n", out);
            return 1;
        }
        printf("Ez written to %s\n", out);
    }

    // Verification: the same scheme on a small odd-sized cavity, GPU vs CPU.
    FdtdParams q;
    setup_problem(q, 37, 33, 29, 80);
    q.freq = 0.1f;
    q.tw = 6.0f;
    q.t0 = 12.0f;
    std::vector<float> qca, qcb;
    build_materials(q, qca, qcb);
    Fields gpu, cpu;
    run_fdtd_gpu(q, qca, qcb, gpu);
    fdtd_cpu(q, qca, qcb, cpu);
    const std::vector<float> ge[3] = {gpu.ex, gpu.ey, gpu.ez}, ce[3] = {cpu.ex, cpu.ey, cpu.ez};
    const std::vector<float> gh[3] = {gpu.hx, gpu.hy, gpu.hz}, ch[3] = {cpu.hx, cpu.hy, cpu.hz};
    double err_e = rel_l2(ge, ce), err_h = rel_l2(gh, ch);
    const double tol = 1e-4;
    bool ok = err_e <= tol && err_h <= tol && std::isfinite(energy) && energy > 0.0;
    printf("CHECK %s rel_l2_E=%.3e rel_l2_H=%.3e tol=%.0e (CPU reference %dx%dx%d, %d steps; "
           "energy finite and positive: %s)\n",
           ok ? "PASS" : "FAIL", err_e, err_h, tol, q.nx, q.ny, q.nz, q.steps,
           (std::isfinite(energy) && energy > 0.0) ? "yes" : "no");
    return ok ? 0 : 1;
}
