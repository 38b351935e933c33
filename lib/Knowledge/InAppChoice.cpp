//===- InAppChoice.cpp - Generated variants compared and timed in the app -===//

#include "forgestencil/Knowledge/InAppChoice.h"

#include "CpuChecker.h"
#include "KnowledgeMatrix.h"
#include "VerifyRecord.h"

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/OperatorMatrix.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace llvm;

namespace forgestencil {
namespace knowledge {

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "%s", Msg.str().c_str());
}

/// ns::k and ns::k<4> are k.
static std::string plainName(StringRef Name) {
  Name = Name.take_until([](char C) { return C == '<'; });
  size_t Colon = Name.rfind("::");
  return (Colon == StringRef::npos ? Name : Name.substr(Colon + 2)).str();
}

/// The candidates of the kernel (or instantiation) \p Name into \p Out.
static Error addCandidates(const std::string &Name,
                           const analysis::KernelAnalysis &A,
                           const std::string &Asked,
                           const nlohmann::json &Matrix,
                           const VariantChoiceOptions &Opts,
                           int ComputeCapability, unsigned Budget,
                           CpuChecker &Checker,
                           std::map<std::string, std::vector<rewrite::KernelVariant>> &Out,
                           raw_ostream &Log) {
  if (A.Result != analysis::KernelAnalysis::Stencil || !A.IR)
    return fail("--in-app " + Asked + ": '" + Name +
                "' was not analysed as a stencil, so there is nothing to "
                "generate (see --list for the reason)");
  if (!A.NotRewritten.empty())
    return fail("--in-app " + Asked + ": '" + Name +
                "' is not rewritten: " + A.NotRewritten);
  std::string Source;
  std::vector<forge::BundleCandidate> Made =
      forge::chooseCandidates(*A.IR, Matrix, Opts.Arch, Budget, &Source);
  std::vector<rewrite::KernelVariant> Kept;
  for (size_t I = 0; I < Made.size(); ++I) {
    if (!Made[I].Params)
      continue;
    rewrite::KernelVariant V;
    V.IR = *A.IR;
    V.Params = *Made[I].Params;
    V.ComputeCapability = ComputeCapability;
    V.Provenance = formatv("In-app candidate {0} of {1} ({2}), compared "
                           "with the original and timed in the app under "
                           "USE_OURS=verify.",
                           I + 1, Made.size(),
                           Made[I].Origin == "knowledge"
                               ? "the knowledge base's pick"
                               : "from its strategy's search space")
                       .str();
    std::string Id = V.Params.id();
    if (Checker.check(Name, V, /*GpuVerified=*/false, Id))
      Kept.push_back(std::move(V));
  }
  if (Kept.empty())
    return fail("--in-app " + Asked + ": no candidate for '" + Name +
                "' is left" +
                (Made.empty() ? " (no strategy generates one for its IR)"
                              : " after the CPU check"));
  std::vector<std::string> Ids;
  for (const rewrite::KernelVariant &V : Kept)
    Ids.push_back(V.Params.id());
  Log << "fs-rewrite: " << Name << ": " << Kept.size()
      << " in-app candidate(s): " << join(Ids, ", ") << "\n";
  Out[Name] = std::move(Kept);
  return Error::success();
}

