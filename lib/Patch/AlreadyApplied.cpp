//===- AlreadyApplied.cpp - Does a tree already carry a patch? ------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/AlreadyApplied.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace forgestencil {
namespace patch {

namespace {

/// Text that only a ForgeStencil patch puts into an application's sources.
constexpr std::string_view ForgeStencilMarkers[] = {
    "forgestencil/use_ours.h",
    "forgestencil::use_ours(",
};

std::optional<std::string> readFile(const std::filesystem::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Content;
  Content << In.rdbuf();
  return Content.str();
}

const char *describe(ApplyState State) {
  switch (State) {
  case ApplyState::NotApplied:
    return "not applied";
  case ApplyState::AlreadyApplied:
    return "already applied";
  case ApplyState::Diverged:
    return "diverged";
  }
  return "";
}

} // namespace

std::optional<std::string> findForgeStencilMarker(std::string_view Content) {
  size_t First = std::string_view::npos;
  std::string_view Found;
  for (std::string_view Marker : ForgeStencilMarkers) {
    size_t At = Content.find(Marker);
    if (At < First) {
      First = At;
      Found = Marker;
    }
  }
  if (First == std::string_view::npos)
    return std::nullopt;
  size_t Line = 1;
  for (size_t I = 0; I < First; ++I)
    Line += Content[I] == '\n';
  return "line " + std::to_string(Line) + ": " + std::string(Found);
}

ApplyCheck detectAlreadyApplied(const FileChange &Change,
                                const std::optional<std::string> &Current) {
  if (!Current) {
    if (Change.isNewFile())
      return {ApplyState::NotApplied, Change.Path + " does not exist yet"};
    return {ApplyState::Diverged, Change.Path + " does not exist"};
  }
  if (*Current == Change.NewContent)
    return {ApplyState::AlreadyApplied,
            Change.Path + " already holds the patched content"};
  // The marker check comes before comparing with the old content: a caller
  // that diffed an already patched tree has old content equal to the tree.
  if (std::optional<std::string> Marker = findForgeStencilMarker(*Current))
    return {ApplyState::AlreadyApplied,
            Change.Path + " already carries a ForgeStencil patch (" +
                *Marker + ")"};
  if (Change.isNewFile())
    return {ApplyState::Diverged,
            Change.Path + " exists already with other content"};
  if (*Current == *Change.OldContent)
    return {ApplyState::NotApplied, Change.Path + " is unchanged"};
  return {ApplyState::Diverged,
          Change.Path + " has changed since the patch was made"};
}

ApplyCheck detectAlreadyAppliedInTree(const std::string &SourceRoot,
                                      const std::vector<FileChange> &Changes) {
  size_t Applied = 0, NotApplied = 0;
  std::string Details;
  for (const FileChange &Change : Changes) {
    ApplyCheck File = detectAlreadyApplied(
        Change, readFile(std::filesystem::path(SourceRoot) / Change.Path));
    if (File.State == ApplyState::NotApplied) {
      ++NotApplied;
      continue;
    }
    Applied += File.State == ApplyState::AlreadyApplied;
    Details += "\n  " + std::string(describe(File.State)) + ": " + File.Reason;
  }

  if (NotApplied == Changes.size())
    return {ApplyState::NotApplied, "the tree does not carry the patch"};
  if (Applied == Changes.size())
    return {ApplyState::AlreadyApplied,
            "the tree already carries the patch:" + Details};
  return {ApplyState::Diverged,
          Applied ? "the tree carries part of the patch:" + Details
                  : "the tree differs from what the patch expects:" + Details};
}

} // namespace patch
} // namespace forgestencil
