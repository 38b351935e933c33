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

/// One build variant of an app (app.json "variants"): its own values for
/// placeholders in the build and run commands, and optionally its own build
/// commands, binary and run arguments. Each variant is built, run and
/// checked on its own and has its own registry entry.
struct VariantSpec {
  /// [A-Za-z0-9._-]+, unique within the app; ${VARIANT} in commands.
  std::string Name;
  std::string Description;
  /// ${NAME} -> value in build commands, binary, run and output arguments.
  std::map<std::string, std::string> Vars;
  std::optional<std::vector<std::string>> BuildCommands;
  std::optional<std::string> Binary;
  std::optional<std::vector<std::string>> FullArgs;
  std::optional<std::vector<std::string>> SmallArgs;
  std::optional<std::vector<std::string>> CheckArgs;
};

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
  /// Arguments of a separate check run (run.check) for an app whose own
  /// check cannot afford the measured size (a CPU reference, say): each
  /// round runs it once per mode, judged by the check line alone, while the
  /// timed runs are judged by their timer (a check line they print must
  /// still pass).
  std::optional<std::vector<std::string>> CheckArgs;
  TimerPattern Timer;
  /// A line that means the run failed even though the app exits with 0 (an
  /// app that prints a CUDA error and carries on); empty when there is none.
  std::string FailureRegex;
  /// The app's correctness line; absent for an app without a check of its
  /// own, which must then have OutputArgs: its outputs are the check.
  std::optional<CheckPattern> Check;
  /// Extra arguments that make the app write its output to ${OUT_FILE} (a
  /// file) or into ${OUT_DIR} (a directory the harness creates).
  std::optional<std::vector<std::string>> OutputArgs;
  /// True when OutputArgs use ${OUT_DIR}.
  bool OutputIsDirectory = false;
  /// The largest relative difference allowed between the outputs of the two
  /// modes (app.json output_max_rel), the default of --output-max-rel. An
  /// app without a check and without it must give bit-identical outputs.
  std::optional<double> OutputMaxRelDiff;
  /// How the output file is read when the modes' files differ ("float32"
  /// unless app.json's optional output_type says "float64").
  std::string OutputType = "float32";
  /// The kernels the integration patches rewrite.
  std::vector<std::string> Kernels;
  std::string CompileCommands;
  /// The build variants; empty when the app has one build.
  std::vector<VariantSpec> Variants;
};

/// Parses and validates the text of an app.json; \p FileName appears in every
/// error message.
Expected<AppSpec> parseAppSpec(const std::string &JsonText,
                               const std::string &FileName);

/// Reads and parses the app.json at \p Path.
Expected<AppSpec> loadAppSpec(const std::string &Path);

/// Placeholder values for ${SRC_DIR}, ${BUILD_DIR}, ${APP_DIR}, ${OUT_FILE},
/// ${OUT_DIR} and a variant's own names.
using PlaceholderValues = std::map<std::string, std::string>;

/// \p App as its variant \p Variant builds and runs: the variant's build
/// commands, binary and run arguments where it has them, and its Vars and
/// ${VARIANT} replaced everywhere (the harness's own placeholders are left).
AppSpec applyVariant(const AppSpec &App, const VariantSpec &Variant);

/// \p Text with every ${NAME} whose NAME is in \p Values replaced. Other
/// ${...} are left for the shell (build commands may use its variables).
std::string expandPlaceholders(const std::string &Text,
                               const PlaceholderValues &Values);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_APPSPEC_H
