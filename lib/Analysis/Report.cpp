//===- Report.cpp - The --list table and its JSON form ---------------------===//

#include "forgestencil/Analysis/Report.h"

#include "forgestencil/Driver/ParseStatus.h"

#include "llvm/ADT/StringExtras.h"
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

/// "file:line:col: message", the file as other paths are printed.
std::string errorText(const driver::ParseDiagnostic &D, StringRef Root) {
  std::string S = relativeTo(canonicalPath(D.File), Root);
  if (D.Line)
    S += ":" + std::to_string(D.Line) + ":" + std::to_string(D.Column);
  return S + ": " + D.Message;
}

} // namespace

void printTranslationUnits(raw_ostream &OS,
                           const std::vector<driver::ParseResult> &Results,
                           StringRef Root) {
  std::vector<driver::UnitStatus> Units = driver::summarizeUnits(Results);
  OS << "translation units: " << Units.size() << "\n";
  for (const driver::UnitStatus &U : Units) {
    OS << "  tu " << relativeTo(U.File, Root) << ": "
       << driver::statusName(U.Overall);
    if (!U.StandIns.empty()) {
      OS << " (";
      for (size_t I = 0; I < U.StandIns.size(); ++I)
        OS << (I ? ", " : "") << U.StandIns[I].spelled();
      OS << ")";
    }
    if (U.Host != U.Device)
      OS << " [host: " << driver::statusName(U.Host)
         << ", device: " << driver::statusName(U.Device) << "]";
    if (U.Overall == driver::ParseStatus::Failed) {
      if (!U.Blockers.empty())
        OS << " -- not analysed: "
           << U.Blockers.front().what([&](StringRef F) {
                return relativeTo(canonicalPath(F), Root);
              })
           << (U.Blockers.size() > 1
                   ? " and " + std::to_string(U.Blockers.size() - 1) + " more"
                   : "");
      if (U.FirstError)
        OS << " -- " << errorText(*U.FirstError, Root);
    } else if (U.FirstError) {
      OS << " -- " << U.NumErrors
         << " error(s) outside every kernel and launch, tolerated; first: "
         << errorText(*U.FirstError, Root);
    }
    OS << "\n";
  }
}

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
    bool Chevron = L.Kind == "chevron";
    OS << "  launch " << location(Pos, Root) << " " << L.kernelKey()
       << (Chevron ? " <<<" : " via " + L.Kind + "(") << L.Grid;
    if (!L.Block.empty() || Chevron)
      OS << ", " << L.Block;
    if (!L.SharedMem.empty())
      OS << ", " << L.SharedMem;
    if (!L.Stream.empty())
      OS << ", " << L.Stream;
    OS << (Chevron ? ">>>" : ")");
    if (L.ThroughPointer)
      OS << " [through a pointer"
         << (L.PossibleKernels.empty()
                 ? std::string()
                 : ": " + join(L.PossibleKernels, ", "))
         << "]";
    std::vector<std::string> Instances = Inv.instantiationsOf(L);
    if (!Instances.empty())
      OS << " [instantiations: " << join(Instances, ", ") << "]";
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
  for (const auto &[Pos, L] : Inv.launches()) {
    json::Object O = toJSON(L, Root);
    json::Array Instances;
    for (const std::string &K : Inv.instantiationsOf(L))
      Instances.push_back(K);
    O["instantiations"] = std::move(Instances);
    Launches.push_back(std::move(O));
  }
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
  json::Array Units;
  for (const driver::UnitStatus &U : driver::summarizeUnits(Results)) {
    json::Array StandIns;
    for (const driver::StandIn &SI : U.StandIns)
      StandIns.push_back(SI.Name);
    Units.push_back(json::Object{
        {"file", relativeTo(U.File, Root)},
        {"side_status",
         json::Object{{"host", driver::statusName(U.Host)},
                      {"device", driver::statusName(U.Device)}}},
        {"status", driver::statusName(U.Overall)},
        {"stand_ins", std::move(StandIns)},
        {"first_error", U.FirstError ? errorText(*U.FirstError, Root) : ""}});
  }
  return json::Object{{"kernels", std::move(Kernels)},
                      {"launches", std::move(Launches)},
                      {"hotspots", std::move(Hotspots)},
                      {"parse_failures", std::move(Failures)},
                      {"translation_units", std::move(Units)}};
}

json::Value analysesJson(const Inventory &Inv, StringRef Root) {
  json::Array Kernels;
  auto Add = [&](const std::string &Name, const KernelAnalysis &A) {
    json::Array Reasons;
    for (const Reason &R : A.Reasons)
      Reasons.push_back(
          json::Object{{"kind", reasonKindName(R.Kind)}, {"text", R.Text}});
    json::Object K{{"kernel", Name},
                   {"file", relativeTo(A.Pos.File, Root)},
                   {"line", A.Pos.Line},
                   {"verdict", verdictName(A.Result)},
                   {"reasons", std::move(Reasons)}};
    if (!A.NotRewritten.empty())
      K["not_rewritten"] = A.NotRewritten;
    if (A.Temporal) {
      json::Object T{{"form", A.Temporal->Form == TemporalBlocking::FusedSteps
                                  ? "fused-steps"
                                  : "time-loop"}};
      if (A.Temporal->TimeSteps)
        T["time_steps"] = A.Temporal->TimeSteps;
      if (const auto &P = A.Temporal->PerStep) {
        json::Array Offsets;
        for (const auto &O : P->Offsets)
          Offsets.push_back(json::Array{O[0], O[1], O[2]});
        T["step"] = json::Object{{"dims", P->Dims},
                                 {"radius", P->Radius},
                                 {"points", static_cast<int64_t>(P->Offsets.size())},
                                 {"shape", P->Shape},
                                 {"offsets", std::move(Offsets)}};
      } else if (!A.Temporal->NoStepWhy.empty()) {
        T["step_unknown"] = A.Temporal->NoStepWhy;
      }
      K["temporal_blocking"] = std::move(T);
    }
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
