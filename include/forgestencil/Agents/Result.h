//===- Result.h - A value or the reason it could not be made --------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The agents library does not depend on LLVM, so it cannot use
/// llvm::Expected. Result<T> is the small subset it needs: a value, or an
/// error message the caller must look at. Errors are values; nothing in this
/// library throws across its interface.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_RESULT_H
#define FORGESTENCIL_AGENTS_RESULT_H

#include "forgestencil/Support/Expected.h"

#include <type_traits>

namespace forgestencil {
namespace agents {

/// The message of a failure (forgestencil/Support/Expected.h's Failure).
using Error = support::Failure;

/// Makes an Error from a message.
inline Error makeError(std::string Message) {
  return support::makeFailure(std::move(Message));
}

/// Either a T or an Error; Result<void> is the outcome of an operation that
/// yields nothing but may fail. The LLVM-free libraries share one
/// value-or-error type; this is its name in the agents library.
template <typename T>
using Result = std::conditional_t<std::is_void_v<T>, support::Status,
                                  support::Expected<T>>;

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_RESULT_H
