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
using support::Expected;
using support::Failure;
using support::Status;
using support::fail;
using support::makeFailure;
} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_EXPECTED_H
