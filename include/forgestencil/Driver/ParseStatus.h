//===- ParseStatus.h - Each translation unit's parse, summed up -------------===//
///
/// \file
/// A translation unit is parsed twice (host and device side). Its status is
/// the worse of the two: "failed" when some kernel or launch did not parse,
/// "parsed with stand-ins" when missing includes were stood in for, else
/// "parsed". Errors that blocked nothing are kept and reported either way.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_PARSESTATUS_H
#define FORGESTENCIL_DRIVER_PARSESTATUS_H

#include "forgestencil/Driver/FrontendRunner.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace driver {

/// One translation unit's parses.
struct UnitStatus {
  std::string File;
  ParseStatus Host = ParseStatus::Parsed, Device = ParseStatus::Parsed;
  ParseStatus Overall = ParseStatus::Parsed;
  /// Over both sides, each include once.
  std::vector<StandIn> StandIns;
  std::vector<std::string> PreludeUses;
  std::vector<ParseBlocker> Blockers;
  /// Errors over both sides (a TU's headers give the same error twice).
  unsigned NumErrors = 0;
  /// The error that made it fail; else the first error, tolerated.
  std::optional<ParseDiagnostic> FirstError;
  /// FirstError comes from a failed parse.
  bool Decided = false;
};

/// The units of Results (as runFrontend returns them), in their order.
std::vector<UnitStatus> summarizeUnits(const std::vector<ParseResult> &Results);

/// Whether any unit failed.
bool anyFailed(const std::vector<UnitStatus> &Units);

/// Prints what each parse met, as Tool's diagnostics on OS: failed parses
/// as errors with their first errors and what they blocked; errors that
/// blocked nothing and stand-ins as warnings; with Verbose, what the
/// analysis prelude supplied.
void reportParses(llvm::raw_ostream &OS, const std::vector<ParseResult> &Results,
                  bool Verbose, llvm::StringRef Tool = "fs-rewrite");

} // namespace driver
} // namespace forgestencil

#endif