Expected<std::map<std::string, std::vector<rewrite::KernelVariant>>>
inAppCandidates(const analysis::Inventory &Inv, const VariantChoiceOptions &Opts,
                const std::vector<std::string> &Kernels, unsigned Budget,
                raw_ostream &Log) {
  StringRef Arch = Opts.Arch;
  int ComputeCapability = 0;
  if (!Arch.consume_front("sm_") || Arch.getAsInteger(10, ComputeCapability))
    return fail("--bundle-arch must be sm_<NN>, not '" + Opts.Arch + "'");
  nlohmann::json Matrix = knowledgeMatrix(
      Opts.KnowledgeFile, Log,
      "the in-app candidates start from the documented defaults");
  CpuChecker Checker(Opts, Log);
  std::map<std::string, std::vector<rewrite::KernelVariant>> Out;
  for (const std::string &Asked : Kernels) {
    // A plain kernel by its plain or qualified name; a template by its
    // name (every instantiation analysed) or one instantiation.
    bool OneInstantiation = StringRef(Asked).contains('<');
    rewrite::KernelInstanceName Want = rewrite::KernelInstanceName::parse(Asked);
    std::vector<std::pair<const std::string *, const analysis::KernelAnalysis *>>
        Found;
    for (const auto &[Name, KA] : Inv.analyses()) {
      rewrite::KernelInstanceName Have = rewrite::KernelInstanceName::parse(Name);
      bool Same = Have.Kernel == Want.Kernel ||
                  plainName(Have.Kernel) == plainName(Want.Kernel);
      if (OneInstantiation)
        Same = Same && rewrite::sameTemplateArgs(Have.TemplateArgs,
                                                 Want.TemplateArgs);
      if (Same)
        Found.push_back({&Name, &KA});
    }
    if (Found.empty())
      return fail("--in-app " + Asked +
                  ": no kernel of that name was analysed (see --list)");
    std::set<std::string> Kernels;
    for (const auto &[Name, KA] : Found)
      Kernels.insert(rewrite::KernelInstanceName::parse(*Name).Kernel);
    if (Kernels.size() > 1)
      return fail("--in-app " + Asked + ": '" + *Kernels.begin() + "' and '" +
                  *std::next(Kernels.begin()) +
                  "' go by that name; give the qualified one");
    // Of a whole template, the instantiations the forge can take.
    if (Found.size() > 1) {
      std::vector<std::pair<const std::string *, const analysis::KernelAnalysis *>>
          Usable;
      for (const auto &F : Found) {
        if (F.second->Result == analysis::KernelAnalysis::Stencil &&
            F.second->IR && F.second->NotRewritten.empty())
          Usable.push_back(F);
        else
          Log << "fs-rewrite: " << *F.first
              << ": no in-app candidates (not a stencil the forge rewrites)\n";
      }
      if (Usable.empty())
        return fail("--in-app " + Asked + ": no instantiation of '" +
                    *Kernels.begin() +
                    "' was analysed as a stencil the forge rewrites (see "
                    "--list for the reasons)");
      Found = std::move(Usable);
    }
    for (const auto &[FoundName, A] : Found)
      if (Error E = addCandidates(*FoundName, *A, Asked, Matrix, Opts,
                                  ComputeCapability, Budget, Checker, Out, Log))
        return E;
  }
  return Out;
}

Expected<InAppMeasurement> measuredInApp(StringRef JsonText,
                                         const std::string &Kernel,
                                         double MinGain) {
  VerifyRecord R;
  if (Error E = readVerifyRecord(JsonText, R))
    return E;
  const json::Object *Verify = R.Verify, *Times = R.Times;
  InAppMeasurement M;
  M.Kernel = Kernel;
  // "K[id] launch 3: DIFFERS ...": that candidate is out, whatever else
  // it measured.
  std::set<std::string> Differed;
  if (const json::Array *D = Verify->getArray("differing"))
    for (const json::Value &Line : *D)
      if (std::optional<StringRef> L = Line.getAsString()) {
        StringRef Rest = *L;
        if (Rest.consume_front(Kernel) && Rest.consume_front("[")) {
          StringRef Id = Rest.take_until([](char C) { return C == ']'; });
          Differed.insert(Id.str());
        }
      }
  M.Differed.assign(Differed.begin(), Differed.end());
  double BestMs = 0;
  // In the order of the ids, so that ties go the same way every time.
  std::vector<std::pair<std::string, const json::Value *>> Entries;
  for (const auto &[Key, Value] : *Times)
    Entries.push_back({Key.str(), &Value});
  llvm::sort(Entries);
  for (const auto &[Key, ValuePtr] : Entries) {
    const json::Value &Value = *ValuePtr;
    StringRef K = Key;
    if (!K.consume_front(Kernel) || !K.consume_front("[") ||
        !K.consume_back("]"))
      continue;
    const json::Object *T = Value.getAsObject();
    std::optional<double> O = T ? T->getNumber("original_ms") : std::nullopt;
    std::optional<double> Ms = T ? T->getNumber("copy_ms") : std::nullopt;
    std::optional<int64_t> N = T ? T->getInteger("launches") : std::nullopt;
    if (!O || !Ms || *Ms <= 0 || *O <= 0)
      return fail("kernel_times." + Key +
                  ": no positive original_ms and copy_ms");
    if (Differed.count(K.str()))
      continue;
    M.Timed.push_back(K.str());
    // Each candidate's original time is the median over the same launches
    // it was compared at; the ratio is what counts.
    if (!M.Fastest || *O / *Ms > M.OriginalMs / BestMs) {
      M.Fastest = K.str();
      M.OriginalMs = *O;
      M.CandidateMs = BestMs = *Ms;
      M.Launches = N ? unsigned(*N) : 0;
    }
  }
  M.Faster = M.Fastest && M.OriginalMs / M.CandidateMs >= 1 + MinGain;
  return M;
}

