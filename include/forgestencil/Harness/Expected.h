//===- Expected.h - The value-or-error type, in the harness namespace -*- C++ -*-===//
///
/// \file
/// forgestencil/Support/Expected.h under the names the harness library uses.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_EXPECTED_H
#define FORGESTENCIL_HARNESS_EXPECTED_H

#include "forgestencil/Support/Expected.h"

namespace forgestencil {
namespace harness {
using forgestencil::Expected;
using forgestencil::Failure;
using forgestencil::Status;
using forgestencil::fail;
using forgestencil::makeFailure;
} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_EXPECTED_H
