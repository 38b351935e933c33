//===- HostInfo.cpp - The GPU, driver and compiler a measurement ran on ---===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Support/HostInfo.h"

#include "forgestencil/Support/ProcessRunner.h"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace forgestencil {
namespace support {

namespace {

/// Queries must not hang a measurement when the driver is wedged.
constexpr double QueryTimeoutSeconds = 30;

std::string trim(const std::string &Text) {
  size_t Begin = Text.find_first_not_of(" \t\r\n");
  if (Begin == std::string::npos)
    return "";
  size_t End = Text.find_last_not_of(" \t\r\n");
  return Text.substr(Begin, End - Begin + 1);
}

std::vector<std::string> splitCsvLine(const std::string &Line) {
  std::vector<std::string> Fields;
  std::stringstream Stream(Line);
  std::string Field;
  while (std::getline(Stream, Field, ','))
    Fields.push_back(trim(Field));
  return Fields;
}

/// The output of a query that succeeded, or none.
std::optional<std::string> runQuery(std::vector<std::string> Argv) {
  ProcessSpec Spec;
  Spec.Argv = std::move(Argv);
  Spec.TimeoutSeconds = QueryTimeoutSeconds;
  ProcessResult Result = runProcess(Spec);
  if (!Result.succeeded())
    return std::nullopt;
  return Result.Stdout;
}

} // namespace

std::optional<GpuInfo> parseGpuQueryOutput(const std::string &Output) {
  std::stringstream Lines(Output);
  std::string Line;
  while (std::getline(Lines, Line)) {
    std::vector<std::string> Fields = splitCsvLine(Line);
    if (Fields.size() < 2 || Fields[0].empty() || Fields[1].empty())
      continue;
    // A GPU name can hold no comma, so the driver is the last field.
    GpuInfo Info;
    Info.Name = Fields[0];
    Info.Driver = Fields.back();
    return Info;
  }
  return std::nullopt;
}

std::string parseNvccVersion(const std::string &Output) {
  std::smatch Match;
  static const std::regex Full(R"(release [0-9.]+, V([0-9][0-9.]*))");
  if (std::regex_search(Output, Match, Full))
    return Match[1].str();
  static const std::regex Short(R"(release ([0-9][0-9.]*))");
  if (std::regex_search(Output, Match, Short))
    return Match[1].str();
  return UnknownValue;
}

std::optional<std::string> pickIdlestGpu(const std::string &Output) {
  std::optional<std::string> Best;
  double BestUtilisation = 0, BestMemory = 0;
  std::stringstream Lines(Output);
  std::string Line;
  while (std::getline(Lines, Line)) {
    std::vector<std::string> Fields = splitCsvLine(Line);
    if (Fields.size() != 3 || Fields[0].empty())
      continue;
    char *End = nullptr;
    double Utilisation = std::strtod(Fields[1].c_str(), &End);
    if (End == Fields[1].c_str())
      continue;
    double Memory = std::strtod(Fields[2].c_str(), &End);
    if (End == Fields[2].c_str())
      continue;
    bool Better = !Best || Utilisation < BestUtilisation ||
                  (Utilisation == BestUtilisation && Memory < BestMemory);
    if (!Better)
      continue;
    Best = Fields[0];
    BestUtilisation = Utilisation;
    BestMemory = Memory;
  }
  return Best;
}

GpuInfo queryGpu(const std::string &Device) {
  std::vector<std::string> Argv = {"nvidia-smi",
                                   "--query-gpu=name,driver_version",
                                   "--format=csv,noheader"};
  if (!Device.empty()) {
    Argv.push_back("-i");
    Argv.push_back(Device);
  }
  std::optional<std::string> Output = runQuery(Argv);
  if (!Output)
    return GpuInfo();
  return parseGpuQueryOutput(*Output).value_or(GpuInfo());
}

std::optional<std::string> queryIdlestGpu() {
  std::optional<std::string> Output =
      runQuery({"nvidia-smi", "--query-gpu=index,utilization.gpu,memory.used",
                "--format=csv,noheader,nounits"});
  if (!Output)
    return std::nullopt;
  return pickIdlestGpu(*Output);
}

std::string queryNvccVersion() {
  std::vector<std::string> Candidates = {"nvcc"};
  if (const char *CudaPath = std::getenv("CUDA_PATH"))
    Candidates.push_back(std::string(CudaPath) + "/bin/nvcc");
  Candidates.push_back("/usr/local/cuda/bin/nvcc");
  for (const std::string &Nvcc : Candidates) {
    std::optional<std::string> Output = runQuery({Nvcc, "--version"});
    if (Output)
      return parseNvccVersion(*Output);
  }
  return UnknownValue;
}

} // namespace support
} // namespace forgestencil
