//===- VerifyRecord.h - The verify part of an fs-harness run record -------===//
///
/// \file
/// Internal to lib/Knowledge: what the choices from in-app times read of a
/// run record (fs-harness `--json`, or a registry entry): its
/// `in_app_verification` object and the `kernel_times` in it.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_KNOWLEDGE_VERIFYRECORD_H
#define FORGESTENCIL_LIB_KNOWLEDGE_VERIFYRECORD_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace forgestencil {
namespace knowledge {

struct VerifyRecord {
  llvm::json::Value Root = nullptr;
  /// For the record of an app with build variants: their verify runs in
  /// one object (kernel times and differing launches of every variant).
  llvm::json::Value Merged = nullptr;
  /// Into Root or Merged; never null once read.
  const llvm::json::Object *Verify = nullptr, *Times = nullptr;
};

/// Parses \p JsonText; fails, saying why, when it is not JSON or holds no
/// `in_app_verification.kernel_times`.
inline llvm::Error readVerifyRecord(llvm::StringRef JsonText,
                                    VerifyRecord &R) {
  llvm::Expected<llvm::json::Value> Root = llvm::json::parse(JsonText);
  if (!Root)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "not JSON: " +
                                       llvm::toString(Root.takeError()));
  R.Root = std::move(*Root);
  const llvm::json::Object *Obj = R.Root.getAsObject();
  R.Verify = Obj ? Obj->getObject("in_app_verification") : nullptr;
  // An app with build variants: {"app", "variants": [{..., "variant",
  // "in_app_verification"}]}. A kernel timed in two variants with other
  // times is ambiguous (the variants build different programs).
  const llvm::json::Array *Variants = Obj ? Obj->getArray("variants") : nullptr;
  if (!R.Verify && Variants) {
    llvm::json::Object Times;
    llvm::json::Array Differing;
    for (const llvm::json::Value &V : *Variants) {
      const llvm::json::Object *VO = V.getAsObject();
      const llvm::json::Object *VV =
          VO ? VO->getObject("in_app_verification") : nullptr;
      if (!VV)
        continue;
      if (const llvm::json::Object *T = VV->getObject("kernel_times"))
        for (const auto &[Key, Value] : *T) {
          auto [It, New] = Times.try_emplace(Key, Value);
          if (!New && It->second != Value)
            return llvm::createStringError(
                llvm::inconvertibleErrorCode(),
                "kernel_times." + Key.str() +
                    ": timed in two build variants with other times");
        }
      if (const llvm::json::Array *D = VV->getArray("differing"))
        for (const llvm::json::Value &X : *D)
          Differing.push_back(X);
    }
    if (!Times.empty()) {
      R.Merged = llvm::json::Object{{"kernel_times", std::move(Times)},
                                    {"differing", std::move(Differing)}};
      R.Verify = R.Merged.getAsObject();
    }
  }
  R.Times = R.Verify ? R.Verify->getObject("kernel_times") : nullptr;
  if (!R.Times)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no 'in_app_verification.kernel_times': not the record of a "
        "USE_OURS=verify run");
  return llvm::Error::success();
}

} // namespace knowledge
} // namespace forgestencil

#endif
