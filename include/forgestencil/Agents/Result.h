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

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace forgestencil {
namespace agents {

/// The message of a failure. A distinct type so that a Result<std::string>
/// can be built from either a value or an error without ambiguity.
struct Error {
  std::string Message;
};

/// Makes an Error from a message.
inline Error makeError(std::string Message) { return Error{std::move(Message)}; }

/// Either a T or an Error.
template <typename T> class Result {
public:
  Result(T Value) : Storage(std::move(Value)) {}
  Result(Error Failure) : Storage(std::move(Failure)) {}

  /// True when the Result holds a value.
  explicit operator bool() const { return Storage.index() == 0; }

  T &operator*() {
    assert(*this && "dereferencing a failed Result");
    return std::get<0>(Storage);
  }
  const T &operator*() const {
    assert(*this && "dereferencing a failed Result");
    return std::get<0>(Storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The error message; only valid when the Result holds no value.
  const std::string &error() const {
    assert(!*this && "asking a successful Result for its error");
    return std::get<1>(Storage).Message;
  }

private:
  std::variant<T, Error> Storage;
};

/// The result of an operation that yields nothing but may fail.
template <> class Result<void> {
public:
  Result() = default;
  Result(Error Failure) : Failed(true), Message(std::move(Failure.Message)) {}

  static Result success() { return Result(); }

  explicit operator bool() const { return !Failed; }
  const std::string &error() const {
    assert(Failed && "asking a successful Result for its error");
    return Message;
  }

private:
  bool Failed = false;
  std::string Message;
};

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_RESULT_H
