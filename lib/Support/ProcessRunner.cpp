//===- ProcessRunner.cpp - Run one child process under a time limit -------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Support/ProcessRunner.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace forgestencil {
namespace support {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

/// The path execve should run for \p Program: itself when it names a path,
/// else the first executable match in PATH.
std::string resolveProgram(const std::string &Program) {
  if (Program.find('/') != std::string::npos)
    return Program;
  return findProgram(Program).value_or(Program);
}

/// The inherited environment with \p Spec's changes, as NAME=VALUE strings.
std::vector<std::string> buildEnvironment(const ProcessSpec &Spec) {
  std::vector<std::string> Env;
  for (char **Entry = environ; *Entry; ++Entry) {
    std::string Text = *Entry;
    std::string Name = Text.substr(0, Text.find('='));
    bool Replaced = Spec.EnvOverrides.count(Name) != 0;
    for (const std::string &Removed : Spec.EnvRemovals)
      Replaced |= Removed == Name;
    if (!Replaced)
      Env.push_back(Text);
  }
  for (const auto &[Name, Value] : Spec.EnvOverrides)
    Env.push_back(Name + "=" + Value);
  return Env;
}

std::vector<char *> pointersTo(std::vector<std::string> &Strings) {
  std::vector<char *> Pointers;
  for (std::string &S : Strings)
    Pointers.push_back(S.data());
  Pointers.push_back(nullptr);
  return Pointers;
}

/// Runs in the child after fork: only async-signal-safe calls from here on.
/// Reports a failure to start through \p ErrorPipe (close-on-exec, so a
/// successful exec closes it with nothing written).
[[noreturn]] void execChild(const char *Program, char **Argv, char **Envp,
                            const char *WorkingDirectory, int StdoutFd,
                            int StderrFd, int ErrorPipe) {
  setpgid(0, 0);
  int DevNull = open("/dev/null", O_RDONLY);
  if (DevNull >= 0)
    dup2(DevNull, STDIN_FILENO);
  dup2(StdoutFd, STDOUT_FILENO);
  dup2(StderrFd, STDERR_FILENO);
  // Restore what a fresh process expects; a caller may have ignored these.
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  int Error = 0;
  if (WorkingDirectory[0] != '\0' && chdir(WorkingDirectory) != 0)
    Error = errno;
  if (Error == 0) {
    execve(Program, Argv, Envp);
    Error = errno;
  }
  ssize_t Ignored = write(ErrorPipe, &Error, sizeof(Error));
  (void)Ignored;
  _exit(127);
}

/// Reads what is available on \p Fd into \p Sink; closes it and sets it to
/// -1 at end of file.
void drain(int &Fd, std::string &Sink) {
  char Buffer[65536];
  ssize_t Got = read(Fd, Buffer, sizeof(Buffer));
  if (Got > 0) {
    Sink.append(Buffer, size_t(Got));
    return;
  }
  if (Got < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  close(Fd);
  Fd = -1;
}

/// Waits up to \p Milliseconds for output on the open descriptors and reads
/// it.
void pollOutput(int &OutFd, int &ErrFd, ProcessResult &Result,
                int Milliseconds) {
  pollfd Fds[2];
  int Count = 0;
  if (OutFd >= 0)
    Fds[Count++] = {OutFd, POLLIN, 0};
  if (ErrFd >= 0)
    Fds[Count++] = {ErrFd, POLLIN, 0};
  if (Count == 0) {
    usleep(useconds_t(Milliseconds) * 1000);
    return;
  }
  if (poll(Fds, nfds_t(Count), Milliseconds) <= 0)
    return;
  for (int I = 0; I < Count; ++I) {
    if (!(Fds[I].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    if (Fds[I].fd == OutFd)
      drain(OutFd, Result.Stdout);
    else
      drain(ErrFd, Result.Stderr);
  }
}

void recordStatus(int Status, ProcessResult &Result) {
  if (WIFEXITED(Status))
    Result.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    Result.Signal = WTERMSIG(Status);
}

/// Collects the output of \p Child until it exits or its time runs out.
void superviseChild(pid_t Child, int OutFd, int ErrFd, const ProcessSpec &Spec,
                    Clock::time_point Start, ProcessResult &Result) {
  int Status = 0;
  for (;;) {
    int Slice = 50;
    if (Spec.TimeoutSeconds) {
      double Left = *Spec.TimeoutSeconds - secondsSince(Start);
      if (Left <= 0) {
        // The whole group: a shell wrapper must not leave the app running.
        kill(-Child, SIGKILL);
        kill(Child, SIGKILL);
        Result.TimedOut = true;
        waitpid(Child, &Status, 0);
        recordStatus(Status, Result);
        Result.WallSeconds = secondsSince(Start);
        break;
      }
      Slice = std::max(1, std::min(Slice, int(std::ceil(Left * 1000))));
    }
    pollOutput(OutFd, ErrFd, Result, Slice);
    pid_t Done = waitpid(Child, &Status, WNOHANG);
    if (Done == Child) {
      recordStatus(Status, Result);
      Result.WallSeconds = secondsSince(Start);
      break;
    }
  }
  // Collect what is still buffered in the pipes; a background grandchild
  // that keeps them open gets a short grace period, not the run's limit.
  Clock::time_point Exited = Clock::now();
  while ((OutFd >= 0 || ErrFd >= 0) && secondsSince(Exited) < 1.0)
    pollOutput(OutFd, ErrFd, Result, 50);
  if (OutFd >= 0)
    close(OutFd);
  if (ErrFd >= 0)
    close(ErrFd);
}

bool makePipe(int Fds[2]) { return pipe2(Fds, O_CLOEXEC) == 0; }

} // namespace

std::string ProcessResult::describeEnd() const {
  if (!LaunchError.empty())
    return "could not start: " + LaunchError;
  if (TimedOut) {
    std::ostringstream Text;
    Text << "timed out after " << WallSeconds << " s and was killed";
    return Text.str();
  }
  if (Signal)
    return "killed by signal " + std::to_string(*Signal) + " (" +
           strsignal(*Signal) + ")";
  if (ExitCode)
    return "exit code " + std::to_string(*ExitCode);
  return "ended in an unknown state";
}

std::string lastLines(const std::string &Text, size_t Count) {
  size_t Position = Text.size();
  while (Position > 0 && Text[Position - 1] == '\n')
    --Position;
  size_t End = Position;
  for (size_t Seen = 0; Position > 0; --Position)
    if (Text[Position - 1] == '\n' && ++Seen == Count)
      break;
  return Text.substr(Position, End - Position);
}

std::optional<std::string> findProgram(const std::string &Name) {
  if (Name.find('/') != std::string::npos)
    return access(Name.c_str(), X_OK) == 0 ? std::optional<std::string>(Name)
                                           : std::nullopt;
  const char *Path = std::getenv("PATH");
  std::stringstream Dirs(Path ? Path : "/usr/bin:/bin");
  std::string Dir;
  while (std::getline(Dirs, Dir, ':')) {
    std::string Candidate = (Dir.empty() ? "." : Dir) + "/" + Name;
    if (access(Candidate.c_str(), X_OK) == 0)
      return Candidate;
  }
  return std::nullopt;
}

ProcessResult runProcess(const ProcessSpec &Spec) {
  ProcessResult Result;
  if (Spec.Argv.empty()) {
    Result.LaunchError = "no program given";
    return Result;
  }
  std::string Program = resolveProgram(Spec.Argv[0]);
  std::vector<std::string> ArgStrings = Spec.Argv;
  std::vector<std::string> EnvStrings = buildEnvironment(Spec);
  std::vector<char *> Argv = pointersTo(ArgStrings);
  std::vector<char *> Envp = pointersTo(EnvStrings);

  int OutPipe[2], ErrPipe[2], ErrorPipe[2];
  if (!makePipe(OutPipe) || !makePipe(ErrPipe) || !makePipe(ErrorPipe)) {
    Result.LaunchError = std::string("pipe: ") + strerror(errno);
    return Result;
  }

  Clock::time_point Start = Clock::now();
  pid_t Child = fork();
  if (Child < 0) {
    Result.LaunchError = std::string("fork: ") + strerror(errno);
    for (int *Pair : {OutPipe, ErrPipe, ErrorPipe}) {
      close(Pair[0]);
      close(Pair[1]);
    }
    return Result;
  }
  if (Child == 0)
    execChild(Program.c_str(), Argv.data(), Envp.data(),
              Spec.WorkingDirectory.c_str(), OutPipe[1], ErrPipe[1],
              ErrorPipe[1]);

  // Also set the group from the parent, so a kill right after fork finds it.
  setpgid(Child, Child);
  close(OutPipe[1]);
  close(ErrPipe[1]);
  close(ErrorPipe[1]);

  int ExecError = 0;
  ssize_t Got;
  do
    Got = read(ErrorPipe[0], &ExecError, sizeof(ExecError));
  while (Got < 0 && errno == EINTR);
  close(ErrorPipe[0]);
  if (Got == ssize_t(sizeof(ExecError))) {
    int Status;
    waitpid(Child, &Status, 0);
    close(OutPipe[0]);
    close(ErrPipe[0]);
    Result.LaunchError = Spec.Argv[0] + ": " + strerror(ExecError);
    return Result;
  }

  superviseChild(Child, OutPipe[0], ErrPipe[0], Spec, Start, Result);
  return Result;
}

ProcessResult runShellCommand(const std::string &Command,
                              const std::string &WorkingDirectory,
                              std::optional<double> TimeoutSeconds) {
  ProcessSpec Spec;
  Spec.Argv = {"/bin/sh", "-c", Command};
  Spec.WorkingDirectory = WorkingDirectory;
  Spec.TimeoutSeconds = TimeoutSeconds;
  return runProcess(Spec);
}

} // namespace support
} // namespace forgestencil
