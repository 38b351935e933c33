//===- ProcessRunner.h - Run one child process under a time limit ---------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every measured run is a fresh process, so no state (a warm allocator, a
/// cached context) leaks from one mode into the other. The runner starts it
/// with fork/exec in its own process group, sets the environment the mode
/// needs, collects stdout and stderr, and kills the whole group when it runs
/// past its time limit.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_SUPPORT_PROCESSRUNNER_H
#define FORGESTENCIL_SUPPORT_PROCESSRUNNER_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace support {

/// What to run.
struct ProcessSpec {
  /// The program and its arguments. A program without a '/' is looked up in
  /// PATH.
  std::vector<std::string> Argv;
  /// Variables set (or replaced) in the inherited environment.
  std::map<std::string, std::string> EnvOverrides;
  /// Variables removed from the inherited environment.
  std::vector<std::string> EnvRemovals;
  /// The directory the child starts in; empty means the caller's.
  std::string WorkingDirectory;
  /// The wall-clock limit in seconds; none when unset.
  std::optional<double> TimeoutSeconds;
};

/// How a process ended and what it printed.
struct ProcessResult {
  /// Set when the process could not be started at all (no such program, a
  /// failed fork, ...); nothing else is meaningful then.
  std::string LaunchError;
  /// The exit status when the process exited normally.
  std::optional<int> ExitCode;
  /// The signal that ended it, when one did.
  std::optional<int> Signal;
  /// True when it ran past its limit and was killed.
  bool TimedOut = false;
  std::string Stdout;
  std::string Stderr;
  double WallSeconds = 0;

  /// True when the process started and exited with status 0.
  bool succeeded() const {
    return LaunchError.empty() && !TimedOut && ExitCode && *ExitCode == 0;
  }

  /// One phrase on how the process ended: "exit code 3", "killed by signal
  /// 11 (Segmentation fault)", "timed out after 2 s", ...
  std::string describeEnd() const;
};

/// The last \p Count lines of \p Text (without trailing newlines), to show
/// why a step failed without flooding the terminal.
std::string lastLines(const std::string &Text, size_t Count);

/// Runs \p Spec to completion (or to its time limit) and reports how it went.
ProcessResult runProcess(const ProcessSpec &Spec);

/// The first executable called \p Name in PATH (or \p Name itself when it
/// names a path that is executable); none when there is no such program.
std::optional<std::string> findProgram(const std::string &Name);

/// Runs \p Command with /bin/sh -c.
ProcessResult runShellCommand(const std::string &Command,
                              const std::string &WorkingDirectory = "",
                              std::optional<double> TimeoutSeconds = {});

} // namespace support
} // namespace forgestencil

#endif // FORGESTENCIL_SUPPORT_PROCESSRUNNER_H
