//===- Options.h - fs-rewrite's command line --------------------*- C++ -*-===//
///
/// \file
/// fs-rewrite's options, parsed once into plain values: those the steps of
/// lib/Pipeline take (pipeline::Options), those of the LLM agent, and
/// those only the tool itself reads (the database, the front end, --list).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_TOOLS_FSREWRITE_OPTIONS_H
#define FORGESTENCIL_TOOLS_FSREWRITE_OPTIONS_H

#include "forgestencil/Pipeline/Session.h"

#include <string>
#include <vector>

namespace fsrewrite {

/// What the tool reads itself: the database and the front end's options,
/// and what it prints.
struct ToolOptions {
  std::string DatabasePath, CudaPath, ResourceDir, DumpIR, ProfilePath;
  std::vector<std::string> ExtraArgs;
  bool List = false, Json = false, Verbose = false, StrictIncludes = false;
};

/// --agent and the LLM loop's options.
struct LlmOptions {
  std::string Agent = "builtin";
  unsigned Rounds = 4, Timeout = 600;
  int MaxTokens = 0;
  bool CompileOnly = false;
  std::string RunDir;
  std::vector<std::string> FsTuneArgs;

  bool wanted() const { return Agent == "llm" || Agent == "both"; }
};

/// Parses the command line; false after a usage error (said on stderr).
bool parseCommandLine(int Argc, char **Argv, ToolOptions &Tool,
                      forgestencil::pipeline::Options &Steps, LlmOptions &Llm);

} // namespace fsrewrite

#endif
