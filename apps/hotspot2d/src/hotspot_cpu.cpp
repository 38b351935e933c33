// hotspot_cpu.cpp - physical constants, power map and the CPU reference
#include "hotspot.h"

#include <algorithm>

// silicon die
static const double K_SI = 100.0;          // thermal conductivity [W/(m K)]
static const double CV_SI = 1.75e6;        // volumetric heat capacity [J/(m^3 K)]
static const double T_DIE = 0.5e-3;        // die thickness [m]
static const double R_SINK = 1.0e-4;       // sink resistance per area [K m^2 / W]

ThermalCoeffs thermal_coefficients(double cell_w, double cell_h)
{
    double area = cell_w * cell_h;
    double cap = CV_SI * T_DIE * area;                   // J/K
    double rx = cell_w / (K_SI * T_DIE * cell_h);        // K/W
    double ry = cell_h / (K_SI * T_DIE * cell_w);
    double rz = T_DIE / (K_SI * area) + R_SINK / area;
    // a quarter of the explicit stability limit
    double dt = 0.25 * cap / (2.0 / rx + 2.0 / ry + 1.0 / rz);
    ThermalCoeffs c;
    c.dt = dt;
    c.cx = (float)(dt / (cap * rx));
    c.cy = (float)(dt / (cap * ry));
    c.cz = (float)(dt / (cap * rz));
    c.cp = (float)(dt / cap);
    return c;
}

// Background power density plus a few rectangular functional units with high
// density, placed by a small LCG so that every run builds the same chip.
void make_power_map(int rows, int cols, double cell_w, double cell_h,
                    unsigned int seed, std::vector<float>& power)
{
    const double area = cell_w * cell_h;
    power.assign((size_t)rows * cols, (float)(2.0e5 * area));   // 20 W/cm^2
    unsigned int s = seed;
    auto next = [&s]() { s = s * 1664525u + 1013904223u; return (s >> 8) & 0xffffff; };
    for (int unit = 0; unit < 12; unit++) {
        int h = std::max(1, (int)(rows * (0.04 + 0.12 * (next() / 16777216.0))));
        int w = std::max(1, (int)(cols * (0.04 + 0.12 * (next() / 16777216.0))));
        int r0 = (int)((rows - h) * (next() / 16777216.0));
        int c0 = (int)((cols - w) * (next() / 16777216.0));
        double density = 5.0e5 + 2.5e6 * (next() / 16777216.0);  // up to 300 W/cm^2
        for (int r = r0; r < r0 + h; r++)
            for (int c = c0; c < c0 + w; c++)
                power[(size_t)r * cols + c] = (float)(density * area);
    }
}

void hotspot_cpu(std::vector<float>& temp, const std::vector<float>& power,
                 int rows, int cols, int iterations, const ThermalCoeffs& k)
{
    std::vector<float> next(temp.size());
    for (int it = 0; it < iterations; it++) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                float t = temp[(size_t)r * cols + c];
                float tn = temp[(size_t)std::max(r - 1, 0) * cols + c];
                float ts = temp[(size_t)std::min(r + 1, rows - 1) * cols + c];
                float tw = temp[(size_t)r * cols + std::max(c - 1, 0)];
                float te = temp[(size_t)r * cols + std::min(c + 1, cols - 1)];
                next[(size_t)r * cols + c] = t + k.cp * power[(size_t)r * cols + c]
                    + k.cx * (te + tw - 2.0f * t)
                    + k.cy * (tn + ts - 2.0f * t)
                    - k.cz * t;
            }
        }
        temp.swap(next);
    }
}
