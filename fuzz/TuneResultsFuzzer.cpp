//===- TuneResultsFuzzer.cpp - fs-tune results from anywhere --------------===//
///
/// \file
/// What fs-rewrite --tuning-results reads: refused with a message, or read,
/// ranked and written back without a crash.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/BundleResults.h"

#include <cstdint>
#include <cstdlib>

using namespace forgestencil;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  json J = json::parse(Data, Data + Size, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded())
    return 0;
  std::string Error;
  std::optional<forge::TuneResults> R = forge::TuneResults::fromJson(J, Error);
  if (!R) {
    if (Error.empty())
      std::abort();
    return 0;
  }
  for (const auto &[Kernel, W] : forge::chooseWinners(*R))
    if (W.Summary.empty())
      std::abort(); // Every choice says what it rests on.
  std::string Again;
  if (!forge::TuneResults::fromJson(R->toJson(), Again))
    std::abort(); // What was read is written back readable.
  return 0;
}
