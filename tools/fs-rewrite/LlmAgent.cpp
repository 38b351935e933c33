//===- LlmAgent.cpp - fs-rewrite's --agent llm|both ----------------------===//

#include "LlmAgent.h"

#ifdef FS_HAVE_AGENTS // LLM agent (lib/Agents).
#include "forgestencil/Agents/BundleAgent.h"
#include <iostream>
#endif

#include "llvm/Support/WithColor.h"

#include <memory>

using namespace llvm;
using namespace forgestencil;

namespace fsrewrite {

#ifdef FS_HAVE_AGENTS
static std::unique_ptr<agents::LlmClient> Client;
#endif

int startLlmAgent(const LlmOptions &Llm, pipeline::Session &S) {
  if (Llm.Agent != "builtin" && !Llm.wanted())
    return S.fail("--agent must be builtin, llm or both, not '" + Llm.Agent +
                  "'");
  if (!Llm.wanted())
    return 0;
#ifndef FS_HAVE_AGENTS
  return S.fail("--agent " + Llm.Agent +
                ": this fs-rewrite was built "
                "without the LLM agent (libcurl not found)");
#else
  pipeline::Options &O = S.options();
  if (O.BundleDir.empty())
    return S.fail("--agent " + Llm.Agent +
                  " needs --bundle DIR: the model's "
                  "candidates are evaluated by fs-tune in that bundle");
  if (O.FsTune.empty())
    O.FsTune = O.besideThisProgram("fs-tune");
  agents::AgentClientOptions C;
  C.Timeout = std::chrono::seconds(Llm.Timeout);
  if (Llm.MaxTokens > 0)
    C.MaxTokens = Llm.MaxTokens;
  auto Connected = agents::connectFromEnvironment(C);
  if (!Connected)
    return S.fail("--agent " + Llm.Agent + ": " + Connected.error());
  Client = std::move(*Connected);
  if (Llm.Agent == "llm")
    O.Budget = 1;
  return 0;
#endif
}

int runLlmAgent(const LlmOptions &Llm, const pipeline::Session &S) {
#ifndef FS_HAVE_AGENTS
  (void)Llm;
  (void)S;
  return 1;
#else
  agents::BundleAgentOptions O;
  O.BundleDir = S.options().BundleDir;
  O.RunDir = Llm.RunDir;
  O.FsTune = S.options().FsTune;
  O.FsTuneArgs = Llm.FsTuneArgs;
  O.Rounds = Llm.Rounds;
  if (Llm.MaxTokens > 0)
    O.MaxTokens = Llm.MaxTokens;
  O.CompileOnly = Llm.CompileOnly;
  O.Messages = &std::cerr;
  O.MessagePrefix = "fs-rewrite: llm: ";
  auto Report = agents::runAgentOnBundle(*Client, O);
  if (!Report) {
    WithColor::error(errs(), "fs-rewrite") << "llm: " << Report.error() << "\n";
    return 1;
  }
  return Report->allSucceeded() ? 0 : 1;
#endif
}

} // namespace fsrewrite
