//===- InAppChoice.h - Generated variants compared and timed in the app -*- C++ -*-===//
///
/// \file
/// fs-rewrite --in-app K: a kernel's generated candidates (the list a tuning
/// bundle would time, forge::chooseCandidates) go into the patch as in-app
/// candidates. A USE_OURS=verify run of the patched app compares each with
/// the original byte for byte on the app's own state at sampled launches
/// and times both there; outside that mode the launcher runs the original.
/// This gives a verdict to kernels no tuning driver can run outside the app
/// (a struct parameter, an int that is no axis extent), at the sizes the
/// app really runs, with the app's real data. fs-harness records the times
/// under `in_app_verification.kernel_times` as "K[<candidate id>]" and the
/// launches that differed under `in_app_verification.differing`.
///
/// With --in-app-times R, the patch instead takes, per kernel, the fastest
/// candidate R measured that never differed, if it beats the original by
/// the minimum gain; otherwise the kernel keeps its original launches.
/// docs/in-app-candidates.md has the whole procedure.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_KNOWLEDGE_INAPPCHOICE_H
#define FORGESTENCIL_KNOWLEDGE_INAPPCHOICE_H

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Knowledge/VariantChoice.h"
#include "forgestencil/Rewrite/RewritePlanner.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace knowledge {

/// The in-app candidates of each of \p Kernels (by plain or qualified name;
/// a template stands for each instantiation analysed as a stencil the forge
/// rewrites, "k<double, 1>" for one), by the analysis' name: up to \p Budget generated
/// variants for the compute capability of Opts.Arch, those the CPU check
/// refuses (as Opts.CpuCheck asks) left out and said on \p Log. Fails,
/// naming the kernel, when one is not a stencil the forge may rewrite (for
/// a template: none of its instantiations is) or has no candidate left.
llvm::Expected<std::map<std::string, std::vector<rewrite::KernelVariant>>>
inAppCandidates(const analysis::Inventory &Inv, const VariantChoiceOptions &Opts,
                const std::vector<std::string> &Kernels, unsigned Budget,
                llvm::raw_ostream &Log);

/// What a verify run measured of one kernel's in-app candidates.
struct InAppMeasurement {
  std::string Kernel;
  /// The fastest candidate that never differed, and its times (medians
  /// over the compared launches, ms); none when none was timed.
  std::optional<std::string> Fastest;
  double OriginalMs = 0, CandidateMs = 0;
  unsigned Launches = 0;
  /// Candidates timed without a difference; candidates that differed at
  /// some launch (never chosen).
  std::vector<std::string> Timed, Differed;
  /// Whether Fastest beats the original by the minimum gain.
  bool Faster = false;
};

/// The measurement of \p Kernel (the analysis' name, as the verify lines
/// label it) in the run record \p JsonText (an fs-harness `--json` record
/// or registry entry). Fails when the text is no such record.
llvm::Expected<InAppMeasurement>
measuredInApp(llvm::StringRef JsonText, const std::string &Kernel,
              double MinGain);

/// --in-app-times: for each kernel of \p Candidates, the candidate \p Path's
/// record measured fastest, as the variant to patch (its provenance and
/// speed-up say where it comes from); a kernel none is fast enough for is
/// left out and said on \p Log, and so is one the record has no times for
/// (the verify run never launched it). Fails when the record cannot be read
/// or has times for none of the kernels (the record of another run).
llvm::Expected<std::map<std::string, rewrite::KernelVariant>>
chooseInAppWinners(
    const std::map<std::string, std::vector<rewrite::KernelVariant>> &Candidates,
    const std::string &Path, double MinGain, llvm::raw_ostream &Log);

} // namespace knowledge
} // namespace forgestencil

#endif
