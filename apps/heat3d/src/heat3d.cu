// heat3d.cu - explicit 3-D heat equation on the unit cube
//
//   du/dt = alpha * laplacian(u),  u = 0 on the boundary,
//   u(x,y,z,0) = sin(pi x) sin(pi y) sin(pi z)
//
// The exact solution is u = sin(pi x) sin(pi y) sin(pi z) exp(-3 pi^2 alpha t).
// Forward Euler with the 7-point Laplacian keeps the sine mode an exact
// eigenvector, so the discrete solution is g^n * u0 with
// g = 1 - 12 r sin^2(pi h / 2), r = alpha dt / h^2. Both are checked.
//
// Usage: heat3d [--n N | --nx N --ny N --nz N] [--steps N] [--small] [--out FILE]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define CUDA_CHECK(x)                                                         \
    do {                                                                      \
        cudaError_t status = (x);                                             \
        if (status != cudaSuccess) {                                          \
            fprintf(stderr, "CUDA failure '%s' at %s:%d: %s\n", #x, __FILE__, \
                    __LINE__, cudaGetErrorString(status));                    \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

// One explicit step on the interior points; boundary values are never written.
template <typename Real>
__global__ void heat_step(Real* __restrict__ unew, const Real* __restrict__ u,
                          Real r, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i > nx - 2 || j > ny - 2 || k > nz - 2)
        return;

    const size_t sxy = (size_t)nx * ny;
    const size_t c = k * sxy + (size_t)j * nx + i;
    unew[c] = u[c] + r * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]
                        + u[c - sxy] + u[c + sxy] - Real(6) * u[c]);
}

template <typename Real>
struct Problem {
    int nx, ny, nz;
    int steps;
    Real alpha;     // diffusivity
    Real r;         // alpha dt / h^2 (stable for r <= 1/6)
    Real h, dt;
};

