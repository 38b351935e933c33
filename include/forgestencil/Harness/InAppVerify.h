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

/// Whether the program file \p Binary holds the code forgestencil/checks.h
/// adds (its report's text, "forgestencil verify:"): true or false for an
/// ELF file, nullopt for anything else (a script that starts the program
/// elsewhere) or a file that cannot be read.
std::optional<bool> holdsVerifyCode(const std::string &Binary);

/// Judges the USE_OURS=verify run \p Result of the program \p Binary: its
/// findings go to \p Found and one line each to \p Progress. Returns why
/// the measurement is refused (a failed run, no summary, a difference,
/// nothing compared), or "". A run that succeeded and printed no verify line
/// at all, of an ELF program without the patch's code (a build variant the
/// patch does not touch), is not refused: Found says Untouched.
std::string judgeInAppVerification(const support::ProcessResult &Result,
                                   const std::string &Binary,
                                   std::optional<InAppVerification> &Found,
                                   std::ostream &Progress);

/// The registry entry's `in_app_verification` object.
nlohmann::json inAppVerificationJson(const InAppVerification &V);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_INAPPVERIFY_H
