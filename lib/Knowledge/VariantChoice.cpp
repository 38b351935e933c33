//===- VariantChoice.cpp - Which variant each kernel is patched with ------===//

#include "forgestencil/Knowledge/VariantChoice.h"

#include "CpuChecker.h"
#include "KnowledgeMatrix.h"

#include "forgestencil/Forge/CpuCheck.h"
#include "forgestencil/Forge/OperatorMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace forgestencil {
namespace knowledge {

std::optional<CpuCheckMode> parseCpuCheckMode(StringRef Text) {
  if (Text == "auto")
    return CpuCheckMode::Auto;
  if (Text == "always")
    return CpuCheckMode::Always;
  if (Text == "never")
    return CpuCheckMode::Never;
  return std::nullopt;
}

/// The winners of \p R by kernel, each said on \p Log.
static std::map<std::string, forge::Winner>
winnersOf(const forge::TuneResults &R, raw_ostream &Log) {
  auto Winners = forge::chooseWinners(R);
  for (const auto &[Kernel, W] : Winners)
    Log << "fs-rewrite: " << W.Summary << "\n";
  return Winners;
}

Expected<std::map<std::string, forge::Winner>>
loadWinners(const std::string &Path, raw_ostream &Log) {
  std::string Error;
  auto R = forge::loadTuneResults(Path, Error);
  if (!R)
    return createStringError(inconvertibleErrorCode(), Error);
  return winnersOf(*R, Log);
}

namespace {

/// The name without template arguments and namespaces: ns::k<double> is k.
std::string baseName(const std::string &Name) {
  std::string S = Name.substr(0, Name.find('<'));
  size_t Colon = S.rfind("::");
  return Colon == std::string::npos ? S : S.substr(Colon + 2);
}

/// Whether the analysed kernel \p Name may be one of \p Asked: the same
/// spelling, or the same base name (the rewriter decides which launches
/// and instantiations a request selects; this only leaves out the rest).
bool asked(const std::string &Name, const std::vector<std::string> &Asked) {
  if (Asked.empty())
    return true;
  return std::any_of(Asked.begin(), Asked.end(), [&](const std::string &A) {
    return A == Name || baseName(A) == baseName(Name);
  });
}

} // namespace

Expected<std::map<std::string, rewrite::KernelVariant>>
chooseVariants(const analysis::Inventory &Inv, const VariantChoiceOptions &Opts,
               raw_ostream &Log) {
  std::map<std::string, rewrite::KernelVariant> Variants;
  std::map<std::string, forge::Winner> Winners;
  std::optional<forge::TuneResults> Tuned;
  if (!Opts.TuningResults.empty()) {
    // Read once: the winners and the run's GPU and date come from it.
    std::string Error;
    Tuned = forge::loadTuneResults(Opts.TuningResults, Error);
    if (!Tuned)
      return createStringError(inconvertibleErrorCode(), Error);
    Winners = winnersOf(*Tuned, Log);
  }
  nlohmann::json Matrix = knowledgeMatrix(
      Opts.KnowledgeFile, Log, "using the documented default strategies");
  CpuChecker Checker(Opts, Log);
  for (const auto &[Name, A] : Inv.analyses()) {
    if (A.Result != analysis::KernelAnalysis::Stencil || !A.IR ||
        !asked(Name, Opts.Kernels))
      continue;
    if (!A.NotRewritten.empty()) {
      Log << "fs-rewrite: " << Name << ": keeps the original ("
          << A.NotRewritten << ")\n";
      continue;
    }
    rewrite::KernelVariant V;
    V.IR = *A.IR;
    V.ComputeCapability = 90;
    if (auto W = Winners.find(Name); W != Winners.end()) {
      if (W->second.fallback() || !W->second.Params) {
        Log << "fs-rewrite: " << Name << ": keeps the original ("
            << W->second.Summary << ")\n";
        continue;
      }
      V.Params = *W->second.Params;
      V.GpuVerified = true;
      std::string Where = Tuned ? Tuned->GpuName + ", " + Tuned->Date : "";
      V.Provenance = "Verified against this app's own kernel and measured by "
                     "fs-tune (" + Where + "): " + W->second.Summary;
      V.MeasuredSpeedup = formatv("{0:F2}x kernel time ({1})",
                                  W->second.Speedup, Where)
                              .str();
      Log << "fs-rewrite: " << Name << ": " << V.Params.id()
          << " (fs-tune winner)\n";
      if (Checker.check(Name, V, /*GpuVerified=*/true))
        Variants.emplace(Name, std::move(V));
      continue;
    }
    if (Tuned) {
      // Measurements were given: a kernel they do not cover was not
      // verified on this app, and keeps its original launch.
      Log << "fs-rewrite: " << Name
          << ": keeps the original (no verified candidate in "
          << Opts.TuningResults << ")\n";
      continue;
    }
    std::string Source;
    // App sizes are unknown here; the tuned entries are for arrays larger
    // than the L2, which is what time-stepped stencil apps run.
    V.Params = forge::pickStrategy(Matrix, V.IR, Opts.Arch, "large", &Source);
    V.Provenance =
        Source == "default"
            ? "No measurement for this stencil signature is known: this is "
              "the documented default strategy, not yet verified on this app."
            : "Chosen from the " + Source +
                  " of measurements on an NVIDIA H200 (see "
                  "knowledge/operator-matrix.json); not yet verified against "
                  "this app's kernel on a GPU.";
    Log << "fs-rewrite: " << Name << ": " << V.Params.id() << " ("
        << (Source == "default" ? "documented default" : Source) << ")\n";
    if (Checker.check(Name, V, /*GpuVerified=*/false))
      Variants.emplace(Name, std::move(V));
  }
  return Variants;
}

} // namespace knowledge
} // namespace forgestencil
