//===- Prompts.cpp - What the generation and analysis agents are told ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/Prompts.h"

#include <cstdio>

namespace forgestencil {
namespace agents {

namespace {

/// Compiler and crash output is cut to this many lines: the first errors
/// are the ones that matter and the rest costs tokens.
constexpr size_t MaxToolOutputLines = 60;

constexpr const char *AnswerFormat =
    "Answer with exactly one ```cuda fenced block holding the complete source: "
    "every kernel, every device function and the launcher. Keep any explanation "
    "short and outside the block.";

constexpr const char *Rules =
    "Rules for the code (a static screen refuses violations):\n"
    "- Launch every kernel on the stream the launcher receives; no other "
    "streams, no synchronisation, no cudaMemcpy/cudaMemset outside that "
    "stream.\n"
    "- No timing of any kind (clock, clock64, cudaEvent*, std::chrono); the "
    "measurement driver times your launcher.\n"
    "- No memory allocation (malloc, new, cudaMalloc*, containers); use the "
    "arrays you are given and shared memory.\n"
    "- No files, environment, console output or processes; no inline asm.\n"
    "- No __device__ or static variables that keep state between launches.\n"
    "- Keep the element type of the stencil; no half-precision arithmetic.\n"
    "- Include only CUDA runtime headers, <cmath>, <cstdint> and the like.";

std::string fenced(const std::string &Language, const std::string &Body) {
  std::string Text = "```" + Language + "\n" + Body;
  if (!Body.empty() && Body.back() != '\n')
    Text += '\n';
  return Text + "```\n";
}

std::string firstLines(const std::string &Text, size_t MaxLines) {
  size_t Pos = 0;
  for (size_t Line = 0; Line < MaxLines; ++Line) {
    Pos = Text.find('\n', Pos);
    if (Pos == std::string::npos)
      return Text;
    ++Pos;
  }
  return Text.substr(0, Pos) + "[... output cut ...]\n";
}

std::string formatNumber(double Value, const char *Format = "%.3f") {
  char Buffer[64];
  std::snprintf(Buffer, sizeof(Buffer), Format, Value);
  return Buffer;
}

std::string knowledgeSection(const std::vector<std::string> &Entries) {
  if (Entries.empty())
    return std::string();
  std::string Text = "## What is known to work\n";
  for (const std::string &Entry : Entries)
    Text += "- " + Entry + "\n";
  return Text + "\n";
}

std::string mismatchText(const VerificationMismatch &M) {
  std::string Text = "The first wrong value";
  if (!M.Array.empty())
    Text += " in `" + M.Array + "`";
  Text += " is at " + M.Point + ": expected " + M.Expected + ", got " + M.Got +
          ".\n";
  if (!M.Problem.empty())
    Text += "Problem size: " + M.Problem + ".\n";
  if (M.MismatchCount > 0)
    Text += std::to_string(M.MismatchCount) + " points differ.\n";
  if (!M.MaxError.empty())
    Text += "Largest error: " + M.MaxError +
            (M.Tolerance.empty() ? "" : " (tolerance " + M.Tolerance + ")") + ".\n";
  return Text;
}

} // namespace

std::vector<ChatMessage> buildGenerationPrompt(const GenerationPromptInput &In) {
  std::string System =
      "You are an expert CUDA performance engineer. You write a replacement for "
      "one stencil kernel of a real application: it must compute exactly the "
      "same values at exactly the same points as the original and be as fast as "
      "possible on the GPU.\n\n" +
      std::string(Rules) + "\n\n" + AnswerFormat;

  std::string User;
  User += "## Replacement contract\n" + In.ContractText + "\n\n";
  User += "## Stencil IR (what the kernel computes)\n" +
          fenced("json", In.StencilIrJson) + "\n";
  User += "## Original kernel\n" + fenced("cuda", In.OriginalSource) + "\n";
  User += "## Launcher you must define\nThe call site passes the original "
          "launch configuration and arguments to:\n" +
          fenced("cuda", In.LauncherSignature + ";") + "\n";
  User += knowledgeSection(In.KnowledgeEntries);
  if (!In.ExampleCandidate.empty())
    User += "## Example of a complete answer (format only; write your own "
            "kernel)\n" +
            fenced("cuda", In.ExampleCandidate) + "\n";
  User += "## Task\nWrite the fastest correct replacement. Keep boundary and "
          "untouched points bit-identical. " +
          std::string(AnswerFormat);
  return {{"system", System}, {"user", User}};
}

ChatMessage buildRepairPrompt(RepairKind Kind, const RepairDetails &Details) {
  std::string Text;
  switch (Kind) {
  case RepairKind::Format:
    Text = "Your answer could not be used: " + Details.Message + "\n";
    break;
  case RepairKind::Screen:
    Text = "Your code was refused by the static screen before compilation:\n" +
           Details.Message + "\nRemove these uses and resend.\n";
    break;
  case RepairKind::Compile:
    Text = "Your code did not compile. nvcc said:\n" +
           fenced("text", firstLines(Details.ToolOutput, MaxToolOutputLines)) +
           "Fix the errors.\n";
    break;
  case RepairKind::Verification:
    Text = "Your code compiled but computed wrong values.\n";
    if (Details.Mismatch)
      Text += mismatchText(*Details.Mismatch);
    Text += "Check the index mapping, the guards and the boundary handling "
            "against the original kernel: every point the original writes must "
            "get the same value and no other point may be written.\n";
    break;
  case RepairKind::Crash:
    Text = "Your code crashed while running (likely an out-of-bounds access or "
           "an invalid launch configuration). The driver reported:\n" +
           fenced("text", firstLines(Details.ToolOutput, MaxToolOutputLines)) +
           "Check every array index against the bounds and the shared-memory "
           "size against the block shape.\n";
    break;
  case RepairKind::Truncated:
    Text = "Your answer was cut off at the token limit. Resend only the code, "
           "with a minimal explanation.\n";
    break;
  }
  if (Kind != RepairKind::Format && Kind != RepairKind::Screen &&
      !Details.Message.empty())
    Text += Details.Message + "\n";
  Text += AnswerFormat;
  return {"user", Text};
}

double effectiveBandwidthGBs(double CompulsoryBytes, double Milliseconds) {
  if (Milliseconds <= 0)
    return 0;
  return CompulsoryBytes / (Milliseconds * 1e-3) / 1e9;
}

namespace {

std::string measurementSection(const AnalysisPromptInput &In) {
  double Bandwidth = effectiveBandwidthGBs(In.CompulsoryBytes, In.CandidateMedianMs);
  double OriginalBandwidth =
      effectiveBandwidthGBs(In.CompulsoryBytes, In.OriginalMedianMs);
  std::string Text = "## Measurements";
  if (!In.Gpu.empty())
    Text += " on " + In.Gpu;
  if (!In.Problem.empty())
    Text += ", problem " + In.Problem;
  Text += "\n";
  Text += "- original: " + formatNumber(In.OriginalMedianMs) + " ms median, " +
          formatNumber(OriginalBandwidth, "%.1f") + " GB/s effective\n";
  Text += "- candidate: " + formatNumber(In.CandidateMedianMs) + " ms median (spread " +
          formatNumber(In.CandidateSpreadMs) + " ms), " +
          formatNumber(Bandwidth, "%.1f") + " GB/s effective\n";
  if (In.CandidateMedianMs > 0)
    Text += "- speed-up: " +
            formatNumber(In.OriginalMedianMs / In.CandidateMedianMs, "%.2f") + "x\n";
  if (In.CopyBandwidthGBs > 0)
    Text += "- copy ceiling: " + formatNumber(In.CopyBandwidthGBs, "%.1f") +
            " GB/s; the candidate reaches " +
            formatNumber(100.0 * Bandwidth / In.CopyBandwidthGBs, "%.1f") +
            "% of it\n";
  Text += "- compulsory traffic: " + formatNumber(In.CompulsoryBytes, "%.0f") +
          " bytes per launch\n";
  return Text + "\n";
}

std::string ptxasSection(const std::vector<PtxasFunctionInfo> &Functions) {
  if (Functions.empty())
    return std::string();
  std::string Text = "## Compiler resource usage (ptxas)\n";
  for (const PtxasFunctionInfo &F : Functions) {
    Text += "- " + F.MangledName + (F.Arch.empty() ? "" : " [" + F.Arch + "]") +
            ": " + std::to_string(F.Registers) + " registers, " +
            std::to_string(F.SharedBytes) + " bytes static shared memory, " +
            std::to_string(F.SpillStoreBytes) + " bytes spill stores, " +
            std::to_string(F.SpillLoadBytes) + " bytes spill loads" +
            (F.spills() ? " (SPILLS)" : "") + "\n";
  }
  return Text + "\n";
}

std::string ncuSection(const std::vector<NcuMetric> &Metrics) {
  if (Metrics.empty())
    return std::string();
  std::string Text = "## Profiler metrics (ncu)\n";
  for (const NcuMetric &M : Metrics)
    Text += "- [" + std::to_string(M.LaunchId) + "] " + M.KernelName + ": " +
            M.MetricName + " = " + M.ValueText +
            (M.Unit.empty() ? "" : " " + M.Unit) + "\n";
  return Text + "\n";
}

} // namespace

std::vector<ChatMessage> buildAnalysisPrompt(const AnalysisPromptInput &In) {
  std::string System =
      "You are an expert CUDA performance engineer. You analyse a verified "
      "stencil kernel's measurements, name what limits it (memory bandwidth, "
      "latency, occupancy, register spills, shared-memory bank conflicts, "
      "redundant loads) and write an improved version with the same launcher "
      "and the same results.\n\n" +
      std::string(Rules) + "\n\n" + AnswerFormat;
  std::string User;
  User += "## Stencil IR\n" + fenced("json", In.StencilIrJson) + "\n";
  User += "## Current candidate (verified correct)\n" +
          fenced("cuda", In.CandidateSource) + "\n";
  User += measurementSection(In);
  User += ptxasSection(In.Ptxas);
  User += ncuSection(In.NcuMetrics);
  User += knowledgeSection(In.KnowledgeEntries);
  User += "## Task\nIn at most five sentences, say what limits this kernel "
          "and which single change should help most, then give the improved "
          "kernel. " +
          std::string(AnswerFormat);
  return {{"system", System}, {"user", User}};
}

} // namespace agents
} // namespace forgestencil
