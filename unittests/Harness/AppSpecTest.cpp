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
  ASSERT_TRUE(Spec->Check);
  EXPECT_EQ(Spec->Check->PassWord, "PASS");
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
  ASSERT_TRUE(Spec->Check);
  EXPECT_EQ(Spec->Check->PassWord, "PASS");
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
                .find("field 'output': no argument contains ${OUT_FILE} or ${OUT_DIR}"),
            std::string::npos);
}

TEST(AppSpecTest, ReadsVariantsAndAppliesThem) {
  Expected<AppSpec> Spec = parseAppSpec(R"json({
    "name": "jac", "binary": "jac-${VARIANT}",
    "build": ["nvcc -DN=${N} -o ${BUILD_DIR}/jac-${VARIANT} jac.cu"],
    "run": {"full": ["${N}", "100"], "check": ["${N}", "5", "--check"]},
    "timer": {"regex": "T=(\\d+)"},
    "check": {"regex": "C=(\\w+)"},
    "output": ["--out", "${OUT_FILE}"],
    "variants": [
      {"name": "n1024", "vars": {"N": "1024"}},
      {"name": "n4096", "vars": {"N": "4096"}, "run": {"full": ["4096", "10"]}}
    ]
  })json", "jac.json");
  ASSERT_TRUE(Spec) << Spec.error();
  ASSERT_EQ(Spec->Variants.size(), 2u);
  AppSpec Small = applyVariant(*Spec, Spec->Variants[0]);
  EXPECT_TRUE(Small.Variants.empty());
  EXPECT_EQ(Small.Binary, "jac-n1024");
  EXPECT_EQ(Small.BuildCommands.front(),
            "nvcc -DN=1024 -o ${BUILD_DIR}/jac-n1024 jac.cu");
  EXPECT_EQ(Small.FullArgs, (std::vector<std::string>{"1024", "100"}));
  EXPECT_EQ(*Small.CheckArgs, (std::vector<std::string>{"1024", "5", "--check"}));
  EXPECT_EQ(Small.OutputArgs->back(), "${OUT_FILE}");
  AppSpec Large = applyVariant(*Spec, Spec->Variants[1]);
  EXPECT_EQ(Large.FullArgs, (std::vector<std::string>{"4096", "10"}));
  EXPECT_EQ(*Large.CheckArgs, (std::vector<std::string>{"4096", "5", "--check"}));
}

TEST(AppSpecTest, RejectsBadVariants) {
  std::string Base = R"json({"name": "x", "binary": "b", "run": {"full": []},
                             "timer": {"regex": "(x)"}, "check": {"regex": "(x)"}, )json";
  EXPECT_EQ(errorFor(Base + R"json("variants": []})json"),
            "apps/x/app.json: field 'variants': expected a non-empty list of objects");
  EXPECT_EQ(errorFor(Base + R"json("variants": [{"vars": {}}]})json"),
            "apps/x/app.json: field 'variants[0].name': missing");
  EXPECT_EQ(errorFor(Base + R"json("variants": [{"name": "a b"}]})json"),
            "apps/x/app.json: field 'variants[0].name': 'a b' is not a name of "
            "letters, digits, '.', '_' and '-'");
  EXPECT_EQ(errorFor(Base + R"json("variants": [{"name": "a"}, {"name": "a"}]})json"),
            "apps/x/app.json: field 'variants[1].name': 'a' is used twice");
  EXPECT_EQ(errorFor(Base + R"json("variants": [{"name": "a", "vars": {"BUILD_DIR": "/x"}}]})json"),
            "apps/x/app.json: field 'variants[0].vars.BUILD_DIR': ${BUILD_DIR} "
            "is the harness's own");
  EXPECT_EQ(errorFor(Base + R"json("variants": [{"name": "a", "vars": {"N": 4}}]})json"),
            "apps/x/app.json: field 'variants[0].vars.N': expected a string, found number");
}

TEST(AppSpecTest, ChecksAndOutputs) {
  std::string Base = R"json({"name": "x", "binary": "b", "run": {"full": []},
                             "timer": {"regex": "(x)"}, )json";
  Expected<AppSpec> Numeric = parseAppSpec(
      Base + R"json("check": {"regex": "err=(\\S+)", "max": 1e-6}})json", "x");
  ASSERT_TRUE(Numeric) << Numeric.error();
  EXPECT_TRUE(Numeric->Check->isNumeric());
  EXPECT_EQ(*Numeric->Check->Max, 1e-6);
  EXPECT_EQ(Numeric->Check->describeRule(), "<= 1e-06");
  EXPECT_EQ(errorFor(Base + R"json("check": {"regex": "(x)", "max": "small"}})json"),
            "apps/x/app.json: field 'check.max': expected a number, found string");
  EXPECT_EQ(errorFor(Base + R"json("check": {"regex": "(x)", "min": 2, "max": 1}})json"),
            "apps/x/app.json: field 'check.min': is larger than check.max");
  EXPECT_EQ(errorFor(Base + R"json("check": {"regex": "(x)", "pass": "OK", "max": 1}})json"),
            "apps/x/app.json: field 'check.pass': a numeric check "
            "(check.min/check.max) has no pass word");

  Expected<AppSpec> Dir = parseAppSpec(
      Base + R"json("output": ["-o", "${OUT_DIR}/"], "output_max_rel": 1e-9})json", "x");
  ASSERT_TRUE(Dir) << Dir.error();
  EXPECT_FALSE(Dir->Check);
  EXPECT_TRUE(Dir->OutputIsDirectory);
  EXPECT_EQ(*Dir->OutputMaxRelDiff, 1e-9);
  EXPECT_EQ(errorFor(Base + R"json("output": ["${OUT_DIR}", "${OUT_FILE}"]})json"),
            "apps/x/app.json: field 'output': uses both ${OUT_FILE} and "
            "${OUT_DIR}; an app writes either one file or a directory");
  EXPECT_EQ(errorFor(Base + R"json("output": ["${OUT_FILE}"], "output_max_rel": -1})json"),
            "apps/x/app.json: field 'output_max_rel': must not be negative");
  EXPECT_EQ(errorFor(Base + R"json("output": ["${OUT_FILE}"],
                                   "run": {"full": [], "check": ["-c"]}})json"),
            "apps/x/app.json: field 'run.check': a check run needs 'check' to judge it");
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
