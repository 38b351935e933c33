//===- AppSpec.h - An application's app.json ------------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// apps/<name>/app.json says how to build and run an application and where it
/// prints its timer and check lines. The harness reads it once, validates
/// every field it uses and names the file and field in each error, so a typo
/// is found before a GPU job is spent on it.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_APPSPEC_H
#define FORGESTENCIL_HARNESS_APPSPEC_H

#include "forgestencil/Harness/Expected.h"
#include "forgestencil/Harness/OutputParsing.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// The parts of app.json that the harness uses.
struct AppSpec {
  std::string Name;
  /// source.kind ("in-tree", "git", ...); empty when app.json has no source.
  std::string SourceKind;
  /// Shell commands run in the vendored source directory, in order; they may
  /// use ${SRC_DIR} and ${BUILD_DIR}.
  std::vector<std::string> BuildCommands;
  /// The executable, relative to the build directory.
  std::string Binary;
  /// Arguments of the full-size run and, when app.json has one, of the small
  /// run.
  std::vector<std::string> FullArgs;
  std::optional<std::vector<std::string>> SmallArgs;
  TimerPattern Timer;
  CheckPattern Check;
  /// Extra arguments that make the app write its output to ${OUT_FILE}.
  std::optional<std::vector<std::string>> OutputArgs;
  /// How the output file is read when the modes' files differ ("float32"
  /// unless app.json's optional output_type says "float64").
  std::string OutputType = "float32";
  /// The kernels the integration patches rewrite.
  std::vector<std::string> Kernels;
  std::string CompileCommands;
};

/// Parses and validates the text of an app.json; \p FileName appears in every
/// error message.
Expected<AppSpec> parseAppSpec(const std::string &JsonText,
                               const std::string &FileName);

/// Reads and parses the app.json at \p Path.
Expected<AppSpec> loadAppSpec(const std::string &Path);

/// Placeholder values for ${SRC_DIR}, ${BUILD_DIR} and ${OUT_FILE}.
using PlaceholderValues = std::map<std::string, std::string>;

/// \p Text with every ${NAME} whose NAME is in \p Values replaced. Other
/// ${...} are left for the shell (build commands may use its variables).
std::string expandPlaceholders(const std::string &Text,
                               const PlaceholderValues &Values);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_APPSPEC_H
