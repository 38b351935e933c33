//===- GenerationLoop.h - LLM candidates through the real evaluator ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The LLM generation loop for one kernel of a tuning bundle:
///
///   buildGenerationPrompt -> LlmClient::chat -> extractSingleCudaBlock
///   -> checkLauncherSignature -> screenCandidate
///   -> fs-tune BUNDLE --add-candidate (the evaluator, a child process)
///   -> buildRepairPrompt -> ... up to a number of rounds.
///
/// The evaluator is fs-tune itself: the candidate is added to the bundle as
/// external code and its driver compiled (and, with a GPU, verified against
/// the app's original kernel and timed). What the loop decides from is
/// fs-tune's results JSON. Every prompt, response, verdict and measurement is
/// recorded in the RunLog.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_GENERATIONLOOP_H
#define FORGESTENCIL_AGENTS_GENERATIONLOOP_H

#include "forgestencil/Agents/LlmClient.h"
#include "forgestencil/Agents/ProfileParsers.h"
#include "forgestencil/Agents/Prompts.h"
#include "forgestencil/Agents/Result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace forgestencil {
namespace agents {

class RunLog;

/// What fs-tune's results say about one candidate.
struct CandidateVerdict {
  enum Kind {
    Verified,     ///< Compiled and verified (bitexact or within tolerance).
    Compiled,     ///< Compiled; nothing was run (compile-only).
    CompileError, ///< nvcc failed (or the link did).
    Screened,     ///< fs-tune's screen refused the code.
    Mismatch,     ///< The candidate computed different values.
    Crash,        ///< The driver crashed, timed out or failed memcheck.
    Missing,      ///< The results do not mention the candidate.
  };
  Kind Status = Missing;
  std::string Reason;
  /// nvcc's whole output for a CompileError when the caller found it (the
  /// reason holds only its last lines); "" otherwise.
  std::string BuildLog;
  double MaxError = 0, Tolerance = 0;
  double OriginalMs = 0, CandidateMs = 0, CandidateSpreadMs = 0;
};

/// Finds candidate \p Id of \p Kernel in fs-tune's results \p Results and
/// classifies it. \p CompileOnly says whether the run could verify at all.
CandidateVerdict classifyCandidate(const nlohmann::json &Results,
                                   const std::string &Kernel,
                                   const std::string &Id, bool CompileOnly);

/// True when \p V ends the loop with success: a verified candidate, or in
/// compile-only mode one that compiled.
bool isSuccess(const CandidateVerdict &V, bool CompileOnly);

/// The repair request for a failed candidate, or nothing when \p V is a
/// success.
std::optional<ChatMessage> repairMessageFor(const CandidateVerdict &V,
                                            bool CompileOnly);

/// `void Name(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, ...)`
/// parameters for a kernel whose IR JSON is \p Ir: the launch parameters of
/// fs-tune's drivers followed by the kernel's own.
std::vector<std::string> launcherParams(const nlohmann::json &Ir);

/// The `__global__` function \p Kernel out of \p Source (the translation
/// unit), braces matched; the whole unit when it cannot be found.
std::string extractKernelSource(const std::string &Source,
                                const std::string &Kernel);

/// True when `nvidia-smi -L` lists a GPU: without one, the loop can only
/// compile candidates.
bool gpuAvailable();

/// The metrics of the candidate's launch in an `ncu --csv` profile of a
/// bundle driver: of the launches that are neither \p OriginalKernel nor the
/// float64 reference, the longest (the timed size), restricted to the
/// figures that say what bounds a stencil kernel. Empty when there is none.
std::vector<NcuMetric> candidateLaunchMetrics(const std::vector<NcuMetric> &All,
                                              const std::string &OriginalKernel);

/// Settings of one loop.
struct GenerationLoopOptions {
  std::string BundleDir;
  std::string Kernel;
  /// The fs-tune binary that evaluates candidates.
  std::string FsTune = "fs-tune";
  int Rounds = 4;
  /// Compile only (no GPU): success is a candidate that compiles.
  bool CompileOnly = true;
  std::optional<int> MaxTokens;
  /// Extra fs-tune arguments (e.g. `--nvcc`, `--no-memcheck`).
  std::vector<std::string> FsTuneArgs;
  /// Nsight Compute: with a path, each verified candidate's driver runs
  /// under it and the candidate launch's metrics go into the analysis
  /// prompt; "" for none.
  std::string Ncu;
  /// Knowledge entries for the prompt.
  std::vector<std::string> KnowledgeEntries;
  /// Progress lines; nullptr for none.
  std::ostream *Progress = nullptr;
  /// What each progress line starts with (the command's name), before the
  /// kernel's.
  std::string ProgressPrefix = "llm: ";
};

/// How the loop ended.
struct GenerationLoopResult {
  bool Succeeded = false;
  int RoundsUsed = 0;
  /// The bundle candidate id of the successful candidate (`src:...`).
  std::string CandidateId;
  /// One classified verdict per round that reached the evaluator, or a
  /// Format/Screen note for rounds stopped before it.
  std::vector<std::string> RoundSummaries;
};

/// Runs the loop for one kernel of a bundle. Errors are failures of the loop
/// itself (unreadable bundle, fs-tune not runnable, the server failing);
/// a candidate that never works is a result with Succeeded == false.
Result<GenerationLoopResult> runGenerationLoop(LlmClient &Client, RunLog &Log,
                                               const GenerationLoopOptions &O);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_GENERATIONLOOP_H
