// fdtd.h - common definitions of the 3-D Yee FDTD proxy
//
// Normalised units: c = 1, dx = dy = dz = 1, eps0 = mu0 = 1.
// Field components live on the staggered Yee cell of node (i,j,k):
//   Ex(i+1/2, j, k)  Ey(i, j+1/2, k)  Ez(i, j, k+1/2)
//   Hx(i, j+1/2, k+1/2)  Hy(i+1/2, j, k+1/2)  Hz(i+1/2, j+1/2, k)
// All arrays are nx*ny*nz floats, i fastest.
#ifndef FDTD_H
#define FDTD_H

#include <cstddef>
#include <vector>

#define IDX(i, j, k) ((i) + nx * ((j) + ny * (k)))

struct FdtdParams {
    int nx, ny, nz;
    int steps;
    float dt;        // Courant number dt*c/dx, must stay below 1/sqrt(3)
    float freq;      // source carrier frequency (cycles per unit time)
    float t0, tw;    // Gaussian envelope centre and width
    int srcx, srcy, srcz;
};

struct Fields {
    std::vector<float> ex, ey, ez, hx, hy, hz;
    void resize(size_t n)
    {
        ex.assign(n, 0.0f); ey.assign(n, 0.0f); ez.assign(n, 0.0f);
        hx.assign(n, 0.0f); hy.assign(n, 0.0f); hz.assign(n, 0.0f);
    }
};

// fdtd_ref.cpp
void build_materials(const FdtdParams& p, std::vector<float>& ca, std::vector<float>& cb);
float source_value(const FdtdParams& p, int step);
void fdtd_cpu(const FdtdParams& p, const std::vector<float>& ca,
              const std::vector<float>& cb, Fields& f);
double field_energy(const Fields& f, int nx, int ny, int nz);

#endif
