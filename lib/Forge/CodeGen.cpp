//===- CodeGen.cpp - Pieces every stencil code generator shares ------------===//

#include "forgestencil/Forge/CodeGen.h"

#include "Boundary.h"

#include "forgestencil/Forge/ParamNames.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace forgestencil {
namespace forge {

using ir::Expr;
using ir::Offset;
using ir::StencilIR;

namespace {

void collectReads(const Expr &E,
                  std::vector<std::pair<std::string, Offset>> &Reads) {
  if (E.Kind == Expr::Read)
    Reads.emplace_back(E.Name, E.Off);
  for (const Expr &A : E.Args)
    collectReads(A, Reads);
}

const ir::Param *findParam(const StencilIR &IR, const std::string &Name) {
  for (const ir::Param &P : IR.Params)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const ir::OutputArray *findOutput(const StencilIR &IR,
                                  const std::string &Name) {
  for (const ir::OutputArray &O : IR.Outputs)
    if (O.Param == Name)
      return &O;
  return nullptr;
}

/// Replaces the whole word From by To in Text.
std::string replaceWord(const std::string &Text, const std::string &From,
                        const std::string &To) {
  if (From.empty() || From == To)
    return Text;
  std::regex Word("\\b" + From + "\\b");
  return std::regex_replace(Text, Word, To);
}

char threadDimChar(char D) { return (D == 'y' || D == 'z') ? D : 'x'; }

} // namespace

std::string offsetTerms(const Offset &ViewOff) {
  std::string S;
  for (int A = 0; A < 3; ++A) {
    if (ViewOff[A] == 0)
      continue;
    S += " + (" + std::to_string(ViewOff[A]) + ") * s" + std::to_string(A);
  }
  return S;
}

std::optional<StencilView> StencilView::create(const StencilIR &IR,
                                               std::string &Error) {
  if (IR.Dims < 1 || IR.Dims > 3) {
    Error = "the IR has " + std::to_string(IR.Dims) + " dimensions";
    return std::nullopt;
  }
  if (IR.Axes.size() != IR.Dims || IR.Strides.size() != IR.Dims) {
    Error = "the IR needs one axis and one stride per dimension";
    return std::nullopt;
  }
  if (std::string Why = ir::whyNoGenerator(IR); !Why.empty()) {
    Error = Why;
    return std::nullopt;
  }
  for (const ir::Axis &A : IR.Axes) {
    if (A.Source == ir::AxisSource::Linear && A.LinearStep.empty()) {
      Error = "axis '" + A.Name +
              "' is split from a 1-D thread id that is not blockIdx.x * "
              "blockDim.x + threadIdx.x; the generators cannot tell which "
              "points the original's threads cover";
      return std::nullopt;
    }
    if (A.Upper.empty()) {
      Error = "axis '" + A.Name + "' has no upper bound";
      return std::nullopt;
    }
    if (std::string Why = whyNotBoundary(A); !Why.empty()) {
      Error = Why;
      return std::nullopt;
    }
  }
  if (std::string Why = whyNotFrame(IR); !Why.empty()) {
    Error = Why;
    return std::nullopt;
  }
  if (IR.ElementType != "float" && IR.ElementType != "double") {
    Error = "element type '" + IR.ElementType + "' is not float or double";
    return std::nullopt;
  }
  if (IR.Updates.empty()) {
    Error = "the IR has no update";
    return std::nullopt;
  }

  StencilView V;
  V.IR = &IR;
  V.IRAxis[0] = 0;
  if (IR.Dims >= 2)
    V.IRAxis[2] = static_cast<int>(IR.Dims) - 1;
  if (IR.Dims == 3)
    V.IRAxis[1] = 1;

  std::map<std::string, std::set<Offset>> ReadOffsets;
  std::set<std::string> Targets;
  for (const ir::Update &U : IR.Updates) {
    const ir::OutputArray *Out = findOutput(IR, U.Target);
    if (!Out) {
      Error = "update target '" + U.Target + "' is not an output";
      return std::nullopt;
    }
    if (!Targets.insert(U.Target).second) {
      Error = "output '" + U.Target + "' is updated twice";
      return std::nullopt;
    }
    std::vector<std::pair<std::string, Offset>> Reads;
    collectReads(U.Value, Reads);
    if (U.Accumulate)
      Reads.emplace_back(U.Target, Out->WriteOffset);
    for (auto &[Name, Off] : Reads) {
      const ir::Param *P = findParam(IR, Name);
      if (!P) {
        Error = "array '" + Name + "' is not a kernel parameter";
        return std::nullopt;
      }
      ReadOffsets[Name].insert(Off);
    }
  }
  // An output may be read only by its own update and only where it is
  // written: anything else depends on the order threads run in.
  for (const ir::Update &U : IR.Updates) {
    std::vector<std::pair<std::string, Offset>> Reads;
    collectReads(U.Value, Reads);
    for (auto &[Name, Off] : Reads) {
      const ir::OutputArray *Out = findOutput(IR, Name);
      if (!Out)
        continue;
      if (Name != U.Target) {
        Error = "output '" + Name + "' is read by the update of '" +
                U.Target + "'";
        return std::nullopt;
      }
      if (Off != Out->WriteOffset) {
        Error = "output '" + Name +
                "' is read at a neighbour's offset (a race in the original)";
        return std::nullopt;
      }
    }
  }

  std::set<std::string> Seen;
  for (const ir::Param &P : IR.Params) {
    bool Read = ReadOffsets.count(P.Name) != 0;
    bool Written = Targets.count(P.Name) != 0;
    if (!Read && !Written)
      continue;
    Array A;
    A.Name = P.Name;
    A.Read = Read;
    A.Written = Written;
    if (Read) {
      std::set<Offset> ViewOffs;
      for (const Offset &O : ReadOffsets[P.Name])
        ViewOffs.insert(V.toView(O));
      A.Offsets.assign(ViewOffs.begin(), ViewOffs.end());
    }
    V.Arrays.push_back(std::move(A));
  }
  return V;
}

Offset StencilView::toView(const Offset &IROff) const {
  Offset O{0, 0, 0};
  for (int A = 0; A < 3; ++A)
    if (IRAxis[A] >= 0)
      O[A] = IROff[IRAxis[A]];
  return O;
}

const StencilView::Array *StencilView::array(const std::string &Name) const {
  for (const Array &A : Arrays)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

int StencilView::minOffset(int Axis) const {
  int M = 0;
  for (const Array &A : Arrays)
    for (const Offset &O : A.Offsets)
      M = std::min(M, O[Axis]);
  return M;
}

int StencilView::maxOffset(int Axis) const {
  int M = 0;
  for (const Array &A : Arrays)
    for (const Offset &O : A.Offsets)
      M = std::max(M, O[Axis]);
  return M;
}

Offset StencilView::writeOffset(const std::string &Output) const {
  const ir::OutputArray *Out = findOutput(*IR, Output);
  return Out ? toView(Out->WriteOffset) : Offset{0, 0, 0};
}

std::string StencilView::vectorType(unsigned Width) const {
  if (Width == 1)
    return elementType();
  if (elementType() == "float" && (Width == 2 || Width == 4))
    return "float" + std::to_string(Width);
  if (elementType() == "double" && Width == 2)
    return "double2";
  return "";
}

/// `[i][j]...` for the flat element \p Index of an array of extents
/// \p Shape (row-major); `[Index]` when there are none.
static std::string subscript(int Index, const std::vector<unsigned> &Shape) {
  if (Shape.size() < 2)
    return "[" + std::to_string(Index) + "]";
  std::vector<int> Parts(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    Parts[D] = Index % static_cast<int>(Shape[D]);
    Index /= static_cast<int>(Shape[D]);
  }
  std::string S;
  for (int P : Parts)
    S += "[" + std::to_string(P) + "]";
  return S;
}

std::string emitExpr(const Expr &E, const ReadEmitter &Read,
                     const StencilIR *IR) {
  auto Arg = [&](size_t I) {
    return I < E.Args.size() ? emitExpr(E.Args[I], Read, IR)
                             : std::string("0");
  };
  switch (E.Kind) {
  case Expr::Read:
    return Read(E.Name, E.Off);
  case Expr::Coef:
    // A parameter array read at an element every thread computes alike.
    if (!E.IndexExpr.empty())
      return "(" + E.Name + ")[" + E.IndexExpr + "]";
    if (E.Index >= 0) {
      if (IR)
        for (const ir::Coefficient &C : IR->Coefficients)
          if (C.Name == E.Name)
            return E.Name + subscript(E.Index, C.Shape);
      return E.Name + "[" + std::to_string(E.Index) + "]";
    }
    return E.Name;
  case Expr::ParamRef:
    return E.Name;
  case Expr::Literal:
    return E.Value;
  case Expr::Unary:
    // A conversion the original makes where it stores a value in a local of
    // another type (float c = 15.0 / 118) or casts it explicitly.
    if (E.Op == "to_float" || E.Op == "to_double")
      return "((" + E.Op.substr(3) + ")" + Arg(0) + ")";
    return "(" + std::string(E.Op == "neg" ? "-" : E.Op) + Arg(0) + ")";
  case Expr::Binary:
    return "(" + Arg(0) + " " + E.Op + " " + Arg(1) + ")";
  case Expr::Call: {
    std::string S = E.Op + "(";
    for (size_t I = 0; I < E.Args.size(); ++I)
      S += (I ? ", " : "") + Arg(I);
    return S + ")";
  }
  case Expr::Select:
    return "(" + Arg(0) + " ? " + Arg(1) + " : " + Arg(2) + ")";
  }
  return "0";
}

/// A pointer to arrays (`float (*)[512]`) passed where a kernel takes the
/// flat element pointer.
static std::string flatArgument(const std::string &Type, const std::string &Name,
                                const std::string &Elem, bool Written) {
  if (Type.find("(*)") == std::string::npos)
    return Name;
  return "(" + std::string(Written ? "" : "const ") + Elem + " *)" + Name;
}

std::string kernelParams(const StencilView &V, const std::string &IdxType) {
  const std::string &T = V.elementType();
  std::string S;
  for (const ir::Param &P : V.ir().Params) {
    if (!S.empty())
      S += ", ";
    const StencilView::Array *A = V.array(P.Name);
    if (!A)
      S += declareParam(P.Type, P.Name);
    else if (A->Written)
      S += T + " *__restrict__ " + P.Name;
    else
      S += "const " + T + " *__restrict__ " + P.Name;
  }
  for (const char *Name :
       {"lo0", "hi0", "lo1", "hi1", "lo2", "hi2", "s0", "s1", "s2"})
    S += (S.empty() ? "" : ", ") + IdxType + " " + Name;
  return S;
}

std::string kernelArgs(const StencilView &V, const std::string &IdxType) {
  std::string S;
  for (const ir::Param &P : V.ir().Params) {
    const StencilView::Array *A = V.array(P.Name);
    S += (S.empty() ? "" : ", ") +
         (A ? flatArgument(P.Type, P.Name, V.elementType(), A->Written)
            : P.Name);
  }
  for (int A = 0; A < 3; ++A)
    S += ", (" + IdxType + ")fs_lo[" + std::to_string(A) + "], (" + IdxType +
         ")fs_hi[" + std::to_string(A) + "]";
  for (int A = 0; A < 3; ++A)
    S += ", (" + IdxType + ")fs_st[" + std::to_string(A) + "]";
  return S;
}

bool hasLinearAxes(const StencilIR &IR) {
  for (const ir::Axis &X : IR.Axes)
    if (X.Source == ir::AxisSource::Linear)
      return true;
  return false;
}

std::string linearIdOf(const StencilView &V,
                       const std::function<std::string(int)> &Coord) {
  std::string S;
  for (int VA = 0; VA < 3; ++VA) {
    int A = V.irAxis(VA);
    if (A < 0)
      continue;
    const ir::Axis &X = V.ir().Axes[A];
    if (X.Source != ir::AxisSource::Linear)
      continue; // e.g. a loop over z inside the kernel: not in the id
    S += (S.empty() ? "" : " + ") + std::string("(") + Coord(VA) + " - (" +
         X.ThreadOffset + ")) * (long long)(" + X.LinearStep + ")";
  }
  return S;
}

/// The kernel a launcher runs when the original's 1-D ids cover only part
/// of its domain: one point per thread over the domain's box, skipping the
/// points whose id the original launch did not reach.
static std::string emitCoveredIdsKernel(const StencilView &V,
                                        const GenerateOptions &O) {
  std::ostringstream OS;
  OS << "namespace {\n"
     << "// The original launch's 1-D ids stop inside the domain: only the\n"
     << "// points whose id is below fs_ids, one per thread.\n"
     << "__global__ void " << O.LauncherName << "_ids("
     << kernelParams(V, "long long") << ", long long fs_ids) {\n"
     << "  const long long n0 = hi0 - lo0, n1 = hi1 - lo1, n2 = hi2 - lo2;\n"
     << "  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
     << " t < n0 * n1 * n2;\n"
     << "       t += (long long)gridDim.x * blockDim.x) {\n"
     << "    const long long x = lo0 + t % n0, y = lo1 + t / n0 % n1, "
        "z = lo2 + t / n0 / n1;\n"
     << "    if (" << linearIdOf(V, [](int VA) {
          return std::string(1, "xyz"[VA]);
        }) << " >= fs_ids)\n"
     << "      continue;\n"
     << "    const long long fs_i = x * s0 + y * s1 + z * s2;\n"
     << emitPointUpdate(V, "    ", "fs_i", hasBoundaryAxes(V.ir()))
     << "  }\n}\n} // namespace\n\n";
  return OS.str();
}

std::string emitLauncherHead(const StencilView &V, const GenerateOptions &O,
                             unsigned Slack) {
  const StencilIR &IR = V.ir();
  const bool Linear = hasLinearAxes(IR);
  const bool Bounded = hasBoundaryAxes(IR);
  const bool Framed = hasFrame(IR);
  std::ostringstream OS;
  OS << boundaryHelpers(IR);
  if (Linear)
    OS << emitCoveredIdsKernel(V, O);
  if (Bounded)
    OS << emitFrameKernel(V, O);
  if (Framed)
    OS << emitBoundaryKernel(V, O);
  OS << "void " << O.LauncherName
     << "(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream";
  for (const ir::Param &P : IR.Params)
    OS << ", " << declareParam(P.Type, P.Name);
  OS << ") {\n";
  OS << "  (void)shmem;\n";
  OS << "  // The original launch's domain, in view axes (contiguous, middle,\n"
        "  // slowest): its guards intersected with what its grid covers.\n";
  OS << "  long long fs_lo[3] = {0, 0, 0}, fs_hi[3] = {1, 1, 1}, "
        "fs_st[3] = {0, 0, 0};\n";
  if (Framed)
    OS << "  // The box of its frame (boundary values), intersected alike.\n"
          "  long long fs_flo[3] = {0, 0, 0}, fs_fhi[3] = {1, 1, 1};\n";
  for (int VA = 0; VA < 3; ++VA) {
    int A = V.irAxis(VA);
    if (A < 0)
      continue;
    const ir::Axis &X = IR.Axes[A];
    std::string I = std::to_string(VA);
    OS << "  { // axis '" << X.Name << "'\n";
    // The range [Lower, Upper) as the original's threads cover it, into
    // Lo[I] and Hi[I]: the domain's, and the frame's box.
    auto Covered = [&](const std::string &Lower, const std::string &Upper,
                       const std::string &Lo, const std::string &Hi) {
      if (X.Source == ir::AxisSource::Thread) {
        OS << "    " << Lo << "[" << I << "] = fs_max((long long)(" << Lower
           << "), fs_first);\n";
        OS << "    " << Hi << "[" << I << "] = fs_min((long long)(" << Upper
           << "), fs_first + fs_covered);\n";
      } else if (X.Source == ir::AxisSource::Linear) {
        // A coordinate split from the 1-D id: at least its offset, and
        // below its offset plus the split's modulus.
        OS << "    " << Lo << "[" << I << "] = fs_max((long long)(" << Lower
           << "), (long long)(" << X.ThreadOffset << "));\n";
        OS << "    " << Hi << "[" << I << "] = (long long)(" << Upper << ");\n";
        if (!X.LinearModulus.empty())
          OS << "    " << Hi << "[" << I << "] = fs_min(" << Hi << "[" << I
             << "], (long long)(" << X.ThreadOffset << ") + (long long)("
             << X.LinearModulus << "));\n";
      } else {
        OS << "    " << Lo << "[" << I << "] = (long long)(" << Lower << ");\n";
        OS << "    " << Hi << "[" << I << "] = (long long)(" << Upper << ");\n";
      }
    };
    if (X.Source == ir::AxisSource::Thread) {
      // blockIdx.B * blockDim.T + threadIdx.T covers gridDim.B * blockDim.T
      // points; a term the position lacks covers one.
      const char T = X.ThreadDim, B = X.blockDim();
      OS << "    const long long fs_first = (long long)(" << X.ThreadOffset
         << ");\n";
      OS << "    const long long fs_covered = "
         << (B == '-' ? std::string("1LL")
                      : std::string("(long long)grid.") + threadDimChar(B))
         << " * "
         << (T == '-' ? std::string("1LL")
             : X.BlockPoints > 0
                 ? std::to_string(X.BlockPoints) + "LL" // halo threads
                 : std::string("(long long)block.") + threadDimChar(T))
         << (X.ThreadPoints != 1 // thread coarsening: points a thread
                 ? " * " + std::to_string(X.ThreadPoints) + "LL"
                 : std::string())
         << ";\n";
    }
    Covered(X.Lower, X.Upper, "fs_lo", "fs_hi");
    if (Framed)
      Covered(IR.Frame.Lower[A], IR.Frame.Upper[A], "fs_flo", "fs_fhi");
    OS << "    fs_st[" << I << "] = (long long)(" << IR.Strides[A] << ");\n";
    OS << "  }\n";
  }
  if (Framed)
    OS << emitBoundaryLaunch(V, O)
       << "  for (int a = 0; a < 3; ++a)\n"
          "    if (fs_hi[a] <= fs_lo[a])\n"
          "      return; // no domain: the box was all boundary\n";
  else
    OS << "  for (int a = 0; a < 3; ++a)\n"
          "    if (fs_hi[a] <= fs_lo[a])\n"
          "      return; // nothing to compute: the original writes nothing\n";
  if (Linear) {
    OS << "  // The original's threads are the 1-D ids [0, grid.x * block.x);\n"
       << "  // the domain's last point has the largest id.\n"
       << "  const long long fs_ids = (long long)grid.x * block.x;\n"
       << "  if (" << linearIdOf(V, [](int VA) {
            return "(fs_hi[" + std::to_string(VA) + "] - 1)";
          }) << " >= fs_ids) {\n"
       << "    const long long fs_n = (fs_hi[0] - fs_lo[0]) * (fs_hi[1] - "
          "fs_lo[1]) * (fs_hi[2] - fs_lo[2]);\n"
       << "    " << O.LauncherName
       << "_ids<<<fs_blocks(fs_n, 256, 1048576), 256, 0, stream>>>("
       << kernelArgs(V, "long long") << ", fs_ids);\n"
       << "    return;\n  }\n";
  }
  if (Bounded)
    OS << emitFrameLaunch(V, O);
  // Every index the kernel forms lies within the reads' and writes' reach.
  int MinOff[3], MaxOff[3];
  for (int A = 0; A < 3; ++A) {
    MinOff[A] = V.minOffset(A);
    MaxOff[A] = V.maxOffset(A);
    for (const ir::OutputArray &Out : IR.Outputs) {
      Offset W = V.writeOffset(Out.Param);
      MinOff[A] = std::min(MinOff[A], W[A]);
      MaxOff[A] = std::max(MaxOff[A], W[A]);
    }
  }
  OS << "  long long fs_reach = " << Slack << ";\n";
  for (int A = 0; A < 3; ++A) {
    OS << "  fs_reach += fs_max(fs_abs(fs_lo[" << A << "] + (" << MinOff[A]
       << ")), fs_abs(fs_hi[" << A << "] - 1 + (" << MaxOff[A]
       << ") + " << Slack << ")) * fs_abs(fs_st[" << A << "]);\n";
  }
  OS << "  const bool fs_fits32 = fs_reach < 2147483647LL;\n";
  return OS.str();
}

std::string emitVectorAlignmentCheck(const StencilView &V, unsigned Width) {
  std::ostringstream OS;
  unsigned Bytes = Width * ir::elementSize(V.elementType());
  OS << "(fs_st[0] == 1 && fs_st[1] % " << Width << " == 0 && fs_st[2] % "
     << Width << " == 0 && fs_lo[0] >= 0";
  for (const StencilView::Array &A : V.arrays())
    OS << " && ((uintptr_t)" << A.Name << " % " << Bytes << ") == 0";
  for (const ir::OutputArray &Out : V.ir().Outputs) {
    int W = V.writeOffset(Out.Param)[0];
    if (W % static_cast<int>(Width) != 0)
      return "false";
  }
  OS << ")";
  return OS.str();
}

std::string defineNamedConstants(const StencilIR &IR) {
  std::ostringstream OS;
  for (const ir::NamedConstant &C : IR.Constants) {
    if (C.Origin != ir::NamedConstant::Macro)
      continue;
    OS << "#ifndef " << C.Name << "\n#define " << C.Name << " ((" << C.Type
       << ")" << C.Value << ")\n#endif\n";
  }
  return OS.str();
}

std::string constantSetter(const std::string &Fn, const ir::Coefficient &C,
                           const std::string &Symbol,
                           const std::string &SymbolType,
                           const std::string &ValueType) {
  std::ostringstream OS;
  OS << "cudaError_t " << Fn << "(const void *host, size_t bytes) {\n";
  if (SymbolType == ValueType) {
    OS << "  return cudaMemcpyToSymbol(" << Symbol << ", host, bytes);\n}\n";
    return OS.str();
  }
  const unsigned N = C.Size ? C.Size : 1;
  OS << "  // The values come as " << ValueType << "; the symbol is "
     << SymbolType << ".\n"
     << "  if (bytes != " << N << " * sizeof(" << ValueType << "))\n"
     << "    return cudaErrorInvalidValue;\n"
     << "  " << SymbolType << " fs_v[" << N << "];\n"
     << "  for (int fs_k = 0; fs_k < " << N << "; ++fs_k)\n"
     << "    fs_v[fs_k] = (" << SymbolType << ")static_cast<const " << ValueType
     << " *>(host)[fs_k];\n"
     << "  return cudaMemcpyToSymbol(" << Symbol << ", fs_v, sizeof fs_v);\n}\n";
  return OS.str();
}

std::string emitConstants(const StencilView &V, const GenerateOptions &O) {
  std::ostringstream OS;
  if (O.Constants != ConstantMode::UseExisting)
    OS << defineNamedConstants(V.ir());
  for (const ir::Coefficient &C : V.ir().Coefficients) {
    if (C.Kind != ir::Coefficient::ConstantArray &&
        C.Kind != ir::Coefficient::ConstantScalar)
      continue;
    std::string T = C.Type.empty() ? V.elementType() : C.Type;
    if (O.Constants == ConstantMode::UseExisting) {
      OS << "// __constant__ " << T << " " << C.Name
         << ": the original's symbol, visible where this file is included.\n";
      continue;
    }
    bool IsArray = C.Kind == ir::Coefficient::ConstantArray;
    OS << "static __constant__ " << T << " " << C.Name;
    // Declared as the original is, so that emitExpr's subscripts fit.
    if (IsArray && C.Shape.size() >= 2)
      for (unsigned N : C.Shape)
        OS << "[" << N << "]";
    else if (IsArray)
      OS << "[" << C.Size << "]";
    OS << ";\n";
    OS << constantSetter(O.LauncherName + "_set_" + C.Name, C, C.Name, T,
                         V.elementType());
  }
  return OS.str();
}

std::string emitPointUpdate(const StencilView &V, const std::string &Indent,
                            const std::string &IndexVar,
                            bool BoundaryReads) {
  std::ostringstream OS;
  const StencilIR &IR = V.ir();
  auto Read = [&](const std::string &Name, const Offset &IROff) {
    Offset VO = V.toView(IROff);
    // Along an axis with a boundary the read moves from the point's
    // coordinate to the clamped or wrapped one: the same element as the
    // original's moved index.
    // Along a zero boundary the element is read only where it lies within
    // the bounds, 0 elsewhere.
    std::string Moved, Tests;
    for (int A = 0; A < 3 && BoundaryReads; ++A) {
      const int IA = V.irAxis(A);
      if (VO[A] == 0 || IA < 0 || !IR.Axes[IA].hasBoundary())
        continue;
      const std::string C(1, "xyz"[A]);
      if (IR.Axes[IA].zeroed()) {
        Tests += (Tests.empty() ? "" : " && ") + zeroTest(C, VO[A], IR.Axes[IA]);
        continue;
      }
      Moved += " + (" + boundaryCoord(C, VO[A], IR.Axes[IA]) + " - " + C +
               ") * s" + std::to_string(A);
      VO[A] = 0;
    }
    return zeroedRead(Name + "[" + IndexVar + offsetTerms(VO) + Moved + "]",
                      Tests);
  };
  for (size_t U = 0; U < IR.Updates.size(); ++U) {
    const ir::Update &Up = IR.Updates[U];
    std::string Value = emitExpr(Up.Value, Read, &IR);
    if (Up.Accumulate) {
      Offset W = V.writeOffset(Up.Target);
      Value = "(" + Up.Target + "[" + IndexVar + offsetTerms(W) + "] + " +
              Value + ")";
    }
    OS << Indent << "const " << V.elementType() << " fs_u" << U << " = "
       << Value << ";\n";
  }
  for (size_t U = 0; U < IR.Updates.size(); ++U) {
    const ir::Update &Up = IR.Updates[U];
    OS << Indent << Up.Target << "[" << IndexVar
       << offsetTerms(V.writeOffset(Up.Target)) << "] = fs_u" << U << ";\n";
  }
  return OS.str();
}

std::string emitIndexWidthLaunch(const StencilView &V,
                                 const std::string &Kernel) {
  return "  if (fs_fits32)\n    " + Kernel +
         "<int><<<fs_grid, fs_block, 0, stream>>>(" + kernelArgs(V, "int") +
         ");\n  else\n    " + Kernel +
         "<long long><<<fs_grid, fs_block, 0, stream>>>(" +
         kernelArgs(V, "long long") + ");\n}\n";
}

std::string emitLoad(const StencilView &V, const std::string &Array,
                     const std::string &TypeName, const std::string &Address) {
  const StencilView::Array *A = V.array(Array);
  if (A && A->readOnly())
    return "__ldg((const " + TypeName + " *)(" + Address + "))";
  return "(*(const " + TypeName + " *)(" + Address + "))";
}

std::string emitFilePrologue(const StencilIR &IR, const StrategyParams &P) {
  std::ostringstream OS;
  OS << "// Generated by ForgeStencil: do not edit.\n"
     << "// Stencil: " << IR.Kernel << " (" << IR.summary() << ")\n"
     << "// Strategy: " << P.id() << "\n"
     << "#include <cuda_runtime.h>\n"
     << "#include <stdint.h>\n\n"
     // Several generated files may land in one translation unit (a patch
     // adds one per kernel): the shared helpers are defined once.
     << "#ifndef FORGESTENCIL_GENERATED_HELPERS\n"
     << "#define FORGESTENCIL_GENERATED_HELPERS\n"
     << "namespace {\n"
     << "inline long long fs_max(long long a, long long b) { return a > b ? "
        "a : b; }\n"
     << "inline long long fs_min(long long a, long long b) { return a < b ? "
        "a : b; }\n"
     << "inline long long fs_abs(long long a) { return a < 0 ? -a : a; }\n"
     << "inline unsigned fs_blocks(long long n, long long per, long long cap) "
        "{\n"
     << "  long long b = (n + per - 1) / per;\n"
     << "  return (unsigned)(b < cap ? b : cap);\n"
     << "}\n"
     << "} // namespace\n"
     << "#endif // FORGESTENCIL_GENERATED_HELPERS\n\n";
  return OS.str();
}

/// emitOriginalSource for parameters as IR names them.
static std::string originalSourceAsNamed(const StencilIR &IR,
                                         const GenerateOptions &O,
                                         const std::string &ElementType) {
  const std::string From = IR.ElementType;
  const std::string To = ElementType.empty() ? IR.ElementType : ElementType;
  auto Retype = [&](const std::string &T) { return replaceWord(T, From, To); };
  std::ostringstream OS;
  OS << "// Generated by ForgeStencil: do not edit.\n"
     << "// The kernel " << IR.Kernel << " as its Stencil IR describes it"
     << (To != From ? " (retyped to " + To + ")" : std::string()) << ".\n"
     << "#include <cuda_runtime.h>\n\n";
  // The clamps and wraps of the reads (a frame's values need no helper).
  if (hasBoundaryAxes(IR))
    OS << boundaryHelpers(IR);
  if (O.Constants != ConstantMode::UseExisting)
    OS << defineNamedConstants(IR);
  for (const ir::Coefficient &C : IR.Coefficients) {
    if (C.Kind != ir::Coefficient::ConstantArray &&
        C.Kind != ir::Coefficient::ConstantScalar)
      continue;
    std::string T = Retype(C.Type.empty() ? IR.ElementType : C.Type);
    if (O.Constants == ConstantMode::UseExisting)
      continue;
    OS << "static __constant__ " << T << " " << C.Name;
    if (C.Kind == ir::Coefficient::ConstantArray && C.Shape.size() >= 2)
      for (unsigned N : C.Shape)
        OS << "[" << N << "]";
    else if (C.Kind == ir::Coefficient::ConstantArray)
      OS << "[" << C.Size << "]";
    OS << ";\n";
    OS << constantSetter(O.LauncherName + "_set_" + C.Name, C, C.Name, T, To);
  }
  // The kernel indexes every array flat, so a pointer to arrays becomes a
  // pointer to its elements.
  auto IsArrayPointer = [](const std::string &T) {
    return T.find("(*)") != std::string::npos;
  };
  std::string Params;
  std::string Args;
  for (const ir::Param &P : IR.Params) {
    Params += (Params.empty() ? "" : ", ") +
              (IsArrayPointer(P.Type) ? To + " *" + P.Name
                                      : declareParam(Retype(P.Type), P.Name));
    Args += (Args.empty() ? "" : ", ") +
            (IsArrayPointer(P.Type) ? "(" + To + " *)" + P.Name : P.Name);
  }
  OS << "\nnamespace {\n__global__ void fs_original_kernel(" << Params
     << ") {\n";
  std::string Indent = "  ";
  int Loops = 0;
  // The range each axis's guards and loops run over: the domain's, or with
  // a frame the frame's box, inside which the domain is tested.
  const bool Framed = hasFrame(IR) &&
                      IR.Frame.Lower.size() >= IR.Axes.size() &&
                      IR.Frame.Upper.size() >= IR.Axes.size();
  auto Lower = [&](size_t A) -> const std::string & {
    return Framed ? IR.Frame.Lower[A] : IR.Axes[A].Lower;
  };
  auto Upper = [&](size_t A) -> const std::string & {
    return Framed ? IR.Frame.Upper[A] : IR.Axes[A].Upper;
  };
  // Thread axes first (their guards return early), then loops, slowest
  // outermost.
  // Inside a thread's loop over the points it computes (thread coarsening)
  // a point outside the range skips to the next.
  std::string Skip = "return";
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const ir::Axis &X = IR.Axes[A];
    if (X.Source != ir::AxisSource::Thread)
      continue;
    if (X.BlockPoints > 0) // halo threads compute nothing
      OS << Indent << "if ((long long)threadIdx." << threadDimChar(X.ThreadDim)
         << " < " << X.BlockFirst << " || (long long)threadIdx."
         << threadDimChar(X.ThreadDim) << " >= " << X.BlockFirst + X.BlockPoints
         << ")\n"
         << Indent << "  return;\n";
    std::string Pos = ir::threadPosition(X);
    if (X.ThreadPoints != 1) {
      const std::string S = "fs_p" + std::to_string(A);
      OS << Indent << "for (long long " << S << " = 0; " << S << " < "
         << X.ThreadPoints << "LL; ++" << S << ") {\n";
      Indent += "  ";
      ++Loops;
      Skip = "continue";
      Pos = "(" + Pos + ") * " + std::to_string(X.ThreadPoints) + "LL + " + S;
    }
    OS << Indent << "const long long " << X.Name << " = " << Pos << " + ("
       << X.ThreadOffset << ");\n";
    OS << Indent << "if (" << X.Name << " < (" << Lower(A) << ") || "
       << X.Name << " >= (" << Upper(A) << "))\n"
       << Indent << "  " << Skip << ";\n";
  }
  // Coordinates split from the 1-D id with / and %.
  bool HaveId = false;
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const ir::Axis &X = IR.Axes[A];
    if (X.Source != ir::AxisSource::Linear)
      continue;
    if (X.LinearStep.empty()) {
      OS << "#error \"axis " << X.Name
         << ": the 1-D id it is split from is unknown\"\n";
      continue;
    }
    if (!HaveId)
      OS << Indent << "const long long fs_id = (long long)blockIdx.x * "
                      "blockDim.x + threadIdx.x;\n";
    HaveId = true;
    OS << Indent << "const long long " << X.Name << " = fs_id / (long long)("
       << X.LinearStep << ")"
       << (X.LinearModulus.empty()
               ? std::string()
               : " % (long long)(" + X.LinearModulus + ")")
       << " + (" << X.ThreadOffset << ");\n";
    OS << Indent << "if (" << X.Name << " < (" << Lower(A) << ") || "
       << X.Name << " >= (" << Upper(A) << "))\n"
       << Indent << "  " << Skip << ";\n";
  }
  for (size_t I = IR.Axes.size(); I-- > 0;) {
    const ir::Axis &X = IR.Axes[I];
    if (X.Source == ir::AxisSource::Loop) {
      OS << Indent << "for (long long " << X.Name << " = (" << Lower(I)
         << "); " << X.Name << " < (" << Upper(I) << "); ++" << X.Name
         << ") {\n";
    } else if (X.Source == ir::AxisSource::GridStride) {
      char D = threadDimChar(X.ThreadDim);
      OS << Indent << "for (long long " << X.Name << " = (" << Lower(I)
         << ") + (long long)blockIdx." << D << " * blockDim." << D
         << " + threadIdx." << D << "; " << X.Name << " < (" << Upper(I)
         << "); " << X.Name << " += (long long)gridDim." << D << " * blockDim."
         << D << ") {\n";
    } else {
      continue;
    }
    Indent += "  ";
    ++Loops;
  }
  std::string Index;
  for (size_t A = 0; A < IR.Axes.size(); ++A)
    Index += (A ? " + " : "") + IR.Axes[A].Name + " * (long long)(" +
             IR.Strides[A] + ")";
  OS << Indent << "const long long fs_i = " << Index << ";\n";
  auto Offs = [&](const Offset &Off) {
    std::string S;
    for (size_t A = 0; A < IR.Axes.size(); ++A)
      if (Off[A] != 0)
        S += " + (" + std::to_string(Off[A]) + ") * (long long)(" +
             IR.Strides[A] + ")";
    return S;
  };
  // On a replicated or periodic boundary a read's coordinate is clamped or
  // wrapped: the element moves from the point's coordinate to that one.
  // On a zero boundary it is 0 outside the bounds.
  auto Read = [&](const std::string &Name, Offset Off) {
    std::string Moved, Tests;
    for (size_t A = 0; A < IR.Axes.size(); ++A) {
      const ir::Axis &X = IR.Axes[A];
      if (Off[A] == 0 || !X.hasBoundary())
        continue;
      if (X.zeroed()) {
        Tests += (Tests.empty() ? "" : " && ") + zeroTest(X.Name, Off[A], X);
        continue;
      }
      Moved += " + (" + boundaryCoord(X.Name, Off[A], X) + " - " + X.Name +
               ") * (long long)(" + IR.Strides[A] + ")";
      Off[A] = 0;
    }
    return zeroedRead(Name + "[fs_i" + Offs(Off) + Moved + "]", Tests);
  };
  // With a frame: the stencil inside the domain, the frame's values on
  // the rest of the box.
  if (Framed) {
    std::string Inside;
    for (size_t A = 0; A < IR.Axes.size(); ++A)
      Inside += std::string(A ? " &&\n" + Indent + "    " : "") +
                IR.Axes[A].Name + " >= (" + IR.Axes[A].Lower + ") && " +
                IR.Axes[A].Name + " < (" + IR.Axes[A].Upper + ")";
    OS << Indent << "if (" << Inside << ") {\n";
    Indent += "  ";
  }
  for (const ir::Update &U : IR.Updates) {
    Offset W{0, 0, 0};
    if (const ir::OutputArray *Out = findOutput(IR, U.Target))
      W = Out->WriteOffset;
    OS << Indent << U.Target << "[fs_i" << Offs(W) << "] "
       << (U.Accumulate ? "+=" : "=") << " " << emitExpr(U.Value, Read, &IR)
       << ";\n";
  }
  if (Framed) {
    Indent.resize(Indent.size() - 2);
    OS << Indent << "} else {\n"
       << emitFrameStores(IR, Indent + "  ",
                          [&](const std::string &Name, const Offset &Off) {
                            return Name + "[fs_i" + Offs(Off) + "]";
                          })
       << Indent << "}\n";
  }
  while (Loops-- > 0) {
    Indent.resize(Indent.size() - 2);
    OS << Indent << "}\n";
  }
  OS << "}\n} // namespace\n\n";
  OS << "void " << O.LauncherName
     << "(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream";
  for (const ir::Param &P : IR.Params)
    OS << ", " << declareParam(Retype(P.Type), P.Name);
  OS << ") {\n  fs_original_kernel<<<grid, block, shmem, stream>>>(" << Args
     << ");\n}\n";
  return OS.str();
}

std::string emitOriginalSource(const StencilIR &IR, const GenerateOptions &O,
                               const std::string &ElementType) {
  return originalSourceAsNamed(
      withSafeParamNames(IR,
                         [&](const StencilIR &Probe) {
                           return originalSourceAsNamed(Probe, O, ElementType);
                         }),
      O, ElementType);
}

std::string declareParam(const std::string &Type, const std::string &Name) {
  size_t At = Type.find("(*)");
  if (At == std::string::npos)
    return Type + " " + Name;
  return Type.substr(0, At) + "(*" + Name + ")" + Type.substr(At + 3);
}

std::string signedTag(int N) {
  return N < 0 ? "m" + std::to_string(-N) : std::to_string(N);
}

int floorDiv(int A, int B) { return A >= 0 ? A / B : -((-A + B - 1) / B); }

const char *vectorLane(unsigned I) {
  static const char *const Lanes[] = {"x", "y", "z", "w"};
  return Lanes[I];
}

VectorSlot vectorSlot(int E, unsigned Width) {
  const int W = static_cast<int>(Width);
  const int Column = floorDiv(E, W);
  return {Column, static_cast<unsigned>(E - Column * W)};
}

std::string makeVector(const std::string &VectorType,
                       const std::vector<std::string> &Parts) {
  if (Parts.size() == 1)
    return Parts[0];
  std::string S = "make_" + VectorType + "(";
  for (size_t I = 0; I < Parts.size(); ++I)
    S += (I ? ", " : "") + Parts[I];
  return S + ")";
}

} // namespace forge
} // namespace forgestencil
