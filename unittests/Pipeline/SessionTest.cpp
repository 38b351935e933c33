//===- SessionTest.cpp - fs-rewrite's checks before any analysis ----------===//

#include "forgestencil/Pipeline/Session.h"

#include <gtest/gtest.h>

using namespace forgestencil;

namespace {

struct Started {
  std::string Out, Err;
  int Exit = -1;
};

/// start() of a session with \p O, what it said and its exit code.
Started start(pipeline::Options O) {
  Started R;
  llvm::raw_string_ostream Out(R.Out), Err(R.Err);
  pipeline::Session S(std::move(O), Out, Err);
  R.Exit = S.start();
  return R;
}

TEST(Session, BadTuneAndCpuCheckModesAreUsageErrors) {
  pipeline::Options O;
  O.Tune = "sometimes";
  Started R = start(O);
  EXPECT_EQ(R.Exit, pipeline::ExitUsage);
  EXPECT_NE(R.Err.find("--tune must be auto, always or never, not "
                       "'sometimes'"),
            std::string::npos)
      << R.Err;
  O.Tune = "auto";
  O.CpuCheck = "maybe";
  R = start(O);
  EXPECT_EQ(R.Exit, pipeline::ExitUsage);
  EXPECT_NE(R.Err.find("--cpu-check must be auto, always or never, not "
                       "'maybe'"),
            std::string::npos)
      << R.Err;
}

TEST(Session, NothingToTuneWithoutAPatchOrWithResults) {
  pipeline::Options O;
  O.Tune = "always";
  O.FsTune = "/nonexistent/fs-tune";
  // No patch asked for: no tuning, whatever --tune says.
  Started R = start(O);
  EXPECT_EQ(R.Exit, 0);
  EXPECT_EQ(R.Err, "");
  // Results given: they are patched, not tuned again.
  O.ToStdout = true;
  O.TuningResults = "results.json";
  EXPECT_EQ(start(O).Exit, 0);
  // The reference strategy needs no tuning either.
  O.TuningResults.clear();
  O.Strategy = "reference";
  EXPECT_EQ(start(O).Exit, 0);
}

TEST(Session, TuningNeedsAnFsTuneThatRuns) {
  pipeline::Options O;
  O.ToStdout = true;
  O.Tune = "always";
  O.FsTune = "/nonexistent/fs-tune";
  Started R = start(O);
  EXPECT_EQ(R.Exit, pipeline::ExitNotAnalysed);
  EXPECT_NE(R.Err.find("--tune always: no fs-tune at '/nonexistent/fs-tune' "
                       "(give --fs-tune PATH, or --tune never)"),
            std::string::npos)
      << R.Err;
  // Without --fs-tune, the one beside this program.
  O.FsTune.clear();
  O.MainExecutable = "/nonexistent/bin/fs-rewrite";
  R = start(O);
  EXPECT_NE(R.Err.find("no fs-tune at '/nonexistent/bin/fs-tune'"),
            std::string::npos)
      << R.Err;
}

} // namespace
