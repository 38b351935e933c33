//===- Recognisers.cpp - The list of recognisers --------------------------===//

#include "Recognisers.h"

#include "TemporalBlocking.h"

namespace forgestencil {
namespace analysis {
namespace detail {

const std::vector<std::unique_ptr<KernelRecogniser>> &kernelRecognisers() {
  static const std::vector<std::unique_ptr<KernelRecogniser>> All = [] {
    std::vector<std::unique_ptr<KernelRecogniser>> L;
    L.push_back(makeTemporalBlockingRecogniser());
    return L;
  }();
  return All;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
