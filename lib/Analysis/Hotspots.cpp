//===- Hotspots.cpp - Rank launch sites by their share of GPU time ---------===//

#include "forgestencil/Analysis/Hotspots.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace forgestencil {
namespace analysis {

namespace {

/// Splits one CSV line, honouring double quotes ("a,b" and "" escapes).
std::vector<std::string> splitCsvLine(StringRef Line) {
  std::vector<std::string> Cells;
  std::string Cell;
  bool Quoted = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Line.size() && Line[I + 1] == '"') {
        Cell += '"';
        ++I;
      } else if (C == '"') {
        Quoted = false;
      } else {
        Cell += C;
      }
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      Cells.push_back(Cell);
      Cell.clear();
    } else if (C != '\r') {
      Cell += C;
    }
  }
  Cells.push_back(Cell);
  return Cells;
}

} // namespace

std::string profileBaseName(StringRef Name) {
  Name = Name.trim();
  Name.consume_front("void ");
  // Cut the parameter list and the template arguments.
  size_t Paren = Name.find('(');
  if (Paren != StringRef::npos)
    Name = Name.take_front(Paren);
  size_t Angle = Name.find('<');
  if (Angle != StringRef::npos)
    Name = Name.take_front(Angle);
  return Name.trim().str();
}

Expected<KernelProfile> parseKernelProfileCsv(StringRef Text, StringRef Path) {
  SmallVector<StringRef, 64> Lines;
  Text.split(Lines, '\n', -1, false);
  int TimeCol = -1, NameCol = -1, InstCol = -1;
  KernelProfile P;
  P.Source = Path.str();
  for (StringRef Line : Lines) {
    if (Line.trim().empty())
      continue;
    std::vector<std::string> Cells = splitCsvLine(Line);
    if (TimeCol < 0) {
      // nsys may print banner lines before the header.
      for (size_t I = 0; I < Cells.size(); ++I) {
        StringRef C = StringRef(Cells[I]).trim();
        if (C == "Total Time (ns)" || C == "total_ns")
          TimeCol = static_cast<int>(I);
        else if (C == "Name" || C == "name" || C == "kernel")
          NameCol = static_cast<int>(I);
        else if (C == "Instances" || C == "instances")
          InstCol = static_cast<int>(I);
      }
      if (TimeCol >= 0 && NameCol < 0)
        return createStringError(inconvertibleErrorCode(),
                                 "%s: the header has no \"Name\" column",
                                 Path.str().c_str());
      continue;
    }
    if (static_cast<int>(Cells.size()) <= std::max(TimeCol, NameCol))
      continue;
    double Ns = 0;
    if (!to_float(StringRef(Cells[TimeCol]).trim(), Ns))
      return createStringError(inconvertibleErrorCode(),
                               "%s: \"%s\" is not a time in ns",
                               Path.str().c_str(), Cells[TimeCol].c_str());
    std::string Name = profileBaseName(Cells[NameCol]);
    P.TotalNs[Name] += Ns;
    uint64_t N = 0;
    if (InstCol >= 0 && InstCol < static_cast<int>(Cells.size()) &&
        to_integer(StringRef(Cells[InstCol]).trim(), N))
      P.Instances[Name] += N;
  }
  if (TimeCol < 0)
    return createStringError(inconvertibleErrorCode(),
                             "%s: no \"Total Time (ns)\" column; expected the "
                             "CSV of `nsys stats --report cuda_gpu_kern_sum "
                             "--format csv`",
                             Path.str().c_str());
  return P;
}

