//===- BundleAgent.cpp - The LLM agent over every kernel of a bundle -----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/BundleAgent.h"

#include "forgestencil/Agents/RunLog.h"
#include "forgestencil/Support/ProcessRunner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace forgestencil {
namespace agents {

using nlohmann::json;

Result<std::unique_ptr<LlmClient>>
connectFromEnvironment(const AgentClientOptions &O) {
  Result<LlmConfig> Config = LlmConfig::fromEnvironment();
  if (!Config)
    return makeError(Config.error());
  // A local server may take no key; OpenAI's always wants one, and asking it
  // without one would only fail later with a less helpful message.
  if (Config->ApiKey.empty() &&
      Config->BaseUrl.find("api.openai.com") != std::string::npos)
    return makeError("no API key (set FS_LLM_API_KEY, or FS_LLM_BASE_URL for "
                     "a local server)");
  Config->OverallTimeout = O.Timeout;
  if (O.MaxTokens)
    Config->MaxTokens = O.MaxTokens;
  auto Client = std::make_unique<LlmClient>(*Config);
  if (Result<void> Reachable = Client->checkReachable(); !Reachable)
    return makeError(Reachable.error());
  return Client;
}

bool BundleAgentReport::allSucceeded() const {
  return std::all_of(Kernels.begin(), Kernels.end(),
                     [](const KernelOutcome &K) { return K.Loop.Succeeded; });
}

Result<std::vector<std::string>> bundleKernels(const std::string &BundleDir) {
  std::string Path = BundleDir + "/manifest.json";
  std::ifstream In(Path);
  if (!In)
    return makeError("cannot read " + Path + " (is " + BundleDir +
                     " a tuning bundle?)");
  json Manifest = json::parse(In, nullptr, /*allow_exceptions=*/false);
  if (Manifest.is_discarded() || !Manifest.is_object() ||
      !Manifest.contains("kernels") || !Manifest["kernels"].is_array())
    return makeError(Path + " is not a tuning bundle manifest");
  std::vector<std::string> Names;
  for (const json &K : Manifest["kernels"])
    if (K.is_object() && K.contains("name") && K["name"].is_string())
      Names.push_back(K["name"].get<std::string>());
  return Names;
}

namespace {

/// The kernels \p O asks for, checked against the bundle's \p Available.
Result<std::vector<std::string>>
chooseKernels(const BundleAgentOptions &O,
              const std::vector<std::string> &Available) {
  if (O.Kernels.empty())
    return Available;
  for (const std::string &K : O.Kernels)
    if (std::find(Available.begin(), Available.end(), K) == Available.end())
      return makeError("the bundle has no kernel '" + K + "'");
  return O.Kernels;
}

std::string describeOutcome(const GenerationLoopResult &R) {
  std::string Rounds = std::to_string(R.RoundsUsed) + " round(s)";
  return R.Succeeded ? "candidate " + R.CandidateId + " after " + Rounds
                     : "no working candidate in " + Rounds;
}

} // namespace

Result<BundleAgentReport> runAgentOnBundle(LlmClient &Client,
                                           const BundleAgentOptions &O) {
  Result<std::vector<std::string>> Available = bundleKernels(O.BundleDir);
  if (!Available)
    return makeError(Available.error());
  Result<std::vector<std::string>> Kernels = chooseKernels(O, *Available);
  if (!Kernels)
    return makeError(Kernels.error());

  BundleAgentReport Report;
  Report.RunDirectory = O.RunDir.empty() ? O.BundleDir + "/llm-run" : O.RunDir;
  Result<RunLog> Log = RunLog::open(Report.RunDirectory, Client.config().ApiKey);
  if (!Log)
    return makeError(Log.error());
  // The log lives only for this call; the client must not keep it.
  struct Recording {
    LlmClient &C;
    Recording(LlmClient &C, RunLog &L) : C(C) { C.setRunLog(&L); }
    ~Recording() { C.setRunLog(nullptr); }
  } Recorder(Client, *Log);

  auto Say = [&](const std::string &Line) {
    if (O.Messages)
      *O.Messages << O.MessagePrefix << Line << "\n";
  };
  Report.CompileOnly = O.CompileOnly;
  if (!O.CompileOnly && !gpuAvailable()) {
    Say("no GPU here: candidates are only compiled");
    Report.CompileOnly = true;
  }
  // Nsight Compute, where there is one, profiles each verified candidate
  // for the analysis step.
  std::string Ncu =
      Report.CompileOnly ? "" : support::findProgram("ncu").value_or("");
  for (const std::string &Kernel : *Kernels) {
    GenerationLoopOptions L;
    L.Ncu = Ncu;
    L.BundleDir = O.BundleDir;
    L.Kernel = Kernel;
    L.FsTune = O.FsTune;
    L.Rounds = O.Rounds;
    L.CompileOnly = Report.CompileOnly;
    L.MaxTokens = O.MaxTokens;
    L.FsTuneArgs = O.FsTuneArgs;
    L.KnowledgeEntries = O.KnowledgeEntries;
    L.Progress = O.Messages;
    L.ProgressPrefix = O.MessagePrefix;
    Result<GenerationLoopResult> R = runGenerationLoop(Client, *Log, L);
    if (!R)
      return makeError(Kernel + ": " + R.error());
    Say(Kernel + ": " + describeOutcome(*R) + "; transcript in " +
        Report.RunDirectory);
    Report.Kernels.push_back({Kernel, std::move(*R)});
  }
  return Report;
}

} // namespace agents
} // namespace forgestencil
