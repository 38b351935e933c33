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
using forgestencil::Expected;
using forgestencil::Failure;
using forgestencil::Status;
using forgestencil::fail;
using forgestencil::makeFailure;
} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_EXPECTED_H
