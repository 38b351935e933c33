//===- TestSupport.h - Helpers for the patch tests --------------*- C++ -*-===//

#ifndef FORGESTENCIL_UNITTESTS_PATCH_TESTSUPPORT_H
#define FORGESTENCIL_UNITTESTS_PATCH_TESTSUPPORT_H

#include <filesystem>
#include <optional>
#include <string>

namespace forgestencil {
namespace patch {
namespace test {

/// A fresh directory removed with everything in it when the object dies.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::filesystem::path &path() const { return Root; }

private:
  std::filesystem::path Root;
};

/// Writes \p Content byte for byte, creating parent directories.
void writeFile(const std::filesystem::path &Path, const std::string &Content);

/// The file's bytes, or none when it cannot be read.
std::optional<std::string> readFile(const std::filesystem::path &Path);

/// What a shell command printed and how it ended.
struct CommandResult {
  int ExitCode = -1;
  std::string Output; ///< stdout and stderr together
};

/// Runs \p Command with /bin/sh in \p Directory. git there cannot find a
/// repository above \p Directory and reads no user or system configuration,
/// so results do not depend on where the tests run.
CommandResult runCommand(const std::string &Command,
                         const std::filesystem::path &Directory);

/// True when \p Program is found on PATH.
bool haveProgram(const std::string &Program);

/// \p Text with each byte that is not printable ASCII escaped, for messages.
std::string escapeForMessage(const std::string &Text);

} // namespace test
} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_UNITTESTS_PATCH_TESTSUPPORT_H
