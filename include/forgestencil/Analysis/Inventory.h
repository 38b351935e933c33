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

#include "forgestencil/Driver/FrontendRunner.h"

#include "clang/AST/ASTConsumer.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace forgestencil {
namespace analysis {

/// A position in a source file, with the file as a canonical absolute path.
struct SourcePos {
  std::string File;
  unsigned Line = 0, Column = 0;
  unsigned Offset = 0;
  bool operator<(const SourcePos &O) const {
    return std::tie(File, Offset) < std::tie(O.File, O.Offset);
  }
};

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

/// A kernel<<<grid, block, shmem, stream>>>(args) expression.
struct LaunchSite {
  SourcePos Pos;                ///< Start of the launch expression.
  std::string Kernel;           ///< Qualified name of the launched kernel.
  std::string TemplateArgs;     ///< "float, 4" when a template is launched.
  std::string Grid, Block, SharedMem, Stream; ///< As written; "" if absent.
  std::vector<std::string> Args; ///< As written.
  std::string EnclosingFunction;
  bool InMacro = false;          ///< The launch is spelled in a macro body.
  std::string MacroName;         ///< The macro it is expanded from.
  bool InDependentContext = false; ///< Inside an uninstantiated template.
  std::string TranslationUnit;
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

  void addKernel(KernelInfo K, driver::CudaSide Side);
  void addLaunch(LaunchSite L);

private:
  std::map<SourcePos, KernelInfo> Kernels;
  std::map<SourcePos, LaunchSite> Launches;
};

/// "a/b.cu" relative to Root when the file is under it, else the path.
std::string relativeTo(llvm::StringRef Path, llvm::StringRef Root);

llvm::json::Object toJSON(const KernelInfo &K, llvm::StringRef Root);
llvm::json::Object toJSON(const LaunchSite &L, llvm::StringRef Root);

} // namespace analysis
} // namespace forgestencil

#endif
