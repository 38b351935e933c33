//===- RegistryTest.cpp - Merging and writing the integration registry ----===//

#include "forgestencil/Harness/Registry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace forgestencil::harness;
using nlohmann::json;

namespace {

json entry(const std::string &App, std::vector<std::string> Kernels,
           const std::string &Gpu, double Speedup) {
  return json{{"app", App},
              {"kernels", Kernels},
              {"gpu", {{"name", Gpu}, {"driver", "550.1"}}},
              {"status", "pass"},
              {"speedup", {{"median", Speedup}}}};
}

TEST(RegistryTest, KeyIgnoresKernelOrder) {
  EXPECT_EQ(*registryKey(entry("rtm", {"a", "b"}, "H100", 1)),
            *registryKey(entry("rtm", {"b", "a"}, "H100", 2)));
  EXPECT_NE(*registryKey(entry("rtm", {"a"}, "H100", 1)),
            *registryKey(entry("rtm", {"a"}, "A100", 1)));
  EXPECT_NE(*registryKey(entry("rtm", {"a"}, "H100", 1)),
            *registryKey(entry("rtm", {"a", "b"}, "H100", 1)));
  EXPECT_FALSE(registryKey(json{{"app", "rtm"}}));
}

TEST(RegistryTest, EachVariantHasItsOwnKey) {
  json Plain = entry("jac", {"k"}, "H200", 1);
  json Small = Plain, Large = Plain;
  Small["variant"] = "n1024";
  Large["variant"] = "n4096";
  EXPECT_NE(*registryKey(Small), *registryKey(Large));
  EXPECT_NE(*registryKey(Small), *registryKey(Plain));
  // An entry without a variant keeps the key it always had.
  EXPECT_EQ(*registryKey(Plain), R"(["jac",["k"],"H200"])");
  json Bad = Plain;
  Bad["variant"] = 3;
  EXPECT_FALSE(registryKey(Bad));

  json Registry = makeEmptyRegistry();
  ASSERT_TRUE(mergeRegistryEntry(Registry, Small));
  ASSERT_TRUE(mergeRegistryEntry(Registry, Large));
  ASSERT_TRUE(mergeRegistryEntry(Registry, Small));
  EXPECT_EQ(Registry["entries"].size(), 2u);
}

TEST(RegistryTest, RecordFilesOfVariants) {
  json One = {{"app", "a"}};
  EXPECT_EQ(runRecordsOfFile(One)->size(), 1u);
  json Two = {{"app", "a"},
              {"variants", {{{"variant", "x"}}, {{"variant", "y"}}}}};
  EXPECT_EQ(runRecordsOfFile(Two)->size(), 2u);
  EXPECT_FALSE(runRecordsOfFile(json{{"variants", json::array()}}));
  EXPECT_FALSE(runRecordsOfFile(json{{"variants", {{{"app", "a"}}}}}));
}

TEST(RegistryTest, MergeKeepsOtherEntriesAndReplacesTheSameKey) {
  json Registry = makeEmptyRegistry();
  ASSERT_TRUE(mergeRegistryEntry(Registry, entry("rtm", {"a"}, "H100", 1.5)));
  ASSERT_TRUE(mergeRegistryEntry(Registry, entry("fdtd", {"e", "h"}, "H100", 2)));
  ASSERT_TRUE(mergeRegistryEntry(Registry, entry("rtm", {"a"}, "A100", 1.2)));
  ASSERT_EQ(Registry["entries"].size(), 3u);

  ASSERT_TRUE(mergeRegistryEntry(Registry, entry("rtm", {"a"}, "H100", 1.8)));
  const json &Entries = Registry["entries"];
  ASSERT_EQ(Entries.size(), 3u);
  int Seen = 0;
  for (const json &E : Entries) {
    if (E["app"] == "rtm" && E["gpu"]["name"] == "H100") {
      EXPECT_EQ(E["speedup"]["median"], 1.8);
      ++Seen;
    }
    if (E["app"] == "fdtd") {
      EXPECT_EQ(E["speedup"]["median"], 2);
    }
    if (E["gpu"]["name"] == "A100") {
      EXPECT_EQ(E["speedup"]["median"], 1.2);
    }
  }
  EXPECT_EQ(Seen, 1);
  // Sorted by key: fdtd before rtm.
  EXPECT_EQ(Entries[0]["app"], "fdtd");
}

TEST(RegistryTest, MergeKeepsEntriesItCannotKey) {
  json Registry = makeEmptyRegistry();
  Registry["entries"].push_back(json{{"note", "hand-written"}});
  ASSERT_TRUE(mergeRegistryEntry(Registry, entry("rtm", {"a"}, "H100", 1)));
  EXPECT_EQ(Registry["entries"].size(), 2u);
}

TEST(RegistryTest, MergeRejectsAnEntryWithoutKey) {
  json Registry = makeEmptyRegistry();
  EXPECT_FALSE(mergeRegistryEntry(Registry, json{{"app", "rtm"}}));
  EXPECT_TRUE(Registry["entries"].empty());
}

TEST(RegistryTest, ParseRejectsForeignFiles) {
  EXPECT_TRUE(parseRegistry("", "r.json"));
  EXPECT_FALSE(parseRegistry("{", "r.json"));
  Expected<json> Foreign = parseRegistry(R"({"entries": []})", "r.json");
  ASSERT_FALSE(Foreign);
  EXPECT_NE(Foreign.error().find("not an integration registry"), std::string::npos);
  EXPECT_FALSE(parseRegistry(
      R"({"format": "forgestencil-integration-registry", "version": 99, "entries": []})",
      "r.json"));
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

class RegistryFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    char Template[] = "/tmp/fs-registry-XXXXXX";
    ASSERT_NE(mkdtemp(Template), nullptr);
    Dir = Template;
  }
  void TearDown() override {
    std::string Command = "rm -rf '" + Dir + "'";
    ASSERT_EQ(std::system(Command.c_str()), 0);
  }
  std::string Dir;
};

