//===- RewritePlanner.h - From facts to edited files and a patch -*- C++ -*-===//
///
/// \file
/// Decides which launches to rewrite, turns the decision into edits
/// (clang::tooling::Replacements, one set per file, merged over every
/// translation unit that saw the file), applies them in memory and hands the
/// changed and added files to the patch writer. The user's sources are never
/// written.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_REWRITE_REWRITEPLANNER_H
#define FORGESTENCIL_REWRITE_REWRITEPLANNER_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"
#include "forgestencil/Patch/UnifiedDiff.h"
#include "forgestencil/Rewrite/RewriteFacts.h"

#include "llvm/Support/Error.h"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace rewrite {

/// A body copy in which each thread computes Factor consecutive points
/// along the axis Axis (1: y, 2: z) instead of one (BodyTransform.h).
struct Coarsening {
  unsigned Axis = 1, Factor = 2;
  bool operator==(const Coarsening &O) const {
    return Axis == O.Axis && Factor == O.Factor;
  }
};

/// How the replacement kernels are made.
enum class Strategy {
  /// The launcher calls a renamed copy of the original kernel with the
  /// original configuration: the plumbing, the verification reference and
  /// the fallback. It is never a speed-up.
  Reference,
  /// Kernels with a Stencil IR also get a generated variant for the tuned
  /// architecture (the measured winner, or the best known strategy from the
  /// knowledge base); the reference stays the fallback for other GPUs and
  /// for every kernel without one.
  Forge,
};

/// A generated variant for one kernel on one architecture.
struct KernelVariant {
  ir::StencilIR IR;
  forge::StrategyParams Params;
  /// Compute capability it runs on, as compute_capability() reports it (90).
  int ComputeCapability = 90;
  /// Where the choice comes from, said in the header and the patch
  /// ("verified and measured by fs-tune on ..." or "best known ...").
  std::string Provenance;
  /// The measured speed-up of this kernel, when fs-tune measured it.
  std::string MeasuredSpeedup;
  /// A GPU compared it with this app's kernel byte for byte (fs-tune, or
  /// the app's own run under USE_OURS=verify). Otherwise (a best known
  /// strategy, CPU-checked at most) its launcher compares it with the
  /// original on the GPU at its first launch in each launch configuration
  /// and runs it there only if identical (forgestencil/checks.h,
  /// run_checked).
  bool GpuVerified = false;
};

/// A kernel's name as the analysis and the user write it: the qualified or
/// plain name, and for one instantiation of a template its arguments
/// ("ns::k<float, 4>" is {"ns::k", "float, 4"}).
struct KernelInstanceName {
  std::string Kernel;
  /// Empty for a plain kernel or the template as a whole.
  std::string TemplateArgs;

  static KernelInstanceName parse(llvm::StringRef Name);
  /// "k" or "k<float, 4>".
  std::string str() const;
  bool isInstantiation() const { return !TemplateArgs.empty(); }
};

/// Whether two template argument lists are the same, however they are
/// spaced ("float,4" and "float, 4").
bool sameTemplateArgs(llvm::StringRef A, llvm::StringRef B);

/// Parses a block shape, "128x2" or "128x2x1" (a --reblock value): each
/// size from 1 to 1024, at most 1024 threads in all.
std::optional<std::array<unsigned, 3>> parseBlockShape(llvm::StringRef S);

/// A register cap fs-rewrite accepts for a body copy (--register-cap): 16
/// to 255 registers a thread.
bool validRegisterCap(unsigned N);

/// Parses a coarsening, "y2" or "z4" (a --coarsen value, and after "c" in
/// a verify run's label "64x4x1/cy2"): along y or z, 2 to 16 points.
std::optional<Coarsening> parseCoarsening(llvm::StringRef S);

/// Parses a --strategy value.
llvm::Expected<Strategy> parseStrategy(llvm::StringRef Name);
const char *strategyName(Strategy S);

