//===- ProfileParsers.h - Read ptxas resource lines and ncu CSV ----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The performance-analysis agent is told what the compiler and the profiler
/// saw: registers, spills and shared memory from `nvcc -Xptxas -v`, and
/// metric rows from `ncu --csv`. These parsers turn that text into values.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_PROFILEPARSERS_H
#define FORGESTENCIL_AGENTS_PROFILEPARSERS_H

#include "forgestencil/Agents/Result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace agents {

/// The resources ptxas reported for one function on one architecture.
struct PtxasFunctionInfo {
  std::string MangledName;
  std::string Arch;     ///< `sm_90`, empty when not stated.
  bool IsEntry = false; ///< A `__global__` kernel rather than a device function.
  int Registers = 0;
  int Barriers = 0;
  long SharedBytes = 0;   ///< Static shared memory (`smem`).
  long ConstantBytes = 0; ///< `cmem[0]`, the kernel parameters and friends.
  long StackFrameBytes = 0;
  long SpillStoreBytes = 0;
  long SpillLoadBytes = 0;

  bool spills() const { return SpillStoreBytes > 0 || SpillLoadBytes > 0; }
};

/// Parses the `ptxas info` lines of `nvcc -Xptxas -v` (also when mixed with
/// other compiler output), in the order the functions appear.
std::vector<PtxasFunctionInfo> parsePtxasInfo(std::string_view Text);

/// One metric row of `ncu --csv` (the details page).
struct NcuMetric {
  int LaunchId = -1; ///< The "ID" column: which profiled launch.
  std::string KernelName;
  std::string SectionName;
  std::string MetricName;
  std::string Unit;
  std::string ValueText; ///< As printed, e.g. `1,234.5`.
  /// The value as a number, when it is one (thousands separators removed).
  std::optional<double> Value;
};

/// Parses `ncu --csv` output: quoted CSV whose header row starts with "ID"
/// and has at least the "Kernel Name", "Metric Name", "Metric Unit" and
/// "Metric Value" columns. Lines before the header (`==PROF==` messages,
/// the application's own output) are skipped. Fails when no header is found.
Result<std::vector<NcuMetric>> parseNcuCsv(std::string_view Text);

/// The first row for \p MetricName whose kernel name contains
/// \p KernelSubstring (any kernel when empty).
const NcuMetric *findNcuMetric(const std::vector<NcuMetric> &Metrics,
                               std::string_view MetricName,
                               std::string_view KernelSubstring = {});

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_PROFILEPARSERS_H
