//===- CandidateScreen.h - Static screen for untrusted candidate code ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Code written by a model is untrusted: before it is compiled and timed, it
/// is screened for what could fake a result or harm the host. A candidate
/// may not read clocks, use streams other than the one it is given, allocate
/// or copy host memory, touch files, the environment or other processes, use
/// inline PTX, keep state between launches (any mutable variable at namespace
/// scope, static or not, a static data member, a function-local static, a
/// thread_local or a `__device__` variable), or compute in half precision when
/// the stencil's element type is float or double. Atomics are flagged as
/// suspicious. Words inside comments and string literals do not count.
///
/// The screen is textual. It is the first line of defence, not the only one:
/// out-of-bounds accesses and wrong values are caught dynamically by the
/// verifier, and timing lives in the driver, never in the candidate.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_CANDIDATESCREEN_H
#define FORGESTENCIL_AGENTS_CANDIDATESCREEN_H

#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace agents {

/// Why a piece of candidate code was flagged.
enum class ScreenCategory {
  Timing,          ///< Clocks and timers.
  Stream,          ///< Streams, synchronisation and copies outside the given stream.
  HostMemory,      ///< Allocation of host, managed or device memory.
  FileEnvProcess,  ///< Files, the environment, processes, dynamic loading.
  InlineAsm,       ///< Inline PTX.
  PersistentState, ///< Mutable state that outlives one launch: namespace-
                   ///< scope, static member, function-local static,
                   ///< thread_local, __device__ and __managed__ variables.
  Atomic,          ///< Atomic operations.
  Precision,       ///< Half-precision types for a float/double stencil.
  Include,         ///< A header that is not on the allow-list.
  Preprocessor,    ///< Token pasting, which could hide a name from the screen.
};

enum class ScreenSeverity {
  Refuse,     ///< The candidate must not be compiled.
  Suspicious, ///< Worth a question; the caller decides.
};

/// One flagged use.
struct ScreenFinding {
  unsigned Line = 0; ///< 1-based line in the candidate.
  ScreenCategory Category = ScreenCategory::Timing;
  ScreenSeverity Severity = ScreenSeverity::Refuse;
  std::string Token;  ///< What was seen, e.g. `cudaEventRecord`.
  std::string Reason; ///< Why it is not allowed.
};

/// What the screen needs to know about the stencil.
struct ScreenOptions {
  /// The Stencil IR element type (`float`, `double`, ...). Half-precision
  /// types are refused when it is `float` or `double`.
  std::string ElementType;
};

/// Screens \p Code and returns its findings, ordered by line.
std::vector<ScreenFinding> screenCandidate(std::string_view Code,
                                           const ScreenOptions &Options = {});

/// True when any finding is a refusal.
bool screenRefuses(const std::vector<ScreenFinding> &Findings);

/// A short name for \p Category (`timing`, `stream`, ...).
const char *screenCategoryName(ScreenCategory Category);

/// One line per finding, `line N: <token>: <reason>`, suitable for a log and
/// for a repair request to the model.
std::string formatScreenFindings(const std::vector<ScreenFinding> &Findings);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_CANDIDATESCREEN_H
