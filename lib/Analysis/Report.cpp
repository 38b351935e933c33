//===- Report.cpp - The --list table and its JSON form ---------------------===//

#include "forgestencil/Analysis/Report.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forgestencil {
namespace analysis {

namespace {

std::string location(const SourcePos &P, StringRef Root) {
  return relativeTo(P.File, Root) + ":" + std::to_string(P.Line) + ":" +
         std::to_string(P.Column);
}

std::string stencilSummary(const HotspotRow &R) {
  if (!R.Analysis)
    return "not analysed";
  if (R.Analysis->IR && R.Analysis->Result != KernelAnalysis::NotStencil)
    return R.Analysis->IR->summary() +
           (R.Analysis->Result == KernelAnalysis::Partial ? " (partial)" : "");
  return "not a stencil";
}

/// IR JSON (nlohmann) converted to llvm::json through its text.
json::Value irValue(const ir::StencilIR &IR, StringRef Root) {
  ir::StencilIR Copy = IR;
  Copy.SourceFile = relativeTo(IR.SourceFile, Root);
  auto Parsed = json::parse(ir::toJson(Copy).dump());
  return Parsed ? std::move(*Parsed) : json::Value(nullptr);
}

} // namespace

void printListText(raw_ostream &OS, const Inventory &Inv,
                   const std::vector<HotspotRow> &Rows, StringRef Root) {
  OS << "kernels: " << Inv.kernels().size() << "\n";
  for (const auto &[Pos, K] : Inv.kernels()) {
    OS << "  kernel " << location(Pos, Root) << " " << K.Name;
    if (K.IsTemplate)
      OS << " template<" << K.TemplateParams << ">";
    OS << "\n";
  }
  OS << "launches: " << Inv.launches().size() << "\n";
  for (const auto &[Pos, L] : Inv.launches()) {
    OS << "  launch " << location(Pos, Root) << " " << L.kernelKey() << " <<<"
       << L.Grid << ", " << L.Block;
    if (!L.SharedMem.empty())
      OS << ", " << L.SharedMem;
    if (!L.Stream.empty())
      OS << ", " << L.Stream;
    OS << ">>>";
    if (L.InMacro)
      OS << " [in macro " << L.MacroName << "]";
    if (!L.EnclosingFunction.empty())
      OS << " in " << L.EnclosingFunction;
    if (!L.Loops.empty()) {
      const EnclosingLoop &Loop = L.Loops.front();
      OS << " [" << (Loop.LooksLikeTimeLoop ? "time loop" : "loop");
      if (!Loop.TripCount.empty())
        OS << " x " << Loop.TripCount;
      OS << "]";
    }
    OS << "\n";
  }
  OS << "analyses: " << Inv.analyses().size() + Inv.sameNameAnalyses().size()
     << "\n";
  auto Print = [&](const std::string &Name, const KernelAnalysis &A) {
    OS << "  " << verdictName(A.Result) << " " << location(A.Pos, Root) << " "
       << Name;
    if (A.IR && A.Result != KernelAnalysis::NotStencil)
      OS << ": " << A.IR->summary();
    if (!A.Reasons.empty())
      OS << " -- " << A.reasonText();
    if (!A.NotRewritten.empty())
      OS << " -- not rewritten: " << A.NotRewritten;
    OS << "\n";
  };
  for (const auto &[Name, A] : Inv.analyses())
    Print(Name, A);
  for (const KernelAnalysis &A : Inv.sameNameAnalyses())
    Print(A.Kernel, A);
  OS << "hotspots:\n";
  OS << formatv("  {0,-4} {1,-28} {2,-24} {3,-40} {4,9}  {5}\n", "rank",
                "kernel", "launch", "stencil", "est.share", "rewritable");
  unsigned Rank = 0;
  std::vector<std::string> Assumptions;
  for (const HotspotRow &R : Rows) {
    OS << formatv("  {0,-4} {1,-28} {2,-24} {3,-40} {4,8:F1}%  {5}\n", ++Rank,
                  R.Launch->kernelKey(), location(R.Launch->Pos, Root),
                  stencilSummary(R), R.Share * 100,
                  R.Rewritable ? std::string("yes") : "no: " + R.WhyNot);
    for (const std::string &A : R.Assumptions)
      if (std::find(Assumptions.begin(), Assumptions.end(), A) ==
          Assumptions.end())
        Assumptions.push_back(A);
  }
  if (!Rows.empty()) {
    OS << (Rows.front().Measured ? "  share from the measured profile"
                                 : "  share estimated as launches/run x points "
                                   "x compulsory bytes/point")
       << "\n";
    for (const std::string &A : Assumptions)
      OS << "  assumption: " << A << "\n";
  }
}

json::Object listJson(const Inventory &Inv, const std::vector<HotspotRow> &Rows,
                      const std::vector<driver::ParseResult> &Results,
                      StringRef Root) {
  json::Array Kernels, Launches, Hotspots, Failures;
  for (const auto &[Pos, K] : Inv.kernels())
    Kernels.push_back(toJSON(K, Root));
  for (const auto &[Pos, L] : Inv.launches())
    Launches.push_back(toJSON(L, Root));
  unsigned Rank = 0;
  for (const HotspotRow &R : Rows) {
    json::Array Assumptions;
    for (const std::string &A : R.Assumptions)
      Assumptions.push_back(A);
    json::Object Row{{"rank", ++Rank},
                     {"kernel", R.Launch->kernelKey()},
                     {"file", relativeTo(R.Launch->Pos.File, Root)},
                     {"line", R.Launch->Pos.Line},
                     {"stencil", stencilSummary(R)},
                     {"verdict", R.Analysis ? verdictName(R.Analysis->Result)
                                            : "not-analysed"},
                     {"share", R.Share},
                     {"measured", R.Measured},
                     {"launches_per_run", R.LaunchesPerRun},
                     {"rewritable", R.Rewritable},
                     {"reason", R.WhyNot},
                     {"assumptions", std::move(Assumptions)}};
    Hotspots.push_back(std::move(Row));
  }
  for (const driver::ParseResult &R : Results) {
    if (R.ok())
      continue;
    json::Array Errors;
    for (const driver::ParseDiagnostic &D : R.Errors)
      Errors.push_back(D.format());
    Failures.push_back(json::Object{{"file", relativeTo(R.File, Root)},
                                    {"side", driver::sideName(R.Side)},
                                    {"errors", R.NumErrors},
                                    {"first_errors", std::move(Errors)}});
  }
  return json::Object{{"kernels", std::move(Kernels)},
                      {"launches", std::move(Launches)},
                      {"hotspots", std::move(Hotspots)},
                      {"parse_failures", std::move(Failures)}};
}

json::Value analysesJson(const Inventory &Inv, StringRef Root) {
  json::Array Kernels;
  auto Add = [&](const std::string &Name, const KernelAnalysis &A) {
    json::Array Reasons;
    for (const std::string &R : A.Reasons)
      Reasons.push_back(R);
    json::Object K{{"kernel", Name},
                   {"file", relativeTo(A.Pos.File, Root)},
                   {"line", A.Pos.Line},
                   {"verdict", verdictName(A.Result)},
                   {"reasons", std::move(Reasons)}};
    if (!A.NotRewritten.empty())
      K["not_rewritten"] = A.NotRewritten;
    if (A.IR && A.Result != KernelAnalysis::NotStencil)
      K["ir"] = irValue(*A.IR, Root);
    Kernels.push_back(std::move(K));
  };
  for (const auto &[Name, A] : Inv.analyses())
    Add(Name, A);
  for (const KernelAnalysis &A : Inv.sameNameAnalyses())
    Add(A.Kernel, A);
  return json::Object{{"kernels", std::move(Kernels)}};
}

} // namespace analysis
} // namespace forgestencil
