//===- Boundary.cpp - Replicated, periodic and zero boundaries -------------===//

#include "Boundary.h"

#include <set>
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
  bool Clamped = false, Zeroed = false;
  for (const ir::Axis &X : IR.Axes) {
    Clamped |= X.clamped();
    Zeroed |= X.zeroed();
  }
  if (Zeroed && (Clamped || hasWrappedAxes(IR)))
    return {"Boundaries of several kinds", "the bounds", "bounded"};
  if (Zeroed)
    return {"A zero boundary", "the zero bounds", "zero-filled"};
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
         "// A read's coordinate on a periodic boundary [lo, hi] of period p\n"
         "// (hi - lo + 1, or less where the grid repeats a point): one\n"
         "// period up below lo, one down above hi (the IR's reads reach at\n"
         "// most a period beyond the bounds).\n"
         "__device__ inline long long fs_wrap(long long c, long long lo, "
         "long long hi, long long p) {\n"
         "  return c < lo ? c + p : c > hi ? c - p : c;\n"
         "}\n"
         "} // namespace\n"
         "#endif // FORGESTENCIL_GENERATED_WRAP\n\n";
}

/// A kernel over fs_frame_boxes, one point per thread over the boxes one
/// after another: \p Comment (whole lines), the signature with \p Extra
/// parameters after the domain's, then \p Body for the point at view
/// coordinates x, y, z and flat index fs_i.
std::string boxesKernel(const std::string &Comment, const std::string &Name,
                        const StencilView &V, const std::string &Extra,
                        const std::string &Body) {
  std::ostringstream OS;
  OS << "namespace {\n"
     << Comment << "__global__ void " << Name << "("
     << kernelParams(V, "long long") << Extra << ", fs_frame_boxes fs_f) {\n"
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
     << Body << "  }\n}\n} // namespace\n\n";
  return OS.str();
}

/// The launcher's block that cuts the box [<Outer>lo, <Outer>hi) minus the
/// box [<Inner>lo, <Inner>hi), which lies within it, into disjoint boxes
/// along the view axes \p Axes (below and above the inner box along the
/// k-th, within it along those before, within the outer box along the
/// others) and launches \p Kernel over them with \p Args before the boxes,
/// when they hold a point. \p Comment is the block's first lines.
std::string splitBoxes(const std::string &Comment, const std::string &Outer,
                       const std::string &Inner, const std::vector<int> &Axes,
                       const std::string &Kernel, const std::string &Args) {
  std::ostringstream OS;
  std::string List;
  for (int VA : Axes)
    List += (List.empty() ? "" : ", ") + std::to_string(VA);
  OS << "  {\n"
     << Comment << "    const int fs_axes[" << Axes.size() << "] = {" << List
     << "};\n"
     << "    fs_frame_boxes fs_f;\n"
     << "    fs_f.n = 0;\n"
     << "    long long fs_count = 0;\n"
     << "    for (int k = 0; k < " << Axes.size() << "; ++k)\n"
     << "      for (int side = 0; side < 2; ++side) {\n"
     << "        long long *fs_blo = fs_f.lo[fs_f.n], *fs_bhi = fs_f.hi[fs_f.n];\n"
     << "        for (int a = 0; a < 3; ++a) {\n"
     << "          fs_blo[a] = " << Outer << "lo[a];\n"
     << "          fs_bhi[a] = " << Outer << "hi[a];\n"
     << "        }\n"
     << "        for (int j = 0; j < k; ++j) {\n"
     << "          fs_blo[fs_axes[j]] = " << Inner << "lo[fs_axes[j]];\n"
     << "          fs_bhi[fs_axes[j]] = " << Inner << "hi[fs_axes[j]];\n"
     << "        }\n"
     << "        if (side == 0)\n"
     << "          fs_bhi[fs_axes[k]] = " << Inner << "lo[fs_axes[k]];\n"
     << "        else\n"
     << "          fs_blo[fs_axes[k]] = " << Inner << "hi[fs_axes[k]];\n"
     << "        const long long fs_bn = (fs_bhi[0] - fs_blo[0]) *\n"
     << "                                (fs_bhi[1] - fs_blo[1]) *\n"
     << "                                (fs_bhi[2] - fs_blo[2]);\n"
     << "        if (fs_bn <= 0)\n"
     << "          continue; // an empty box\n"
     << "        fs_count += fs_bn;\n"
     << "        fs_f.end[fs_f.n++] = fs_count;\n"
     << "      }\n"
     << "    if (fs_count > 0)\n"
     << "      " << Kernel
     << "<<<fs_blocks(fs_count, 256, 1048576), 256, 0, stream>>>(" << Args
     << ", fs_f);\n"
     << "  }\n";
  return OS.str();
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
  if (X.ZeroLower.empty() != X.ZeroUpper.empty())
    return "axis '" + X.Name +
           "' has one zero bound only: a zero boundary needs both "
           "zero_lower and zero_upper";
  if (X.zeroed() && (X.clamped() || X.wrapped()))
    return "axis '" + X.Name +
           "' has a zero boundary and a clamp or wrap: one kind per axis";
  return "";
}

