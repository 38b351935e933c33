//===- JsonReader.h - Typed members of a JSON document, with paths -*- C++ -*-===//
///
/// \file
/// Reading a document written by another tool (or edited by hand) must
/// never throw, never wrap a negative number into a huge unsigned one and
/// never turn a fraction into an integer. JsonReader reads one member at a
/// time, checks its type and range, and records the first problem as
/// "<path>: <reason>", with the path spelled the way a user finds the field:
/// `kernels[2].ir.inputs[0].offsets[3][1]`. Header-only: the LLVM-free
/// libraries (IR, Forge) use it on GPU hosts.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_SUPPORT_JSONREADER_H
#define FORGESTENCIL_SUPPORT_JSONREADER_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace support {

/// The path of member \p Key of the object at \p Path.
inline std::string memberPath(const std::string &Path, const std::string &Key) {
  return Path.empty() ? Key : Path + "." + Key;
}

/// The path of element \p Index of the array at \p Path.
inline std::string elementPath(const std::string &Path, size_t Index) {
  return Path + "[" + std::to_string(Index) + "]";
}

/// "a string", "an array", ... for messages.
inline const char *describeJsonType(const nlohmann::json &J) {
  switch (J.type()) {
  case nlohmann::json::value_t::null:
    return "null";
  case nlohmann::json::value_t::object:
    return "an object";
  case nlohmann::json::value_t::array:
    return "an array";
  case nlohmann::json::value_t::string:
    return "a string";
  case nlohmann::json::value_t::boolean:
    return "a boolean";
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
    return "an integer";
  case nlohmann::json::value_t::number_float:
    return "a number with a fraction or exponent";
  default:
    return "a value of another kind";
  }
}

/// Reads typed members, keeping the first problem in the caller's string.
class JsonReader {
public:
  /// Clears \p Error: a message left from an earlier document is not this
  /// one's.
  explicit JsonReader(std::string &Error) : Error(Error) { Error.clear(); }

  bool ok() const { return Error.empty(); }

  /// Records "<Path>: <Reason>" unless a problem is already recorded.
  void fail(const std::string &Path, const std::string &Reason) {
    if (Error.empty())
      Error = Path.empty() ? Reason : Path + ": " + Reason;
  }

  /// True when \p J is an object; otherwise records that \p Path must be one.
  bool expectObject(const nlohmann::json &J, const std::string &Path) {
    if (J.is_object())
      return true;
    fail(Path, std::string("expected an object, found ") + describeJsonType(J));
    return false;
  }

  /// The member, or null when it is absent (recorded when \p Required).
  const nlohmann::json *member(const nlohmann::json &Obj, const char *Key,
                               const std::string &Path, bool Required) {
    if (!Obj.is_object()) {
      if (Required)
        fail(Path, std::string("expected an object, found ") +
                       describeJsonType(Obj));
      return nullptr;
    }
    auto It = Obj.find(Key);
    if (It == Obj.end()) {
      if (Required)
        fail(memberPath(Path, Key), "missing");
      return nullptr;
    }
    return &*It;
  }

  /// A string member; \p Default when absent (required when none).
  std::string string(const nlohmann::json &Obj, const char *Key,
                     const std::string &Path,
                     std::optional<std::string> Default = std::nullopt) {
    const nlohmann::json *M = member(Obj, Key, Path, !Default);
    if (!M)
      return Default.value_or("");
    return asString(*M, memberPath(Path, Key));
  }

  std::string asString(const nlohmann::json &J, const std::string &Path) {
    if (!J.is_string()) {
      fail(Path, std::string("expected a string, found ") + describeJsonType(J));
      return "";
    }
    return J.get<std::string>();
  }

  /// An integer member in [Min, Max]; \p Default when absent (required when
  /// none). A fraction, a string or an integer out of range is refused.
  long long integer(const nlohmann::json &Obj, const char *Key,
                    const std::string &Path, long long Min, long long Max,
                    std::optional<long long> Default = std::nullopt) {
    const nlohmann::json *M = member(Obj, Key, Path, !Default);
    if (!M)
      return Default.value_or(0);
    return asInteger(*M, memberPath(Path, Key), Min, Max);
  }

  long long asInteger(const nlohmann::json &J, const std::string &Path,
                      long long Min, long long Max) {
    long long V = 0;
    if (J.is_number_unsigned()) {
      auto U = J.get<unsigned long long>();
      if (U > static_cast<unsigned long long>(Max)) {
        fail(Path, std::to_string(U) + " is out of range [" +
                       std::to_string(Min) + ", " + std::to_string(Max) + "]");
        return Min;
      }
      V = static_cast<long long>(U);
    } else if (J.is_number_integer()) {
      V = J.get<long long>();
    } else {
      fail(Path, std::string("expected an integer, found ") +
                     describeJsonType(J) +
                     (J.is_number_float() ? " (" + J.dump() + ")" : ""));
      return Min;
    }
    if (V < Min || V > Max) {
      fail(Path, std::to_string(V) + " is out of range [" +
                     std::to_string(Min) + ", " + std::to_string(Max) + "]");
      return Min;
    }
    return V;
  }

  /// A finite number member (integers too); \p Default when absent.
  double number(const nlohmann::json &Obj, const char *Key,
                const std::string &Path,
                std::optional<double> Default = std::nullopt) {
    const nlohmann::json *M = member(Obj, Key, Path, !Default);
    if (!M)
      return Default.value_or(0.0);
    if (!M->is_number()) {
      fail(memberPath(Path, Key), std::string("expected a number, found ") +
                                      describeJsonType(*M));
      return 0.0;
    }
    double D = M->get<double>();
    if (!std::isfinite(D)) {
      fail(memberPath(Path, Key), "not a finite number");
      return 0.0;
    }
    return D;
  }

  /// A boolean member; \p Default when absent.
  bool boolean(const nlohmann::json &Obj, const char *Key,
               const std::string &Path,
               std::optional<bool> Default = std::nullopt) {
    const nlohmann::json *M = member(Obj, Key, Path, !Default);
    if (!M)
      return Default.value_or(false);
    if (!M->is_boolean()) {
      fail(memberPath(Path, Key), std::string("expected true or false, found ") +
                                      describeJsonType(*M));
      return false;
    }
    return M->get<bool>();
  }

  /// An array member; an empty array when absent and not \p Required, or
  /// when it is not an array (recorded).
  const nlohmann::json &array(const nlohmann::json &Obj, const char *Key,
                              const std::string &Path, bool Required) {
    static const nlohmann::json Empty = nlohmann::json::array();
    const nlohmann::json *M = member(Obj, Key, Path, Required);
    if (!M)
      return Empty;
    if (!M->is_array()) {
      fail(memberPath(Path, Key), std::string("expected an array, found ") +
                                      describeJsonType(*M));
      return Empty;
    }
    return *M;
  }

  /// An array of strings; empty when absent and not \p Required.
  std::vector<std::string> strings(const nlohmann::json &Obj, const char *Key,
                                   const std::string &Path, bool Required) {
    std::vector<std::string> Out;
    const nlohmann::json &A = array(Obj, Key, Path, Required);
    for (size_t I = 0; I < A.size(); ++I)
      Out.push_back(asString(A[I], elementPath(memberPath(Path, Key), I)));
    return Out;
  }

private:
  std::string &Error;
};

} // namespace support
} // namespace forgestencil

#endif // FORGESTENCIL_SUPPORT_JSONREADER_H
