//===- StrategyRegistry.cpp - Every strategy, one line each ----------------===//
///
/// \file
/// To add a strategy: write lib/Forge/Strategies/<Name>.{h,cpp} and add one
/// line below (alphabetical after naive, the baseline, which stays first).
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/Strategy.h"

#include "Strategies/MultiPoint.h"
#include "Strategies/Naive.h"
#include "Strategies/ZMarch.h"
#include "Strategies/ZMarchSmem.h"
#include "Strategies/ZSum.h"

namespace forgestencil {
namespace forge {

namespace {
std::vector<std::unique_ptr<Strategy>> buildRegistry() {
  std::vector<std::unique_ptr<Strategy>> R;
  R.push_back(std::make_unique<NaiveStrategy>());
  R.push_back(std::make_unique<MultiPointStrategy>());
  R.push_back(std::make_unique<ZMarchStrategy>());
  R.push_back(std::make_unique<ZMarchSmemStrategy>());
  R.push_back(std::make_unique<ZSumStrategy>());
  return R;
}
} // namespace

const std::vector<std::unique_ptr<Strategy>> &allStrategies() {
  static const std::vector<std::unique_ptr<Strategy>> Registry =
      buildRegistry();
  return Registry;
}

const Strategy *findStrategy(const std::string &Name) {
  for (const auto &S : allStrategies())
    if (Name == S->name())
      return S.get();
  return nullptr;
}

} // namespace forge
} // namespace forgestencil
