//===- StencilAnalysis.h - From a kernel's AST to Stencil IR ---------------===//
///
/// \file
/// Interprets a __global__ kernel's body symbolically: thread positions,
/// loop variables and parameters become polynomial index expressions, global
/// loads and stores become reads and writes at affine offsets, guards become
/// the iteration domain and the stored values become the update expression.
/// A kernel that is not a stencil gets a reason; one that is only partly
/// understood says which part, and is never approximated silently.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_STENCILANALYSIS_H
#define FORGESTENCIL_ANALYSIS_STENCILANALYSIS_H

#include "forgestencil/Analysis/Reason.h"
#include "forgestencil/Analysis/SourcePos.h"
#include "forgestencil/IR/StencilIR.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forgestencil {
namespace analysis {

/// In-kernel temporal blocking (a recogniser's finding): several time
/// steps inside one kernel.
struct TemporalBlocking {
  enum Kind {
    FusedSteps, ///< The stored value is TimeSteps applications of an update.
    TimeLoop,   ///< A loop with a grid-wide barrier runs the time steps.
  } Form = FusedSteps;
  unsigned TimeSteps = 0; ///< For FusedSteps.
  /// The points one step reads relative to the point it computes, x the
  /// unit-stride axis (FusedSteps, where the code says where every value
  /// comes from; lib/Analysis/FusedSteps.h says how it is derived).
  struct StepFootprint {
    unsigned Dims = 0;
    std::vector<std::array<int64_t, 3>> Offsets; ///< Sorted.
    int64_t Radius = 0;
    std::string Shape; ///< "star", "box" or "other".
  };
  std::optional<StepFootprint> PerStep;
  std::string NoStepWhy; ///< For FusedSteps without PerStep: why.
};

/// What the analysis concluded about one kernel.
struct KernelAnalysis {
  enum Verdict { Stencil, Partial, NotStencil };
  std::string Kernel;          ///< Name, with template arguments if any.
  SourcePos Pos;
  Verdict Result = NotStencil;
  /// For NotStencil: why not. For Partial: what was not understood.
  std::vector<Reason> Reasons;
  std::optional<ir::StencilIR> IR; ///< Set for Stencil (and Partial when the
                                   ///< understood part is still useful).
  /// Why no launch of this kernel may be rewritten although it is a
  /// stencil (another kernel of the same name, say); empty when it may.
  std::string NotRewritten;
  /// Set when the kernel runs several time steps itself.
  std::optional<TemporalBlocking> Temporal;
  /// The reasons' sentences, joined by "; ".
  std::string reasonText() const;
};

const char *verdictName(KernelAnalysis::Verdict V);

class PreprocessorFacts;

/// The block every launch of a kernel uses, where the launches say so
/// with constants (`<<<g, 256>>>`, `dim3 block(32, 8)`, `dim3(BX, BY)`).
struct LaunchBlock {
  std::array<int64_t, 3> Dims = {1, 1, 1};
  std::string Where; ///< "2 launches in a.cu", for the assumption.
};

/// Analyses one kernel definition (an instantiation for templates). PP, when
/// given, holds the conditional directives of the parse: those inside the
/// kernel become assumptions of its IR.
/// \p Launch, when given, is the block the kernel's launches use: a kernel
/// that needs its block size (a tile over the block) and does not fix it
/// itself is analysed for that block, an assumption of the IR that the
/// launcher checks (a launch with another block runs the original).
KernelAnalysis analyzeKernel(const clang::FunctionDecl &Kernel,
                             clang::ASTContext &Ctx,
                             const PreprocessorFacts *PP = nullptr,
                             const LaunchBlock *Launch = nullptr);

} // namespace analysis
} // namespace forgestencil

#endif
