//===- PlaneStage.cpp - Planes copied ahead into shared memory -------------===//

#include "PlaneStage.h"

#include "forgestencil/Forge/CodeGen.h"

#include <algorithm>
#include <sstream>

namespace forgestencil {
namespace forge {

PlaneStage::PlaneStage(const StencilView &V, const StrategyParams &P,
                       unsigned VW)
    : V(V), P(P), VW(VW) {}

void PlaneStage::add(const std::string &Array, int Row, int Plane,
                     int Column) {
  auto [It, New] = Rings.try_emplace(Array);
  Ring &R = It->second;
  if (New) {
    R = {Plane, Plane, Row, Row, Column, Column};
    return;
  }
  R.PlaneLo = std::min(R.PlaneLo, Plane);
  R.PlaneHi = std::max(R.PlaneHi, Plane);
  R.RowLo = std::min(R.RowLo, Row);
  R.RowHi = std::max(R.RowHi, Row);
  R.ColLo = std::min(R.ColLo, Column);
  R.ColHi = std::max(R.ColHi, Column);
}

unsigned PlaneStage::slots() const {
  int Lo = 0, Hi = 0;
  bool First = true;
  for (const auto &[Name, R] : Rings) {
    Lo = First ? R.PlaneLo : std::min(Lo, R.PlaneLo);
    Hi = First ? R.PlaneHi : std::max(Hi, R.PlaneHi);
    First = false;
  }
  return static_cast<unsigned>(Hi - Lo + 1) + P.Stages;
}

unsigned PlaneStage::rows(const Ring &R) const {
  return P.BlockY + static_cast<unsigned>(R.RowHi - R.RowLo);
}

unsigned PlaneStage::chunks(const Ring &R) const {
  return P.BlockX + static_cast<unsigned>(R.ColHi - R.ColLo);
}

unsigned PlaneStage::copiesPerThread(const Ring &R) const {
  const unsigned N = rows(R) * chunks(R), NT = P.BlockX * P.BlockY;
  return (N + NT - 1) / NT;
}

unsigned PlaneStage::sharedBytes() const {
  unsigned Bytes = 0;
  const unsigned E = ir::elementSize(V.elementType());
  for (const auto &[Name, R] : Rings)
    Bytes += slots() * rows(R) * chunks(R) * VW * E;
  return Bytes;
}

std::string PlaneStage::kernelParams() const {
  std::string S;
  for (const auto &[A, R] : Rings)
    S += ", Idx fs_span_" + A + "_lo, Idx fs_span_" + A + "_hi";
  return S;
}

std::string PlaneStage::launchCondition() const {
  std::string S;
  for (const auto &[A, R] : Rings)
    S += std::string(S.empty() ? "" : " && ") + "fs_span_" + A + "[0] % " +
         std::to_string(VW) + " == 0 && (fs_span_" + A + "[1] + 1) % " +
         std::to_string(VW) + " == 0 && fs_reach + " +
         std::to_string(rows(R)) + "LL * fs_abs(fs_st[1]) + " +
         std::to_string(chunks(R) * VW) + " < 2147483647LL";
  return S;
}

std::string PlaneStage::launchArgs() const {
  std::string S;
  for (const auto &[A, R] : Rings)
    S += ", (int)fs_span_" + A + "[0], (int)fs_span_" + A + "[1]";
  return S;
}

std::string PlaneStage::launcherSpans() const {
  std::ostringstream OS;
  for (const auto &[A, R] : Rings) {
    const StencilView::Array *Arr = V.array(A);
    OS << "  // The lowest and highest element of '" << A
       << "' the original reads: staged copies stay within.\n"
       << "  long long fs_span_" << A
       << "[2] = {9223372036854775807LL, -9223372036854775807LL};\n";
    for (const ir::Offset &O : Arr->Offsets)
      OS << "  fs_span_add(fs_span_" << A << ", fs_lo, fs_hi, fs_st, " << O[0]
         << ", " << O[1] << ", " << O[2] << ");\n";
  }
  return OS.str();
}

std::string PlaneStage::declare(const std::string &In) const {
  std::ostringstream OS;
  const unsigned NT = P.BlockX * P.BlockY;
  const unsigned E = ir::elementSize(V.elementType());
  OS << In << "const int fs_tx = threadIdx.x, fs_ty = threadIdx.y;\n"
     << In << "const int fs_ct = fs_ty * " << P.BlockX << " + fs_tx;\n"
     << In << "// The rings, in dynamic shared memory (the launch gives "
     << sharedBytes() << " bytes).\n"
     << In << "extern __shared__ float4 fs_stage_smem[];\n";
  unsigned Offset = 0;
  for (const auto &[A, R] : Rings) {
    const unsigned W = chunks(R), H = rows(R), N = W * H;
    const std::string VT = V.vectorType(VW);
    OS << In << "// " << A << ": " << slots() << " planes of a " << W * VW
       << " x " << H << " tile; this thread copies chunks fs_ct + k * " << NT
       << ".\n"
       << In << VT << " (*const fs_st_" << A << ")[" << H << "][" << W
       << "] = reinterpret_cast<" << VT << " (*)[" << H << "][" << W
       << "]>(reinterpret_cast<unsigned char *>(fs_stage_smem) + " << Offset
       << ");\n";
    Offset += slots() * H * W * VW * E;
    for (unsigned K = 0; K < copiesPerThread(R); ++K) {
      std::string C = "(fs_ct + " + std::to_string(K * NT) + ")";
      OS << In << "const Idx fs_cg_" << A << "_" << K << " = (Idx)(" << C
         << " / " << W << ") * s1 + (Idx)(" << C << " % " << W << " * " << VW
         << ");\n";
      if ((K + 1) * NT > N)
        OS << In << "const bool fs_con_" << A << "_" << K << " = " << C
           << " < " << N << ";\n";
    }
  }
  return OS.str();
}

std::string PlaneStage::copyPlane(const std::string &In, const std::string &A,
                                  const Ring &R, const std::string &Plane,
                                  const std::string &Slot) const {
  std::ostringstream OS;
  const std::string T = V.elementType();
  const unsigned NT = P.BlockX * P.BlockY, N = rows(R) * chunks(R);
  OS << In << "if (" << Plane << " <= fs_pe_" << A << ") {\n"
     << In << "  const Idx fs_g = fs_o_" << A << " + (" << Plane
     << ") * s2;\n"
     << In << "  " << T << " *const fs_d = (" << T << " *)&fs_st_" << A
     << "[" << Slot << "][0][0];\n";
  for (unsigned K = 0; K < copiesPerThread(R); ++K) {
    std::string Copy = "fs_stage_chunk<" + T + ", " + std::to_string(VW) +
                       ">(fs_d + (fs_ct + " + std::to_string(K * NT) + ") * " +
                       std::to_string(VW) + ", " +
                       A + ", fs_g + fs_cg_" + A + "_" + std::to_string(K) +
                       ", fs_span_" + A + "_lo, fs_span_" + A + "_hi);\n";
    if ((K + 1) * NT > N)
      OS << In << "  if (fs_con_" << A << "_" << K << ")\n" << In << "    "
         << Copy;
    else
      OS << In << "  " << Copy;
  }
  OS << In << "}\n";
  return OS.str();
}

std::string PlaneStage::runStart(const std::string &In, const std::string &Cur,
                                 const std::string &Last) const {
  std::ostringstream OS;
  const unsigned BX = P.BlockX, BY = P.BlockY;
  const unsigned S = slots();
  for (const auto &[A, R] : Rings) {
    OS << In << "const Idx fs_o_" << A << " = (fs_xa + (Idx)blockIdx.x * "
       << BX * VW << " + (" << R.ColLo * static_cast<int>(VW)
       << ")) * s0 + (lo1 + bm * " << BY << " + (" << R.RowLo << ")) * s1;\n"
       << In << "const Idx fs_c0_" << A << " = " << Cur << ";\n"
       << In << "const Idx fs_pe_" << A << " = " << Last << " + ("
       << R.PlaneHi << ");\n";
  }
  OS << In << "// The first " << S - 1 << " planes, one commit group each.\n";
  for (unsigned J = 0; J + 1 < S; ++J) {
    for (const auto &[A, R] : Rings)
      OS << copyPlane(In, A, R,
                      "fs_c0_" + A + " + (" +
                          std::to_string(R.PlaneLo + static_cast<int>(J)) +
                          ")",
                      std::to_string(J));
    OS << In << "__pipeline_commit();\n";
  }
  return OS.str();
}

std::string PlaneStage::stepStart(const std::string &In,
                                  const std::string &Cur) const {
  std::ostringstream OS;
  OS << In << "__pipeline_wait_prior(" << P.Stages - 1 << ");\n"
     << In << "__syncthreads();\n";
  for (const auto &[A, R] : Rings) {
    const unsigned S = slots();
    OS << In << "const unsigned fs_k_" << A << " = (unsigned)(" << Cur
       << " - fs_c0_" << A << ");\n"
       << copyPlane(In, A, R,
                    Cur + " + (" +
                        std::to_string(R.PlaneLo + static_cast<int>(S) - 1) +
                        ")",
                    "(fs_k_" + A + " + " + std::to_string(S - 1) + ") % " +
                        std::to_string(S));
  }
  OS << In << "__pipeline_commit();\n";
  return OS.str();
}

std::string PlaneStage::runEnd(const std::string &In) const {
  return In + "__pipeline_wait_prior(0);\n" + In +
         "__syncthreads(); // the next run reuses the slots\n";
}

std::string PlaneStage::read(const std::string &Array, int Row, int Plane,
                             int Column, int Component) const {
  const Ring &R = Rings.at(Array);
  const unsigned S = slots();
  std::string Slot = "(fs_k_" + Array + " + " +
                     std::to_string(Plane - R.PlaneLo) + ") % " +
                     std::to_string(S);
  std::string Cell = "fs_st_" + Array + "[" + Slot + "][fs_ty + " +
                     std::to_string(Row - R.RowLo) + "][fs_tx + " +
                     std::to_string(Column - R.ColLo) + "]";
  if (Component >= 0)
    return Cell + "." + vectorLane(static_cast<unsigned>(Component));
  return Cell;
}

std::string PlaneStage::helpers() {
  return R"(#ifndef FORGESTENCIL_STAGE_HELPERS
#define FORGESTENCIL_STAGE_HELPERS
#include <cuda_pipeline.h>
namespace {
// Copies the W elements at a + g to d when they lie within [lo, hi]. The
// launcher runs the staged kernel only when lo and hi + 1 are multiples of
// W, so a chunk lies wholly within or wholly outside.
template <typename T, int W, typename Idx>
__device__ __forceinline__ void fs_stage_chunk(T *d, const T *a, Idx g, Idx lo, Idx hi) {
  if (g >= lo && g + (W - 1) <= hi)
    __pipeline_memcpy_async(d, a + g, W * sizeof(T));
}
// Widens sp = [lowest, highest] by the flat indices of the domain
// [lo, hi) moved by (dx, dy, dz), for strides st of any sign.
inline void fs_span_add(long long *sp, const long long *lo, const long long *hi,
                        const long long *st, int dx, int dy, int dz) {
  const int d[3] = {dx, dy, dz};
  long long mn = 0, mx = 0;
  for (int a = 0; a < 3; ++a) {
    const long long u = (lo[a] + d[a]) * st[a], v = (hi[a] - 1 + d[a]) * st[a];
    mn += u < v ? u : v;
    mx += u < v ? v : u;
  }
  sp[0] = mn < sp[0] ? mn : sp[0];
  sp[1] = mx > sp[1] ? mx : sp[1];
}
} // namespace
#endif // FORGESTENCIL_STAGE_HELPERS

)";
}

} // namespace forge
} // namespace forgestencil
