//===- RunLogTest.cpp - The audit transcript ------------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "TempDir.h"

#include "forgestencil/Agents/Redaction.h"
#include "forgestencil/Agents/RunLog.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;
using namespace forgestencil::agents::test;
using nlohmann::json;

namespace {

TEST(RunLogTest, WritesNumberedRecords) {
  TempDir Dir;
  Result<RunLog> Log = RunLog::open(Dir.path() + "/runs/heat", "sk-secret-000");
  ASSERT_TRUE(Log) << Log.error();
  ASSERT_TRUE(Log->record("request", {{"prompt", "write a kernel"}}));
  ASSERT_TRUE(Log->record("response", {{"content", "```cuda\n```"}}));
  ASSERT_TRUE(Log->record("verdict", {{"verified", true}, {"max_error", 0.0}}));
  Result<std::string> Last = Log->record("measurement", {{"median_ms", 0.42}});
  ASSERT_TRUE(Last);
  EXPECT_EQ(*Last, Dir.path() + "/runs/heat/0004-measurement.json");

  std::vector<std::string> Files = Dir.filesUnder("runs/heat");
  EXPECT_EQ(Files, (std::vector<std::string>{"0001-request.json", "0002-response.json",
                                             "0003-verdict.json",
                                             "0004-measurement.json"}));
  json Verdict = json::parse(Dir.read("runs/heat/0003-verdict.json"));
  EXPECT_EQ(Verdict["index"], 3);
  EXPECT_EQ(Verdict["kind"], "verdict");
  EXPECT_EQ(Verdict["payload"]["verified"], true);
  EXPECT_TRUE(Verdict["time"].is_string());
}

TEST(RunLogTest, ResumedRunContinuesTheNumbering) {
  TempDir Dir;
  {
    Result<RunLog> Log = RunLog::open(Dir.path(), "");
    ASSERT_TRUE(Log->record("request", json::object()));
    ASSERT_TRUE(Log->record("response", json::object()));
  }
  Result<RunLog> Again = RunLog::open(Dir.path(), "");
  ASSERT_TRUE(Again);
  EXPECT_EQ(Again->nextIndex(), 3);
  EXPECT_EQ(*Again->record("odd kind/../x", json::object()),
            Dir.path() + "/0003-odd_kind____x.json");
}

TEST(RunLogTest, SecretIsRedactedEverywhere) {
  TempDir Dir;
  const std::string Key = "sk-proj-AbCdEf0123456789";
  Result<RunLog> Log = RunLog::open(Dir.path(), Key);
  ASSERT_TRUE(Log);
  ASSERT_TRUE(Log->record("error", {{"message", "bad key " + Key},
                                    {Key, {"nested " + Key, 3}},
                                    {"header", "Authorization: Bearer other-token-1"}}));
  std::string Text = Dir.read("0001-error.json");
  EXPECT_EQ(Text.find(Key), std::string::npos) << Text;
  EXPECT_EQ(Text.find("other-token-1"), std::string::npos) << Text;
  EXPECT_NE(Text.find("[REDACTED]"), std::string::npos);
}

TEST(RedactionTest, TextAndBearerTokens) {
  EXPECT_EQ(redactSecret("key=abc123 and abc123", "abc123"),
            "key=[REDACTED] and [REDACTED]");
  EXPECT_EQ(redactSecret("Authorization: Bearer xyz.987", ""),
            "Authorization: Bearer [REDACTED]");
  EXPECT_EQ(redactSecret("nothing secret", "abc123"), "nothing secret");
}

TEST(RunLogTest, UnwritableDirectoryIsAnError) {
  TempDir Dir;
  std::string File = Dir.path() + "/file";
  std::ofstream(File) << "x";
  Result<RunLog> Log = RunLog::open(File + "/sub", "");
  ASSERT_FALSE(Log);
  EXPECT_NE(Log.error().find("cannot create the run directory"), std::string::npos);
}

} // namespace
