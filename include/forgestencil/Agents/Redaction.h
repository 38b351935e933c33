//===- Redaction.h - Keep the API key out of every text we emit ----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The API key must never reach a terminal, a log or the audit transcript.
/// Servers sometimes echo the key (or the Authorization header) back in their
/// error bodies, so every text that leaves the client passes through here.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_REDACTION_H
#define FORGESTENCIL_AGENTS_REDACTION_H

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace forgestencil {
namespace agents {

/// What a redacted secret is replaced with.
inline constexpr std::string_view RedactedMarker = "[REDACTED]";

/// Returns \p Text with every occurrence of \p Secret, and the credential of
/// any `Bearer <token>` phrase, replaced by RedactedMarker. An empty secret
/// only removes bearer tokens.
std::string redactSecret(std::string_view Text, std::string_view Secret);

/// Returns \p Value with redactSecret applied to every string and every
/// object key inside it.
nlohmann::json redactSecretInJson(const nlohmann::json &Value,
                                  std::string_view Secret);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_REDACTION_H
