//===- PatchFile.cpp - Where patches are written and how ------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/PatchFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace forgestencil {
namespace patch {

namespace {

/// `git format-patch` keeps at most this much of the subject in a file name.
constexpr size_t MaxSlugLength = 52;

Failure errnoFailure(const std::string &What) {
  return makeFailure(What + ": " + std::strerror(errno));
}

/// Writes all of \p Content to \p Fd, retrying short writes.
bool writeAll(int Fd, std::string_view Content) {
  while (!Content.empty()) {
    ssize_t Written = ::write(Fd, Content.data(), Content.size());
    if (Written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    Content.remove_prefix(static_cast<size_t>(Written));
  }
  return true;
}

/// Flushes a directory so that a rename inside it survives a crash.
void syncDirectory(const fs::path &Directory) {
  int Fd = ::open(Directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (Fd < 0)
    return;
  ::fsync(Fd);
  ::close(Fd);
}

/// The patch number of a `NNNN-*.patch` file name, or 0 when it is not one.
unsigned long patchNumberOf(const std::string &FileName) {
  size_t Digits = 0;
  while (Digits < FileName.size() && FileName[Digits] >= '0' &&
         FileName[Digits] <= '9')
    ++Digits;
  constexpr std::string_view Extension = ".patch";
  if (Digits < 4 || Digits > 9 || Digits >= FileName.size() ||
      FileName[Digits] != '-' || FileName.size() < Extension.size() ||
      FileName.compare(FileName.size() - Extension.size(), Extension.size(),
                       Extension) != 0)
    return 0;
  return std::stoul(FileName.substr(0, Digits));
}

} // namespace

/// Writes \p Content to a new hidden temporary file beside \p Target,
/// flushed to disk; its path goes to \p Temporary. Nothing is left behind
/// on failure.
static Status writeTemporaryBeside(const fs::path &Target,
                                   std::string_view Content,
                                   std::string &Temporary) {
  if (Target.filename().empty())
    return makeFailure("'" + Target.string() + "' does not name a file");
  fs::path Directory = Target.parent_path();
  if (Directory.empty())
    Directory = ".";
  std::error_code EC;
  fs::create_directories(Directory, EC);
  if (EC)
    return makeFailure("cannot create directory '" + Directory.string() +
                       "': " + EC.message());

  // The temporary file sits next to the target so that rename() stays within
  // one file system and is atomic.
  Temporary = (Directory / ("." + Target.filename().string() + ".tmp.XXXXXX"))
                  .string();
  int Fd = ::mkstemp(Temporary.data());
  if (Fd < 0)
    return errnoFailure("cannot create a temporary file in '" +
                        Directory.string() + "'");

  auto Abandon = [&](const std::string &What) {
    Failure Error = errnoFailure(What);
    ::close(Fd);
    ::unlink(Temporary.c_str());
    return Error;
  };
  // mkstemp creates the file private; a patch is an ordinary file.
  if (::fchmod(Fd, 0644) != 0)
    return Abandon("cannot set the mode of '" + Temporary + "'");
  if (!writeAll(Fd, Content))
    return Abandon("cannot write '" + Temporary + "'");
  if (::fsync(Fd) != 0)
    return Abandon("cannot flush '" + Temporary + "'");
  if (::close(Fd) != 0) {
    Failure Error = errnoFailure("cannot close '" + Temporary + "'");
    ::unlink(Temporary.c_str());
    return Error;
  }
  return Status::success();
}

Status writePatchFileAtomically(const std::string &Path,
                                std::string_view Content) {
  fs::path Target(Path);
  std::string Temporary;
  Status Written = writeTemporaryBeside(Target, Content, Temporary);
  if (!Written.ok())
    return Written;
  if (::rename(Temporary.c_str(), Path.c_str()) != 0) {
    Failure Error = errnoFailure("cannot rename '" + Temporary + "' to '" +
                                 Path + "'");
    ::unlink(Temporary.c_str());
    return Error;
  }
  syncDirectory(Target.parent_path().empty() ? fs::path(".")
                                             : Target.parent_path());
  return Status::success();
}

std::string sanitiseSlug(std::string_view Text) {
  std::string Slug;
  bool PendingDash = false;
  for (char C : Text) {
    if (C >= 'A' && C <= 'Z')
      C = static_cast<char>(C - 'A' + 'a');
    bool Keep = (C >= 'a' && C <= 'z') || (C >= '0' && C <= '9');
    if (!Keep) {
      PendingDash = !Slug.empty();
      continue;
    }
    if (PendingDash) {
      if (Slug.size() + 1 >= MaxSlugLength)
        break;
      Slug += '-';
      PendingDash = false;
    }
    if (Slug.size() >= MaxSlugLength)
      break;
    Slug += C;
  }
  return Slug.empty() ? "patch" : Slug;
}

Expected<std::string> nextPatchPath(const std::string &Directory,
                                    std::string_view Slug) {
  unsigned long Highest = 0;
  std::error_code EC;
  if (fs::exists(Directory, EC)) {
    if (!fs::is_directory(Directory, EC))
      return makeFailure("'" + Directory + "' is not a directory");
    for (fs::directory_iterator It(Directory, EC), End; !EC && It != End;
         It.increment(EC))
      Highest =
          std::max(Highest, patchNumberOf(It->path().filename().string()));
    if (EC)
      return makeFailure("cannot list '" + Directory + "': " + EC.message());
  } else if (EC) {
    return makeFailure("cannot examine '" + Directory + "': " + EC.message());
  }

  char Number[16];
  std::snprintf(Number, sizeof(Number), "%04lu", Highest + 1);
  return (fs::path(Directory) /
          (std::string(Number) + "-" + sanitiseSlug(Slug) + ".patch"))
      .string();
}

std::optional<std::string> findIdenticalPatch(const std::string &Directory,
                                              std::string_view Content) {
  std::error_code EC;
  std::vector<fs::path> Candidates;
  for (fs::directory_iterator It(Directory, EC), End; !EC && It != End;
       It.increment(EC))
    if (patchNumberOf(It->path().filename().string()) != 0 &&
        It->file_size(EC) == Content.size())
      Candidates.push_back(It->path());
  // Directory order is arbitrary; the lowest number wins for stable output.
  std::sort(Candidates.begin(), Candidates.end());
  for (const fs::path &Candidate : Candidates) {
    std::ifstream In(Candidate, std::ios::binary);
    std::string Existing(Content.size(), '\0');
    if (In.read(Existing.data(), static_cast<std::streamsize>(Existing.size())) &&
        Existing == Content)
      return Candidate.string();
  }
  return std::nullopt;
}

bool isForgeStencilPatch(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::string Head(4096, '\0');
  In.read(Head.data(), static_cast<std::streamsize>(Head.size()));
  Head.resize(static_cast<size_t>(In.gcount()));
  // The header writePatch puts above the first diff.
  size_t Diff = Head.find("\ndiff --git ");
  size_t From = Head.find("\nFrom: ForgeStencil <forgestencil@localhost>\n");
  return From != std::string::npos && (Diff == std::string::npos || From < Diff);
}

Expected<SeriesUpdate> replacePatchSeries(const std::string &Directory,
                                          std::string_view Slug,
                                          std::string_view Content) {
  std::error_code EC;
  std::vector<fs::path> Series;
  if (fs::exists(Directory, EC)) {
    if (!fs::is_directory(Directory, EC))
      return makeFailure("'" + Directory + "' is not a directory");
    for (fs::directory_iterator It(Directory, EC), End; !EC && It != End;
         It.increment(EC))
      if (patchNumberOf(It->path().filename().string()) != 0)
        Series.push_back(It->path());
    if (EC)
      return makeFailure("cannot list '" + Directory + "': " + EC.message());
  }
  std::sort(Series.begin(), Series.end());
  for (const fs::path &P : Series)
    if (!isForgeStencilPatch(P.string()))
      return makeFailure(
          "'" + Directory + "' holds " + P.filename().string() +
          ", which fs-rewrite did not write: a new patch is made against the "
          "tree as it was read, and whether that tree carries " +
          P.filename().string() +
          " cannot be told, so the series would not be known to apply; move "
          "it away or give another --output-dir");

  SeriesUpdate U;
  U.Path = (fs::path(Directory) /
            ("0001-" + sanitiseSlug(Slug) + ".patch")).string();
  if (Series.size() == 1 && Series[0] == fs::path(U.Path)) {
    std::ifstream In(Series[0], std::ios::binary);
    std::string Existing((std::istreambuf_iterator<char>(In)),
                         std::istreambuf_iterator<char>());
    if (Existing == Content) {
      U.Unchanged = true;
      return U;
    }
  }

  // The new patch is complete on disk before the series changes.
  std::string Temporary;
  Status Written = writeTemporaryBeside(fs::path(U.Path), Content, Temporary);
  if (!Written.ok())
    return makeFailure(Written.error());
  // The old patches are hidden last first, so that what a reader sees is
  // at every moment a prefix of the old series, then the new one; they are
  // removed once the new patch is in place, and restored on a failure.
  std::vector<std::pair<fs::path, fs::path>> Hidden;
  auto Restore = [&](const std::string &Why) {
    for (auto It = Hidden.rbegin(); It != Hidden.rend(); ++It)
      ::rename(It->second.c_str(), It->first.c_str());
    ::unlink(Temporary.c_str());
    return makeFailure(Why);
  };
  for (auto It = Series.rbegin(); It != Series.rend(); ++It) {
    fs::path Away = It->parent_path() /
                    ("." + It->filename().string() + ".replaced");
    if (::rename(It->c_str(), Away.c_str()) != 0)
      return Restore("cannot move '" + It->string() + "' aside: " +
                     std::strerror(errno));
    Hidden.push_back({*It, Away});
  }
  if (::rename(Temporary.c_str(), U.Path.c_str()) != 0)
    return Restore("cannot rename '" + Temporary + "' to '" + U.Path +
                   "': " + std::strerror(errno));
  for (const auto &[Old, Away] : Hidden) {
    ::unlink(Away.c_str());
    if (Old != fs::path(U.Path))
      U.Replaced.push_back(Old.string());
  }
  syncDirectory(Directory);
  return U;
}

} // namespace patch
} // namespace forgestencil
