#define EXPR(u0, Ky1, Ky0, Kx1, Kx0, uc, un, us, ue, uw) \
  (u0 - (((((1.0 + (Ky1 + Ky0)) + (Kx1 + Kx0)) * uc) - ((Ky1 * un) + (Ky0 * us))) - ((Kx1 * ue) + (Kx0 * uw))))
__global__ void scal(const double *__restrict__ Kx, const double *__restrict__ Ky, const double *__restrict__ u, const double *__restrict__ u0, double *__restrict__ r, int s) {
  int p = blockIdx.x * blockDim.x + threadIdx.x + 1 + s;
  r[p] = EXPR(u0[p], Ky[p + s], Ky[p], Kx[p + 1], Kx[p], u[p], u[p + s], u[p - s], u[p + 1], u[p - 1]);
}
__global__ void vec(const double *__restrict__ Kx, const double *__restrict__ Ky, const double *__restrict__ u, const double *__restrict__ u0, double *__restrict__ r, int s) {
  int p = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 2 + s;
  const double2 Kx0 = __ldg((const double2 *)(Kx + p)), Kx1 = __ldg((const double2 *)(Kx + p + 2));
  const double2 Ky0 = __ldg((const double2 *)(Ky + p)), Ky1 = __ldg((const double2 *)(Ky + p + s));
  const double2 us = __ldg((const double2 *)(u + p - s)), uw = __ldg((const double2 *)(u + p - 2));
  const double2 uc = __ldg((const double2 *)(u + p)), ue = __ldg((const double2 *)(u + p + 2));
  const double2 un = __ldg((const double2 *)(u + p + s)), v0 = __ldg((const double2 *)(u0 + p));
  const double a = EXPR(v0.x, Ky1.x, Ky0.x, Kx0.y, Kx0.x, uc.x, un.x, us.x, uc.y, uw.y);
  const double b = EXPR(v0.y, Ky1.y, Ky0.y, Kx1.x, Kx0.y, uc.y, un.y, us.y, ue.x, uc.x);
  *(double2 *)(r + p) = make_double2(a, b);
}
__global__ void vec_a(const double *__restrict__ Kx, const double *__restrict__ Ky, const double *__restrict__ u, const double *__restrict__ u0, double *__restrict__ r, int s) {
  int p = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 2 + s;
  const double2 Kx0 = __ldg((const double2 *)(Kx + p)), Kx1 = __ldg((const double2 *)(Kx + p + 2));
  const double2 Ky0 = __ldg((const double2 *)(Ky + p)), Ky1 = __ldg((const double2 *)(Ky + p + s));
  const double2 us = __ldg((const double2 *)(u + p - s)), uw = __ldg((const double2 *)(u + p - 2));
  const double2 uc = __ldg((const double2 *)(u + p)), ue = __ldg((const double2 *)(u + p + 2));
  const double2 un = __ldg((const double2 *)(u + p + s)), v0 = __ldg((const double2 *)(u0 + p));
  r[p] = EXPR(v0.x, Ky1.x, Ky0.x, Kx0.y, Kx0.x, uc.x, un.x, us.x, uc.y, uw.y);
}
__global__ void vec_ord(const double *__restrict__ Kx, const double *__restrict__ Ky, const double *__restrict__ u, const double *__restrict__ u0, double *__restrict__ r, int s) {
  int p = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 2 + s;
  const double2 Ky1 = __ldg((const double2 *)(Ky + p + s));
  const double2 Ky0 = __ldg((const double2 *)(Ky + p));
  const double2 Kx1 = __ldg((const double2 *)(Kx + p + 2));
  const double2 Kx0 = __ldg((const double2 *)(Kx + p));
  const double2 uc = __ldg((const double2 *)(u + p));
  const double2 un = __ldg((const double2 *)(u + p + s));
  const double2 us = __ldg((const double2 *)(u + p - s));
  const double2 ue = __ldg((const double2 *)(u + p + 2));
  const double2 uw = __ldg((const double2 *)(u + p - 2));
  const double2 v0 = __ldg((const double2 *)(u0 + p));
  const double a = EXPR(v0.x, Ky1.x, Ky0.x, Kx0.y, Kx0.x, uc.x, un.x, us.x, uc.y, uw.y);
  const double b = EXPR(v0.y, Ky1.y, Ky0.y, Kx1.x, Kx0.y, uc.y, un.y, us.y, ue.x, uc.x);
  *(double2 *)(r + p) = make_double2(a, b);
}
