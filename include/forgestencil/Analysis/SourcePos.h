//===- SourcePos.h - A position in a source file ---------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_SOURCEPOS_H
#define FORGESTENCIL_ANALYSIS_SOURCEPOS_H

#include <string>
#include <tuple>

namespace forgestencil {
namespace analysis {

/// A position in a source file, with the file as a canonical absolute path.
struct SourcePos {
  std::string File;
  unsigned Line = 0, Column = 0;
  unsigned Offset = 0;
  bool operator<(const SourcePos &O) const {
    return std::tie(File, Offset) < std::tie(O.File, O.Offset);
  }
};

} // namespace analysis
} // namespace forgestencil

#endif