Expected<std::map<std::string, rewrite::KernelVariant>> chooseInAppWinners(
    const std::map<std::string, std::vector<rewrite::KernelVariant>> &Candidates,
    const std::string &Path, double MinGain, raw_ostream &Log) {
  auto Text = MemoryBuffer::getFile(Path);
  if (!Text)
    return fail(Path + ": " + Text.getError().message());
  std::map<std::string, rewrite::KernelVariant> Out;
  std::vector<std::string> Untimed;
  for (const auto &[Kernel, List] : Candidates) {
    Expected<InAppMeasurement> M =
        measuredInApp((*Text)->getBuffer(), Kernel, MinGain);
    if (!M)
      return fail(Path + ": " + toString(M.takeError()));
    if (M->Timed.empty() && M->Differed.empty()) {
      // The verify run never launched it: it keeps its launches (said
      // below, unless the record has times for none of the kernels).
      Untimed.push_back(Kernel);
      continue;
    }
    if (!M->Differed.empty())
      Log << "fs-rewrite: " << Kernel << ": never patched with "
          << join(M->Differed, ", ")
          << ": differed from the original in the app (" << Path << ")\n";
    std::string Times =
        M->Fastest ? formatv("{0:F4} ms against the original's {1:F4} ms, "
                             "median of {2} launch(es); {3} candidate(s) "
                             "timed",
                             M->CandidateMs, M->OriginalMs, M->Launches,
                             M->Timed.size())
                         .str()
                   : std::string("no candidate was identical");
    if (!M->Faster) {
      Log << "fs-rewrite: " << Kernel
          << ": keeps its original launches: no in-app candidate in " << Path
          << " gains " << formatv("{0}", MinGain * 100).str() << "% ("
          << (M->Fastest ? "best " + *M->Fastest + ": " : "") << Times
          << ")\n";
      continue;
    }
    const rewrite::KernelVariant *Chosen = nullptr;
    for (const rewrite::KernelVariant &V : List)
      if (V.Params.id() == *M->Fastest)
        Chosen = &V;
    if (!Chosen)
      return fail(Path + ": kernel '" + Kernel + "': the fastest candidate, " +
                  *M->Fastest +
                  ", is not among those fs-rewrite makes for it now (the "
                  "analysis, the knowledge base or --bundle-budget changed "
                  "since the run)");
    rewrite::KernelVariant V = *Chosen;
    V.GpuVerified = true;
    double Speedup = M->OriginalMs / M->CandidateMs;
    V.Provenance = "Verified against the original kernel in the app, byte for "
                   "byte at every compared launch, and timed there "
                   "(USE_OURS=verify, " + Path + "): " + Times + ".";
    V.MeasuredSpeedup =
        formatv("{0:F2}x kernel time in the app", Speedup).str();
    Log << "fs-rewrite: " << Kernel << ": " << V.Params.id() << " from "
        << Path << " (" << formatv("{0:F2}x", Speedup).str() << ", " << Times
        << ")\n";
    Out.emplace(Kernel, std::move(V));
  }
  // A record with times for none of them is another run's.
  if (!Candidates.empty() && Untimed.size() == Candidates.size())
    return fail(Path + ": no in-app times of kernel" +
                (Untimed.size() > 1 ? "s '" : " '") + join(Untimed, "', '") +
                "' (kernel_times has none named " + Untimed.front() +
                "[<candidate id>]): was it the record of a USE_OURS=verify "
                "run of the --in-app patch?");
  for (const std::string &Kernel : Untimed)
    Log << "fs-rewrite: " << Kernel << ": keeps its original launches: "
        << Path << " has no in-app times for it (the verify run never "
           "launched it)\n";
  return Out;
}

} // namespace knowledge
} // namespace forgestencil
