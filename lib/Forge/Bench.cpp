//===- Bench.cpp - One stencil, our kernels against the baselines ----------===//

#include "forgestencil/Forge/Bench.h"

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/CaseShapes.h"
#include "forgestencil/Forge/CodeGen.h"

#include "StartOffsets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

namespace forgestencil {
namespace forge {

using nlohmann::json;

namespace {

const char *const DriverBody =
#include "BenchDriverTemplate.inc"
    ;

bool isIdentifier(const std::string &S) {
  if (S.empty() || !(std::isalpha(static_cast<unsigned char>(S[0])) || S[0] == '_'))
    return false;
  for (char C : S)
    if (!(std::isalnum(static_cast<unsigned char>(C)) || C == '_'))
      return false;
  return true;
}

std::string shellQuote(const std::string &S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

/// How the driver passes each original parameter.
struct ParamBinding {
  enum Kind { Array, Extent, Scalar, StartOffset } Kind;
  int Index; // array, axis or scalar number
};

bool bindParams(const ir::StencilIR &IR, const StencilView &V,
                const std::map<std::string, long long> &Starts,
                std::vector<ParamBinding> &Bindings, int &Scalars,
                std::string &Error) {
  Scalars = 0;
  for (const ir::Assumption &A : IR.Assumptions)
    if (A.Kind == ir::Assumption::Holds) {
      Error = "the variants compute what the original does where " +
              A.Expr + " holds; a driver cannot choose parameters that make it hold";
      return false;
    }
  for (const ir::Param &P : IR.Params) {
    int ArrayIndex = 0;
    bool Found = false;
    for (const StencilView::Array &A : V.arrays()) {
      if (A.Name == P.Name) {
        Found = true;
        break;
      }
      ++ArrayIndex;
    }
    if (Found) {
      Bindings.push_back({ParamBinding::Array, ArrayIndex});
      continue;
    }
    int Axis = -1;
    for (size_t A = 0; A < IR.Axes.size(); ++A)
      if (IR.Axes[A].Extent == P.Name)
        Axis = static_cast<int>(A);
    if (Axis >= 0) {
      Bindings.push_back({ParamBinding::Extent, Axis});
      continue;
    }
    if (P.Type.find("float") != std::string::npos ||
        P.Type.find("double") != std::string::npos) {
      if (P.Type.find('*') != std::string::npos) {
        const bool Table = std::any_of(
            IR.Coefficients.begin(), IR.Coefficients.end(),
            [&](const ir::Coefficient &C) {
              return C.Name == P.Name &&
                     C.Kind == ir::Coefficient::ParamArray;
            });
        Error = "pointer parameter '" + P.Name + "' " +
                (Table ? "is a table read at an element every thread "
                         "computes alike: no driver fills such a table yet"
                       : "is never read or written");
        return false;
      }
      Bindings.push_back({ParamBinding::Scalar, Scalars++});
      continue;
    }
    if (Starts.count(P.Name)) {
      Bindings.push_back({ParamBinding::StartOffset, 0});
      continue;
    }
    Error = "cannot give parameter '" + P.Name + "' (" + P.Type +
            ") a value: it is no axis extent, array, floating scalar or "
            "offset of the domain's start";
    return false;
  }
  return true;
}

std::string launchArgs(const ir::StencilIR &IR,
                       const std::vector<ParamBinding> &Bindings,
                       const std::string &ScalarType) {
  std::string S;
  for (size_t I = 0; I < Bindings.size(); ++I) {
    const ParamBinding &B = Bindings[I];
    S += ", ";
    switch (B.Kind) {
    case ParamBinding::Array:
      S += "fs_arr[" + std::to_string(B.Index) + "]";
      break;
    case ParamBinding::Extent:
    case ParamBinding::StartOffset:
      S += IR.Params[I].Name;
      break;
    case ParamBinding::Scalar:
      S += "(" + ScalarType + ")fs_sc[" + std::to_string(B.Index) + "]";
      break;
    }
  }
  return S;
}

std::string launcherDecl(const ir::StencilIR &IR, const std::string &Name,
                         const std::string &From, const std::string &To) {
  std::string S = "void " + Name +
                  "(dim3, dim3, size_t, cudaStream_t";
  for (const ir::Param &P : IR.Params) {
    std::string T = P.Type;
    size_t Pos;
    if (From != To)
      while ((Pos = T.find(From)) != std::string::npos)
        T.replace(Pos, From.size(), To);
    S += ", " + T;
  }
  return S + ");\n";
}

/// Declarations of the extents as locals, for the IR's C expressions; an
/// extent that is a named constant (`N`) keeps the constant's meaning.
std::string extentLocals(const ir::StencilIR &IR) {
  std::string S;
  std::set<std::string> Declared;
  for (size_t A = 0; A < IR.Axes.size(); ++A)
    if (isIdentifier(IR.Axes[A].Extent) && !IR.constant(IR.Axes[A].Extent) &&
        Declared.insert(IR.Axes[A].Extent).second)
      S += "  const int " + IR.Axes[A].Extent + " = fs_ext[" + std::to_string(A) +
           "]; (void)" + IR.Axes[A].Extent + ";\n";
  return S;
}

/// For each axis, the first axis with the same extent parameter (a cube's
/// N along every axis), else itself: the driver gives such axes one extent.
static std::array<int, 3> sameExtentAxes(const ir::StencilIR &IR) {
  std::array<int, 3> Same = {0, 1, 2};
  for (size_t A = 0; A < IR.Axes.size() && A < 3; ++A)
    for (size_t B = 0; B < A; ++B)
      if (isIdentifier(IR.Axes[A].Extent) &&
          IR.Axes[A].Extent == IR.Axes[B].Extent) {
        Same[A] = static_cast<int>(B);
        break;
      }
  return Same;
}

/// Statements adding to `fs_r` the last element each axis's reads reach,
/// or "" when an axis's upper bound names something the driver does not
/// bind (a scalar parameter): then the extents alone size the arrays.
static std::string readReach(const ir::StencilIR &IR) {
  std::set<std::string> Bound;
  for (const ir::Axis &X : IR.Axes)
    if (isIdentifier(X.Extent))
      Bound.insert(X.Extent);
  for (const ir::NamedConstant &C : IR.Constants)
    Bound.insert(C.Name);
  // Whether every name of an upper bound is one the driver binds.
  auto Bindable = [&](const std::string &U) {
    for (size_t I = 0; I < U.size();) {
      if (std::isalpha(static_cast<unsigned char>(U[I])) || U[I] == '_' ||
          U[I] == ':') {
        size_t J = I;
        while (J < U.size() &&
               (std::isalnum(static_cast<unsigned char>(U[J])) || U[J] == '_' ||
                U[J] == ':'))
          ++J;
        std::string Name = U.substr(I, J - I);
        if (!Bound.count(Name) && Name != "min" && Name != "max")
          return false;
        I = J;
      } else {
        ++I;
      }
    }
    return true;
  };
  const bool Framed = IR.Frame.present();
  std::string S;
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const std::string &U = IR.Axes[A].Upper;
    if (U.empty() || !Bindable(U))
      return "";
    long long MaxOff = 0;
    for (const ir::InputArray &In : IR.Inputs)
      for (const ir::Offset &O : In.Offsets)
        MaxOff = std::max<long long>(MaxOff, O[A]);
    std::string Reach = "std::max<long long>((long long)(fs_ext[" +
                        std::to_string(A) + "] - 1), (long long)(" + U +
                        ") - 1 + " + std::to_string(MaxOff) + ")";
    // A frame's box may reach further than the domain's reads.
    if (Framed) {
      if (A >= IR.Frame.Upper.size() || !Bindable(IR.Frame.Upper[A]))
        return "";
      Reach = "std::max<long long>(" + Reach + ", (long long)(" +
              IR.Frame.Upper[A] + ") - 1)";
    }
    S += "  fs_r += " + Reach + " * (long long)(" + IR.Strides[A] + ");\n";
    // Within its rows only: reads past an inner axis's row are reads of
    // the next row, which the arrays are not made larger for (the original
    // is then out of its rows, and the case is refused).
    if (A + 1 < IR.Axes.size())
      S += "  if (" + Reach + " >= (long long)(" + IR.Strides[A + 1] +
           ") / (long long)(" + IR.Strides[A] + ")) fs_rows = false;\n";
  }
  return S;
}

std::string driverHead(const ir::StencilIR &IR, const ir::StencilIR &Model,
                       const std::map<std::string, long long> &Starts,
                       const StencilView &V, const BenchConfig &C,
                       const std::vector<StrategyParams> &Cands,
                       const std::vector<ParamBinding> &Bindings,
                       int Scalars) {
  std::ostringstream OS;
  const std::string T = IR.ElementType;
  std::vector<const ir::Coefficient *> Consts;
  for (const ir::Coefficient &Co : IR.Coefficients)
    if (Co.Kind == ir::Coefficient::ConstantArray ||
        Co.Kind == ir::Coefficient::ConstantScalar)
      Consts.push_back(&Co);
  const size_t NArr = V.arrays().size();
  OS << "// Generated by ForgeStencil fs-bench: do not edit.\n"
     << "// Stencil: " << IR.Kernel << " (" << IR.summary() << ")\n"
     << "#include <cuda_runtime.h>\n#include <algorithm>\n#include <cmath>\n"
     << "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
     << "#include <random>\n#include <string>\n#include <vector>\n\n"
     << defineNamedConstants(IR);
  for (const auto &[Name, Value] : Starts)
    OS << "// The parameter " << Name << " only moves where the domain starts: "
       << "the smallest value\n// from 0 up that keeps the original's reads "
       << "in its arrays.\nstatic const long long " << Name << " = " << Value
       << ";\n";
  OS << "typedef " << T << " Elem;\n"
     << "#define FS_NARR " << NArr << "\n"
     << "#define FS_NSCALAR " << Scalars << "\n"
     << "#define FS_NCONST " << Consts.size() << "\n"
     << "#define FS_NVARIANTS " << Cands.size() + 1 << "\n"
     << "#define FS_DIMS " << IR.Dims << "\n"
     << "#define FS_GPU " << C.Gpu << "\n"
     << "#define FS_REPS " << C.Reps << "\n"
     << "#define FS_WARMUP " << C.Warmup << "\n";
  // Verification sizes: odd, so no block or vector width divides them (the
  // candidates' one-point-wide kernels run); the driver verifies the same
  // with the contiguous extent rounded up to a multiple of 4 too, so that
  // the vector kernels run, with the domain's first and last columns off
  // the vector grid.
  int Small[3] = {1, 1, 1}, Medium[3] = {1, 1, 1}, Bench[3] = {1, 1, 1};
  const int SmallByDims[3][3] = {{1001, 1, 1}, {333, 211, 1}, {67, 45, 37}};
  const int MediumByDims[3][3] = {
      {1000003, 1, 1}, {2051, 1029, 1}, {259, 133, 71}};
  for (unsigned A = 0; A < IR.Dims; ++A) {
    Small[A] = SmallByDims[IR.Dims - 1][A];
    Medium[A] = MediumByDims[IR.Dims - 1][A];
    Bench[A] = static_cast<int>(C.Shape[A]);
  }
  // Sizes the original handles in bounds, as far as the IR tells (a literal
  // extent, strides and bounds that must agree): for the stencils whose
  // extents are parameters nothing changes.
  {
    std::vector<unsigned> B = hasLinearAxes(IR) ? std::vector<unsigned>{256, 1, 1}
                                                : originalBlock(IR.Dims);
    const std::array<unsigned, 3> Block = {B[0], B[1], B[2]};
    auto Derive = [&](int *E, bool Odd) {
      Extents W{E[0], E[1], E[2]};
      DerivedExtents D = deriveExtents(Model, W, Block, Odd);
      // And periods no shorter than the wrapped reads' reach.
      std::string Note;
      const Extents Ext = withAtLeast(Model, D.Ext, Note).value_or(D.Ext);
      for (unsigned A = 0; A < IR.Dims; ++A)
        E[A] = static_cast<int>(Ext[A]);
    };
    Derive(Small, true);
    Derive(Medium, true);
    Derive(Bench, false);
  }
  auto Extents = [&](const char *Name, const int *E) {
    OS << "static const int " << Name << "[3] = {" << E[0] << ", " << E[1]
       << ", " << E[2] << "};\n";
  };
  Extents("fs_small_ext", Small);
  Extents("fs_medium_ext", Medium);
  Extents("fs_bench_ext", Bench);
  // The arrays' roles as constant expressions (the footprint kernel's
  // device code uses them too).
  auto Roles = [&](const char *Name, bool StencilView::Array::*Role) {
    OS << "__host__ __device__ constexpr bool " << Name << "(int a) { return ";
    bool Any = false;
    for (size_t A = 0; A < NArr; ++A)
      if (V.arrays()[A].*Role) {
        OS << (Any ? " || " : "") << "a == " << A;
        Any = true;
      }
    OS << (Any ? "" : "false") << "; }\n";
  };
  Roles("fs_reads", &StencilView::Array::Read);
  Roles("fs_writes", &StencilView::Array::Written);
  OS << "static const char *const fs_arr_names[FS_NARR] = {";
  for (size_t A = 0; A < NArr; ++A)
    OS << (A ? ", " : "") << "\"" << V.arrays()[A].Name << "\"";
  OS << "};\nstatic const int fs_woff[FS_NARR][3] = {";
  for (size_t A = 0; A < NArr; ++A) {
    ir::Offset W{0, 0, 0};
    for (const ir::OutputArray &O : IR.Outputs)
      if (O.Param == V.arrays()[A].Name)
        W = O.WriteOffset;
    OS << (A ? ", " : "") << "{" << W[0] << ", " << W[1] << ", " << W[2]
       << "}";
  }
  OS << "};\nstatic const int fs_const_size[FS_NCONST + 1] = {";
  for (const ir::Coefficient *Co : Consts)
    OS << Co->Size << ", ";
  OS << "0};\nstatic const char *const fs_names[FS_NVARIANTS] = {\"original\"";
  for (const StrategyParams &P : Cands)
    OS << ", \"" << P.id() << "\"";
  OS << "};\n\n";
  // Launchers and constant setters of every unit.
  std::vector<std::string> Launchers = {"fs_original"};
  for (size_t I = 0; I < Cands.size(); ++I)
    Launchers.push_back("fs_cand_" + std::to_string(I));
  for (const std::string &L : Launchers) {
    OS << launcherDecl(IR, L, T, T);
    for (const ir::Coefficient *Co : Consts)
      OS << "cudaError_t " << L << "_set_" << Co->Name
         << "(const void *, size_t);\n";
  }
  OS << launcherDecl(IR, "fs_reference", T, "double");
  for (const ir::Coefficient *Co : Consts)
    OS << "cudaError_t fs_reference_set_" << Co->Name
       << "(const void *, size_t);\n";
  OS << "typedef cudaError_t (*Setter)(const void *, size_t);\n"
     << "static const Setter fs_setters[FS_NVARIANTS][FS_NCONST + 1] = {";
  for (size_t L = 0; L < Launchers.size(); ++L) {
    OS << (L ? ", " : "") << "{";
    for (const ir::Coefficient *Co : Consts)
      OS << Launchers[L] << "_set_" << Co->Name << ", ";
    OS << "nullptr}";
  }
  OS << "};\nstatic const Setter fs_reference_setters[FS_NCONST + 1] = {";
  for (const ir::Coefficient *Co : Consts)
    OS << "fs_reference_set_" << Co->Name << ", ";
  OS << "nullptr};\n\n";
  // Sizes, domain and launch thunks from the IR's expressions.
  OS << "static long long fs_elements(const int *fs_ext) {\n"
     << extentLocals(IR) << "  long long fs_n = 1;\n";
  for (size_t A = 0; A < IR.Axes.size(); ++A)
    OS << "  fs_n += (long long)(fs_ext[" << A << "] - 1) * (long long)("
       << IR.Strides[A] << ");\n";
  // A domain bounded by the extent itself (`k < nz` over rows of nz + 2)
  // reads past the extent's last element: the arrays take what the
  // original's reads reach, where its bounds name only bound extents.
  if (std::string Reach = readReach(IR); !Reach.empty())
    OS << "  long long fs_r = 1;\n  bool fs_rows = true;\n" << Reach
       << "  if (fs_rows && fs_r > fs_n) fs_n = fs_r;\n";
  OS << "  return fs_n;\n}\n";
  OS << "static void fs_domain(dim3 fs_grid, dim3 fs_block, const int *fs_ext, "
        "long long *fs_lo, long long *fs_hi, long long *fs_st) {\n"
     << extentLocals(IR)
     << "  for (int fs_a = 0; fs_a < 3; ++fs_a) { fs_lo[fs_a] = 0; fs_hi[fs_a] = 1; fs_st[fs_a] = 0; }\n";
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const ir::Axis &X = IR.Axes[A];
    OS << "  fs_lo[" << A << "] = (long long)(" << X.Lower << ");\n"
       << "  fs_hi[" << A << "] = (long long)(" << X.Upper << ");\n"
       << "  fs_st[" << A << "] = (long long)(" << IR.Strides[A] << ");\n";
    if (X.Source == ir::AxisSource::Thread) {
      char D = X.ThreadDim == 'y' || X.ThreadDim == 'z' ? X.ThreadDim : 'x';
      OS << "  fs_lo[" << A << "] = (std::max)(fs_lo[" << A << "], (long long)("
         << X.ThreadOffset << "));\n"
         << "  fs_hi[" << A << "] = (std::min)(fs_hi[" << A << "], (long long)("
         << X.ThreadOffset << ") + (long long)fs_grid." << D << " * "
         << (X.BlockPoints > 0 ? std::to_string(X.BlockPoints) + "LL"
                               : std::string("fs_block.") + D)
         << (X.ThreadPoints != 1 ? " * " + std::to_string(X.ThreadPoints) + "LL"
                                 : std::string())
         << ");\n";
    } else if (X.Source == ir::AxisSource::Linear) {
      OS << "  fs_lo[" << A << "] = (std::max)(fs_lo[" << A << "], (long long)("
         << X.ThreadOffset << "));\n";
      if (!X.LinearModulus.empty())
        OS << "  fs_hi[" << A << "] = (std::min)(fs_hi[" << A << "], (long long)("
           << X.ThreadOffset << ") + (long long)(" << X.LinearModulus
           << "));\n";
    }
  }
  OS << "  for (int fs_a = 0; fs_a < 3; ++fs_a) if (fs_hi[fs_a] < fs_lo[fs_a]) fs_hi[fs_a] = fs_lo[fs_a];\n}\n";
  // A kernel on a 1-D thread id (split with / and %): how many ids the
  // domain needs (0 for other kernels), and whether the ids of a launch
  // reach a point of the domain's box.
  std::string Id;
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const ir::Axis &X = IR.Axes[A];
    if (X.Source == ir::AxisSource::Linear)
      Id += " + (fs_p[" + std::to_string(A) + "] - (long long)(" + X.ThreadOffset +
            ")) * (long long)(" + X.LinearStep + ")";
  }
  OS << "static long long fs_point_id(const int *fs_ext, const long long *fs_p) {\n"
     << extentLocals(IR) << "  (void)fs_p;\n  return 0" << Id << ";\n}\n"
     << "static long long fs_linear_ids(const int *fs_ext) {\n";
  if (Id.empty()) {
    OS << "  (void)fs_ext;\n  return 0;\n}\n";
  } else {
    OS << "  long long fs_lo[3], fs_hi[3], fs_st[3], fs_last[3];\n"
       << "  fs_domain(dim3(1, 1, 1), dim3(1, 1, 1), fs_ext, fs_lo, fs_hi, fs_st);\n";
    // The original writes its frame's box too, which may need more ids.
    if (IR.Frame.present()) {
      OS << "  // With the frame's box, as the ids cover it.\n"
         << extentLocals(IR);
      for (size_t A = 0; A < IR.Axes.size() && A < IR.Frame.Upper.size();
           ++A) {
        const ir::Axis &X = IR.Axes[A];
        const bool ById = X.Source == ir::AxisSource::Linear;
        std::string Lo = "(long long)(" + IR.Frame.Lower[A] + ")";
        std::string Hi = "(long long)(" + IR.Frame.Upper[A] + ")";
        if (ById)
          Lo = "(std::max)(" + Lo + ", (long long)(" + X.ThreadOffset + "))";
        if (ById && !X.LinearModulus.empty())
          Hi = "(std::min)(" + Hi + ", (long long)(" + X.ThreadOffset +
               ") + (long long)(" + X.LinearModulus + "))";
        const std::string I = std::to_string(A);
        OS << "  fs_lo[" << I << "] = (std::min)(fs_lo[" << I << "], " << Lo
           << ");\n"
           << "  fs_hi[" << I << "] = (std::max)(fs_hi[" << I << "], " << Hi
           << ");\n";
      }
    }
    OS << "  for (int fs_a = 0; fs_a < 3; ++fs_a) {\n"
       << "    if (fs_hi[fs_a] <= fs_lo[fs_a]) return 1;\n"
       << "    fs_last[fs_a] = fs_hi[fs_a] - 1;\n  }\n"
       << "  return fs_point_id(fs_ext, fs_last) + 1;\n}\n";
  }

