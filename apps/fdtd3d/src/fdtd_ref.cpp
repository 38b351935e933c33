// fdtd_ref.cpp - materials, source and the CPU reference of the Yee scheme
#include "fdtd.h"

#include <cmath>

void build_materials(const FdtdParams& p, std::vector<float>& ca, std::vector<float>& cb)
{
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const size_t n = (size_t)nx * ny * nz;
    ca.assign(n, 1.0f);
    cb.assign(n, p.dt);
    // a dielectric sphere (eps_r = 4) and a lossy slab (sigma = 0.05) near the top
    float cx = 0.65f * nx, cy = 0.5f * ny, cz = 0.5f * nz;
    float r = 0.15f * std::fmin((float)nx, std::fmin((float)ny, (float)nz));
    for (int k = 0; k < nz; k++) {
        for (int j = 0; j < ny; j++) {
            for (int i = 0; i < nx; i++) {
                float eps = 1.0f, sigma = 0.0f;
                float dx = i - cx, dy = j - cy, dz = k - cz;
                if (dx * dx + dy * dy + dz * dz < r * r)
                    eps = 4.0f;
                if (k > 0.85f * nz)
                    sigma = 0.05f;
                float loss = sigma * p.dt / (2.0f * eps);
                ca[IDX(i, j, k)] = (1.0f - loss) / (1.0f + loss);
                cb[IDX(i, j, k)] = (p.dt / eps) / (1.0f + loss);
            }
        }
    }
}

float source_value(const FdtdParams& p, int step)
{
    const double pi = 3.14159265358979323846;
    double t = step * (double)p.dt;
    double env = std::exp(-((t - p.t0) / p.tw) * ((t - p.t0) / p.tw));
    return (float)(env * std::sin(2.0 * pi * p.freq * (t - p.t0)));
}

void fdtd_cpu(const FdtdParams& p, const std::vector<float>& ca,
              const std::vector<float>& cb, Fields& f)
{
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const float db = p.dt;
    f.resize((size_t)nx * ny * nz);
    float *ex = f.ex.data(), *ey = f.ey.data(), *ez = f.ez.data();
    float *hx = f.hx.data(), *hy = f.hy.data(), *hz = f.hz.data();

    for (int n = 0; n < p.steps; n++) {
        for (int k = 0; k < nz - 1; k++)
            for (int j = 0; j < ny - 1; j++)
                for (int i = 0; i < nx - 1; i++) {
                    hx[IDX(i, j, k)] += db * ((ey[IDX(i, j, k + 1)] - ey[IDX(i, j, k)])
                                            - (ez[IDX(i, j + 1, k)] - ez[IDX(i, j, k)]));
                    hy[IDX(i, j, k)] += db * ((ez[IDX(i + 1, j, k)] - ez[IDX(i, j, k)])
                                            - (ex[IDX(i, j, k + 1)] - ex[IDX(i, j, k)]));
                    hz[IDX(i, j, k)] += db * ((ex[IDX(i, j + 1, k)] - ex[IDX(i, j, k)])
                                            - (ey[IDX(i + 1, j, k)] - ey[IDX(i, j, k)]));
                }
        for (int k = 1; k < nz; k++)
            for (int j = 1; j < ny; j++)
                for (int i = 1; i < nx; i++) {
                    int c = IDX(i, j, k);
                    ex[c] = ca[c] * ex[c] + cb[c] * ((hz[c] - hz[IDX(i, j - 1, k)])
                                                   - (hy[c] - hy[IDX(i, j, k - 1)]));
                    ey[c] = ca[c] * ey[c] + cb[c] * ((hx[c] - hx[IDX(i, j, k - 1)])
                                                   - (hz[c] - hz[IDX(i - 1, j, k)]));
                    ez[c] = ca[c] * ez[c] + cb[c] * ((hy[c] - hy[IDX(i - 1, j, k)])
                                                   - (hx[c] - hx[IDX(i, j - 1, k)]));
                }
        for (int k = 0; k < nz; k++)
            for (int j = 0; j < ny; j++) {
                ey[IDX(0, j, k)] = ez[IDX(0, j, k)] = 0.0f;
                ey[IDX(nx - 1, j, k)] = ez[IDX(nx - 1, j, k)] = 0.0f;
            }
        for (int k = 0; k < nz; k++)
            for (int i = 0; i < nx; i++) {
                ex[IDX(i, 0, k)] = ez[IDX(i, 0, k)] = 0.0f;
                ex[IDX(i, ny - 1, k)] = ez[IDX(i, ny - 1, k)] = 0.0f;
            }
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                ex[IDX(i, j, 0)] = ey[IDX(i, j, 0)] = 0.0f;
                ex[IDX(i, j, nz - 1)] = ey[IDX(i, j, nz - 1)] = 0.0f;
            }
        ez[IDX(p.srcx, p.srcy, p.srcz)] += source_value(p, n);
    }
}

double field_energy(const Fields& f, int nx, int ny, int nz)
{
    // 0.5 * sum(E^2 + H^2), vacuum weights (an indicator, not the exact
    // discrete invariant)
    double e = 0.0;
    size_t n = (size_t)nx * ny * nz;
    for (size_t c = 0; c < n; c++) {
        e += (double)f.ex[c] * f.ex[c] + (double)f.ey[c] * f.ey[c] + (double)f.ez[c] * f.ez[c];
        e += (double)f.hx[c] * f.hx[c] + (double)f.hy[c] * f.hy[c] + (double)f.hz[c] * f.hz[c];
    }
    return 0.5 * e;
}
