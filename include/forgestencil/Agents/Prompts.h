//===- Prompts.h - What the generation and analysis agents are told ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The messages of the LLM agent's conversations. A generation loop calls
///
///   buildGenerationPrompt -> LlmClient::chat -> extractSingleCudaBlock
///   -> checkLauncherSignature -> screenCandidate -> (evaluator)
///   -> buildRepairPrompt -> LlmClient::chat -> ...
///
/// and, once a candidate verifies, buildAnalysisPrompt asks for the next
/// improvement given the measurements.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_PROMPTS_H
#define FORGESTENCIL_AGENTS_PROMPTS_H

#include "forgestencil/Agents/LlmClient.h"
#include "forgestencil/Agents/ProfileParsers.h"

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace agents {

/// Everything the generation agent needs to write a replacement kernel.
struct GenerationPromptInput {
  /// The replacement semantics the candidate must honour.
  std::string ContractText;
  /// The Stencil IR of the kernel, as JSON text.
  std::string StencilIrJson;
  /// The original kernel's source.
  std::string OriginalSource;
  /// The launcher, e.g. `void fs_launch_heat(dim3 grid, ...)`.
  std::string LauncherSignature;
  /// Technique notes and measured results from the knowledge base.
  std::vector<std::string> KnowledgeEntries;
  /// A complete candidate in the expected format, for one-shot prompting.
  std::string ExampleCandidate;
};

/// The system and user messages that start a generation conversation.
std::vector<ChatMessage> buildGenerationPrompt(const GenerationPromptInput &In);

/// What went wrong with the previous candidate.
enum class RepairKind {
  Format,       ///< No single code block, or a wrong launcher signature.
  Screen,       ///< The static screen refused the code.
  Compile,      ///< nvcc failed.
  Verification, ///< The candidate computed different values.
  Crash,        ///< The candidate faulted or the driver died.
  Truncated,    ///< The answer was cut off at the token limit.
};

/// The first mismatching point of a failed verification.
struct VerificationMismatch {
  std::string Point;   ///< e.g. `(x=17, y=3, z=0)` or a flat index.
  std::string Array;   ///< Which output array.
  std::string Expected;
  std::string Got;
  std::string Problem; ///< e.g. `256x130x64`.
  std::string MaxError;
  std::string Tolerance;
  int MismatchCount = 0;
};

/// The evidence for a repair request; which fields matter depends on the
/// RepairKind.
struct RepairDetails {
  /// Text for Format and Screen repairs (the extractor's, signature
  /// checker's or formatScreenFindings' message), or extra context.
  std::string Message;
  /// nvcc's output for Compile, the driver's output for Crash.
  std::string ToolOutput;
  std::optional<VerificationMismatch> Mismatch;
};

/// The user message that asks the model to fix its previous answer. Long
/// tool output is cut to its first errors.
ChatMessage buildRepairPrompt(RepairKind Kind, const RepairDetails &Details);

/// Measurements of a verified candidate for the performance-analysis agent.
struct AnalysisPromptInput {
  std::string StencilIrJson;
  std::string CandidateSource;
  std::string Gpu;
  std::string Problem;          ///< The shape that was timed.
  double OriginalMedianMs = 0;
  double CandidateMedianMs = 0;
  double CandidateSpreadMs = 0; ///< e.g. the interquartile range.
  double CompulsoryBytes = 0;   ///< Bytes per launch that must move.
  double CopyBandwidthGBs = 0;  ///< Measured copy ceiling on this GPU.
  std::vector<PtxasFunctionInfo> Ptxas;
  std::vector<NcuMetric> NcuMetrics;
  std::vector<std::string> KnowledgeEntries;
};

/// Effective bandwidth in GB/s: compulsory bytes over time.
double effectiveBandwidthGBs(double CompulsoryBytes, double Milliseconds);

/// The system and user messages that ask for a diagnosis and an improved
/// candidate.
std::vector<ChatMessage> buildAnalysisPrompt(const AnalysisPromptInput &In);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_PROMPTS_H
