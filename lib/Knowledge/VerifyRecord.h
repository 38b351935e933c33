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
  /// Into Root; never null once read.
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
