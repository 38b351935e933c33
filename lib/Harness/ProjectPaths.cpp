//===- ProjectPaths.cpp - Where fs-harness finds apps, patches, registry --===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "ProjectPaths.h"

#include <filesystem>

namespace forgestencil {
namespace harness {

namespace fs = std::filesystem;

/// An app's patches: --patches-dir, else <root>/patches/<app>, else ""
/// (no project root: no patches).
std::string patchesDirFor(const HarnessOptions &Options,
                          const std::string &Root, const std::string &App) {
  return !Options.PatchesDir.empty() ? Options.PatchesDir
         : Root.empty()              ? ""
                                     : Root + "/patches/" + App;
}
/// The registry: --registry, else <root>/results/integration_registry.json,
/// else "" (no project root: the caller must be told where).
std::string registryPathFor(const HarnessOptions &Options,
                            const std::string &Root) {
  return !Options.RegistryPath.empty() ? Options.RegistryPath
         : Root.empty()                ? ""
                                       : Root + "/results/integration_registry.json";
}
const char *const NoRegistry =
    "cannot tell where the registry lives: give --registry FILE";

/// The project root: the first directory from the working directory upwards
/// that has scripts/vendor.sh and apps/, else the source tree this tool was
/// built from.
std::string findProjectRoot() {
  std::error_code Error;
  for (fs::path Dir = fs::current_path(Error); !Error && !Dir.empty();
       Dir = Dir.parent_path()) {
    if (fs::exists(Dir / "scripts" / "vendor.sh", Error) &&
        fs::is_directory(Dir / "apps", Error))
      return Dir.string();
    if (Dir == Dir.parent_path())
      break;
  }
#ifdef FS_DEFAULT_ROOT
  return FS_DEFAULT_ROOT;
#else
  return "";
#endif
}

} // namespace harness
} // namespace forgestencil
