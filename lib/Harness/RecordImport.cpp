//===- RecordImport.cpp - A run measured elsewhere into the registry ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/IntegrationRun.h"

#include "ProjectPaths.h"
#include "forgestencil/Harness/OutputCompare.h"
#include "forgestencil/Harness/Registry.h"

#include <nlohmann/json.hpp>

namespace forgestencil {
namespace harness {

using nlohmann::json;

int importRunRecord(const HarnessOptions &Options, const std::string &RecordPath,
                    std::ostream &Report) {
  auto Fail = [&](const std::string &Why) {
    Report << "fs-harness: error: " << Why << "\n";
    return int(ExitSetupFailed);
  };
  Expected<std::string> Text = readWholeFile(RecordPath);
  if (!Text)
    return Fail(Text.error());
  json Content = json::parse(*Text, nullptr, /*allow_exceptions=*/false);
  if (Content.is_discarded())
    return Fail(RecordPath + ": not valid JSON");
  Expected<std::vector<json>> Records = runRecordsOfFile(Content);
  if (!Records)
    return Fail(RecordPath + ": " + Records.error());
  // Every entry is checked before any is written: a record file goes in
  // whole or not at all.
  std::vector<json> Entries;
  for (const json &Record : *Records) {
    Expected<json> Entry = registryEntryFromRecord(Record);
    if (!Entry)
      return Fail(RecordPath + ": " + Entry.error());
    Entries.push_back(std::move(*Entry));
  }
  std::string Root =
      Options.RootDir.empty() ? findProjectRoot() : Options.RootDir;
  std::string RegistryPath = registryPathFor(Options, Root);
  if (RegistryPath.empty())
    return Fail(NoRegistry);
  for (const json &Entry : Entries) {
    const std::string App =
        Entry["app"].is_string() ? Entry["app"].get<std::string>() : std::string();
    if (!Options.AppName.empty() && Options.AppName != App)
      return Fail(RecordPath + ": a record of app '" + App + "', not '" +
                  Options.AppName + "'");
    std::string PatchesDir = patchesDirFor(Options, Root, App);
    Expected<PatchSet> Patches = hashPatches(PatchesDir);
    if (!Patches)
      return Fail(Patches.error());
    const json &Measured = Entry["patches"];
    if (!Measured.is_object() || Measured.value("sha256", "") != Patches->Sha256)
      return Fail(RecordPath + ": measured with other patches (sha256 " +
                  (Measured.is_object() ? Measured.value("sha256", "?") : "?") +
                  ") than " + PatchesDir + " holds (sha256 " + Patches->Sha256 +
                  ")");
  }
  for (const json &Entry : Entries) {
    if (Status Updated = updateRegistryFile(RegistryPath, Entry); !Updated)
      return Fail(Updated.error());
    Report << "fs-harness: " << Entry["app"].get<std::string>()
           << (Entry.contains("variant")
                   ? " [variant " + Entry["variant"].get<std::string>() + "]"
                   : std::string())
           << ": the run record of " << Entry["date"].get<std::string>()
           << " on " << Entry["gpu"]["name"].get<std::string>()
           << " is now in " << RegistryPath << "\n";
  }
  return int(ExitReported);
}

} // namespace harness
} // namespace forgestencil
