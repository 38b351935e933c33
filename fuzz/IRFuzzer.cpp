//===- IRFuzzer.cpp - Stencil IR documents from anywhere ------------------===//
///
/// \file
/// A document either is refused with a message, or it is IR that
/// round-trips exactly, validates again and can be handed to every code
/// generator without a crash.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <cstdint>
#include <cstdlib>

using namespace forgestencil;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  json J = json::parse(Data, Data + Size, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded())
    return 0;
  std::string Error;
  std::optional<ir::StencilIR> IR = ir::fromJson(J, Error);
  if (!IR) {
    if (Error.empty())
      std::abort(); // A refusal always says why.
    return 0;
  }
  json Back = ir::toJson(*IR);
  std::string Again;
  std::optional<ir::StencilIR> Reread = ir::fromJson(Back, Again);
  if (!Reread || ir::toJson(*Reread) != Back)
    std::abort(); // What was accepted is written back as it was read.
  (void)IR->summary();
  forge::GenerateOptions Opts;
  (void)forge::emitOriginalSource(*IR, Opts, "");
  for (const auto &S : forge::allStrategies()) {
    if (!S->whyNot(*IR).empty())
      continue;
    std::vector<forge::StrategyParams> Space = S->searchSpace(*IR);
    // A few points of each space keep one input fast.
    for (size_t I = 0; I < Space.size() && I < 3; ++I)
      (void)S->generate(*IR, Space[I], Opts);
  }
  return 0;
}
