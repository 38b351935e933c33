//===- ResponseParsing.h - Pull candidate code out of a model's answer ---===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A model's answer is prose, reasoning and code. The generation loop needs
/// exactly one CUDA source with the agreed launcher in it; when the answer is
/// not that, these functions say precisely what to fix, in words that can be
/// sent back to the model as the next message.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_RESPONSEPARSING_H
#define FORGESTENCIL_AGENTS_RESPONSEPARSING_H

#include "forgestencil/Agents/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace agents {

/// Returns the body of the single fenced code block of \p Answer.
///
/// Reasoning inside `<think>...</think>` (or everything before a lone
/// `</think>`, or after an unclosed `<think>`) is ignored, and so is prose
/// outside the block. The block may be tagged `cuda`, `cu`, `cpp`, `c++`,
/// `cxx`, `c` or nothing. When there is no block, more than one, an unclosed
/// one, an empty one or one in another language, the error is a repair
/// request to send back to the model.
Result<std::string> extractSingleCudaBlock(std::string_view Answer);

/// `void <Name>(<P1>, <P2>, ...)`, the launcher as the prompt states it.
std::string formatLauncherSignature(std::string_view Name,
                                    const std::vector<std::string> &Params);

/// Checks that \p Code defines the host launcher \p ExpectedName exactly
/// once, returning void, with parameters whose types match
/// \p ExpectedParams (each `type name`, e.g. `const float *in`).
///
/// The check is textual: comments are ignored, whitespace is normalised,
/// `__restrict__` and parameter names do not matter. On a mismatch the error
/// is a repair request that quotes the agreed signature.
Result<void> checkLauncherSignature(std::string_view Code,
                                   std::string_view ExpectedName,
                                   const std::vector<std::string> &ExpectedParams);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_RESPONSEPARSING_H
