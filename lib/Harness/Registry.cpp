//===- Registry.cpp - results/integration_registry.json -------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/Registry.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

namespace forgestencil {
namespace harness {

using nlohmann::json;

json makeEmptyRegistry() {
  return json{{"format", RegistryFormat},
              {"version", RegistryVersion},
              {"entries", json::array()}};
}

Expected<std::string> registryKey(const json &Entry) {
  if (!Entry.is_object())
    return fail("a registry entry must be an object");
  auto App = Entry.find("app");
  if (App == Entry.end() || !App->is_string())
    return fail("a registry entry needs a string 'app'");
  auto Kernels = Entry.find("kernels");
  if (Kernels == Entry.end() || !Kernels->is_array())
    return fail("a registry entry needs a list 'kernels'");
  std::vector<std::string> Names;
  for (const json &Name : *Kernels) {
    if (!Name.is_string())
      return fail("registry entry kernels must be strings");
    Names.push_back(Name.get<std::string>());
  }
  std::sort(Names.begin(), Names.end());
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  auto Gpu = Entry.find("gpu");
  if (Gpu == Entry.end() || !Gpu->is_object() || !Gpu->contains("name") ||
      !(*Gpu)["name"].is_string())
    return fail("a registry entry needs a string 'gpu.name'");

  // A JSON array is an unambiguous encoding of the parts. An entry without a
  // variant keeps the key it had before variants existed.
  json Key = json::array({App->get<std::string>(), Names,
                          (*Gpu)["name"].get<std::string>()});
  if (auto Variant = Entry.find("variant"); Variant != Entry.end()) {
    if (!Variant->is_string() || Variant->get<std::string>().empty())
      return fail("a registry entry's 'variant' must be a non-empty string");
    Key.push_back(Variant->get<std::string>());
  }
  return Key.dump();
}

Expected<json> parseRegistry(const std::string &Text, const std::string &Path) {
  if (Text.find_first_not_of(" \t\r\n") == std::string::npos)
    return makeEmptyRegistry();
  json Registry = json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (Registry.is_discarded())
    return fail(Path + ": not valid JSON");
  if (!Registry.is_object() || Registry.value("format", "") != RegistryFormat)
    return fail(Path + ": not an integration registry (no \"format\": \"" +
                RegistryFormat + "\")");
  if (!Registry.contains("version") || !Registry["version"].is_number_integer() ||
      Registry["version"].get<int>() > RegistryVersion)
    return fail(Path + ": registry version is missing or newer than " +
                std::to_string(RegistryVersion));
  if (!Registry.contains("entries") || !Registry["entries"].is_array())
    return fail(Path + ": registry has no 'entries' list");
  return Registry;
}

Expected<json> registryEntryFromRecord(const json &Record) {
  if (!Record.is_object())
    return fail("a run record must be a JSON object");
  // The members buildRegistryEntry() writes; "reason" only when refused,
  // "modes", "speedup" and "output" only when measured.
  static const char *const Required[] = {
      "app",  "kernels", "gpu",  "nvcc", "problem",      "rounds",
      "runs_made", "seed", "status", "check", "date", "tool_version",
      "patches"};
  static const char *const Optional[] = {"reason", "modes", "speedup",
                                         "output", "variant"};
  json Entry = json::object();
  for (const char *Name : Required) {
    auto It = Record.find(Name);
    if (It == Record.end())
      return fail(std::string("the run record has no '") + Name + "'");
    Entry[Name] = *It;
  }
  for (const char *Name : Optional)
    if (auto It = Record.find(Name); It != Record.end())
      Entry[Name] = *It;
  // Per-round ratios belong to the record's runs, not to the summary.
  if (Entry.contains("speedup") && Entry["speedup"].is_object())
    Entry["speedup"].erase("pair_ratios");
  if (Expected<std::string> Key = registryKey(Entry); !Key)
    return fail(Key.error());
  return Entry;
}

Expected<std::vector<json>> runRecordsOfFile(const json &Content) {
  if (!Content.is_object())
    return fail("a run record must be a JSON object");
  auto Variants = Content.find("variants");
  if (Variants == Content.end())
    return std::vector<json>{Content};
  if (!Variants->is_array() || Variants->empty())
    return fail("'variants' must be a non-empty list of run records");
  std::vector<json> Records(Variants->begin(), Variants->end());
  for (const json &Record : Records)
    if (!Record.is_object() || !Record.contains("variant"))
      return fail("every member of 'variants' must be the run record of a "
                  "variant (with a 'variant')");
  return Records;
}

Status mergeRegistryEntry(json &Registry, const json &Entry) {
  Expected<std::string> Key = registryKey(Entry);
  if (!Key)
    return fail(Key.error());
  json &Entries = Registry["entries"];
  std::vector<std::pair<std::string, json>> Keyed;
  for (json &Existing : Entries) {
    Expected<std::string> ExistingKey = registryKey(Existing);
    // An entry this code cannot key is someone else's data: keep it as is.
    std::string SortKey = ExistingKey ? *ExistingKey : "~" + Existing.dump();
    if (ExistingKey && *ExistingKey == *Key)
      continue;
    Keyed.emplace_back(SortKey, std::move(Existing));
  }
  Keyed.emplace_back(*Key, Entry);
  std::stable_sort(Keyed.begin(), Keyed.end(),
                   [](const auto &L, const auto &R) { return L.first < R.first; });
  Entries = json::array();
  for (auto &[SortKey, Value] : Keyed)
    Entries.push_back(std::move(Value));
  return Status::success();
}

namespace {

std::string errnoText() { return std::strerror(errno); }

bool writeAll(int Fd, const std::string &Content) {
  size_t Written = 0;
  while (Written < Content.size()) {
    ssize_t Got = write(Fd, Content.data() + Written, Content.size() - Written);
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      return false;
    Written += size_t(Got);
  }
  return true;
}

/// Holds an exclusive flock on a file for as long as it lives.
class FileLock {
public:
  explicit FileLock(const std::string &Path) {
    Fd = open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd < 0) {
      Problem = Path + ": cannot open lock file: " + errnoText();
      return;
    }
    int Result;
    do
      Result = flock(Fd, LOCK_EX);
    while (Result != 0 && errno == EINTR);
    if (Result != 0)
      Problem = Path + ": cannot lock: " + errnoText();
  }
  ~FileLock() {
    if (Fd >= 0)
      close(Fd); // Closing releases the lock.
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

  const std::string &problem() const { return Problem; }

private:
  int Fd = -1;
  std::string Problem;
};

} // namespace

Status writeFileAtomically(const std::string &Path, const std::string &Content) {
  // The temporary file sits beside the target: rename is atomic only within
  // one file system.
  std::string Temporary = Path + ".tmp." + std::to_string(getpid());
  int Fd = open(Temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                0644);
  if (Fd < 0)
    return fail(Temporary + ": cannot create: " + errnoText());
  bool Written = writeAll(Fd, Content) && fsync(Fd) == 0;
  std::string WriteError = Written ? "" : errnoText();
  if (close(Fd) != 0 && Written) {
    Written = false;
    WriteError = errnoText();
  }
  if (!Written) {
    unlink(Temporary.c_str());
    return fail(Temporary + ": cannot write: " + WriteError);
  }
  if (rename(Temporary.c_str(), Path.c_str()) != 0) {
    std::string Error = errnoText();
    unlink(Temporary.c_str());
    return fail(Path + ": cannot replace: " + Error);
  }
  return Status::success();
}

Status updateRegistryFile(const std::string &Path, const json &Entry) {
  std::error_code Error;
  std::filesystem::path Parent = std::filesystem::path(Path).parent_path();
  if (!Parent.empty())
    std::filesystem::create_directories(Parent, Error);
  if (Error)
    return fail(Parent.string() + ": cannot create: " + Error.message());
  FileLock Lock(Path + ".lock");
  if (!Lock.problem().empty())
    return fail(Lock.problem());

  std::string Text;
  if (std::ifstream In{Path, std::ios::binary}) {
    std::ostringstream Buffer;
    Buffer << In.rdbuf();
    Text = Buffer.str();
  } else if (access(Path.c_str(), F_OK) == 0) {
    return fail(Path + ": exists but cannot be read");
  }
  Expected<json> Registry = parseRegistry(Text, Path);
  if (!Registry)
    return fail(Registry.error());
  if (Status Merged = mergeRegistryEntry(*Registry, Entry); !Merged)
    return Merged;
  return writeFileAtomically(Path, Registry->dump(2) + "\n");
}

} // namespace harness
} // namespace forgestencil
