//===- Redaction.cpp - Keep the API key out of every text we emit --------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/Redaction.h"

#include <cctype>

namespace forgestencil {
namespace agents {

namespace {

std::string replaceAll(std::string_view Text, std::string_view Needle) {
  std::string Out;
  size_t Pos = 0;
  while (true) {
    size_t Hit = Text.find(Needle, Pos);
    if (Hit == std::string_view::npos)
      break;
    Out.append(Text.substr(Pos, Hit - Pos));
    Out.append(RedactedMarker);
    Pos = Hit + Needle.size();
  }
  Out.append(Text.substr(Pos));
  return Out;
}

bool startsWithIgnoringCase(std::string_view Text, size_t Pos,
                            std::string_view Prefix) {
  if (Text.size() - Pos < Prefix.size())
    return false;
  for (size_t I = 0; I < Prefix.size(); ++I)
    if (std::tolower(static_cast<unsigned char>(Text[Pos + I])) !=
        std::tolower(static_cast<unsigned char>(Prefix[I])))
      return false;
  return true;
}

bool isTokenChar(char C) {
  return !std::isspace(static_cast<unsigned char>(C)) && C != '"' &&
         C != '\'' && C != ',' && C != '}';
}

/// Replaces the credential after each "Bearer " so a header echoed back by a
/// proxy cannot leak even a key the client was not told about.
std::string redactBearerTokens(std::string_view Text) {
  static constexpr std::string_view Bearer = "bearer ";
  std::string Out;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    if (!startsWithIgnoringCase(Text, Pos, Bearer)) {
      Out.push_back(Text[Pos++]);
      continue;
    }
    Out.append(Text.substr(Pos, Bearer.size()));
    Pos += Bearer.size();
    size_t End = Pos;
    while (End < Text.size() && isTokenChar(Text[End]))
      ++End;
    if (End > Pos && Text.substr(Pos, End - Pos) != RedactedMarker)
      Out.append(RedactedMarker);
    else
      Out.append(Text.substr(Pos, End - Pos));
    Pos = End;
  }
  return Out;
}

} // namespace

std::string redactSecret(std::string_view Text, std::string_view Secret) {
  std::string Out = Secret.empty() ? std::string(Text) : replaceAll(Text, Secret);
  return redactBearerTokens(Out);
}

nlohmann::json redactSecretInJson(const nlohmann::json &Value,
                                  std::string_view Secret) {
  if (Value.is_string())
    return redactSecret(Value.get_ref<const std::string &>(), Secret);
  if (Value.is_array()) {
    nlohmann::json Out = nlohmann::json::array();
    for (const auto &Element : Value)
      Out.push_back(redactSecretInJson(Element, Secret));
    return Out;
  }
  if (Value.is_object()) {
    nlohmann::json Out = nlohmann::json::object();
    for (auto It = Value.begin(); It != Value.end(); ++It)
      Out[redactSecret(It.key(), Secret)] = redactSecretInJson(It.value(), Secret);
    return Out;
  }
  return Value;
}

} // namespace agents
} // namespace forgestencil
