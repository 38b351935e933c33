//===- LauncherGen.h - Source text of guards, launchers and headers -*- C++ -*-===//
///
/// \file
/// The code a rewrite adds: the `forgestencil/use_ours.h` runtime switch, one
/// header per kernel with its variants and the per-architecture launcher,
/// the guarded statement that replaces a launch, and the launcher
/// declaration a translation unit needs when the kernel is defined
/// elsewhere.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_REWRITE_LAUNCHERGEN_H
#define FORGESTENCIL_REWRITE_LAUNCHERGEN_H

#include "forgestencil/Rewrite/RewriteFacts.h"
#include "forgestencil/Rewrite/RewritePlanner.h"
#include "forgestencil/Rewrite/SourceLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace rewrite {

/// Where the added files live, relative to the source root.
constexpr const char *GeneratedDirectory = "forgestencil";
constexpr const char *UseOursHeaderName = "use_ours.h";
constexpr const char *MacroLaunchHeaderName = "macro_launch.h";

/// "fs_launch_<kernel>": the launcher every rewritten launch calls.
std::string launcherName(const KernelDefinition &K);
/// "fs_ref_<kernel>": the renamed copy of the original kernel.
std::string referenceKernelName(const KernelDefinition &K);

/// The content of forgestencil/use_ours.h.
std::string useOursHeader(llvm::StringRef ToolVersion);

/// A generated variant for a kernel's header: for a plain kernel, the
/// kernel's; for a template, one instantiation's.
struct HeaderVariant {
  /// The instantiation's template arguments ("float, 4"); empty for a plain
  /// kernel.
  std::string TemplateArgs;
  const KernelVariant *Variant = nullptr;
  /// Set by kernelHeader when the variant cannot be generated: why.
  std::string Error;
  /// One of a kernel's (an instantiation's) in-app candidates (fs-rewrite --in-app): the
  /// launcher compares them all with the original under USE_OURS=verify
  /// and runs the original otherwise (forgestencil/checks.h,
  /// compare_candidates). Either every variant of a header is one, or none.
  bool InApp = false;
  /// A generated variant no GPU has verified: its launcher compares it with
  /// the original first (forgestencil/checks.h, run_checked).
  bool checkedAtRunTime() const { return !InApp && !Variant->GpuVerified; }
};

/// What a body copy changes (lib/Rewrite/BodyTransform.h): restrict,
/// re-block, or both; a re-blocked copy may also get a register cap.
struct BodyTransform {
  bool Restrict = false;
  bool Reblock = false;
  /// The block shape the re-blocked copy runs with; none for the
  /// original's (and every candidate timed under USE_OURS=verify).
  std::optional<std::array<unsigned, 3>> Block;
  /// Register caps are asked for (re-blocked copies, or copies that keep
  /// the original's shape).
  bool RegisterCap = false;
  /// With Reblock and RegisterCap: no axis is re-blocked, the copy runs
  /// only at the original launch's block shape (fs-rewrite --register-cap
  /// without --reblock); its candidates are the caps, Block the shape a
  /// chosen cap was timed at.
  bool KeepShape = false;
  /// The cap the copy runs with; none: every candidate cap is timed under
  /// USE_OURS=verify beside the uncapped copy.
  std::optional<unsigned> MaxRegisters;
  /// With Reblock: coarsened copies are asked for, in which each thread
  /// computes several consecutive points along y or z (BodyTransform.h).
  bool Coarsen = false;
  /// With Coarsen: the coarsening chosen; none: every axis the kernel
  /// indexes by y or z with 2 and 4 points is timed under USE_OURS=verify
  /// beside the shapes.
  using Coarsening = rewrite::Coarsening;
  std::optional<Coarsening> Coarsened;
  bool any() const { return Restrict || Reblock; }
};

/// The body copy asked for a kernel.
struct BodyRequest {
  BodyTransform Transform;
  /// The compute capability the copy was verified and measured on.
  int ComputeCapability = 90;
  /// Set by kernelHeader: whether the copy went into the header, and if
  /// not, why; what it is, in one sentence.
  bool Emitted = false;
  std::string Error;
  std::string Description;
};

/// The content of the header \p HeaderPath that holds \p K's variants and
/// launcher. \p GuardMacro is its include guard; \p DefinedIn names the
/// file the original is defined in (for the reader).
///
/// Each of \p Variants that can be generated goes into the header, and the
/// launcher dispatches to it on its architecture; one that cannot gets its
/// Error set. A plain kernel takes at most one, unless they are in-app
/// candidates (HeaderVariant::InApp). A template's launcher stays
/// a template that compiles for every instantiation: those with a variant
/// find it through an explicit specialization of a small dispatch table
/// (`fs_variants_<kernel>`), every other one runs the reference copy.
/// With \p LaunchedFromOtherUnits, a template's launcher is also
/// instantiated for every instantiation of the kernel its unit makes:
/// launches in other units see only its declaration.
/// With \p Body, a kernel that gets no generated variant gets the copy of
/// its body it asks for, where it can take one.
/// With \p LaunchingMacros (macros whose body launches the kernel they are
/// given), the header specialises forgestencil::macro_launch for the kernel
/// so that those launches reach its launcher.
std::string kernelHeader(const KernelDefinition &K, llvm::StringRef HeaderPath,
                         llvm::StringRef GuardMacro, llvm::StringRef DefinedIn,
                         llvm::StringRef ToolVersion,
                         std::vector<HeaderVariant> &Variants,
                         bool LaunchedFromOtherUnits = false,
                         BodyRequest *Body = nullptr,
                         llvm::ArrayRef<std::string> LaunchingMacros = {});

/// `forgestencil/macro_launch.h`: forgestencil::macro_launch, the guard a
/// patch puts into the body of a macro that launches the kernel it is
/// given; the header of each kernel launched through such a macro
/// specialises it to run the kernel's launcher under USE_OURS.
std::string macroLaunchHeader(llvm::StringRef ToolVersion);

/// The text put before the launch `k<<<...>>>(...)` in a macro's body
/// (\p M): `if (forgestencil::macro_launch<decltype(k), k>::ours())
/// forgestencil::macro_launch<decltype(k), k>::run(grid, block, shmem,
/// stream, args); else `. A complete if/else, so an `else` that follows an
/// expansion still binds as it did; the arguments are evaluated once.
std::string macroLaunchGuardPrefix(const LaunchStatement::MacroBody &M);

/// The launcher's declaration, as one line, matching declaration \p D.
std::string launcherDeclaration(const KernelDeclaration &D,
                                const KernelDefinition &K);

/// One kernel a launch through a pointer may hold, and its definition.
struct PointerBranch {
  const LaunchStatement::Target *Target = nullptr;
  const KernelDefinition *Kernel = nullptr;
};

/// The guard of a launch through a pointer: one branch per kernel,
/// `if (forgestencil::use_ours() && p == k1) { <launcher of k1>(...); }
/// else if (...) ... else { <the launch as written> }`.
TextEdit guardedPointerLaunchEdit(llvm::StringRef Content,
                                  const LaunchStatement &L,
                                  llvm::ArrayRef<PointerBranch> Branches);

/// The edit that turns launch \p L, spelled in \p Content, into
/// `if (forgestencil::use_ours()) { <launcher>(...); } else { <launch>; }`.
TextEdit guardedLaunchEdit(llvm::StringRef Content, const LaunchStatement &L,
                           const KernelDefinition &K);

} // namespace rewrite
} // namespace forgestencil

#endif
