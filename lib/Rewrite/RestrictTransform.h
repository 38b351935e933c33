//===- RestrictTransform.h - The restrict body transform -------*- C++ -*-===//
///
/// \file
/// A variant made from the original kernel's own body rather than from a
/// Stencil IR, for kernels the generators cannot rebuild: the definition
/// copied with `__restrict__` on every pointer parameter and `const` on the
/// pointee of those it only reads through, so the compiler may keep loaded
/// values across stores and use the read-only data path. The copy computes
/// exactly what the original does when no two pointer parameters reach the
/// same memory; RestrictFacts.h rules out every other way in, and the
/// launcher checks the rest before each launch (the pointers point into
/// distinct allocations), running the original otherwise.
///
/// With USE_OURS=verify, the launcher also runs the original on a copy of
/// the state at sampled launches and compares every byte of every
/// allocation the pointers point into (forgestencil/checks.h).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_REWRITE_RESTRICTTRANSFORM_H
#define FORGESTENCIL_LIB_REWRITE_RESTRICTTRANSFORM_H

#include "forgestencil/Rewrite/RewriteFacts.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace forgestencil {
namespace rewrite {

constexpr const char *ChecksHeaderName = "checks.h";

/// "fs_restrict_<kernel>": the restrict copy.
std::string restrictKernelName(const KernelDefinition &K);

/// The restrict copy of \p K, or why it takes none.
struct RestrictCopy {
  std::string Text;
  /// The parameters that got `__restrict__`, and those whose pointee got
  /// `const`, by name.
  std::vector<std::string> Restricted, MadeConst;
  std::string Error;
};
RestrictCopy restrictCopy(const KernelDefinition &K);

/// The launcher's `case <CC>:` that runs the copy when the pointers point
/// into distinct allocations, and \p ReferenceLaunch otherwise. Indented for
/// the launcher's switch.
std::string restrictCase(const KernelDefinition &K, int ComputeCapability,
                         llvm::StringRef ReferenceLaunch);

/// The content of forgestencil/checks.h: the allocation check and the
/// USE_OURS=verify comparison the restrict launchers call.
std::string checksHeader(llvm::StringRef ToolVersion);

} // namespace rewrite
} // namespace forgestencil

#endif
