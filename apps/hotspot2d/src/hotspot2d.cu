// hotspot2d.cu - transient chip temperature (HotSpot-style compact model)
//
// One explicit step per launch; each 16x16 block stages its tile plus a
// one-cell halo in shared memory. Ping-pong between two temperature grids.
//
// Usage: hotspot2d [--rows N] [--cols N] [--iters N] [--small] [--out FILE]
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hotspot.h"

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t rc = (call);                                            \
        if (rc != cudaSuccess) {                                            \
            fprintf(stderr, "hotspot2d: %s failed at %s:%d: %s\n", #call,   \
                    __FILE__, __LINE__, cudaGetErrorString(rc));            \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

#define TILE 16

static const double CELL = 20.0e-6;   // cell edge [m]

__global__ void hotspot_kernel(float* __restrict__ t_out,
                               const float* __restrict__ t_in,
                               const float* __restrict__ power,
                               int rows, int cols,
                               float cx, float cy, float cz, float cp)
{
    __shared__ float tile[TILE + 2][TILE + 2];

    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    // threads past the edge load the clamped edge cell so the halo is valid
    int cc = min(c, cols - 1);
    int rr = min(r, rows - 1);

    tile[ty + 1][tx + 1] = t_in[rr * cols + cc];
    if (tx == 0)
        tile[ty + 1][0] = t_in[rr * cols + max(cc - 1, 0)];
    if (tx == TILE - 1)
        tile[ty + 1][TILE + 1] = t_in[rr * cols + min(cc + 1, cols - 1)];
    if (ty == 0)
        tile[0][tx + 1] = t_in[max(rr - 1, 0) * cols + cc];
    if (ty == TILE - 1)
        tile[TILE + 1][tx + 1] = t_in[min(rr + 1, rows - 1) * cols + cc];
    __syncthreads();

    if (r >= rows || c >= cols)
        return;
    // the clamped loads make the neighbour outside the chip the cell itself
    float t = tile[ty + 1][tx + 1];
    float tn = tile[ty][tx + 1];
    float ts = tile[ty + 2][tx + 1];
    float tw = tile[ty + 1][tx];
    float te = tile[ty + 1][tx + 2];

    t_out[r * cols + c] = t + cp * power[r * cols + c]
                        + cx * (te + tw - 2.0f * t)
                        + cy * (tn + ts - 2.0f * t)
                        - cz * t;
}

// Runs `iters` steps; temp is the initial field on entry, final on exit.
// Returns the loop time in milliseconds (CUDA events).
static float compute_tran_temp(std::vector<float>& temp, const std::vector<float>& power,
                               int rows, int cols, int iters, const ThermalCoeffs& k)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_temp[2], *d_power;
    CUDA_CHECK(cudaMalloc(&d_temp[0], bytes));
    CUDA_CHECK(cudaMalloc(&d_temp[1], bytes));
    CUDA_CHECK(cudaMalloc(&d_power, bytes));
    CUDA_CHECK(cudaMemcpy(d_temp[0], temp.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_power, power.data(), bytes, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    cudaEvent_t ev0, ev1;
    CUDA_CHECK(cudaEventCreate(&ev0));
    CUDA_CHECK(cudaEventCreate(&ev1));

    int src = 0, dst = 1;
    CUDA_CHECK(cudaEventRecord(ev0));
    for (int i = 0; i < iters; i++) {
        hotspot_kernel<<<grid, block>>>(d_temp[dst], d_temp[src], d_power, rows, cols,
                                        k.cx, k.cy, k.cz, k.cp);
        CUDA_CHECK(cudaGetLastError());
        src = 1 - src;
        dst = 1 - dst;
    }
    CUDA_CHECK(cudaEventRecord(ev1));
    CUDA_CHECK(cudaEventSynchronize(ev1));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));

    CUDA_CHECK(cudaMemcpy(temp.data(), d_temp[src], bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventDestroy(ev0));
    CUDA_CHECK(cudaEventDestroy(ev1));
    CUDA_CHECK(cudaFree(d_temp[0]));
    CUDA_CHECK(cudaFree(d_temp[1]));
    CUDA_CHECK(cudaFree(d_power));
    return ms;
}

int main(int argc, char** argv)
{
    int rows = 0, cols = 0, iters = 0;
    bool small = false;
    std::string out;
    for (int i = 1; i < argc; i++) {
        std::string a(argv[i]);
        if ((a == "--rows" || a == "--ny") && i + 1 < argc) rows = atoi(argv[++i]);
        else if ((a == "--cols" || a == "--nx") && i + 1 < argc) cols = atoi(argv[++i]);
        else if ((a == "--iters" || a == "--steps") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (a == "--out" && i + 1 < argc) out = argv[++i];
        else if (a == "--small") small = true;
        else if (a == "--help" || a == "-h") {
            printf("usage: %s [--rows N] [--cols N] [--iters N] [--small] [--out FILE]\n"
                   "  default 16384 x 16384 cells, 1500 steps; --small 1024 x 1024, 200 steps\n"
                   "  --out FILE writes the temperature rise (float32, row-major) at the end\n",
                   argv[0]);
            return 0;
        } else {
            fprintf(stderr, "hotspot2d: unrecognised argument %s\n", argv[i]);
            return 2;
        }
    }
    if (rows <= 0) rows = small ? 1024 : 16384;
    if (cols <= 0) cols = small ? 1024 : 16384;
    if (iters <= 0) iters = small ? 200 : 1500;
    if (rows < 2 || cols < 2 || (double)rows * cols > 2147483647.0) {
        fprintf(stderr, "hotspot2d: grid %d x %d out of range\n", rows, cols);
        return 2;
    }

    ThermalCoeffs k = thermal_coefficients(CELL, CELL);
    std::vector<float> power, temp((size_t)rows * cols, 0.0f);
    make_power_map(rows, cols, CELL, CELL, 2024u, power);
    printf("hotspot2d: %d x %d cells of %.0f um, %d steps of %.3e s\n", rows, cols,
           CELL * 1e6, iters, k.dt);

    float ms = compute_tran_temp(temp, power, rows, cols, iters, k);
    printf("Total compute time: %.6f (s)\n", ms * 1.0e-3);
    float tmax = 0.0f;
    double tsum = 0.0;
    bool finite = true;
    for (size_t i = 0; i < temp.size(); i++) {
        if (!std::isfinite(temp[i])) finite = false;
        tmax = std::fmax(tmax, temp[i]);
        tsum += temp[i];
    }
    printf("temperature rise: max %.6f K, mean %.6f K\n", tmax, tsum / temp.size());

    if (!out.empty()) {
        FILE* fp = fopen(out.c_str(), "wb");
        if (!fp || fwrite(temp.data(), sizeof(float), temp.size(), fp) != temp.size()) {
            fprintf(stderr, "hotspot2d: could not write %s\n", out.c_str());
            return 1;
        }
        fclose(fp);
    }

    // Verification on a small chip whose sides are not multiples of the tile.
    const int vr = 75, vc = 61, viters = 60;
    std::vector<float> vpow, vgpu((size_t)vr * vc), vcpu;
    make_power_map(vr, vc, CELL, CELL, 7u, vpow);
    for (size_t i = 0; i < vgpu.size(); i++)
        vgpu[i] = 0.5f * (float)((i * 37) % 11);   // non-uniform start
    vcpu = vgpu;
    compute_tran_temp(vgpu, vpow, vr, vc, viters, k);
    hotspot_cpu(vcpu, vpow, vr, vc, viters, k);
    double maxerr = 0.0, maxref = 0.0;
    for (size_t i = 0; i < vcpu.size(); i++) {
        double e = std::fabs((double)vgpu[i] - vcpu[i]);
        if (std::isnan(e)) e = INFINITY;
        maxerr = std::fmax(maxerr, e);
        maxref = std::fmax(maxref, std::fabs((double)vcpu[i]));
    }
    double rel = maxerr / maxref;
    const double tol = 1e-5;
    bool pass = finite && rel <= tol;
    printf("CHECK %s max_rel_err=%.3e tol=%.0e (CPU reference %dx%d, %d steps; max error over max |T|)\n",
           pass ? "PASS" : "FAIL", rel, tol, vr, vc, viters);
    return pass ? 0 : 1;
}
