//===- ProcessRunnerTest.cpp - Child processes, environment, time limits --===//

#include "forgestencil/Support/ProcessRunner.h"

#include <gtest/gtest.h>

#include <csignal>

using namespace forgestencil::support;

namespace {

TEST(ProcessRunnerTest, CapturesStdoutAndStderrSeparately) {
  ProcessResult Result =
      runShellCommand("echo to-out; echo to-err >&2; exit 0");
  ASSERT_TRUE(Result.succeeded()) << Result.describeEnd();
  EXPECT_EQ(Result.Stdout, "to-out\n");
  EXPECT_EQ(Result.Stderr, "to-err\n");
}

TEST(ProcessRunnerTest, ReportsExitCode) {
  ProcessResult Result = runShellCommand("exit 3");
  EXPECT_FALSE(Result.succeeded());
  ASSERT_TRUE(Result.ExitCode);
  EXPECT_EQ(*Result.ExitCode, 3);
  EXPECT_EQ(Result.describeEnd(), "exit code 3");
}

TEST(ProcessRunnerTest, ReportsSignal) {
  ProcessResult Result = runShellCommand("kill -SEGV $$");
  EXPECT_FALSE(Result.succeeded());
  ASSERT_TRUE(Result.Signal);
  EXPECT_EQ(*Result.Signal, SIGSEGV);
  EXPECT_NE(Result.describeEnd().find("killed by signal 11"), std::string::npos);
}

TEST(ProcessRunnerTest, SetsAndRemovesEnvironment) {
  setenv("FS_RUNNER_TEST_REMOVED", "present", 1);
  ProcessSpec Spec;
  Spec.Argv = {"sh", "-c",
               "echo \"$USE_OURS|${FS_RUNNER_TEST_REMOVED:-unset}\""};
  Spec.EnvOverrides["USE_OURS"] = "1";
  Spec.EnvRemovals.push_back("FS_RUNNER_TEST_REMOVED");
  ProcessResult Result = runProcess(Spec);
  ASSERT_TRUE(Result.succeeded()) << Result.describeEnd();
  EXPECT_EQ(Result.Stdout, "1|unset\n");
  unsetenv("FS_RUNNER_TEST_REMOVED");
}

TEST(ProcessRunnerTest, RunsInTheWorkingDirectory) {
  ProcessSpec Spec;
  Spec.Argv = {"pwd"};
  Spec.WorkingDirectory = "/";
  ProcessResult Result = runProcess(Spec);
  ASSERT_TRUE(Result.succeeded());
  EXPECT_EQ(Result.Stdout, "/\n");
}

TEST(ProcessRunnerTest, KillsTheWholeGroupOnTimeout) {
  // The shell waits on a child sleep: killing only the shell would leave the
  // sleep holding the pipes open.
  ProcessResult Result = runShellCommand("echo started; sleep 30; echo never",
                                         "", 0.3);
  EXPECT_TRUE(Result.TimedOut);
  EXPECT_FALSE(Result.succeeded());
  EXPECT_EQ(Result.Stdout, "started\n");
  EXPECT_LT(Result.WallSeconds, 5.0);
  EXPECT_NE(Result.describeEnd().find("timed out"), std::string::npos);
}

TEST(ProcessRunnerTest, ReportsAMissingProgram) {
  ProcessSpec Spec;
  Spec.Argv = {"/nonexistent/program"};
  ProcessResult Result = runProcess(Spec);
  EXPECT_FALSE(Result.succeeded());
  EXPECT_NE(Result.LaunchError.find("No such file"), std::string::npos);
  EXPECT_NE(Result.describeEnd().find("could not start"), std::string::npos);
}

TEST(ProcessRunnerTest, ReportsAMissingWorkingDirectory) {
  ProcessSpec Spec;
  Spec.Argv = {"true"};
  Spec.WorkingDirectory = "/nonexistent/dir";
  ProcessResult Result = runProcess(Spec);
  EXPECT_FALSE(Result.succeeded());
  EXPECT_FALSE(Result.LaunchError.empty());
}

TEST(ProcessRunnerTest, CollectsLargeOutput) {
  ProcessResult Result = runShellCommand("head -c 300000 /dev/zero | tr '\\0' x");
  ASSERT_TRUE(Result.succeeded());
  EXPECT_EQ(Result.Stdout.size(), 300000u);
}

TEST(ProcessRunnerTest, LastLines) {
  EXPECT_EQ(lastLines("a\nb\nc\n\n", 2), "b\nc");
  EXPECT_EQ(lastLines("a\nb", 5), "a\nb");
  EXPECT_EQ(lastLines("only", 1), "only");
  EXPECT_EQ(lastLines("", 3), "");
}

TEST(ProcessRunner, FindProgramSearchesPathOrTakesAPath) {
  std::optional<std::string> Sh = findProgram("sh");
  ASSERT_TRUE(Sh);
  EXPECT_EQ(Sh->substr(Sh->size() - 3), "/sh");
  EXPECT_EQ(findProgram(*Sh), Sh);
  EXPECT_FALSE(findProgram("fs-no-such-program"));
  EXPECT_FALSE(findProgram("/nonexistent/fs-no-such-program"));
}

} // namespace
