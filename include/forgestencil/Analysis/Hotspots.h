//===- Hotspots.h - Rank launch sites by their share of GPU time -----------===//
///
/// \file
/// Stencils are bandwidth-bound, so a launch's cost is estimated as
/// launches per run x points per launch x compulsory bytes per point. Sizes
/// the source does not fix are assumed (and the assumptions are reported);
/// a measured per-kernel profile replaces the estimate when given.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_HOTSPOTS_H
#define FORGESTENCIL_ANALYSIS_HOTSPOTS_H

#include "forgestencil/Analysis/Inventory.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {

/// Measured GPU time per kernel name (base name, no parameters).
struct KernelProfile {
  std::map<std::string, double> TotalNs;
  std::map<std::string, uint64_t> Instances;
  std::string Source; ///< Where it came from, for the report.
};

/// Parses `nsys stats --report cuda_gpu_kern_sum --format csv` output (or
/// the same columns written by fs-harness): needs "Total Time (ns)" and
/// "Name" columns; "Instances" is optional.
llvm::Expected<KernelProfile> parseKernelProfileCsv(llvm::StringRef Text,
                                                    llvm::StringRef Path);

/// The kernel's base name from a profiler's name column:
/// "void ns::k<float>(float *, int)" -> "ns::k".
std::string profileBaseName(llvm::StringRef Name);

/// Assumptions the estimate makes where the source is silent.
struct RankingAssumptions {
  int64_t TripsPerUnknownLoop = 100;
  int64_t ExtentPerAxis = 256;
};

/// One row of the ranked table.
struct HotspotRow {
  const LaunchSite *Launch = nullptr;
  const KernelAnalysis *Analysis = nullptr; ///< Null when not analysed.
  double Cost = 0;      ///< Estimated bytes per run, or measured ns.
  double Share = 0;     ///< Fraction of the total over all rows.
  bool Measured = false;
  int64_t LaunchesPerRun = 1;
  bool Rewritable = false;
  std::string WhyNot;   ///< When not rewritable.
  std::vector<std::string> Assumptions;
};

/// Ranks every launch site, most expensive first.
std::vector<HotspotRow> rankHotspots(const Inventory &Inv,
                                     const KernelProfile *Profile,
                                     const RankingAssumptions &A = {});

} // namespace analysis
} // namespace forgestencil

#endif
