//===- Expected.h - The value-or-error type, in the patch namespace -*- C++ -*-===//
///
/// \file
/// forgestencil/Support/Expected.h under the names the patch library uses.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_EXPECTED_H
#define FORGESTENCIL_PATCH_EXPECTED_H

#include "forgestencil/Support/Expected.h"

namespace forgestencil {
namespace patch {
using support::Expected;
using support::Failure;
using support::Status;
using support::fail;
using support::makeFailure;
} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_EXPECTED_H
