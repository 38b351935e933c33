//===- RunLog.cpp - The audit transcript of an agent run -----------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/RunLog.h"
#include "forgestencil/Agents/Redaction.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace forgestencil {
namespace agents {

namespace fs = std::filesystem;

namespace {

/// The number a record file name starts with (`0007-response.json` -> 7), or
/// 0 for anything else.
int recordNumber(const std::string &FileName) {
  size_t Digits = 0;
  while (Digits < FileName.size() &&
         std::isdigit(static_cast<unsigned char>(FileName[Digits])))
    ++Digits;
  if (Digits == 0 || Digits > 9 || Digits >= FileName.size() ||
      FileName[Digits] != '-')
    return 0;
  return std::stoi(FileName.substr(0, Digits));
}

std::string sanitizeKind(std::string_view Kind) {
  std::string Out;
  for (char C : Kind)
    Out.push_back(std::isalnum(static_cast<unsigned char>(C)) || C == '-' ||
                          C == '_'
                      ? C
                      : '_');
  return Out.empty() ? std::string("record") : Out;
}

std::string utcTimestamp() {
  std::time_t Now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm Utc{};
  gmtime_r(&Now, &Utc);
  char Buffer[32];
  std::strftime(Buffer, sizeof(Buffer), "%Y-%m-%dT%H:%M:%SZ", &Utc);
  return Buffer;
}

} // namespace

Result<RunLog> RunLog::open(std::string Directory, std::string Secret) {
  std::error_code EC;
  fs::create_directories(Directory, EC);
  if (EC || !fs::is_directory(Directory))
    return makeError("cannot create the run directory " + Directory + ": " +
                     (EC ? EC.message() : "not a directory"));
  int Highest = 0;
  for (const fs::directory_entry &Entry : fs::directory_iterator(Directory, EC))
    Highest = std::max(Highest, recordNumber(Entry.path().filename().string()));
  if (EC)
    return makeError("cannot list the run directory " + Directory + ": " +
                     EC.message());
  return RunLog(std::move(Directory), std::move(Secret), Highest + 1);
}

Result<std::string> RunLog::record(std::string_view Kind,
                                   const nlohmann::json &Payload) {
  char Number[16];
  std::snprintf(Number, sizeof(Number), "%04d", NextIndex);
  std::string Name = std::string(Number) + "-" + sanitizeKind(Kind) + ".json";
  fs::path Path = fs::path(Directory) / Name;
  fs::path Temporary = fs::path(Directory) / ("." + Name + ".tmp");

  nlohmann::json Record = {{"index", NextIndex},
                           {"kind", std::string(Kind)},
                           {"time", utcTimestamp()},
                           {"payload", Payload}};
  std::string Text = redactSecret(redactSecretInJson(Record, Secret).dump(2), Secret);
  {
    std::ofstream Out(Temporary, std::ios::binary | std::ios::trunc);
    Out << Text << '\n';
    if (!Out)
      return makeError("cannot write " + Temporary.string());
  }
  std::error_code EC;
  fs::rename(Temporary, Path, EC);
  if (EC)
    return makeError("cannot rename " + Temporary.string() + " to " +
                     Path.string() + ": " + EC.message());
  ++NextIndex;
  return Path.string();
}

} // namespace agents
} // namespace forgestencil
