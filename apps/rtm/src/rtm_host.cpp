// rtm_host.cpp - model building, source wavelet and the CPU reference
#include "rtm.h"

#include <algorithm>
#include <cmath>
#include <utility>

void build_velocity_model(const RtmParams& p, std::vector<float>& vdt2)
{
    // Three layers with a dipping first interface and a slow Gaussian lens in
    // the middle layer; velocities in m/s.
    vdt2.resize(grid_size(p));
    const float sigma = 0.1f * p.nx;
    for (int k = 0; k < p.nz; k++) {
        for (int j = 0; j < p.ny; j++) {
            for (int i = 0; i < p.nx; i++) {
                float z1 = 0.35f * p.nz + 0.08f * (i - 0.5f * p.nx);
                float z2 = 0.70f * p.nz;
                float v;
                if (k < z1)
                    v = 1500.0f;
                else if (k < z2)
                    v = 2200.0f;
                else
                    v = 3000.0f;
                float di = i - 0.5f * p.nx, dj = j - 0.5f * p.ny, dk = k - 0.5f * p.nz;
                float r2 = di * di + dj * dj + dk * dk;
                if (k >= z1 && k < z2)
                    v -= 400.0f * std::exp(-r2 / (2.0f * sigma * sigma));
                float c = v * p.dt / p.dx;
                vdt2[((size_t)k * p.ny + j) * p.nx + i] = c * c;
            }
        }
    }
}

std::vector<float> ricker_wavelet(int nt, float dt, float fpeak)
{
    std::vector<float> w(nt);
    const double pi = 3.14159265358979323846;
    double t0 = 1.2 / fpeak;
    for (int it = 0; it < nt; it++) {
        double t = it * dt - t0;
        double a = pi * fpeak * t;
        w[it] = (float)((1.0 - 2.0 * a * a) * std::exp(-a * a));
    }
    return w;
}

std::vector<float> sponge_profile(int nb)
{
    // damp[d] multiplies the wavefield at distance d from the nearest face.
    std::vector<float> damp(nb);
    for (int d = 0; d < nb; d++) {
        float x = 0.3f * (float)(nb - d) / nb;
        damp[d] = std::exp(-x * x);
    }
    return damp;
}

int num_snapshots(const RtmParams& p)
{
    return (p.nt + p.snap_every - 1) / p.snap_every;
}

// ---------------------------------------------------------------------------
// CPU reference

static void cpu_step(const RtmParams& p, float* pnext, const float* pcur,
                     const float* vdt2)
{
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const size_t sy = nx, sz = (size_t)nx * ny;
    for (int k = RADIUS; k < nz - RADIUS; k++) {
        for (int j = RADIUS; j < ny - RADIUS; j++) {
            for (int i = RADIUS; i < nx - RADIUS; i++) {
                size_t idx = k * sz + j * sy + i;
                float lap = COEF_C0 * pcur[idx]
                    + COEF_C1 * (pcur[idx + 1] + pcur[idx - 1]
                               + pcur[idx + sy] + pcur[idx - sy]
                               + pcur[idx + sz] + pcur[idx - sz])
                    + COEF_C2 * (pcur[idx + 2] + pcur[idx - 2]
                               + pcur[idx + 2 * sy] + pcur[idx - 2 * sy]
                               + pcur[idx + 2 * sz] + pcur[idx - 2 * sz])
                    + COEF_C3 * (pcur[idx + 3] + pcur[idx - 3]
                               + pcur[idx + 3 * sy] + pcur[idx - 3 * sy]
                               + pcur[idx + 3 * sz] + pcur[idx - 3 * sz])
                    + COEF_C4 * (pcur[idx + 4] + pcur[idx - 4]
                               + pcur[idx + 4 * sy] + pcur[idx - 4 * sy]
                               + pcur[idx + 4 * sz] + pcur[idx - 4 * sz]);
                pnext[idx] = 2.0f * pcur[idx] - pnext[idx] + vdt2[idx] * lap;
            }
        }
    }
}

static void cpu_sponge(const RtmParams& p, float* a, float* b, const float* damp)
{
    for (int k = 0; k < p.nz; k++) {
        for (int j = 0; j < p.ny; j++) {
            for (int i = 0; i < p.nx; i++) {
                int d = std::min(std::min(std::min(i, p.nx - 1 - i), std::min(j, p.ny - 1 - j)),
                                 std::min(k, p.nz - 1 - k));
                if (d < p.nb) {
                    size_t idx = ((size_t)k * p.ny + j) * p.nx + i;
                    a[idx] *= damp[d];
                    b[idx] *= damp[d];
                }
            }
        }
    }
}

void rtm_cpu(const RtmParams& p, const std::vector<float>& vdt2,
             const std::vector<float>& damp, const std::vector<float>& wavelet,
             std::vector<float>& image, std::vector<float>& fwd_final,
             std::vector<float>& rec)
{
    const size_t n = grid_size(p);
    const size_t plane = (size_t)p.nx * p.ny;
    const size_t src = ((size_t)p.sz * p.ny + p.sy) * p.nx + p.sx;
    const int nsnap = num_snapshots(p);

    std::vector<float> a(n, 0.0f), b(n, 0.0f);
    std::vector<float> snaps((size_t)nsnap * n);
    rec.assign((size_t)p.nt * plane, 0.0f);
    image.assign(n, 0.0f);

    // forward pass
    float* pprev = a.data();
    float* pcur = b.data();
    for (int it = 0; it < p.nt; it++) {
        cpu_step(p, pprev, pcur, vdt2.data());
        pprev[src] += wavelet[it] * vdt2[src];
        cpu_sponge(p, pprev, pcur, damp.data());
        for (size_t q = 0; q < plane; q++)
            rec[(size_t)it * plane + q] = pprev[(size_t)p.rec_z * plane + q];
        if (it % p.snap_every == 0)
            std::copy(pprev, pprev + n, snaps.begin() + (size_t)(it / p.snap_every) * n);
        std::swap(pprev, pcur);
    }
    fwd_final.assign(pcur, pcur + n);

    // backward pass
    std::fill(a.begin(), a.end(), 0.0f);
    std::fill(b.begin(), b.end(), 0.0f);
    pprev = a.data();
    pcur = b.data();
    for (int it = p.nt - 1; it >= 0; it--) {
        cpu_step(p, pprev, pcur, vdt2.data());
        for (size_t q = 0; q < plane; q++) {
            size_t idx = (size_t)p.rec_z * plane + q;
            pprev[idx] += vdt2[idx] * rec[(size_t)it * plane + q];
        }
        cpu_sponge(p, pprev, pcur, damp.data());
        if (it % p.snap_every == 0) {
            const float* s = snaps.data() + (size_t)(it / p.snap_every) * n;
            for (size_t q = 0; q < n; q++)
                image[q] += s[q] * pprev[q];
        }
        std::swap(pprev, pcur);
    }
}
