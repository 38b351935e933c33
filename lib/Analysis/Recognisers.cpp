//===- Recognisers.cpp - The lists of recognisers and slicers -------------===//

#include "Recognisers.h"
#include "Slices.h"

#include "AtomicReductions.h"
#include "BlockReductions.h"
#include "TemporalBlocking.h"
#include "TreeReductions.h"

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

const std::vector<std::unique_ptr<KernelSlicer>> &kernelSlicers() {
  static const std::vector<std::unique_ptr<KernelSlicer>> All = [] {
    std::vector<std::unique_ptr<KernelSlicer>> L;
    L.push_back(makeBlockReductionSlicer());
    L.push_back(makeTreeReductionSlicer());
    L.push_back(makeAtomicReductionSlicer());
    return L;
  }();
  return All;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
