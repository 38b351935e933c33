//===- ParseStatus.cpp - Each translation unit's parse, summed up ----------===//

#include "forgestencil/Driver/ParseStatus.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace llvm;

namespace forgestencil {
namespace driver {

namespace {

ParseStatus worse(ParseStatus A, ParseStatus B) {
  return static_cast<int>(A) > static_cast<int>(B) ? A : B;
}

template <typename T, typename Same>
void addOnce(std::vector<T> &To, const T &Item, Same IsSame) {
  if (std::none_of(To.begin(), To.end(),
                   [&](const T &Old) { return IsSame(Old, Item); }))
    To.push_back(Item);
}

/// "a, b and 3 more".
std::string listSome(const std::vector<std::string> &Items, size_t Shown = 6) {
  std::vector<std::string> Head(Items.begin(),
                                Items.begin() + std::min(Shown, Items.size()));
  std::string S = join(Head, ", ");
  if (Items.size() > Shown)
    S += " and " + std::to_string(Items.size() - Shown) + " more";
  return S;
}

} // namespace

std::vector<UnitStatus> summarizeUnits(const std::vector<ParseResult> &Results) {
  std::vector<UnitStatus> Units;
  for (const ParseResult &R : Results) {
    if (Units.empty() || Units.back().File != R.File) {
      Units.emplace_back();
      Units.back().File = R.File;
    }
    UnitStatus &U = Units.back();
    ParseStatus S = R.status();
    (R.Side == CudaSide::Host ? U.Host : U.Device) = S;
    U.Overall = worse(U.Overall, S);
    for (const StandIn &SI : R.StandIns)
      addOnce(U.StandIns, SI, [](const StandIn &A, const StandIn &B) {
        return A.Name == B.Name && A.Angled == B.Angled;
      });
    for (const std::string &P : R.PreludeUses)
      addOnce(U.PreludeUses, P, std::equal_to<std::string>());
    for (const ParseBlocker &B : R.Blockers)
      addOnce(U.Blockers, B, [](const ParseBlocker &X, const ParseBlocker &Y) {
        return X.what() == Y.what();
      });
    U.NumErrors += R.NumErrors;
    // The error that decides a failure wins over an earlier tolerated one.
    bool DecidesFailure = R.failed() && !U.Decided;
    if (DecidesFailure || !U.FirstError) {
      if (!R.Blockers.empty())
        U.FirstError = R.Blockers.front().Error;
      else if (!R.Errors.empty())
        U.FirstError = R.Errors.front();
      U.Decided = R.failed();
    }
  }
  return Units;
}

bool anyFailed(const std::vector<UnitStatus> &Units) {
  return std::any_of(Units.begin(), Units.end(), [](const UnitStatus &U) {
    return U.Overall == ParseStatus::Failed;
  });
}

void reportParses(raw_ostream &OS, const std::vector<ParseResult> &Results,
                  bool Verbose, StringRef Tool) {
  for (const ParseResult &R : Results) {
    std::string Where = R.File + " (" + sideName(R.Side) + " side)";
    if (R.failed()) {
      WithColor::error(OS, Tool)
          << "failed to parse " << Where << ": " << R.NumErrors
          << " error(s); first:\n";
      for (const ParseDiagnostic &D : R.Errors)
        OS << "  " << D.format() << "\n";
      for (const ParseBlocker &B : R.Blockers)
        OS << "  not analysed: " << B.what() << " (" << B.Error.format()
           << ")\n";
      continue;
    }
    if (R.NumErrors > 0) {
      WithColor::warning(OS, Tool)
          << Where << ": " << R.NumErrors
          << " error(s) outside every kernel and launch; its kernels and "
             "launches are still analysed; first:\n";
      for (const ParseDiagnostic &D : R.Errors)
        OS << "  " << D.format() << "\n";
    }
  }
  for (const UnitStatus &U : summarizeUnits(Results)) {
    for (const StandIn &SI : U.StandIns) {
      WithColor::warning(OS, Tool)
          << U.File << ": no file for #include " << SI.spelled() << " ("
          << SI.IncludedFrom << ":" << SI.Line
          << "); parsed with an empty stand-in; ";
      if (SI.KernelsAfter.empty())
        OS << "no kernel is defined after it\n";
      else
        OS << "kernels defined after it, which may need what it declares: "
           << listSome(SI.KernelsAfter) << "\n";
    }
    if (Verbose && !U.PreludeUses.empty())
      OS << Tool << ": note: " << U.File
         << ": removed CUDA APIs declared by the analysis prelude: "
         << join(U.PreludeUses, ", ") << "\n";
  }
}

} // namespace driver
} // namespace forgestencil