std::vector<HotspotRow> rankHotspots(const Inventory &Inv,
                                     const KernelProfile *Profile,
                                     const RankingAssumptions &A) {
  std::vector<HotspotRow> Rows;
  // Launch sites per kernel, to split a measured kernel time among them.
  std::map<std::string, unsigned> SitesPerKernel;
  for (const auto &[Pos, L] : Inv.launches())
    ++SitesPerKernel[L.Kernel];
  // A kernel that is not a stencil has no IR to say over how many axes it
  // runs: it is taken to run over as many as the app's stencils (a 2-D
  // app's reduction over the same grid), else three.
  unsigned StencilDims = 0;
  for (const auto &[Key, An] : Inv.analyses())
    if (An.IR)
      StencilDims = std::max(StencilDims, An.IR->Dims);

  for (const auto &[Pos, L] : Inv.launches()) {
    HotspotRow R;
    R.Launch = &L;
    R.Analysis = Inv.analysisFor(L);
    // A launch in an uninstantiated template stands for the instantiations
    // of its kernel that were analysed (in this TU or another).
    std::vector<std::string> Instances = Inv.instantiationsOf(L);
    if (!R.Analysis && !Instances.empty())
      R.Analysis = &Inv.analyses().at(Instances.front());
    // A launch through a pointer stands for a stencil it may launch: the
    // rewriter gives each kernel the pointer may hold a branch of its own.
    if (!R.Analysis && L.ThroughPointer)
      for (const std::string &K : L.PossibleKernels) {
        for (auto It = Inv.analyses().lower_bound(K);
             It != Inv.analyses().end() &&
             (It->first == K || StringRef(It->first).starts_with(K + "<"));
             ++It)
          if (It->second.Result == KernelAnalysis::Stencil &&
              It->second.NotRewritten.empty()) {
            R.Analysis = &It->second;
            break;
          }
        if (R.Analysis)
          break;
      }

    for (const EnclosingLoop &Loop : L.Loops) {
      if (Loop.ConstantTrips) {
        R.LaunchesPerRun *= *Loop.ConstantTrips;
      } else {
        R.LaunchesPerRun *= A.TripsPerUnknownLoop;
        R.Assumptions.push_back(
            (Loop.TripCount.empty() ? Loop.Kind + std::string(" loop")
                                    : "'" + Loop.TripCount + "'") +
            " assumed " + std::to_string(A.TripsPerUnknownLoop) + " trips");
      }
    }
    if (Profile) {
      std::string Base = L.Kernel;
      auto P = Profile->TotalNs.find(Base);
      if (P == Profile->TotalNs.end()) {
        // Profilers print unqualified names for some kernels.
        size_t Colon = Base.rfind("::");
        if (Colon != std::string::npos)
          P = Profile->TotalNs.find(Base.substr(Colon + 2));
      }
      R.Measured = true;
      R.Cost = P == Profile->TotalNs.end()
                   ? 0
                   : P->second / std::max(1u, SitesPerKernel[L.Kernel]);
      if (SitesPerKernel[L.Kernel] > 1)
        R.Assumptions.push_back("measured time split evenly over " +
                                std::to_string(SitesPerKernel[L.Kernel]) +
                                " launch sites");
    } else {
      double Bytes = 8; // Unknown kernels: one read and one write of f32.
      unsigned Dims = StencilDims ? StencilDims : 3;
      if (R.Analysis && R.Analysis->IR) {
        Bytes = R.Analysis->IR->BytesPerPoint;
        Dims = R.Analysis->IR->Dims;
      } else {
        R.Assumptions.push_back(
            "not a stencil: 8 bytes/point assumed, over " +
            std::to_string(Dims) +
            (StencilDims ? " axes like the app's stencils" : " axes"));
      }
      double Points = std::pow(static_cast<double>(A.ExtentPerAxis), Dims);
      R.Assumptions.push_back(std::to_string(A.ExtentPerAxis) + "^" +
                              std::to_string(Dims) + " points assumed");
      R.Cost = static_cast<double>(R.LaunchesPerRun) * Points * Bytes;
    }

    if (L.Kind != "chevron") {
      R.WhyNot = "launched through " + L.Kind +
                 "(): the rewriter guards only <<< >>> launches";
    } else if (L.InMacro && !L.MacroNamesKernel) {
      // The rewriter guards a launch in a macro's body where the macro
      // takes the kernel's plain name as a parameter (RewriteFacts.cpp).
      R.WhyNot = "the launch is spelled inside the macro '" + L.MacroName +
                 "', which names the kernel itself rather than taking it as "
                 "a parameter";
    } else if (L.InMacro &&
               (!L.TemplateArgs.empty() || L.Kernel.find("::") != std::string::npos)) {
      R.WhyNot = "the launch is spelled inside the macro '" + L.MacroName +
                 "' and names a template's instantiation or a qualified "
                 "kernel; only a plain kernel's name is guarded there";
    } else if (L.ThroughPointer && !R.Analysis) {
      R.WhyNot = "the kernel is called through the pointer '" + L.Kernel + "'";
      if (!L.PossibleKernels.empty()) {
        R.WhyNot += ", which may hold no stencil of those analysed:";
        for (size_t I = 0; I < L.PossibleKernels.size(); ++I)
          R.WhyNot += (I ? ", " : " ") + L.PossibleKernels[I];
      }
    } else if (L.InDependentContext) {
      R.WhyNot = "the launch is inside a template that is not instantiated";
      if (!Instances.empty()) {
        R.WhyNot += " here; its kernel's instantiations";
        for (size_t I = 0; I < Instances.size(); ++I)
          R.WhyNot += (I ? ", " : " ") + Instances[I];
        R.WhyNot += " are analysed";
      }
    } else if (!R.Analysis) {
      R.WhyNot = "the kernel was not analysed (no definition seen on the "
                 "device side)";
    } else if (R.Analysis->Result != KernelAnalysis::Stencil) {
      R.WhyNot = R.Analysis->reasonText();
    } else if (!R.Analysis->NotRewritten.empty()) {
      R.WhyNot = R.Analysis->NotRewritten;
    } else {
      R.Rewritable = true;
    }
    Rows.push_back(std::move(R));
  }
  double Total = 0;
  for (const HotspotRow &R : Rows)
    Total += R.Cost;
  for (HotspotRow &R : Rows)
    R.Share = Total > 0 ? R.Cost / Total : 0;
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const HotspotRow &X, const HotspotRow &Y) {
                     return X.Cost > Y.Cost;
                   });
  return Rows;
}

} // namespace analysis
} // namespace forgestencil
