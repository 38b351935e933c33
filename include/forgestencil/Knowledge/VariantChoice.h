//===- VariantChoice.h - Which variant each kernel of an app is patched with ===//
///
/// \file
/// What fs-rewrite patches each stencil kernel with: the winner fs-tune
/// verified and measured on this app when its results are given (a kernel
/// it found nothing faster for, or did not cover, keeps the original), else
/// the best known strategy for the kernel's signature from the operator
/// matrix, which is patched only after the CPU emulation verified its
/// generated code for the kernel's IR (forge::cpuCheck) unless the check
/// is switched off. Every decision is said on the log, one line a kernel.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_KNOWLEDGE_VARIANTCHOICE_H
#define FORGESTENCIL_KNOWLEDGE_VARIANTCHOICE_H

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Forge/BundleResults.h"
#include "forgestencil/Rewrite/RewritePlanner.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace forgestencil {
namespace knowledge {

enum class CpuCheckMode {
  Auto,   ///< Check the variants no GPU verified on this app.
  Always, ///< Check fs-tune's winners too.
  Never,  ///< Patch unchecked.
};

/// "auto", "always" or "never"; nullopt for anything else.
std::optional<CpuCheckMode> parseCpuCheckMode(llvm::StringRef Text);

struct VariantChoiceOptions {
  /// fs-tune's results (--tuning-results); empty: none.
  std::string TuningResults;
  /// The operator matrix; empty: the documented default strategies.
  std::string KnowledgeFile;
  /// The architecture a best known strategy is picked for ("sm_90").
  std::string Arch = "sm_90";
  CpuCheckMode CpuCheck = CpuCheckMode::Auto;
  /// The CPU emulator, and where it was looked for when none was found.
  std::string CpuEmulator, CpuEmulatorHow;
  std::vector<std::string> CpuEmulatorTried;
  /// Keep each check's build in <dir>/<kernel>; empty: temporary.
  std::string CpuCheckDir;
  /// The kernels asked for (--kernels: a name, qualified or not, or an
  /// instantiation k<double>); empty: every kernel. Others get no variant,
  /// no CPU check and no line on the log.
  std::vector<std::string> Kernels;
};

/// The winners of fs-tune's results at \p Path by kernel, each said on
/// \p Log; an error names the file and the member.
llvm::Expected<std::map<std::string, forge::Winner>>
loadWinners(const std::string &Path, llvm::raw_ostream &Log);

/// A variant for every kernel of \p Inv analysed as a stencil that may be
/// rewritten, chosen as the file comment says; a kernel without one keeps
/// its original launch and the reason is on \p Log.
llvm::Expected<std::map<std::string, rewrite::KernelVariant>>
chooseVariants(const analysis::Inventory &Inv, const VariantChoiceOptions &Opts,
               llvm::raw_ostream &Log);

} // namespace knowledge
} // namespace forgestencil

#endif
