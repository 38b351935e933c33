//===- Expected.h - Results that carry an error message ---------*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small value-or-error type for the LLVM-free libraries. It plays the role
/// of llvm::Expected where LLVM is not available: a failure carries a message
/// the caller is expected to report, and no exception crosses the library
/// boundary.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_EXPECTED_H
#define FORGESTENCIL_PATCH_EXPECTED_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace forgestencil {
namespace patch {

/// The reason an operation failed, as a message for the user.
struct Failure {
  std::string Message;
};

/// Builds a Failure; reads well at a return statement.
inline Failure makeFailure(std::string Message) {
  return Failure{std::move(Message)};
}

/// Either a value of type T or a Failure.
template <typename T> class Expected {
public:
  Expected(T Value) : Storage(std::move(Value)) {}
  Expected(Failure Error) : Storage(std::move(Error)) {}

  /// True when a value is held.
  explicit operator bool() const { return Storage.index() == 0; }

  T &operator*() {
    assert(*this && "dereferencing a failed Expected");
    return std::get<0>(Storage);
  }
  const T &operator*() const {
    assert(*this && "dereferencing a failed Expected");
    return std::get<0>(Storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The failure message; only valid when no value is held.
  const std::string &error() const {
    assert(!*this && "asking a successful Expected for its error");
    return std::get<1>(Storage).Message;
  }

private:
  std::variant<T, Failure> Storage;
};

/// The outcome of an operation that returns nothing on success.
class Status {
public:
  static Status success() { return Status(); }
  Status(Failure Error) : Message(std::move(Error.Message)), Failed(true) {}

  /// True when the operation succeeded.
  bool ok() const { return !Failed; }
  /// The failure message; empty on success.
  const std::string &error() const { return Message; }

private:
  Status() = default;

  std::string Message;
  bool Failed = false;
};

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_EXPECTED_H