  std::vector<unsigned> B = hasLinearAxes(IR) ? std::vector<unsigned>{256, 1, 1}
                                               : originalBlock(IR.Dims);
  // A thread dimension no axis takes (a loop over z inside the kernel) gets
  // one thread: more would run the loop again, racing on in-place updates.
  const std::array<int, 3> TD = axisThreadDims(IR);
  for (int D = 0; D < 3; ++D)
    if (std::find(TD.begin(), TD.end(), D) == TD.end())
      B[D] = 1;
  // Halo threads: the block the original is launched with, and the points
  // each block covers along the dimension.
  // Threads that compute several points (thread coarsening): how many.
  int Points[3] = {0, 0, 0}, PerThread[3] = {1, 1, 1};
  for (const ir::Axis &X : IR.Axes)
    if (X.Source == ir::AxisSource::Thread && X.ThreadDim >= 'x' &&
        X.ThreadDim <= 'z') {
      const int D = X.ThreadDim - 'x';
      PerThread[D] = static_cast<int>(X.ThreadPoints);
      if (X.BlockPoints == 0)
        continue;
      Points[D] = static_cast<int>(X.BlockPoints);
      if (unsigned Fixed = IR.fixedBlockDim(D))
        B[D] = Fixed;
    }
  OS << "static dim3 fs_original_block() { return dim3(" << B[0] << ", "
     << B[1] << ", " << B[2] << "); }\n"
     << "static const int fs_axis_thread_dim[3] = {" << TD[0] << ", " << TD[1]
     << ", " << TD[2] << "};\n"
     << "static const int fs_block_points[3] = {" << Points[0] << ", "
     << Points[1] << ", " << Points[2] << "};\n"
     << "static const int fs_thread_points[3] = {" << PerThread[0] << ", "
     << PerThread[1] << ", " << PerThread[2] << "};\n";
  const std::array<int, 3> Same = sameExtentAxes(IR);
  OS << "static const int fs_ext_same[3] = {" << Same[0] << ", " << Same[1]
     << ", " << Same[2] << "};\n";
  OS << "static void fs_launch(int fs_v, dim3 fs_g, dim3 fs_b, cudaStream_t fs_s, "
        "Elem *const *fs_arr, const int *fs_ext, const double *fs_sc) {\n"
     << extentLocals(IR) << "  (void)fs_sc;\n  switch (fs_v) {\n";
  for (size_t L = 0; L < Launchers.size(); ++L)
    OS << "  case " << L << ": " << Launchers[L] << "(fs_g, fs_b, 0, fs_s"
       << launchArgs(IR, Bindings, "Elem") << "); break;\n";
  OS << "  }\n}\n";
  OS << "static void fs_launch_reference(dim3 fs_g, dim3 fs_b, cudaStream_t fs_s, "
        "double *const *fs_arr, const int *fs_ext, const double *fs_sc) {\n"
     << extentLocals(IR) << "  (void)fs_sc;\n  fs_reference(fs_g, fs_b, 0, fs_s"
     << launchArgs(IR, Bindings, "double") << ");\n}\n";
  return OS.str();
}

bool makeDirs(const std::string &Dir) {
  std::string Path;
  std::stringstream SS(Dir);
  std::string Part;
  if (!Dir.empty() && Dir[0] == '/')
    Path = "/";
  while (std::getline(SS, Part, '/')) {
    if (Part.empty())
      continue;
    Path += Part + "/";
    if (mkdir(Path.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

} // namespace

ir::StencilIR standaloneIR(ir::StencilIR IR) {
  IR = completeForBundle(std::move(IR));
  static const std::set<std::string> Builtin = {
      "const",    "volatile", "__restrict", "__restrict__", "restrict",
      "float",    "double",   "int",        "unsigned",     "signed",
      "long",     "short",    "char",       "bool",         "size_t",
      "ptrdiff_t", "__half",  "half",       "int64_t",      "int32_t",
      "uint64_t", "uint32_t"};
  for (ir::Param &P : IR.Params) {
    bool Element = P.Role == ir::Param::Input || P.Role == ir::Param::Output ||
                   P.Role == ir::Param::InOut || P.Role == ir::Param::Scalar;
    if (!Element)
      continue;
    // Words of the spelling; one that is no builtin is the app's name for
    // the element type.
    std::vector<std::string> Words;
    std::string Other;
    for (size_t I = 0; I < P.Type.size();) {
      unsigned char C = P.Type[I];
      if (std::isalpha(C) || C == '_' || C == ':') {
        size_t J = I;
        while (J < P.Type.size() &&
               (std::isalnum(static_cast<unsigned char>(P.Type[J])) ||
                P.Type[J] == '_' || P.Type[J] == ':'))
          ++J;
        std::string W = P.Type.substr(I, J - I);
        if (Builtin.count(W))
          Words.push_back(W);
        else if (Other.empty())
          Other = W, Words.push_back(IR.ElementType);
        else
          Words.clear(), I = P.Type.size(), J = I; // Two names: leave it.
        I = J;
      } else {
        Words.push_back(std::string(1, static_cast<char>(C)));
        ++I;
      }
    }
    if (Other.empty() || Words.empty())
      continue;
    std::string T;
    for (const std::string &W : Words) {
      if (W == " ")
        continue;
      bool Punct = W == "*" || W == "&";
      T += (T.empty() || Punct ? "" : " ") + W;
      if (Punct)
        T += " ";
    }
    while (!T.empty() && T.back() == ' ')
      T.pop_back();
    P.Type = T;
  }
  return IR;
}

std::vector<unsigned> originalBlock(unsigned Dims) {
  if (Dims == 3)
    return {32, 4, 2};
  if (Dims == 2)
    return {32, 8, 1};
  return {256, 1, 1};
}

std::array<int, 3> axisThreadDims(const ir::StencilIR &IR) {
  std::array<int, 3> D{-1, -1, -1};
  for (size_t A = 0; A < 3 && A < IR.Axes.size(); ++A)
    if (IR.Axes[A].Source != ir::AxisSource::Loop) {
      const char C = IR.Axes[A].ThreadDim;
      D[A] = C == 'y' ? 1 : C == 'z' ? 2 : 0;
    }
  return D;
}

BenchSources generateBench(const ir::StencilIR &IR, const BenchConfig &C) {
  BenchSources S;
  auto V = StencilView::create(IR, S.Error);
  if (!V)
    return S;
  if (C.Shape.size() != IR.Dims) {
    S.Error = "the shape has " + std::to_string(C.Shape.size()) +
              " extents, the stencil " + std::to_string(IR.Dims) +
              " dimensions";
    return S;
  }
  for (long long E : C.Shape)
    if (E < 1 || E > 1000000000) {
      S.Error = "extents must be between 1 and 1e9";
      return S;
    }
  for (const ir::Axis &X : IR.Axes)
    if (X.Source == ir::AxisSource::Thread && !X.usualThreadMapping()) {
      std::string Pos = ir::threadPosition(X);
      Pos.erase(0, std::string("(long long)").size());
      S.Error = "axis " + std::to_string(&X - IR.Axes.data()) +
                " is at " + Pos +
                " in the original: no driver launches such a kernel yet "
                "(its block must span the axis, or its grid give a block "
                "per point)";
      return S;
    }
  // Parameters that only move the domain's start take values of the
  // driver's choosing, which its size model knows as constants.
  const std::map<std::string, long long> Starts = startOffsetParams(IR);
  const ir::StencilIR Model = withStartOffsets(IR, Starts);
  std::vector<ParamBinding> Bindings;
  int Scalars = 0;
  if (!bindParams(IR, *V, Starts, Bindings, Scalars, S.Error))
    return S;

  GenerateOptions Original;
  Original.LauncherName = "fs_original";
  Original.Constants = ConstantMode::DefineWithSetter;
  S.Files.push_back({"original.cu", emitOriginalSource(IR, Original)});
  GenerateOptions Reference = Original;
  Reference.LauncherName = "fs_reference";
  S.Files.push_back(
      {"reference_f64.cu", emitOriginalSource(IR, Reference, "double")});
  S.Units = {"original.cu", "reference_f64.cu"};
  for (const StrategyParams &P : C.Candidates) {
    const Strategy *Strat = findStrategy(P.Strategy);
    if (!Strat) {
      S.Skipped.push_back(P.id() + ": no strategy '" + P.Strategy + "'");
      continue;
    }
    GenerateOptions O;
    O.LauncherName = "fs_cand_" + std::to_string(S.Candidates.size());
    O.Constants = ConstantMode::DefineWithSetter;
    GeneratedSource G = Strat->generate(IR, P, O);
    if (!G.ok()) {
      S.Skipped.push_back(P.id() + ": " + G.Error);
      continue;
    }
    std::string File = "cand_" + std::to_string(S.Candidates.size()) + ".cu";
    S.Files.push_back({File, G.Source});
    S.Units.push_back(File);
    S.Candidates.push_back(P);
  }
  S.Files.push_back({"driver.cu", driverHead(IR, Model, Starts, *V, C, S.Candidates,
                                             Bindings, Scalars) +
                                      DriverBody});
  S.Units.push_back("driver.cu");
  // A small timed size for the CPU emulation (utils/cpu-emulate.py), where
  // timing means nothing: derived like the others.
  std::string EmulationExt;
  {
    const Extents Small = IR.Dims == 1   ? Extents{1001, 1, 1}
                          : IR.Dims == 2 ? Extents{35, 19, 1}
                                         : Extents{35, 19, 11};
    std::vector<unsigned> B = hasLinearAxes(IR) ? std::vector<unsigned>{256, 1, 1}
                                                : originalBlock(IR.Dims);
    DerivedExtents D = deriveExtents(Model, Small, {B[0], B[1], B[2]}, true);
    std::string Note;
    const Extents Ext = withAtLeast(Model, D.Ext, Note).value_or(D.Ext);
    for (unsigned A = 0; A < IR.Dims && A < 3; ++A)
      EmulationExt += (A ? "," : "") + std::to_string(Ext[A]);
  }
  json Manifest = {{"stencil", toJson(IR)},
                   {"emulation_time_ext", EmulationExt},
                   {"shape", C.Shape},
                   {"reps", C.Reps},
                   {"units", S.Units},
                   {"skipped", S.Skipped}};
  json Cands = json::array();
  for (size_t I = 0; I < S.Candidates.size(); ++I)
    Cands.push_back({{"launcher", "fs_cand_" + std::to_string(I)},
                     {"params", S.Candidates[I].toJson()},
                     {"id", S.Candidates[I].id()}});
  Manifest["candidates"] = Cands;
  S.Files.push_back({"manifest.json", Manifest.dump(2) + "\n"});
  std::string Build = "#!/bin/sh\n# Builds the bench: ./build.sh [nvcc] [arch]\n"
                      "set -e\nNVCC=${1:-nvcc}\nARCH=${2:-90}\ncd \"$(dirname \"$0\")\"\n";
  for (const std::string &U : S.Units)
    Build += "\"$NVCC\" -O3 -std=c++17 -arch=sm_$ARCH -Xptxas -v -c " + U +
             " -o " + U.substr(0, U.size() - 3) + ".o 2> " +
             U.substr(0, U.size() - 3) + ".log\n";
  Build += "\"$NVCC\" -arch=sm_$ARCH";
  for (const std::string &U : S.Units)
    Build += " " + U.substr(0, U.size() - 3) + ".o";
  Build += " -o bench\n";
  S.Files.push_back({"build.sh", Build});
  return S;
}

std::optional<ir::StencilIR> loadStencilFile(const std::string &Path,
                                             std::string &Error) {
  struct stat St;
  if (::stat(Path.c_str(), &St) == 0 && S_ISDIR(St.st_mode)) {
    Error = "cannot read " + Path + ": it is a directory";
    return std::nullopt;
  }
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = "cannot read " + Path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream Text;
  Text << In.rdbuf();
  if (Text.str().find_first_not_of(" \t\r\n") == std::string::npos) {
    Error = Path + ": empty file (expected a Stencil IR JSON document)";
    return std::nullopt;
  }
  json J;
  try {
    J = json::parse(Text.str());
  } catch (const json::exception &E) {
    // "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string What = E.what();
    if (size_t Close = What.find("] "); What[0] == '[' && Close != std::string::npos)
      What = What.substr(Close + 2);
    Error = Path + ": not JSON (" + What + ")";
    return std::nullopt;
  }
  if (J.is_object() && J.contains("kernels") && !J.contains("schema")) {
    Error = Path + ": an fs-rewrite --dump-ir listing; give one kernel's "
                   "\"ir\" member (e.g. jq '.kernels[0].ir')";
    return std::nullopt;
  }
  std::optional<ir::StencilIR> IR = ir::fromJson(J, Error);
  if (!IR)
    Error = Path + ": " + Error;
  return IR;
}

std::optional<std::vector<long long>> parseShape(const std::string &Text,
                                                 unsigned Dims,
                                                 std::string &Error) {
  constexpr long long MaxExtent = 1000000000;
  std::vector<long long> Shape;
  size_t Start = 0;
  while (true) {
    size_t Comma = Text.find(',', Start);
    std::string Part = Text.substr(
        Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    bool Digits = !Part.empty();
    for (char C : Part)
      Digits &= C >= '0' && C <= '9';
    if (!Digits) {
      Error = "--shape '" + Text + "': '" + Part +
              "' is not a positive integer";
      return std::nullopt;
    }
    // More digits than any extent has would overflow: compare as text.
    if (Part.size() > 10 || std::stoll(Part) > MaxExtent ||
        std::stoll(Part) == 0) {
      Error = "--shape '" + Text + "': " + Part +
              " is not an extent between 1 and " + std::to_string(MaxExtent);
      return std::nullopt;
    }
    Shape.push_back(std::stoll(Part));
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  if (Shape.size() == 1)
    Shape.assign(Dims, Shape[0]);
  if (Shape.size() != Dims) {
    Error = "--shape '" + Text + "': " + std::to_string(Shape.size()) +
            " extents for a " + std::to_string(Dims) +
            "-D stencil (give one, or one per axis)";
    return std::nullopt;
  }
  return Shape;
}

bool writeBench(const BenchSources &S, const std::string &Dir,
                std::string &Error) {
  if (!makeDirs(Dir)) {
    Error = "cannot create " + Dir;
    return false;
  }
  for (const BenchFile &F : S.Files) {
    std::ofstream Out(Dir + "/" + F.Path, std::ios::binary);
    Out << F.Text;
    if (!Out) {
      Error = "cannot write " + Dir + "/" + F.Path;
      return false;
    }
  }
  return true;
}

bool buildBench(const BenchSources &S, const std::string &Dir,
                const std::string &Nvcc, const std::string &Arch,
                unsigned Jobs, std::string &Error) {
  std::vector<std::string> Commands;
  for (const std::string &U : S.Units) {
    std::string Stem = U.substr(0, U.size() - 3);
    Commands.push_back(shellQuote(Nvcc) + " -O3 -std=c++17 -arch=sm_" + Arch +
                       " -Xptxas -v -c " + shellQuote(Dir + "/" + U) + " -o " +
                       shellQuote(Dir + "/" + Stem + ".o") + " > " +
                       shellQuote(Dir + "/" + Stem + ".log") + " 2>&1");
  }
  std::mutex Lock;
  size_t Next = 0;
  std::vector<std::string> Failed;
  auto Worker = [&] {
    for (;;) {
      size_t I;
      {
        std::lock_guard<std::mutex> G(Lock);
        if (Next >= Commands.size())
          return;
        I = Next++;
      }
      int RC = std::system(Commands[I].c_str());
      if (RC != 0) {
        std::lock_guard<std::mutex> G(Lock);
        Failed.push_back(S.Units[I]);
      }
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned J = 0; J < std::max(1u, Jobs); ++J)
    Pool.emplace_back(Worker);
  for (std::thread &T : Pool)
    T.join();
  if (!Failed.empty()) {
    Error = "nvcc failed on";
    for (const std::string &F : Failed)
      Error += " " + F + " (see " + Dir + "/" +
               F.substr(0, F.size() - 3) + ".log)";
    return false;
  }
  std::string Link = shellQuote(Nvcc) + " -arch=sm_" + Arch;
  for (const std::string &U : S.Units)
    Link += " " + shellQuote(Dir + "/" + U.substr(0, U.size() - 3) + ".o");
  Link += " -o " + shellQuote(Dir + "/bench") + " > " +
          shellQuote(Dir + "/link.log") + " 2>&1";
  if (std::system(Link.c_str()) != 0) {
    Error = "linking failed (see " + Dir + "/link.log)";
    return false;
  }
  return true;
}

bool runBench(const std::string &Dir, unsigned Reps, json &Result,
              std::string &Error) {
  std::string Cmd = shellQuote(Dir + "/bench");
  if (Reps)
    Cmd += " --reps " + std::to_string(Reps);
  Cmd += " 2> " + shellQuote(Dir + "/run.log");
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P) {
    Error = "cannot run " + Dir + "/bench";
    return false;
  }
  std::string Out;
  char Buf[4096];
  size_t N;
  while ((N = fread(Buf, 1, sizeof Buf, P)) > 0)
    Out.append(Buf, N);
  int RC = pclose(P);
  std::ofstream(Dir + "/run.out") << Out;
  const std::string Tag = "FSBENCH_RESULT ";
  size_t Pos = Out.rfind(Tag);
  if (RC != 0 || Pos == std::string::npos) {
    Error = "the bench failed (exit " + std::to_string(WEXITSTATUS(RC)) +
            "; see " + Dir + "/run.log)";
    return false;
  }
  size_t End = Out.find('\n', Pos);
  try {
    Result = json::parse(Out.substr(Pos + Tag.size(), End - Pos - Tag.size()));
  } catch (const json::exception &E) {
    Error = std::string("unreadable bench result: ") + E.what();
    return false;
  }
  return true;
}

std::vector<BenchRow> summarise(const ir::StencilIR &IR, const json &Result) {
  std::vector<BenchRow> Rows;
  double Points = Result.value("points", 0.0);
  double CopyMs = 0, OriginalMs = 0, FootprintMs = 0;
  for (const json &T : Result["timing"]) {
    if (T["variant"] == "copy")
      CopyMs = T["median_ms"].get<double>();
    if (T["variant"] == "original")
      OriginalMs = T["median_ms"].get<double>();
    if (T["variant"] == "footprint")
      FootprintMs = T["median_ms"].get<double>();
  }
  double CopyGBs =
      CopyMs > 0 ? Result.value("copy_bytes", 0.0) / (CopyMs * 1e6) : 0;
  for (const json &T : Result["timing"]) {
    BenchRow R;
    R.Variant = T["variant"].get<std::string>();
    R.MedianMs = T["median_ms"].get<double>();
    R.Verdict = T.value("verdict", "");
    if (R.Variant == "copy") {
      R.EffectiveGBs = CopyGBs;
      R.FractionOfCopy = 1.0;
    } else if (R.MedianMs > 0) {
      R.GStencils = Points / (R.MedianMs * 1e6);
      R.EffectiveGBs = Points * IR.BytesPerPoint / (R.MedianMs * 1e6);
      R.FractionOfCopy = CopyGBs > 0 ? R.EffectiveGBs / CopyGBs : 0;
      R.FractionOfFootprint = FootprintMs / R.MedianMs;
      if (R.Variant != "footprint")
        R.SpeedupVsOriginal = OriginalMs / R.MedianMs;
    }
    Rows.push_back(R);
  }
  return Rows;
}

std::string formatTable(const std::vector<BenchRow> &Rows, const json &Result) {
  std::ostringstream OS;
  const json &G = Result["gpu"];
  OS << "GPU " << G.value("name", "?") << " (sm_" << G.value("sm", "?")
     << ", driver " << G.value("driver", 0) << ", runtime "
     << G.value("runtime", 0) << "), extents " << Result["ext"].dump()
     << ", " << Result.value("points", 0LL) << " points, "
     << Result.value("reps", 0) << " reps, " << Result.value("buffer_sets", 0)
     << " buffer sets\n";
  OS << std::left << std::setw(42) << "variant" << std::right << std::setw(10)
     << "ms" << std::setw(10) << "GSt/s" << std::setw(9) << "GB/s"
     << std::setw(8) << "%copy" << std::setw(7) << "%fp" << std::setw(8)
     << "xorig" << "  verify\n";
  for (const BenchRow &R : Rows) {
    OS << std::left << std::setw(42) << R.Variant << std::right << std::fixed
       << std::setprecision(4) << std::setw(10) << R.MedianMs
       << std::setprecision(2) << std::setw(10) << R.GStencils
       << std::setprecision(0) << std::setw(9) << R.EffectiveGBs
       << std::setprecision(1) << std::setw(8) << R.FractionOfCopy * 100;
    if (R.FractionOfFootprint > 0)
      OS << std::setw(7) << R.FractionOfFootprint * 100;
    else
      OS << std::setw(7) << "-";
    OS << std::setprecision(2) << std::setw(8) << R.SpeedupVsOriginal << "  "
       << R.Verdict << "\n";
  }
  return OS.str();
}

} // namespace forge
} // namespace forgestencil
