// hotspot.h - chip thermal model shared by the GPU code and the CPU reference
//
// Each cell of the rows x cols grid is a thermal node of a thin silicon die
// with lateral resistances to its four neighbours, a vertical resistance to
// the heat sink at ambient temperature and a heat capacity. Temperatures are
// stored as the rise above ambient (K). Edges are adiabatic (the neighbour
// outside the chip is the cell itself).
//
//   T' = T + cp*P + cx*(Te + Tw - 2T) + cy*(Tn + Ts - 2T) - cz*T
#ifndef HOTSPOT_H
#define HOTSPOT_H

#include <vector>

struct ThermalCoeffs {
    float cx, cy, cz, cp;   // dt/(C Rx), dt/(C Ry), dt/(C Rz), dt/C
    double dt;              // time step [s]
};

ThermalCoeffs thermal_coefficients(double cell_w, double cell_h);
void make_power_map(int rows, int cols, double cell_w, double cell_h,
                    unsigned int seed, std::vector<float>& power);
void hotspot_cpu(std::vector<float>& temp, const std::vector<float>& power,
                 int rows, int cols, int iterations, const ThermalCoeffs& c);

#endif
