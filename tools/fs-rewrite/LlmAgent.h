//===- LlmAgent.h - fs-rewrite's --agent llm|both --------------*- C++ -*-===//
///
/// \file
/// Option handling of the LLM agent; the work is agents::runAgentOnBundle
/// (shared with fs-agent), run on the bundle --bundle wrote. Without
/// lib/Agents (a build without libcurl) asking for it is an error.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_TOOLS_FSREWRITE_LLMAGENT_H
#define FORGESTENCIL_TOOLS_FSREWRITE_LLMAGENT_H

#include "Options.h"

namespace fsrewrite {

/// Checks --agent before any analysis: the model is configured and the
/// server answers; `llm` alone cuts the bundle to one built-in candidate
/// (the model's one-shot example). The exit code; 0 to go on.
int startLlmAgent(const LlmOptions &Llm, forgestencil::pipeline::Session &S);

/// Runs the generation loop for every kernel of the bundle; the exit code.
int runLlmAgent(const LlmOptions &Llm,
                const forgestencil::pipeline::Session &S);

} // namespace fsrewrite

#endif
