//===- AppSpecTest.cpp - app.json parsing and validation ------------------===//

#include "forgestencil/Harness/AppSpec.h"

#include <gtest/gtest.h>

using namespace forgestencil::harness;

namespace {

const char *CompleteApp = R"json({
  "name": "rtm",
  "source": {"kind": "in-tree", "path": "apps/rtm/src"},
  "build": ["cmake -S ${SRC_DIR} -B ${BUILD_DIR}", "cmake --build ${BUILD_DIR}"],
  "binary": "bin/rtm",
  "run": {"full": ["--nx", "512"], "small": ["--nx", "64"]},
  "timer": {"regex": "loop_ms=([0-9.]+)", "unit": "ms"},
  "check": {"regex": "CHECK (\\w+)", "pass": "PASS"},
  "output": ["--out", "${OUT_FILE}"],
  "kernels": ["fd_step", "inject"],
  "compile_commands": "build/compile_commands.json"
})json";

TEST(AppSpecTest, ParsesEveryField) {
  Expected<AppSpec> Spec = parseAppSpec(CompleteApp, "app.json");
  ASSERT_TRUE(Spec) << Spec.error();
  EXPECT_EQ(Spec->Name, "rtm");
  EXPECT_EQ(Spec->SourceKind, "in-tree");
  EXPECT_EQ(Spec->BuildCommands.size(), 2u);
  EXPECT_EQ(Spec->Binary, "bin/rtm");
  EXPECT_EQ(Spec->FullArgs, (std::vector<std::string>{"--nx", "512"}));
  ASSERT_TRUE(Spec->SmallArgs);
  EXPECT_EQ(*Spec->SmallArgs, (std::vector<std::string>{"--nx", "64"}));
  EXPECT_EQ(Spec->Timer.Unit, "ms");
  EXPECT_EQ(Spec->Check.PassWord, "PASS");
  ASSERT_TRUE(Spec->OutputArgs);
  EXPECT_EQ(Spec->Kernels, (std::vector<std::string>{"fd_step", "inject"}));
  EXPECT_EQ(Spec->CompileCommands, "build/compile_commands.json");
}

TEST(AppSpecTest, OptionalFieldsMayBeMissing) {
  Expected<AppSpec> Spec = parseAppSpec(R"json({
    "name": "tiny", "binary": "tiny",
    "run": {"full": []},
    "timer": {"regex": "T=(\\d+)"},
    "check": {"regex": "C=(\\w+)"}
  })json", "tiny.json");
  ASSERT_TRUE(Spec) << Spec.error();
  EXPECT_TRUE(Spec->BuildCommands.empty());
  EXPECT_FALSE(Spec->SmallArgs);
  EXPECT_FALSE(Spec->OutputArgs);
  EXPECT_TRUE(Spec->Kernels.empty());
  EXPECT_EQ(Spec->Timer.Unit, "ms");
  EXPECT_EQ(Spec->Check.PassWord, "PASS");
}

/// The error for \p Text, which must fail to parse.
std::string errorFor(const std::string &Text) {
  Expected<AppSpec> Spec = parseAppSpec(Text, "apps/x/app.json");
  EXPECT_FALSE(Spec);
  return Spec ? "" : Spec.error();
}

TEST(AppSpecTest, ErrorsNameTheFileAndField) {
  EXPECT_EQ(errorFor("{ nope"), "apps/x/app.json: not valid JSON");
  EXPECT_EQ(errorFor("[]"),
            "apps/x/app.json: expected a JSON object at the top level");
  EXPECT_EQ(errorFor(R"json({"binary": "b", "run": {"full": []},
                        "timer": {"regex": "(x)"}, "check": {"regex": "(x)"}})json"),
            "apps/x/app.json: field 'name': missing");
  EXPECT_EQ(errorFor(R"json({"name": "x", "binary": 3, "run": {"full": []},
                        "timer": {"regex": "(x)"}, "check": {"regex": "(x)"}})json"),
            "apps/x/app.json: field 'binary': expected a string, found number");
  EXPECT_EQ(errorFor(R"json({"name": "x", "binary": "b", "run": {"small": []},
                        "timer": {"regex": "(x)"}, "check": {"regex": "(x)"}})json"),
            "apps/x/app.json: field 'run.full': missing");
  EXPECT_EQ(errorFor(R"json({"name": "x", "binary": "b", "run": {"full": ["a", 1]},
                        "timer": {"regex": "(x)"}, "check": {"regex": "(x)"}})json"),
            "apps/x/app.json: field 'run.full[1]': expected a string, found number");
  EXPECT_EQ(errorFor(R"json({"name": "x", "binary": "b", "run": {"full": []},
                        "timer": "(x)", "check": {"regex": "(x)"}})json"),
            "apps/x/app.json: field 'timer': expected an object, found string");
}

TEST(AppSpecTest, RejectsBadPatternsAndUnits) {
  std::string Base = R"json({"name": "x", "binary": "b", "run": {"full": []}, )json";
  EXPECT_NE(errorFor(Base + R"json("timer": {"regex": "T=([0-9"},
                                "check": {"regex": "(x)"}})json")
                .find("field 'timer.regex': invalid regular expression"),
            std::string::npos);
  EXPECT_NE(errorFor(Base + R"json("timer": {"regex": "T=[0-9]+"},
                                "check": {"regex": "(x)"}})json")
                .find("no capture group"),
            std::string::npos);
  EXPECT_NE(errorFor(Base + R"json("timer": {"regex": "(x)", "unit": "hours"},
                                "check": {"regex": "(x)"}})json")
                .find("field 'timer.unit': unknown time unit 'hours'"),
            std::string::npos);
  EXPECT_NE(errorFor(Base + R"json("timer": {"regex": "(x)"},
                                "check": {"regex": "(x)"},
                                "output_type": "int8"})json")
                .find("field 'output_type': unknown output element type 'int8'"),
            std::string::npos);
  EXPECT_NE(errorFor(Base + R"json("timer": {"regex": "(x)"},
                                "check": {"regex": "(x)"},
                                "output": ["--out", "result.bin"]})json")
                .find("field 'output': no argument contains ${OUT_FILE}"),
            std::string::npos);
}

TEST(AppSpecTest, LoadReportsAnUnreadableFile) {
  Expected<AppSpec> Spec = loadAppSpec("/nonexistent/app.json");
  ASSERT_FALSE(Spec);
  EXPECT_EQ(Spec.error(), "/nonexistent/app.json: cannot be read");
}

TEST(AppSpecTest, ExpandsKnownPlaceholdersOnly) {
  PlaceholderValues Values = {{"SRC_DIR", "/src"}, {"BUILD_DIR", "/b"}};
  EXPECT_EQ(expandPlaceholders("cmake -S ${SRC_DIR} -B ${BUILD_DIR}", Values),
            "cmake -S /src -B /b");
  EXPECT_EQ(expandPlaceholders("echo ${HOME} ${SRC_DIR}/x", Values),
            "echo ${HOME} /src/x");
  EXPECT_EQ(expandPlaceholders("unterminated ${SRC_DIR", Values),
            "unterminated ${SRC_DIR");
  EXPECT_EQ(expandPlaceholders("", Values), "");
}

} // namespace
