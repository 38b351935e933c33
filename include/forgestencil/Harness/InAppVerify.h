//===- InAppVerify.h - The USE_OURS=verify run of a patched app -*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A patch with body copies carries forgestencil/checks.h; fs-harness runs
/// the app once with USE_OURS=verify before the timed rounds
/// (docs/body-copies.md). This judges that run and writes what it found
/// into the registry entry.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_INAPPVERIFY_H
#define FORGESTENCIL_HARNESS_INAPPVERIFY_H

#include "forgestencil/Harness/OutputParsing.h"
#include "forgestencil/Support/ProcessRunner.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace forgestencil {
namespace harness {

/// Whether the patched source at \p SourceDir holds body copies, so that
/// the app gets a USE_OURS=verify run.
bool hasBodyCopies(const std::string &SourceDir);

/// Judges the USE_OURS=verify run \p Result: its findings go to \p Found and
/// one line each to \p Progress. Returns why the measurement is refused
/// (a failed run, no summary, a difference, nothing compared), or "".
std::string judgeInAppVerification(const support::ProcessResult &Result,
                                   std::optional<InAppVerification> &Found,
                                   std::ostream &Progress);

/// The registry entry's `in_app_verification` object.
nlohmann::json inAppVerificationJson(const InAppVerification &V);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_INAPPVERIFY_H
