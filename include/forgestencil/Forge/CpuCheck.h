//===- CpuCheck.h - A generated variant checked on the CPU, no GPU needed -===//
///
/// \file
/// Where no GPU can verify a variant on the app, the variant fs-rewrite
/// would patch is checked on the CPU instead: the same driver fs-bench
/// emits (the original kernel the IR describes, the variant, whole arrays at
/// odd sizes, bit-identity or the stated tolerance, untouched points
/// bit-identical) compiled as host code and run by utils/cpu-emulate.py,
/// with every device array between faulting guard regions and
/// AddressSanitizer. A variant that writes a wrong point, or reads or
/// writes outside its arrays, fails; so does one the emulation cannot run.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_CPUCHECK_H
#define FORGESTENCIL_FORGE_CPUCHECK_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

/// Where utils/cpu-emulate.py is, and how it was found.
struct EmulatorLocation {
  std::string Path; ///< Empty when none was found.
  std::string How;  ///< "--cpu-emulator", "FS_CPU_EMULATOR", ...
  std::vector<std::string> Tried;
};

/// The emulator: \p Explicit when given, else $FS_CPU_EMULATOR, else
/// share/forgestencil/utils/cpu-emulate.py under the install prefix of
/// the running program (\p Argv0), else the source tree's utils/.
EmulatorLocation locateCpuEmulator(const std::string &Explicit,
                                   const std::string &Argv0);

struct CpuCheckOptions {
  std::string Emulator; ///< cpu-emulate.py.
  std::string Python = "python3";
  std::string Cxx; ///< Empty: the emulator's default ($CXX or g++).
  unsigned Jobs = 2;
  /// Where the emulation builds; a fresh temporary directory when empty,
  /// removed afterwards. A given directory is kept.
  std::string WorkDir;
  double TimeoutSeconds = 1800;
};

struct CpuCheckVerdict {
  enum Kind {
    Passed, ///< The emulated driver verified the variant.
    Failed, ///< It ran and the variant is wrong or out of bounds.
    NotRun, ///< No driver, no emulator, no compiler: nothing was checked.
  };
  Kind Result = NotRun;
  /// Why it failed or did not run; for a pass, a tolerance note or empty.
  std::string Reason;
  double Seconds = 0;
};

/// Checks \p P for \p IR on the CPU.
CpuCheckVerdict cpuCheck(const ir::StencilIR &IR, const StrategyParams &P,
                         const CpuCheckOptions &Opts);

} // namespace forge
} // namespace forgestencil

#endif
