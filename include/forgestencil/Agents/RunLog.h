//===- RunLog.h - The audit transcript of an agent run --------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every prompt, response, verdict and measurement of an agent run is kept in
/// a run directory as numbered JSON files (`0001-request.json`,
/// `0002-response.json`, ...), so that a reader can replay what the model was
/// told, what it answered and what the evaluator made of it. The API key is
/// redacted from everything written.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_RUNLOG_H
#define FORGESTENCIL_AGENTS_RUNLOG_H

#include "forgestencil/Agents/Result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace forgestencil {
namespace agents {

/// Writes the numbered records of one run directory.
class RunLog {
public:
  /// Opens (creating it if needed) \p Directory. Numbering continues after
  /// the highest record already there, so a resumed run appends. \p Secret is
  /// redacted from every record.
  static Result<RunLog> open(std::string Directory, std::string Secret);

  /// Writes `NNNN-<Kind>.json` holding {index, kind, time, payload} and
  /// returns its path. \p Kind is a short word such as `request`,
  /// `response`, `error`, `verdict` or `measurement`; characters outside
  /// [A-Za-z0-9_-] are replaced so the name stays a plain file name. The file
  /// is written under a temporary name and renamed, so a reader never sees
  /// half a record.
  Result<std::string> record(std::string_view Kind,
                             const nlohmann::json &Payload);

  const std::string &directory() const { return Directory; }
  /// The number the next record will get.
  int nextIndex() const { return NextIndex; }

private:
  RunLog(std::string Directory, std::string Secret, int NextIndex)
      : Directory(std::move(Directory)), Secret(std::move(Secret)),
        NextIndex(NextIndex) {}

  std::string Directory;
  std::string Secret;
  int NextIndex;
};

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_RUNLOG_H
