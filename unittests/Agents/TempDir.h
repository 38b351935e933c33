//===- TempDir.h - A temporary directory for one test --------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_UNITTESTS_AGENTS_TEMPDIR_H
#define FORGESTENCIL_UNITTESTS_AGENTS_TEMPDIR_H

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace forgestencil {
namespace agents {
namespace test {

/// Creates a fresh directory and removes it with everything in it.
class TempDir {
public:
  TempDir() {
    std::string Template =
        (std::filesystem::temp_directory_path() / "fs-agents-XXXXXX").string();
    Path = ::mkdtemp(Template.data()) ? Template : std::string();
  }
  ~TempDir() {
    std::error_code EC;
    std::filesystem::remove_all(Path, EC);
  }

  const std::string &path() const { return Path; }

  /// The names of the plain files in \p Sub, sorted.
  std::vector<std::string> filesUnder(const std::string &Sub) const {
    std::vector<std::string> Names;
    for (const auto &Entry : std::filesystem::directory_iterator(Path + "/" + Sub))
      if (Entry.is_regular_file())
        Names.push_back(Entry.path().filename().string());
    std::sort(Names.begin(), Names.end());
    return Names;
  }

  std::string read(const std::string &Relative) const {
    std::ifstream In(Path + "/" + Relative);
    std::stringstream Text;
    Text << In.rdbuf();
    return Text.str();
  }

private:
  std::string Path;
};

} // namespace test
} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_UNITTESTS_AGENTS_TEMPDIR_H
