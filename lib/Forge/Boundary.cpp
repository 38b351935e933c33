//===- Boundary.cpp - Replicated and periodic boundaries -------------------===//

#include "Boundary.h"

#include <sstream>
#include <vector>

namespace forgestencil {
namespace forge {

using ir::StencilIR;

namespace {

/// How the generated comments name the IR's boundaries: clamped axes only
/// keep the words they had before periodic boundaries existed.
struct BoundaryWords {
  const char *Kind;   ///< "A replicated boundary"
  const char *Bounds; ///< "the clamp bounds"
  const char *Moved;  ///< "clamped"
};

BoundaryWords boundaryWords(const StencilIR &IR) {
  bool Clamped = false;
  for (const ir::Axis &X : IR.Axes)
    Clamped |= X.clamped();
  if (!hasWrappedAxes(IR))
    return {"A replicated boundary", "the clamp bounds", "clamped"};
  if (!Clamped)
    return {"A periodic boundary", "the wrap bounds", "wrapped"};
  return {"Replicated and periodic boundaries", "the clamp and wrap bounds",
          "clamped or wrapped"};
}

/// The helpers of a replicated boundary, also used by periodic ones: the
/// clamp of a read's coordinate and the boxes a frame kernel runs over.
std::string clampHelpers() {
  return "#ifndef FORGESTENCIL_GENERATED_CLAMP\n"
         "#define FORGESTENCIL_GENERATED_CLAMP\n"
         "namespace {\n"
         "// A read's coordinate on a replicated boundary: min(max(c, lo), hi).\n"
         "__device__ inline long long fs_clamp(long long c, long long lo, "
         "long long hi) {\n"
         "  const long long m = c > lo ? c : lo;\n"
         "  return m < hi ? m : hi;\n"
         "}\n"
         "// The frame of a clamped domain as up to six disjoint boxes (view\n"
         "// axes, half-open); end[b] counts the points of boxes 0..b.\n"
         "struct fs_frame_boxes {\n"
         "  long long lo[6][3], hi[6][3], end[6];\n"
         "  int n;\n"
         "};\n"
         "} // namespace\n"
         "#endif // FORGESTENCIL_GENERATED_CLAMP\n\n";
}

/// The helper of a periodic boundary, guarded on its own so that units
/// holding clamped and wrapped variants define each helper once.
std::string wrapHelpers() {
  return "#ifndef FORGESTENCIL_GENERATED_WRAP\n"
         "#define FORGESTENCIL_GENERATED_WRAP\n"
         "namespace {\n"
         "// A read's coordinate on a periodic boundary [lo, hi]: one period\n"
         "// up below lo, one down above hi (the IR's reads reach at most a\n"
         "// period beyond the bounds).\n"
         "__device__ inline long long fs_wrap(long long c, long long lo, "
         "long long hi) {\n"
         "  const long long p = hi - lo + 1;\n"
         "  return c < lo ? c + p : c > hi ? c - p : c;\n"
         "}\n"
         "} // namespace\n"
         "#endif // FORGESTENCIL_GENERATED_WRAP\n\n";
}

} // namespace

bool hasBoundaryAxes(const StencilIR &IR) {
  for (const ir::Axis &X : IR.Axes)
    if (X.hasBoundary())
      return true;
  return false;
}

bool hasWrappedAxes(const StencilIR &IR) {
  for (const ir::Axis &X : IR.Axes)
    if (X.wrapped())
      return true;
  return false;
}

std::string whyNotBoundary(const ir::Axis &X) {
  if (X.ClampLower.empty() != X.ClampUpper.empty())
    return "axis '" + X.Name +
           "' has one clamp bound only: a replicated boundary needs both "
           "clamp_lower and clamp_upper";
  if (X.WrapLower.empty() != X.WrapUpper.empty())
    return "axis '" + X.Name +
           "' has one wrap bound only: a periodic boundary needs both "
           "wrap_lower and wrap_upper";
  if (X.clamped() && X.wrapped())
    return "axis '" + X.Name +
           "' is both clamped and wrapped: its boundary is replicated or "
           "periodic, not both";
  return "";
}

std::string boundaryHelpers(const StencilIR &IR) {
  if (!hasBoundaryAxes(IR))
    return "";
  return clampHelpers() + (hasWrappedAxes(IR) ? wrapHelpers() : "");
}

std::string boundaryCoord(const std::string &C, int O, const ir::Axis &X) {
  return std::string(X.wrapped() ? "fs_wrap(" : "fs_clamp(") + C + " + (" +
         std::to_string(O) + "), (long long)(" + X.boundaryLower() +
         "), (long long)(" + X.boundaryUpper() + "))";
}

std::string emitFrameKernel(const StencilView &V, const GenerateOptions &O) {
  const BoundaryWords W = boundaryWords(V.ir());
  std::ostringstream OS;
  OS << "namespace {\n"
     << "// " << W.Kind << ": the points of the domain with a read\n"
     << "// outside " << W.Bounds << ", one per thread over the frame's boxes\n"
     << "// one after another, their reads at the " << W.Moved
     << " coordinates.\n"
     << "__global__ void " << O.LauncherName << "_frame("
     << kernelParams(V, "long long") << ", fs_frame_boxes fs_f) {\n"
     << "  for (long long fs_t = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x;\n"
     << "       fs_t < fs_f.end[fs_f.n - 1];"
     << " fs_t += (long long)gridDim.x * blockDim.x) {\n"
     << "    // The box holding point fs_t, and the point's place in it.\n"
     << "    int fs_b = 0;\n"
     << "    while (fs_t >= fs_f.end[fs_b])\n"
     << "      ++fs_b;\n"
     << "    const long long fs_r = fs_t - (fs_b ? fs_f.end[fs_b - 1] : 0);\n"
     << "    const long long *fs_blo = fs_f.lo[fs_b], *fs_bhi = fs_f.hi[fs_b];\n"
     << "    const long long fs_n0 = fs_bhi[0] - fs_blo[0], fs_n1 = fs_bhi[1] - fs_blo[1];\n"
     << "    const long long x = fs_blo[0] + fs_r % fs_n0,\n"
     << "                    y = fs_blo[1] + fs_r / fs_n0 % fs_n1,\n"
     << "                    z = fs_blo[2] + fs_r / fs_n0 / fs_n1;\n"
     << "    const long long fs_i = x * s0 + y * s1 + z * s2;\n"
     << emitPointUpdate(V, "    ", "fs_i", /*BoundaryReads=*/true)
     << "  }\n}\n} // namespace\n\n";
  return OS.str();
}

std::string emitFrameLaunch(const StencilView &V, const GenerateOptions &O) {
  const StencilIR &IR = V.ir();
  const BoundaryWords W = boundaryWords(IR);
  std::ostringstream OS;
  std::vector<int> Bounded;
  OS << "  // " << W.Kind << ": the interior, whose reads all lie within\n"
     << "  // " << W.Bounds << ", is the strategy's; the frame around it is\n"
     << "  // computed point by point with " << W.Moved << " reads.\n"
     << "  long long fs_ilo[3] = {fs_lo[0], fs_lo[1], fs_lo[2]};\n"
     << "  long long fs_ihi[3] = {fs_hi[0], fs_hi[1], fs_hi[2]};\n";
  for (int VA = 0; VA < 3; ++VA) {
    int A = V.irAxis(VA);
    if (A < 0 || !IR.Axes[A].hasBoundary())
      continue;
    Bounded.push_back(VA);
    const ir::Axis &X = IR.Axes[A];
    const std::string I = std::to_string(VA);
    OS << "  // axis '" << X.Name << "': "
       << (X.wrapped() ? "wrapped" : "clamped") << " into ["
       << X.boundaryLower() << ", " << X.boundaryUpper()
       << "], read at offsets [" << V.minOffset(VA) << ", "
       << V.maxOffset(VA) << "]\n"
       << "  fs_ilo[" << I << "] = fs_min(fs_max(fs_lo[" << I
       << "], (long long)(" << X.boundaryLower() << ") - ("
       << V.minOffset(VA) << ")), fs_hi[" << I << "]);\n"
       << "  fs_ihi[" << I << "] = fs_max(fs_min(fs_hi[" << I
       << "], (long long)(" << X.boundaryUpper() << ") + 1 - ("
       << V.maxOffset(VA) << ")), fs_ilo[" << I << "]);\n";
  }
  std::string List;
  for (int VA : Bounded)
    List += (List.empty() ? "" : ", ") + std::to_string(VA);
  OS << "  {\n"
     << "    // The frame as disjoint boxes: along the k-th " << W.Moved
     << " axis\n"
     << "    // below or above the interior, within it along the " << W.Moved
     << " axes\n"
     << "    // before, within the domain along the others.\n"
     << "    const int fs_axes[" << Bounded.size() << "] = {" << List << "};\n"
     << "    fs_frame_boxes fs_f;\n"
     << "    fs_f.n = 0;\n"
     << "    long long fs_count = 0;\n"
     << "    for (int k = 0; k < " << Bounded.size() << "; ++k)\n"
     << "      for (int side = 0; side < 2; ++side) {\n"
     << "        long long *fs_blo = fs_f.lo[fs_f.n], *fs_bhi = fs_f.hi[fs_f.n];\n"
     << "        for (int a = 0; a < 3; ++a) {\n"
     << "          fs_blo[a] = fs_lo[a];\n"
     << "          fs_bhi[a] = fs_hi[a];\n"
     << "        }\n"
     << "        for (int j = 0; j < k; ++j) {\n"
     << "          fs_blo[fs_axes[j]] = fs_ilo[fs_axes[j]];\n"
     << "          fs_bhi[fs_axes[j]] = fs_ihi[fs_axes[j]];\n"
     << "        }\n"
     << "        if (side == 0)\n"
     << "          fs_bhi[fs_axes[k]] = fs_ilo[fs_axes[k]];\n"
     << "        else\n"
     << "          fs_blo[fs_axes[k]] = fs_ihi[fs_axes[k]];\n"
     << "        const long long fs_bn = (fs_bhi[0] - fs_blo[0]) *\n"
     << "                                (fs_bhi[1] - fs_blo[1]) *\n"
     << "                                (fs_bhi[2] - fs_blo[2]);\n"
     << "        if (fs_bn <= 0)\n"
     << "          continue; // an empty box\n"
     << "        fs_count += fs_bn;\n"
     << "        fs_f.end[fs_f.n++] = fs_count;\n"
     << "      }\n"
     << "    if (fs_count > 0)\n"
     << "      " << O.LauncherName
     << "_frame<<<fs_blocks(fs_count, 256, 1048576), 256, 0, stream>>>("
     << kernelArgs(V, "long long") << ", fs_f);\n"
     << "  }\n"
     << "  for (int a = 0; a < 3; ++a) {\n"
     << "    if (fs_ihi[a] <= fs_ilo[a])\n"
     << "      return; // no interior: the frame was the whole domain\n"
     << "    fs_lo[a] = fs_ilo[a];\n"
     << "    fs_hi[a] = fs_ihi[a];\n"
     << "  }\n";
  return OS.str();
}

} // namespace forge
} // namespace forgestencil
