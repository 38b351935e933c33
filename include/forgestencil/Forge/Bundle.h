//===- Bundle.h - The tuning bundle fs-rewrite writes and fs-tune runs -----===//
///
/// \file
/// A tuning bundle is a self-contained directory: `manifest.json` (tool
/// version, app, every kernel with its Stencil IR, its translation unit and
/// that unit's compile flags, the candidates, the timed shape), `app/` (a copy
/// of the app's source root) and one generated driver per (kernel,
/// candidate) in `drivers/<kernel>/<n>.cu`. A driver includes the app's own
/// translation unit with its `main` renamed, so the ORIGINAL kernel, the
/// app's `__constant__` symbols and macros are the real ones; the candidate
/// is compiled into the same translation unit and launched with the same
/// grid, block, stream and arguments. The verification and timing protocol
/// is the shared driver body of lib/Forge (BenchDriverTemplate.inc).
///
/// Writing a bundle needs no LLVM: fs-rewrite hands over what its analysis
/// found (IR, translation units, flags) in a BundleRequest.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_BUNDLE_H
#define FORGESTENCIL_FORGE_BUNDLE_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

inline constexpr const char *BundleSchemaId = "forgestencil.tuning-bundle";
inline constexpr int BundleSchemaVersion = 1;
/// Stands for the bundle's absolute directory in stored compile flags.
inline constexpr const char *BundleDirToken = "${BUNDLE}";

/// One candidate for one kernel.
struct BundleCandidate {
  /// Unique within the kernel: the strategy id, or "src:<file stem>".
  std::string Id;
  /// "knowledge" (the operator matrix's pick), "search" (the strategy
  /// space) or "external" (code from elsewhere, e.g. a model).
  std::string Origin;
  /// Set for generated candidates.
  std::optional<StrategyParams> Params;
  /// External candidates: the source, relative to the bundle, and the name
  /// of its launcher (the original's parameters after grid, block, shmem,
  /// stream).
  std::string Source, Launcher;
  /// The driver, relative to the bundle; empty when none was generated.
  std::string Driver;
  /// Why there is no driver.
  std::string Skipped;
};

/// A translation unit of the app other than a kernel's: compiled once and
/// linked into every driver, so what the kernel's unit calls is defined.
struct BundleUnit {
  std::string File; ///< Relative to app/.
  std::vector<std::string> Flags;
};

struct BundleKernel {
  std::string Name; ///< As the IR names it.
  ir::StencilIR IR;
  std::string TranslationUnit; ///< Relative to app/.
  std::vector<std::string> Flags;
  /// The shape the candidates are timed (and verified once more) at.
  std::vector<long long> TimeShape;
  /// How TimeShape was derived from the wanted one, when it differs
  /// ("4096x4096 became 1024x1024: axis x's extent is 1024 in the IR; ...").
  std::string TimeShapeNote;
  std::vector<BundleCandidate> Candidates;
  /// Where the first candidate came from (operator matrix entry or default).
  std::string KnowledgeSource;
};

struct BundleManifest {
  std::string ToolVersion, App, Arch = "sm_90";
  /// How outputs are compared, in words (also stored in the results).
  std::string Tolerance;
  std::vector<BundleKernel> Kernels;
  std::vector<BundleUnit> LinkUnits;
  /// Kernels left out, "name: reason".
  std::vector<std::string> Skipped;

  nlohmann::json toJson() const;
  static std::optional<BundleManifest> fromJson(const nlohmann::json &J,
                                                std::string &Error);
  const BundleKernel *kernel(const std::string &Name) const;
};

/// What fs-rewrite's analysis found, for writeBundle.
struct BundleRequest {
  std::string App, ToolVersion, Arch = "sm_90";
  /// Absolute; copied to app/. Kernels' units must be under it.
  std::string SourceRoot;
  struct Unit {
    std::string File;      ///< Absolute.
    std::string Directory; ///< The command's working directory.
    /// -D/-U/-I/-isystem/-include/-std flags as the database has them; host
    /// compiler flags already wrapped in -Xcompiler.
    std::vector<std::string> Flags;
  };
  std::vector<Unit> Units;
  struct Kernel {
    ir::StencilIR IR;
    std::string TranslationUnit; ///< Absolute.
  };
  std::vector<Kernel> Kernels;
  /// The operator matrix (may be empty) for the first candidate.
  nlohmann::json Knowledge;
  /// Candidates per kernel, the knowledge pick included.
  unsigned Budget = 6;
  /// Timed shape per kernel; empty: 384^3, 4096^2 or 2^26 by rank.
  std::vector<long long> TimeShape;
};

/// Makes an IR from the analysis usable by the generators: axis names that
/// are no C identifiers are renamed, and an axis without an extent gets the
/// size parameter its upper bound names.
ir::StencilIR completeForBundle(ir::StencilIR IR);

/// The block the driver launches the original with: 32 x 4 x 2 along the
/// kernel's thread axes (256 along x for a 1-D thread id), or the fixed
/// block size the kernel indexes by.
std::array<unsigned, 3> bundleBlock(const ir::StencilIR &IR);

/// Flags of a compile command rewritten for the bundle: paths under
/// SourceRoot become `${BUNDLE}/app/...`, others absolute.
std::vector<std::string> rebaseFlags(const std::vector<std::string> &Flags,
                                     const std::string &Directory,
                                     const std::string &SourceRoot);

/// Candidates for IR: the knowledge pick first, then the strategies' search
/// spaces taken in turn, up to Budget, without duplicates.
std::vector<BundleCandidate> chooseCandidates(const ir::StencilIR &IR,
                                              const nlohmann::json &Knowledge,
                                              const std::string &Arch,
                                              unsigned Budget,
                                              std::string *KnowledgeSource);

/// The driver source for candidate C of kernel K; empty and Error set when
/// none can be made.
std::string generateDriver(const BundleKernel &K, const BundleCandidate &C,
                           const std::string &BundleDir, std::string &Error);

/// Writes the whole bundle to Dir (which must not exist or be empty).
bool writeBundle(const BundleRequest &R, const std::string &Dir,
                 BundleManifest &Manifest, std::string &Error);

/// Reads Dir/manifest.json.
std::optional<BundleManifest> loadBundle(const std::string &Dir,
                                         std::string &Error);
bool saveManifest(const BundleManifest &M, const std::string &Dir,
                  std::string &Error);

/// Adds external candidate code (copied to Dir/candidates/) for Kernel and
/// generates its driver.
bool addExternalCandidate(const std::string &Dir, const std::string &Kernel,
                          const std::string &File, const std::string &Launcher,
                          std::string &Error);

/// "fd3d_r4_kernel" -> a directory-safe name.
std::string kernelDirName(const std::string &Kernel);

} // namespace forge
} // namespace forgestencil

#endif
