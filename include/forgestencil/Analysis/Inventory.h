//===- Inventory.h - The kernels and launch sites of an app ----------------===//
///
/// \file
/// Collects every __global__ kernel and every <<<>>> launch seen in any parse
/// (host or device side, any TU), de-duplicated by source location, so that a
/// header included by several TUs contributes each kernel once.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_INVENTORY_H
#define FORGESTENCIL_ANALYSIS_INVENTORY_H

#include "forgestencil/Analysis/SourcePos.h"
#include "forgestencil/Analysis/StencilAnalysis.h"
#include "forgestencil/Driver/FrontendRunner.h"

#include "clang/AST/ASTConsumer.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace clang {
class LangOptions;
class TemplateArgumentList;
} // namespace clang

namespace forgestencil {
namespace analysis {

/// The arguments of a template instantiation as the analysis names it
/// ("float, 4" in "k<float, 4>"); fs-rewrite matches launches to
/// instantiations by this text, so both sides must print it alike.
std::string templateArgumentsText(const clang::TemplateArgumentList &TA,
                                  const clang::LangOptions &LO);

/// A __global__ function definition.
struct KernelInfo {
  std::string Name;          ///< Qualified name, e.g. "ns::update".
  SourcePos Pos;             ///< Where the kernel's name is.
  bool IsTemplate = false;
  std::string TemplateParams; ///< "typename T, int R" for templates.
  std::vector<std::string> Params; ///< "const float *__restrict__ in", ...
  bool SeenOnHost = false, SeenOnDevice = false;
  /// The TU through which it was parsed first.
  std::string TranslationUnit;
};

/// A host loop around a launch, innermost first.
struct EnclosingLoop {
  SourcePos Pos;
  std::string Kind;        ///< "for", "while" or "do".
  std::string TripCount;   ///< The bound as written ("nsteps"), if visible.
  std::optional<int64_t> ConstantTrips; ///< When the bound is a constant.
  /// The loop swaps pointers (std::swap or t = a; a = b; b = t) or launches
  /// the same kernels every iteration: it looks like a time loop.
  bool LooksLikeTimeLoop = false;
};

/// A kernel<<<grid, block, shmem, stream>>>(args) expression, or a call of
/// the runtime's launch API (cudaLaunchKernel and friends).
struct LaunchSite {
  SourcePos Pos;                ///< Start of the launch expression.
  /// "chevron" for <<< >>>, else the API called: "cudaLaunchKernel",
  /// "cudaLaunchCooperativeKernel" or "cudaLaunchKernelEx".
  std::string Kind = "chevron";
  std::string Kernel;           ///< Qualified name of the launched kernel.
  /// Where the launched kernel's name is in its definition (the template's
  /// for an instantiation); empty when no definition is visible.
  SourcePos KernelPos;
  std::string TemplateArgs;     ///< "float, 4" when a template is launched.
  std::string Grid, Block, SharedMem, Stream; ///< As written; "" if absent.
  std::vector<std::string> Args; ///< As written.
  std::string EnclosingFunction;
  bool InMacro = false;          ///< The launch is spelled in a macro body.
  std::string MacroName;         ///< The macro it is expanded from.
  /// The macro takes the kernel's name as a parameter and spells the launch
  /// `k<<<...>>>(...)` in its body (TeaLeaf's CUDALAUNCH(k, ...), a
  /// hipLaunchKernelGGL macro): the rewriter guards such a launch in the
  /// body itself.
  bool MacroNamesKernel = false;
  bool InDependentContext = false; ///< Inside an uninstantiated template.
  /// The kernel is called through a pointer (Kernel is its spelling).
  bool ThroughPointer = false;
  /// For a launch through a pointer: the kernels whose address the
  /// enclosing function takes, which it may launch.
  std::vector<std::string> PossibleKernels;
  std::string TranslationUnit;
  std::vector<EnclosingLoop> Loops; ///< Innermost first.
  /// Further kernels launched here by other instantiations of the
  /// enclosing host template ("k<double>").
  std::vector<std::string> OtherInstantiations;
  /// The kernel's name with template arguments, as analyses are keyed.
  std::string kernelKey() const {
    return TemplateArgs.empty() ? Kernel : Kernel + "<" + TemplateArgs + ">";
  }
};

/// Everything found, merged over all parses.
class Inventory {
public:
  /// Makes the consumer that records one parse into this inventory.
  std::unique_ptr<clang::ASTConsumer>
  makeConsumer(clang::CompilerInstance &CI, const driver::TranslationUnit &TU,
               driver::CudaSide Side);

  const std::map<SourcePos, KernelInfo> &kernels() const { return Kernels; }
  const std::map<SourcePos, LaunchSite> &launches() const { return Launches; }

  /// Stencil analyses by kernelKey() ("k" or "k<float, 4>").
  const std::map<std::string, KernelAnalysis> &analyses() const {
    return Analyses;
  }
  /// Analyses of further kernels that share a name with one in analyses()
  /// but are defined elsewhere (benchmarks that each define kernel0_1):
  /// listed, never rewritten.
  const std::vector<KernelAnalysis> &sameNameAnalyses() const {
    return SameName;
  }
  /// The analysis of the kernel L launches: by its key, and where several
  /// kernels share the name, the one defined where L's kernel is.
  const KernelAnalysis *analysisFor(const LaunchSite &L) const;

  /// For a launch inside an uninstantiated template: the instantiations of
  /// its kernel template that were analysed anywhere ("k<float, 4>").
  std::vector<std::string> instantiationsOf(const LaunchSite &L) const;

  void addKernel(KernelInfo K, driver::CudaSide Side);
  void addLaunch(LaunchSite L);
  void addAnalysis(KernelAnalysis A);

private:
  std::map<SourcePos, KernelInfo> Kernels;
  std::map<SourcePos, LaunchSite> Launches;
  std::map<std::string, KernelAnalysis> Analyses;
  std::vector<KernelAnalysis> SameName;
};

/// The real path of Path (symbolic links resolved), or Path without "."
/// and ".." when it does not exist: how every part names a source file.
std::string canonicalPath(llvm::StringRef Path);

/// "a/b.cu" relative to Root when the file is under it, else the path.
std::string relativeTo(llvm::StringRef Path, llvm::StringRef Root);

llvm::json::Object toJSON(const KernelInfo &K, llvm::StringRef Root);
llvm::json::Object toJSON(const LaunchSite &L, llvm::StringRef Root);

} // namespace analysis
} // namespace forgestencil

#endif