// Runs the time loop; u holds the initial field on entry and the final field
// on exit. Returns the loop time in milliseconds.
template <typename Real>
double run_simulation(const Problem<Real>& pb, std::vector<Real>& u)
{
    const size_t n = (size_t)pb.nx * pb.ny * pb.nz;
    Real *d_u, *d_unew;
    CUDA_CHECK(cudaMalloc(&d_u, n * sizeof(Real)));
    CUDA_CHECK(cudaMalloc(&d_unew, n * sizeof(Real)));
    // both buffers start equal so that the untouched boundary stays zero
    CUDA_CHECK(cudaMemcpy(d_u, u.data(), n * sizeof(Real), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_unew, u.data(), n * sizeof(Real), cudaMemcpyHostToDevice));

    dim3 block(32, 4, 2);
    dim3 grid((pb.nx + block.x - 1) / block.x, (pb.ny + block.y - 1) / block.y,
              (pb.nz + block.z - 1) / block.z);

    CUDA_CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int step = 0; step < pb.steps; ++step) {
        heat_step<Real><<<grid, block>>>(d_unew, d_u, pb.r, pb.nx, pb.ny, pb.nz);
        CUDA_CHECK(cudaGetLastError());
        std::swap(d_u, d_unew);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();

    CUDA_CHECK(cudaMemcpy(u.data(), d_u, n * sizeof(Real), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_unew));
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

int main(int argc, char** argv)
{
    typedef double Real;
    const double pi = 3.14159265358979323846;
    int nx = 0, ny = 0, nz = 0, steps = 0;
    bool small = false;
    std::string out_path;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next_int = [&](int& v) {
            if (i + 1 >= argc) {
                fprintf(stderr, "heat3d: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            v = std::atoi(argv[++i]);
        };
        if (a == "--n") { next_int(nx); ny = nz = nx; }
        else if (a == "--nx") next_int(nx);
        else if (a == "--ny") next_int(ny);
        else if (a == "--nz") next_int(nz);
        else if (a == "--steps") next_int(steps);
        else if (a == "--small") small = true;
        else if (a == "--out" && i + 1 < argc) out_path = argv[++i];
        else if (a == "--help" || a == "-h") {
            printf("usage: %s [--n N | --nx N --ny N --nz N] [--steps N] [--small] [--out FILE]\n"
                   "  default 512^3 points, 4000 steps; --small 64^3, 200 steps\n"
                   "  --out FILE writes u (float64, x fastest) after the last step\n", argv[0]);
            return 0;
        } else {
            fprintf(stderr, "heat3d: unknown argument '%s'\n", a.c_str());
            return 2;
        }
    }
    if (nx <= 0) nx = small ? 64 : 512;
    if (ny <= 0) ny = small ? 64 : 512;
    if (nz <= 0) nz = small ? 64 : 512;
    if (steps <= 0) steps = small ? 200 : 4000;
    if (nx < 4 || ny < 4 || nz < 4) {
        fprintf(stderr, "heat3d: need at least 4 points per direction\n");
        return 2;
    }

    // The unit cube with the same spacing in every direction: the box is
    // [0, (nx-1)h] x [0, (ny-1)h] x [0, (nz-1)h] with h = 1/(n_max-1) and the
    // mode sin(pi x/Lx) sin(pi y/Ly) sin(pi z/Lz). For a cube Lx=Ly=Lz=1.
    Problem<Real> pb;
    pb.nx = nx; pb.ny = ny; pb.nz = nz; pb.steps = steps;
    pb.alpha = 1.0;
    pb.h = 1.0 / (std::max(nx, std::max(ny, nz)) - 1);
    pb.r = 0.125;
    pb.dt = pb.r * pb.h * pb.h / pb.alpha;
    const double Lx = (nx - 1) * pb.h, Ly = (ny - 1) * pb.h, Lz = (nz - 1) * pb.h;
    const double kx = pi / Lx, ky = pi / Ly, kz = pi / Lz;
    const double t_end = steps * pb.dt;
    printf("heat3d: %d x %d x %d points (double), %d steps, h = %.4e, dt = %.4e, t_end = %.4e\n",
           nx, ny, nz, steps, pb.h, pb.dt, t_end);

    // separable initial condition; boundary rows set to exactly zero
    std::vector<double> sx(nx), sy(ny), sz(nz);
    for (int i = 0; i < nx; i++) sx[i] = (i == 0 || i == nx - 1) ? 0.0 : std::sin(kx * i * pb.h);
    for (int j = 0; j < ny; j++) sy[j] = (j == 0 || j == ny - 1) ? 0.0 : std::sin(ky * j * pb.h);
    for (int k = 0; k < nz; k++) sz[k] = (k == 0 || k == nz - 1) ? 0.0 : std::sin(kz * k * pb.h);
    const size_t n = (size_t)nx * ny * nz;
    std::vector<Real> u(n);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                u[((size_t)k * ny + j) * nx + i] = sx[i] * sy[j] * sz[k];

    double ms = run_simulation<Real>(pb, u);
    printf("[heat3d] TIMER time_loop_ms=%.3f\n", ms);

    // exact continuous and exact discrete amplitudes of the mode
    const double amp_exact = std::exp(-pb.alpha * (kx * kx + ky * ky + kz * kz) * t_end);
    auto s2 = [&](double kk) { double s = std::sin(0.5 * kk * pb.h); return s * s; };
    const double g = 1.0 - 4.0 * pb.r * (s2(kx) + s2(ky) + s2(kz));
    const double amp_discrete = std::pow(g, steps);
    double err_a = 0.0, err_d = 0.0;
    bool finite = true;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double v = u[((size_t)k * ny + j) * nx + i];
                double mode = sx[i] * sy[j] * sz[k];
                if (!std::isfinite(v)) finite = false;
                err_a = std::max(err_a, std::fabs(v - amp_exact * mode));
                err_d = std::max(err_d, std::fabs(v - amp_discrete * mode));
            }
    err_a /= amp_exact;        // relative to the amplitude of the solution
    err_d /= amp_discrete;
    printf("amplitude: computed mode decays to %.10f (exact %.10f, discrete %.10f)\n",
           u[((size_t)(nz / 2) * ny + ny / 2) * nx + nx / 2] /
               (sx[nx / 2] * sy[ny / 2] * sz[nz / 2]),
           amp_exact, amp_discrete);

    if (!out_path.empty()) {
        FILE* fp = fopen(out_path.c_str(), "wb");
        if (!fp || fwrite(u.data(), sizeof(Real), n, fp) != n) {
            fprintf(stderr, "heat3d: failed to write %s\n", out_path.c_str());
            return 1;
        }
        fclose(fp);
    }

    const double tol_analytic = 1e-3, tol_discrete = 1e-9;
    bool pass = finite && err_a <= tol_analytic && err_d <= tol_discrete;
    printf("CHECK %s max_rel_err_analytic=%.3e tol=%.0e max_rel_err_discrete_mode=%.3e tol=%.0e\n",
           pass ? "PASS" : "FAIL", err_a, tol_analytic, err_d, tol_discrete);
    return pass ? 0 : 1;
}
