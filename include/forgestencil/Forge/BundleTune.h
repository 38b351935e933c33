//===- BundleTune.h - Build, verify and time a tuning bundle ---------------===//
///
/// \file
/// What fs-tune does with a bundle: compile the app's other translation
/// units once and every candidate's driver in parallel child processes (nvcc
/// with the kernel's own flags, each under a time limit), screen external
/// candidate code before it is compiled, check each driver's candidate under
/// compute-sanitizer's memcheck on a small size when the tool is there, then
/// run the drivers one at a time under a time limit with a fresh seed per run
/// (random inputs and random odd sizes) and keep the faster half of the
/// verified candidates for the next round with twice the repetitions
/// (successive halving). A candidate that fails to compile, is refused by
/// the screen, crashes, hangs, fails the memory check or mismatches is
/// recorded as such and never timed again.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_BUNDLETUNE_H
#define FORGESTENCIL_FORGE_BUNDLETUNE_H

#include "forgestencil/Forge/BundleResults.h"

#include <functional>
#include <ostream>
#include <string>

namespace forgestencil {
namespace forge {

/// Screens external candidate code; returns an empty string to accept it,
/// otherwise the reason it is refused.
using CandidateScreenFn = std::function<std::string(
    const std::string &Code, const std::string &ElementType)>;

struct TuneOptions {
  std::string Nvcc = "nvcc";
  /// "sm_90"; empty: the bundle's.
  std::string Arch;
  unsigned Jobs = 4;
  /// Seconds for one nvcc and for one driver run.
  double CompileTimeout = 600, RunTimeout = 180;
  /// Candidates per kernel to build and run (0: all in the bundle).
  unsigned Budget = 0;
  bool CompileOnly = false;
  /// Run the memory check when compute-sanitizer is found.
  bool Memcheck = true;
  /// compute-sanitizer; empty: looked up next to nvcc and in PATH.
  std::string Sanitizer;
  /// Rounds of successive halving and the repetitions of the first.
  unsigned Rounds = 2, Reps = 20;
  /// Base seed; 0 draws one from the clock. Each run uses a new seed.
  unsigned Seed = 0;
  /// Derive the cases' extents from the IR (a literal extent, strides and
  /// bounds that must agree) so that the original handles them in bounds;
  /// off, the drawn extents are used as they are (to test the original's
  /// check).
  bool DeriveSizes = true;
  /// Only these kernels (empty: all).
  std::vector<std::string> Kernels;
  /// Only these candidate ids (empty: all), e.g. the one candidate an LLM
  /// round just added; the original is always measured against them.
  std::vector<std::string> Candidates;
  CandidateScreenFn Screen;
  /// Progress lines; nullptr for none.
  std::ostream *Progress = nullptr;
  std::string Command;
};

/// Runs the bundle in Dir (build products go to Dir/build) and fills
/// Results. Returns false only when the bundle cannot be run at all (no
/// manifest, no nvcc); candidates' failures are results.
bool tuneBundle(const std::string &Dir, const TuneOptions &Opts,
                TuneResults &Results, std::string &Error);

} // namespace forge
} // namespace forgestencil

#endif
