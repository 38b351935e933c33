//===- ProjectPaths.h - Where fs-harness finds apps, patches, registry ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_HARNESS_PROJECTPATHS_H
#define FORGESTENCIL_LIB_HARNESS_PROJECTPATHS_H

#include "forgestencil/Harness/IntegrationRun.h"

#include <string>

namespace forgestencil {
namespace harness {

/// An app's patches: --patches-dir, else <root>/patches/<app>, else ""
/// (no project root: no patches).
std::string patchesDirFor(const HarnessOptions &Options,
                          const std::string &Root, const std::string &App);
/// The registry: --registry, else <root>/results/integration_registry.json,
/// else "" (no project root: the caller must be told where).
std::string registryPathFor(const HarnessOptions &Options,
                            const std::string &Root);
extern const char *const NoRegistry;

/// The project root: the first directory from the working directory upwards
/// that has scripts/vendor.sh and apps/, else the source tree this tool was
/// built from.
std::string findProjectRoot();

} // namespace harness
} // namespace forgestencil

#endif
