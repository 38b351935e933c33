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

#include "llvm/ADT/StringRef.h"

#include <string>

namespace forgestencil {
namespace rewrite {

/// Where the added files live, relative to the source root.
constexpr const char *GeneratedDirectory = "forgestencil";
constexpr const char *UseOursHeaderName = "use_ours.h";

/// "fs_launch_<kernel>": the launcher every rewritten launch calls.
std::string launcherName(const KernelDefinition &K);
/// "fs_ref_<kernel>": the renamed copy of the original kernel.
std::string referenceKernelName(const KernelDefinition &K);

/// The content of forgestencil/use_ours.h.
std::string useOursHeader(llvm::StringRef ToolVersion);

/// The content of the header \p HeaderPath that holds \p K's variants and
/// launcher. \p GuardMacro is its include guard; \p DefinedIn names the
/// file the original is defined in (for the reader).
/// With \p Variant, the header also holds the generated kernel for its
/// architecture and the launcher dispatches to it there; when that variant
/// cannot be generated, \p Error says why and the header holds only the
/// reference.
std::string kernelHeader(const KernelDefinition &K, llvm::StringRef HeaderPath,
                         llvm::StringRef GuardMacro, llvm::StringRef DefinedIn,
                         llvm::StringRef ToolVersion,
                         const KernelVariant *Variant, std::string &Error);

/// The launcher's declaration, as one line, matching declaration \p D.
std::string launcherDeclaration(const KernelDeclaration &D,
                                const KernelDefinition &K);

/// The edit that turns launch \p L, spelled in \p Content, into
/// `if (forgestencil::use_ours()) { <launcher>(...); } else { <launch>; }`.
TextEdit guardedLaunchEdit(llvm::StringRef Content, const LaunchStatement &L,
                           const KernelDefinition &K);

} // namespace rewrite
} // namespace forgestencil

#endif
