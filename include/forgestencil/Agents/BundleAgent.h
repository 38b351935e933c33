//===- BundleAgent.h - The LLM agent over every kernel of a bundle -------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a command does to run the LLM agent on a tuning bundle, shared by
/// fs-rewrite (`--agent llm|both`, where the sources are) and fs-agent (where
/// the GPU is, without LLVM):
///
///   connectFromEnvironment  -- FS_LLM_* read and the server asked once, so a
///                              command fails at start, not after an hour;
///   runAgentOnBundle        -- the run directory, the GPU check, then
///                              runGenerationLoop for each kernel, with one
///                              summary line per kernel.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_BUNDLEAGENT_H
#define FORGESTENCIL_AGENTS_BUNDLEAGENT_H

#include "forgestencil/Agents/GenerationLoop.h"
#include "forgestencil/Agents/LlmClient.h"
#include "forgestencil/Agents/Result.h"

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace forgestencil {
namespace agents {

/// How a command talks to the model.
struct AgentClientOptions {
  /// The longest one request may take.
  std::chrono::seconds Timeout{600};
  std::optional<int> MaxTokens;
};

/// A client configured from FS_LLM_* whose server has answered one
/// `GET /v1/models`. Fails when FS_LLM_MODEL is missing, when there is no key
/// for the default OpenAI server, and when the server cannot be reached or
/// refuses the key; the messages say which.
Result<std::unique_ptr<LlmClient>>
connectFromEnvironment(const AgentClientOptions &O);

/// Settings of one agent run over a bundle.
struct BundleAgentOptions {
  std::string BundleDir;
  /// Only these kernels, in this order; empty: every kernel of the bundle.
  std::vector<std::string> Kernels;
  /// The audit directory; empty: `<bundle>/llm-run`.
  std::string RunDir;
  /// The fs-tune binary that evaluates candidates.
  std::string FsTune = "fs-tune";
  std::vector<std::string> FsTuneArgs;
  int Rounds = 4;
  std::optional<int> MaxTokens;
  /// Only compile candidates even with a GPU. Without one, they are only
  /// compiled anyway (and a line says so).
  bool CompileOnly = false;
  std::vector<std::string> KnowledgeEntries;
  /// Progress and summary lines; nullptr for none.
  std::ostream *Messages = nullptr;
  /// What every line starts with, e.g. "fs-agent: ".
  std::string MessagePrefix = "llm: ";
};

/// How the loop ended for one kernel.
struct KernelOutcome {
  std::string Kernel;
  GenerationLoopResult Loop;
};

/// What one run over a bundle did.
struct BundleAgentReport {
  std::string RunDirectory;
  /// Whether candidates were only compiled (asked for, or no GPU).
  bool CompileOnly = false;
  std::vector<KernelOutcome> Kernels;

  /// True when every kernel got a working candidate.
  bool allSucceeded() const;
};

/// The kernels of the bundle in \p BundleDir, in manifest order.
Result<std::vector<std::string>> bundleKernels(const std::string &BundleDir);

/// Runs the generation loop on each kernel of the bundle with \p Client,
/// which records into the run directory for the duration. Errors are an
/// unreadable bundle, an unknown kernel (before the model is asked anything),
/// a run directory that cannot be written, and a loop that failed
/// (`<kernel>: <why>`); a kernel without a working candidate is a report.
Result<BundleAgentReport> runAgentOnBundle(LlmClient &Client,
                                           const BundleAgentOptions &O);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_BUNDLEAGENT_H
