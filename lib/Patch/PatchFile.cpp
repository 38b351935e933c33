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

Status writePatchFileAtomically(const std::string &Path,
                                std::string_view Content) {
  fs::path Target(Path);
  if (Target.filename().empty())
    return makeFailure("'" + Path + "' does not name a file");
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
  std::string Temporary =
      (Directory / ("." + Target.filename().string() + ".tmp.XXXXXX"))
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
  if (::rename(Temporary.c_str(), Path.c_str()) != 0) {
    Failure Error = errnoFailure("cannot rename '" + Temporary + "' to '" +
                                 Path + "'");
    ::unlink(Temporary.c_str());
    return Error;
  }
  syncDirectory(Directory);
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

} // namespace patch
} // namespace forgestencil
