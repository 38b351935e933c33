//===- Expected.h - A value or the reason it could not be made -*- C++ -*-===//
///
/// \file
/// A small value-or-error type for the LLVM-free libraries (Patch, Harness,
/// Forge): they build on GPU hosts that have only a C++ compiler, so they
/// cannot use llvm::Expected. A failure carries a message the caller must
/// report, and no exception crosses a library boundary.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_SUPPORT_EXPECTED_H
#define FORGESTENCIL_SUPPORT_EXPECTED_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace forgestencil {
/// In a namespace of its own: the LLVM-based libraries use llvm::Expected
/// under the same name, and an enclosing forgestencil::Expected would hide it.
namespace support {

/// The reason an operation failed, as a message for the user. Kept apart
/// from std::string so that an Expected<std::string> can be built from
/// either without ambiguity.
struct Failure {
  std::string Message;
};

/// Makes a Failure from a message; reads well at a return statement.
inline Failure fail(std::string Message) { return Failure{std::move(Message)}; }
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
  Status() = default;
  Status(Failure Error) : Message(std::move(Error.Message)), Failed(true) {}
  static Status success() { return Status(); }

  /// True when the operation succeeded.
  bool ok() const { return !Failed; }
  explicit operator bool() const { return !Failed; }
  /// The failure message; empty on success.
  const std::string &error() const { return Message; }

private:
  std::string Message;
  bool Failed = false;
};

} // namespace support
} // namespace forgestencil

#endif // FORGESTENCIL_SUPPORT_EXPECTED_H