TEST_F(RegistryFileTest, UpdateCreatesThenMerges) {
  std::string Path = Dir + "/integration_registry.json";
  ASSERT_TRUE(updateRegistryFile(Path, entry("rtm", {"a"}, "H100", 1.5)));
  ASSERT_TRUE(updateRegistryFile(Path, entry("heat", {"h"}, "H100", 3)));
  ASSERT_TRUE(updateRegistryFile(Path, entry("rtm", {"a"}, "H100", 1.7)));
  json Registry = json::parse(readFile(Path));
  EXPECT_EQ(Registry["format"], RegistryFormat);
  ASSERT_EQ(Registry["entries"].size(), 2u);
  EXPECT_EQ(Registry["entries"][1]["speedup"]["median"], 1.7);
  // No temporary file is left behind.
  EXPECT_NE(access((Path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
}

TEST_F(RegistryFileTest, UpdateRefusesACorruptRegistry) {
  std::string Path = Dir + "/integration_registry.json";
  std::ofstream(Path) << "not json";
  Status Updated = updateRegistryFile(Path, entry("rtm", {"a"}, "H100", 1.5));
  ASSERT_FALSE(Updated);
  EXPECT_NE(Updated.error().find("not valid JSON"), std::string::npos);
  EXPECT_EQ(readFile(Path), "not json");
}

TEST_F(RegistryFileTest, ConcurrentWritersLoseNoEntry) {
  std::string Path = Dir + "/integration_registry.json";
  constexpr int Writers = 8;
  std::vector<pid_t> Children;
  for (int I = 0; I < Writers; ++I) {
    pid_t Child = fork();
    ASSERT_GE(Child, 0);
    if (Child == 0) {
      bool Ok = bool(updateRegistryFile(
          Path, entry("app" + std::to_string(I), {"k"}, "H100", I)));
      _exit(Ok ? 0 : 1);
    }
    Children.push_back(Child);
  }
  for (pid_t Child : Children) {
    int Status = 0;
    waitpid(Child, &Status, 0);
    EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0);
  }
  json Registry = json::parse(readFile(Path));
  EXPECT_EQ(Registry["entries"].size(), size_t(Writers));
}

} // namespace
