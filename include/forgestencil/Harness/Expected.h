//===- Expected.h - A value or the reason it could not be made ------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The harness library is LLVM-free (it runs on GPU hosts that have only a C++
/// compiler), so it cannot use llvm::Expected. This is the small subset it
/// needs: a value or an error message that the caller must look at.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_EXPECTED_H
#define FORGESTENCIL_HARNESS_EXPECTED_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace forgestencil {
namespace harness {

/// The message of a failure, kept apart from std::string so that an
/// Expected<std::string> can be built from either without ambiguity.
struct Failure {
  std::string Message;
};

/// Makes a Failure from a message.
inline Failure fail(std::string Message) { return Failure{std::move(Message)}; }

/// Either a T or a Failure.
template <typename T> class Expected {
public:
  Expected(T Value) : Storage(std::move(Value)) {}
  Expected(Failure Error) : Storage(std::move(Error)) {}

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

  /// The failure message; only valid when the Expected holds no value.
  const std::string &error() const {
    assert(!*this && "asking a successful Expected for its error");
    return std::get<1>(Storage).Message;
  }

private:
  std::variant<T, Failure> Storage;
};

/// The result of an operation that yields nothing but may fail.
class Status {
public:
  Status() = default;
  Status(Failure Error) : Failed(true), Message(std::move(Error.Message)) {}

  static Status success() { return Status(); }

  explicit operator bool() const { return !Failed; }
  const std::string &error() const { return Message; }

private:
  bool Failed = false;
  std::string Message;
};

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_EXPECTED_H
