//===- BlockShapeChoice.h - Block shapes chosen from in-app times -*- C++ -*-===//
///
/// \file
/// A USE_OURS=verify run of a patch with re-blocked copies times every
/// candidate block shape of each kernel in the app (docs/body-copies.md);
/// fs-harness records the medians under `in_app_verification.kernel_times`
/// as "kernel[XxYxZ]": {original_ms, copy_ms, launches}, and a copy with a
/// register cap as "kernel[XxYxZ/rN]". This picks, for each kernel, the
/// fastest candidate that beats the original by a margin, so the final
/// patch is made from the recorded measurement.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_KNOWLEDGE_BLOCKSHAPECHOICE_H
#define FORGESTENCIL_KNOWLEDGE_BLOCKSHAPECHOICE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "forgestencil/Rewrite/RewritePlanner.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace knowledge {

struct ShapeChoice {
  std::string Kernel;
  /// The shape to patch; none when no measured shape is fast enough.
  std::optional<std::array<unsigned, 3>> Block;
  /// With Block: the register cap the fastest candidate ran with
  /// ("kernel[XxYxZ/rN]"), none when it ran uncapped.
  std::optional<unsigned> MaxRegisters;
  /// With Block: the coarsening the fastest candidate ran with
  /// ("kernel[XxYxZ/cyN]", Block the launch's own shape).
  std::optional<rewrite::Coarsening> Coarsened;
  /// The original's and the chosen (or fastest) shape's median times.
  double OriginalMs = 0, CopyMs = 0;
  /// How many shapes were measured for the kernel.
  unsigned Measured = 0;
};

/// For each of \p Kernels, the shape of the run record \p JsonText (an
/// fs-harness `--json` record or a registry entry) whose copy ran fastest,
/// if original_ms / copy_ms >= 1 + \p MinGain. A kernel the record has no
/// times for (the run never launched it, or it has no body copy) gets a
/// choice with Measured 0 and no Block: it keeps its launches. Fails when
/// the text is not such a record, or it has times for none of \p Kernels
/// (the record of another run; the error names them).
llvm::Expected<std::vector<ShapeChoice>>
chooseBlockShapes(llvm::StringRef JsonText,
                  const std::vector<std::string> &Kernels, double MinGain);

} // namespace knowledge
} // namespace forgestencil

#endif