std::string zeroTest(const std::string &C, int O, const ir::Axis &X) {
  const std::string At = "(" + C + " + (" + std::to_string(O) + "))";
  return At + " >= (long long)(" + X.ZeroLower + ") && " + At +
         " <= (long long)(" + X.ZeroUpper + ")";
}

std::string zeroedRead(const std::string &Element, const std::string &Tests) {
  return Tests.empty() ? Element
                       : "((" + Tests + ") ? " + Element + " : 0)";
}

std::string boundaryHelpers(const StencilIR &IR) {
  if (!hasBoundaryAxes(IR) && !hasFrame(IR))
    return "";
  return clampHelpers() + (hasWrappedAxes(IR) ? wrapHelpers() : "");
}

std::string boundaryCoord(const std::string &C, int O, const ir::Axis &X) {
  return std::string(X.wrapped() ? "fs_wrap(" : "fs_clamp(") + C + " + (" +
         std::to_string(O) + "), (long long)(" + X.boundaryLower() +
         "), (long long)(" + X.boundaryUpper() + ")" +
         (X.wrapped() ? ", (long long)(" + X.wrapPeriod() + ")" : "") + ")";
}

std::string emitFrameKernel(const StencilView &V, const GenerateOptions &O) {
  const BoundaryWords W = boundaryWords(V.ir());
  std::ostringstream Comment;
  Comment << "// " << W.Kind << ": the points of the domain with a read\n"
          << "// outside " << W.Bounds
          << ", one per thread over the frame's boxes\n"
          << "// one after another, their reads at the " << W.Moved
          << " coordinates.\n";
  return boxesKernel(Comment.str(), O.LauncherName + "_frame", V, "",
                     emitPointUpdate(V, "    ", "fs_i",
                                     /*BoundaryReads=*/true));
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
       << (X.wrapped() ? "wrapped into [" : X.zeroed() ? "zero outside ["
                                                       : "clamped into [")
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
  std::ostringstream Comment;
  Comment << "    // The frame as disjoint boxes: along the k-th " << W.Moved
          << " axis\n"
          << "    // below or above the interior, within it along the "
          << W.Moved << " axes\n"
          << "    // before, within the domain along the others.\n";
  OS << splitBoxes(Comment.str(), "fs_", "fs_i", Bounded,
                   O.LauncherName + "_frame", kernelArgs(V, "long long"))
     << "  for (int a = 0; a < 3; ++a) {\n"
     << "    if (fs_ihi[a] <= fs_ilo[a])\n"
     << "      return; // no interior: the frame was the whole domain\n"
     << "    fs_lo[a] = fs_ilo[a];\n"
     << "    fs_hi[a] = fs_ihi[a];\n"
     << "  }\n";
  return OS.str();
}

bool hasFrame(const StencilIR &IR) { return IR.Frame.present(); }

namespace {

void collectReadArrays(const ir::Expr &E, std::set<std::string> &Arrays,
                       std::set<std::string> *Moved = nullptr) {
  if (E.Kind == ir::Expr::Read) {
    Arrays.insert(E.Name);
    if (Moved && E.Off != ir::Offset{0, 0, 0})
      Moved->insert(E.Name);
  }
  for (const ir::Expr &A : E.Args)
    collectReadArrays(A, Arrays, Moved);
}

} // namespace

