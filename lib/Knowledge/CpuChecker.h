//===- CpuChecker.h - The CPU check of a variant under the options --------===//
///
/// \file
/// Internal to lib/Knowledge: the CPU emulation check (forge::cpuCheck) of
/// one variant as --cpu-check asks, its verdict said on the log.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_KNOWLEDGE_CPUCHECKER_H
#define FORGESTENCIL_LIB_KNOWLEDGE_CPUCHECKER_H

#include "forgestencil/Forge/CpuCheck.h"
#include "forgestencil/Knowledge/VariantChoice.h"

#include "llvm/Support/FormatVariadic.h"

namespace forgestencil {
namespace knowledge {

/// The CPU check of one variant under the options; false when its kernel
/// keeps the original launch (said on the log).
class CpuChecker {
public:
  CpuChecker(const VariantChoiceOptions &Opts, llvm::raw_ostream &Log)
      : Opts(Opts), Log(Log) {}

  /// \p Tag tells one of several variants of a kernel apart in the check's
  /// work directory (an in-app candidate's id).
  bool check(llvm::StringRef Name, rewrite::KernelVariant &V, bool GpuVerified,
             llvm::StringRef Tag = "") {
    if (Opts.CpuCheck == CpuCheckMode::Never ||
        (GpuVerified && Opts.CpuCheck != CpuCheckMode::Always))
      return true;
    if (!Announced && !Opts.CpuEmulator.empty())
      Log << "fs-rewrite: CPU check: " << Opts.CpuEmulator << " ("
          << Opts.CpuEmulatorHow << ")\n";
    Announced = true;
    forge::CpuCheckOptions C;
    C.Emulator = Opts.CpuEmulator;
    if (!Opts.CpuCheckDir.empty())
      C.WorkDir = Opts.CpuCheckDir + "/" + Name.str() +
                  (Tag.empty() ? "" : "/" + Tag.str());
    forge::CpuCheckVerdict R = forge::cpuCheck(V.IR, V.Params, C);
    if (R.Result == forge::CpuCheckVerdict::Passed) {
      Log << llvm::formatv("fs-rewrite: {0}: {1} passed the CPU check ({2:F0} s{3})\n",
                     Name, V.Params.id(), R.Seconds,
                     R.Reason.empty() ? "" : "; " + R.Reason);
      V.Provenance += " Its generated code passed the CPU emulation check "
                      "(fs-rewrite --cpu-check: the original the IR describes "
                      "and this variant on bounds-checked arrays, whole "
                      "domains at odd sizes" +
                      (R.Reason.empty() ? std::string(", bit-identical")
                                        : "; " + R.Reason) +
                      ").";
      return true;
    }
    std::string Why = R.Reason;
    if (R.Result == forge::CpuCheckVerdict::NotRun && Opts.CpuEmulator.empty()) {
      Why = "no CPU emulator found (looked at";
      for (const std::string &T : Opts.CpuEmulatorTried)
        Why += " " + T;
      Why += ")";
    }
    Log << "fs-rewrite: " << Name << ": keeps the original (" << V.Params.id()
        << (R.Result == forge::CpuCheckVerdict::Failed
                ? " failed the CPU check: "
                : " could not be checked on the CPU: ")
        << Why << "; --cpu-check never patches it unchecked)\n";
    return false;
  }

private:
  const VariantChoiceOptions &Opts;
  llvm::raw_ostream &Log;
  bool Announced = false;
};

} // namespace knowledge
} // namespace forgestencil

#endif