struct RewriteOptions {
  /// Absolute directory the patch's paths are relative to; every edited
  /// file must be under it.
  std::string SourceRoot;
  /// Kernels to rewrite, by qualified or plain name; empty means every
  /// kernel with a launch that can be rewritten. A template is named as a
  /// whole ("k") or by the instantiations that get variants ("k<float>");
  /// either way its launches are rewritten, since one launch in a host
  /// template may launch every instantiation.
  std::vector<std::string> Kernels;
  Strategy Strat = Strategy::Reference;
  std::string ToolVersion;
  /// With Strategy::Forge: the variant per kernel, by the name the analysis
  /// gives it: the qualified name, with the template arguments for an
  /// instantiation of a template ("ns::k<float, 4>").
  std::map<std::string, KernelVariant> Variants;
  /// With Strategy::Forge: kernels, by qualified or plain name, that get
  /// a copy of their own body (lib/Rewrite/BodyTransform.h) instead of any
  /// generated variant: with `__restrict__` pointers (RestrictKernels),
  /// with another block shape (ReblockKernels: the shape, or none for the
  /// original's, every candidate then timed under USE_OURS=verify), or
  /// both. One that cannot take its copy keeps its generated variant, or
  /// else its original launches.
  std::vector<std::string> RestrictKernels;
  std::map<std::string, std::optional<std::array<unsigned, 3>>> ReblockKernels;
  /// Re-blocked kernels whose copy also gets a register cap: the cap, or
  /// none for every candidate cap timed under USE_OURS=verify.
  std::map<std::string, std::optional<unsigned>> RegisterCapKernels;
  /// Re-blocked kernels whose copy is also coarsened (a thread computes
  /// several consecutive points along y or z): the coarsening, or none
  /// for every one timed under USE_OURS=verify beside the shapes.
  std::map<std::string, std::optional<Coarsening>> CoarsenKernels;
  /// ReblockKernels whose copy keeps the original's block shape: a register
  /// cap is all that changes (fs-rewrite --register-cap without --reblock).
  std::set<std::string> KeepShapeKernels;
  /// The compute capability the body copies run on.
  int BodyComputeCapability = 90;
  /// With Strategy::Forge: kernels, by qualified or plain name, or a
  /// template's instantiations by their full name ("k<double, 1>"), whose
  /// header holds these generated candidates (all for one compute
  /// capability), each compared with the original and timed in the app
  /// under USE_OURS=verify; their launcher runs the original otherwise
  /// (docs/in-app-candidates.md). They take the place of any variant in
  /// Variants and any body copy.
  std::map<std::string, std::vector<KernelVariant>> InAppCandidates;
};

/// Something the user should know about a launch or kernel left alone.
struct RewriteNote {
  std::string File; ///< Relative to the source root when under it.
  unsigned Line = 0, Column = 0;
  std::string Message;
  std::string format() const;
};

/// The outcome of planning: the files to change and to add.
struct RewritePlan {
  std::vector<std::string> Kernels; ///< Qualified names, sorted.
  unsigned LaunchesRewritten = 0;
  /// Launches that already sit behind a forgestencil::use_ours() guard.
  unsigned LaunchesAlreadyGuarded = 0;
  std::vector<patch::FileChange> Files;
  std::vector<RewriteNote> Notes;
  /// The generated variants that made it into kernel headers, by the
  /// analysis' name (an instantiation for a template).
  std::map<std::string, const KernelVariant *> Variants;
  /// The kernels that got a body copy, by qualified name, with what the
  /// copy is.
  std::map<std::string, std::string> BodyCopies;
  /// The kernels whose header holds in-app candidates, by qualified name,
  /// with their ids in order.
  std::map<std::string, std::vector<std::string>> InAppCandidates;
  /// The macros whose body launches a kernel named by a parameter and now
  /// holds the guard, with the rewritten kernels launched through each.
  std::map<std::string, std::set<std::string>> MacroLaunches;
  /// How many of the launches rewritten are expansions of each such macro.
  std::map<std::string, unsigned> MacroExpansions;

  /// The tree already carries a ForgeStencil patch for everything asked.
  bool alreadyApplied() const {
    return LaunchesRewritten == 0 && LaunchesAlreadyGuarded > 0;
  }
};

/// Plans and applies, in memory, the rewrite of the launches in \p Facts.
/// Fails when a kernel named in the options does not exist, when an edited
/// file is outside the source root, or when two edits of a file conflict.
llvm::Expected<RewritePlan> planRewrites(const RewriteFacts &Facts,
                                         const RewriteOptions &Opts);

/// Writes \p Plan as a patch whose header states the kernels and the
/// strategy. Fails when the plan changes nothing.
llvm::Expected<std::string> buildPatch(const RewritePlan &Plan,
                                       const RewriteOptions &Opts);

/// The file-name slug of the patch for \p Plan.
std::string patchSlug(const RewritePlan &Plan, const RewriteOptions &Opts);

} // namespace rewrite
} // namespace forgestencil

#endif
