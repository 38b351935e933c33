//===- StartOffsets.h - Driver values for domain-start parameters -*- C++ -*-===//
///
/// \file
/// A tuning or CPU-check driver must give every kernel parameter a value.
/// An integer parameter that only moves where the domain starts
/// (CloverLeaf's x_min in `column >= x_min`) can take one of the driver's
/// choosing: the smallest that keeps the original's reads inside its
/// arrays.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_STARTOFFSETS_H
#define FORGESTENCIL_LIB_FORGE_STARTOFFSETS_H

#include "forgestencil/IR/StencilIR.h"

#include <map>
#include <string>

namespace forgestencil {
namespace forge {

/// Integer parameters named in some axis's lower bound and in no other
/// expression of the IR (upper bounds, moduli, steps, strides, the frame,
/// the extents), each with the smallest value from 0 up at which every
/// axis's reads start at or after the array's first element along it and
/// the domain is not empty, at extents of 64. Empty when some such
/// parameter has no such value.
std::map<std::string, long long> startOffsetParams(const ir::StencilIR &IR);

/// The IR as the driver's size model sees it: \p Starts as named constants
/// (of Variable origin, so no generator defines them as macros: the driver
/// declares them itself).
ir::StencilIR withStartOffsets(const ir::StencilIR &IR,
                               const std::map<std::string, long long> &Starts);

} // namespace forge
} // namespace forgestencil

#endif
