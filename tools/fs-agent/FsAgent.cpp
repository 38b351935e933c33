//===- FsAgent.cpp - The LLM generation loop on a tuning bundle ----------===//
///
/// \file
/// fs-agent runs the LLM agent on a tuning bundle that `fs-rewrite --bundle`
/// wrote, where the GPU is and LLVM is not: for each kernel, a model behind
/// an OpenAI-compatible API (FS_LLM_BASE_URL, FS_LLM_MODEL, FS_LLM_API_KEY)
/// writes candidates, and fs-tune compiles, screens, verifies them against
/// the app's original kernel and times them. It checks the bundle, fs-tune,
/// the model's configuration and the server before asking anything, and
/// exits 1 when a kernel got no working candidate.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/BundleAgent.h"
#include "forgestencil/Version.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

using namespace forgestencil;
namespace fs = std::filesystem;

namespace {

/// fs-tune beside this binary (they are built into the same directory).
std::string fsTuneBesideSelf(const char *Argv0) {
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    Self = fs::absolute(Argv0, EC);
  return (Self.parent_path() / "fs-tune").string();
}

int fail(const std::string &Message) {
  std::cerr << "fs-agent: error: " << Message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"fs-agent: a model writes candidate kernels for each kernel of "
               "a tuning bundle; fs-tune compiles, verifies and times them "
               "against the app's original kernel"};
  agents::BundleAgentOptions Opts;
  std::string FsTune;
  int MaxTokens = 0;
  unsigned TimeoutSeconds = 600;
  App.add_option("bundle", Opts.BundleDir,
                 "The bundle directory (fs-rewrite --bundle)")
      ->required();
  App.add_option("--kernels", Opts.Kernels,
                 "Only these kernels, a,b (default: every kernel of the "
                 "bundle)")
      ->delimiter(',')
      ->allow_extra_args(false);
  App.add_option("--rounds", Opts.Rounds,
                 "Generation/repair rounds per kernel")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  App.add_option("--max-tokens", MaxTokens, "Token limit of one answer");
  App.add_option("--timeout", TimeoutSeconds, "Seconds one request may take")
      ->capture_default_str();
  App.add_option("--run-dir", Opts.RunDir,
                 "Audit directory of the run (default: <bundle>/llm-run)");
  App.add_flag("--compile-only", Opts.CompileOnly,
               "Only compile candidates: one that compiles ends the loop "
               "(the default without a GPU)");
  App.add_option("--fs-tune", FsTune,
                 "The fs-tune that evaluates candidates (default: beside "
                 "fs-agent)");
  App.add_option("--fs-tune-arg", Opts.FsTuneArgs,
                 "An extra argument for each fs-tune run, e.g. "
                 "--fs-tune-arg=--nvcc=PATH (repeatable)")
      ->allow_extra_args(false);
  App.set_version_flag("--version", std::string("fs-agent (ForgeStencil) ") +
                                        FORGESTENCIL_VERSION);
  CLI11_PARSE(App, argc, argv);

  // Everything that can be checked here is, before the model is asked
  // anything: a run that fails after an hour for a typo helps nobody.
  auto Kernels = agents::bundleKernels(Opts.BundleDir);
  if (!Kernels)
    return fail(Kernels.error());
  if (Kernels->empty())
    return fail(Opts.BundleDir + " has no kernels to work on");
  for (const std::string &K : Opts.Kernels)
    if (std::find(Kernels->begin(), Kernels->end(), K) == Kernels->end())
      return fail("the bundle has no kernel '" + K + "'");
  Opts.FsTune = FsTune.empty() ? fsTuneBesideSelf(argv[0]) : FsTune;
  if (FsTune.empty() && !fs::exists(Opts.FsTune))
    return fail("no fs-tune beside fs-agent (" + Opts.FsTune +
                "): build it, or name one with --fs-tune PATH");
  agents::AgentClientOptions ClientOpts;
  ClientOpts.Timeout = std::chrono::seconds(TimeoutSeconds);
  if (MaxTokens > 0) {
    ClientOpts.MaxTokens = MaxTokens;
    Opts.MaxTokens = MaxTokens;
  }
  auto Client = agents::connectFromEnvironment(ClientOpts);
  if (!Client)
    return fail(Client.error());

  Opts.Messages = &std::cerr;
  Opts.MessagePrefix = "fs-agent: ";
  auto Report = agents::runAgentOnBundle(**Client, Opts);
  if (!Report)
    return fail(Report.error());
  std::cout << Report->RunDirectory << "\n";
  return Report->allSucceeded() ? 0 : 1;
}
