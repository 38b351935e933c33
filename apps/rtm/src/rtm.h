// rtm.h - shared definitions for the acoustic RTM proxy
//
// Isotropic constant-density acoustic wave equation
//     d2p/dt2 = v^2 * laplacian(p) + s(t) delta(x - xs)
// discretised 8th order in space (radius 4) and 2nd order in time:
//     p(n+1) = 2 p(n) - p(n-1) + (v dt / h)^2 * L8 p(n)
// Arrays are stored x fastest: idx = (k * ny + j) * nx + i.
#ifndef RTM_H
#define RTM_H

#include <cstddef>
#include <vector>

#define RADIUS 4

// 8th order second-derivative weights (1-D), centre weight times 3 for 3-D.
static const float COEF_C0 = 3.0f * (-205.0f / 72.0f);
static const float COEF_C1 = 8.0f / 5.0f;
static const float COEF_C2 = -1.0f / 5.0f;
static const float COEF_C3 = 8.0f / 315.0f;
static const float COEF_C4 = -1.0f / 560.0f;

struct RtmParams {
    int nx, ny, nz;      // grid points, sponge included
    int nb;              // sponge width (points)
    int nt;              // time steps of each pass
    int snap_every;      // keep the source wavefield every snap_every steps
    float dx;            // grid spacing [m]
    float dt;            // time step [s]
    float fpeak;         // Ricker peak frequency [Hz]
    int sx, sy, sz;      // source position
    int rec_z;           // depth index of the receiver plane
};

inline size_t grid_size(const RtmParams& p)
{
    return (size_t)p.nx * p.ny * p.nz;
}

// rtm_host.cpp
void build_velocity_model(const RtmParams& p, std::vector<float>& vdt2);
std::vector<float> ricker_wavelet(int nt, float dt, float fpeak);
std::vector<float> sponge_profile(int nb);
int num_snapshots(const RtmParams& p);

// CPU reference of the whole migration: forward pass, receiver recording,
// backward pass and imaging, with the same operations in the same order as
// the GPU code.
void rtm_cpu(const RtmParams& p, const std::vector<float>& vdt2,
             const std::vector<float>& damp, const std::vector<float>& wavelet,
             std::vector<float>& image, std::vector<float>& fwd_final,
             std::vector<float>& rec);

#endif