std::string whyNotFrame(const StencilIR &IR) {
  const ir::BoundaryFrame &F = IR.Frame;
  if (!F.present())
    return "";
  if (F.Lower.size() != IR.Dims || F.Upper.size() != IR.Dims)
    return "the frame's box needs a lower and an upper bound per axis (" +
           std::to_string(IR.Dims) + ")";
  std::set<std::string> Written, Read, Outputs;
  for (const ir::Update &U : IR.Updates) {
    Written.insert(U.Target);
    collectReadArrays(U.Value, Read);
  }
  for (const ir::OutputArray &Out : IR.Outputs)
    Outputs.insert(Out.Param);
  std::set<std::string> Stored;
  for (const ir::Update &U : F.Updates) {
    if (!Written.count(U.Target))
      return "the frame stores '" + U.Target +
             "', which the stencil does not update";
    if (U.Accumulate)
      return "the frame accumulates into '" + U.Target +
             "': a frame value is a plain store";
    if (!Stored.insert(U.Target).second)
      return "the frame stores '" + U.Target + "' twice";
    std::set<std::string> Arrays, Moved;
    collectReadArrays(U.Value, Arrays, &Moved);
    if (!Moved.empty())
      return "the frame value of '" + U.Target + "' reads '" + *Moved.begin() +
             "' at another point than its own";
    for (const std::string &A : Arrays) {
      if (Outputs.count(A))
        return "the frame value of '" + U.Target + "' reads '" + A +
               "', an output, which the frame's stores may change";
      if (!Read.count(A))
        return "the frame value of '" + U.Target + "' reads '" + A +
               "', which the stencil does not read";
    }
  }
  return "";
}

std::string emitFrameStores(const StencilIR &IR, const std::string &Indent,
                            const ReadEmitter &Element) {
  std::ostringstream OS;
  for (const ir::Update &U : IR.Frame.Updates) {
    ir::Offset W{0, 0, 0};
    for (const ir::OutputArray &Out : IR.Outputs)
      if (Out.Param == U.Target)
        W = Out.WriteOffset;
    OS << Indent << Element(U.Target, W) << " = "
       << emitExpr(U.Value, Element, &IR) << ";\n";
  }
  return OS.str();
}

std::string emitBoundaryKernel(const StencilView &V, const GenerateOptions &O) {
  const StencilIR &IR = V.ir();
  const bool Linear = hasLinearAxes(IR);
  std::string Body;
  if (Linear)
    Body = "    if (" + linearIdOf(V, [](int VA) {
             return std::string(1, "xyz"[VA]);
           }) + " >= fs_ids)\n      continue; // no thread of the original "
                "launch has this point\n";
  Body += emitFrameStores(IR, "    ",
                          [&](const std::string &Array, const ir::Offset &Off) {
                            return Array + "[fs_i" +
                                   offsetTerms(V.toView(Off)) + "]";
                          });
  return boxesKernel(
      "// The boundary the kernel writes itself (the IR's frame): the points\n"
      "// of the frame's box outside the domain, one per thread over the\n"
      "// boxes one after another, each listed output given its value there.\n",
      O.LauncherName + "_boundary", V, Linear ? ", long long fs_ids" : "",
      Body);
}

std::string emitBoundaryLaunch(const StencilView &V, const GenerateOptions &O) {
  std::vector<int> Axes;
  for (int VA = 0; VA < 3; ++VA)
    if (V.irAxis(VA) >= 0)
      Axes.push_back(VA);
  std::ostringstream OS;
  OS << "  // The boundary the kernel writes itself (the IR's frame): the\n"
     << "  // points of its box, as the original launch covers it, outside\n"
     << "  // the domain get their values point by point; the domain, clipped\n"
     << "  // into the box, is the strategy's.\n"
     << "  for (int a = 0; a < 3; ++a)\n"
     << "    if (fs_fhi[a] <= fs_flo[a])\n"
     << "      return; // nothing to write: the original writes nothing\n"
     << "  for (int a = 0; a < 3; ++a) {\n"
     << "    fs_lo[a] = fs_min(fs_max(fs_lo[a], fs_flo[a]), fs_fhi[a]);\n"
     << "    fs_hi[a] = fs_max(fs_min(fs_hi[a], fs_fhi[a]), fs_lo[a]);\n"
     << "  }\n"
     << splitBoxes("    // The box minus the domain as disjoint boxes: along "
                   "the k-th axis\n"
                   "    // below or above the domain, within it along the "
                   "axes before,\n"
                   "    // within the box along the others.\n",
                   "fs_f", "fs_", Axes, O.LauncherName + "_boundary",
                   kernelArgs(V, "long long") +
                       (hasLinearAxes(V.ir())
                            ? ", (long long)grid.x * block.x"
                            : ""));
  return OS.str();
}

} // namespace forge
} // namespace forgestencil
