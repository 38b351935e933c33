//===- PatchEmission.h - fs-rewrite's --emit-patch, end to end -*- C++ -*-===//
///
/// \file
/// From the facts of the app's one parse: plans the rewrite, checks that the
/// tree does not already carry it, and writes the patch atomically to
/// `<output dir>/NNNN-<slug>.patch` or to a stream.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_REWRITE_PATCHEMISSION_H
#define FORGESTENCIL_REWRITE_PATCHEMISSION_H

#include "forgestencil/Driver/FrontendRunner.h"
#include "forgestencil/Rewrite/RewriteFacts.h"
#include "forgestencil/Rewrite/RewritePlanner.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace forgestencil {
namespace rewrite {

struct EmitOptions {
  RewriteOptions Rewrite;
  /// Where `NNNN-<slug>.patch` goes; unused when ToStream.
  std::string OutputDirectory;
  /// Write the patch to the stream instead of a file.
  bool ToStream = false;
};

/// Runs the whole --emit-patch pipeline over the facts of one parse of an
/// app (\p Facts, from the parses \p Parses). The patch goes to \p Out
/// (when ToStream) or a new file whose path is reported on \p Log, with one
/// note per launch left alone. A tree that already carries the patch is
/// reported on \p Log and is not an error; parse failures, conflicts and a
/// tree that carries part of it are.
llvm::Error emitPatch(const RewriteFacts &Facts,
                      const std::vector<driver::ParseResult> &Parses,
                      const EmitOptions &Opts, llvm::raw_ostream &Out,
                      llvm::raw_ostream &Log);

} // namespace rewrite
} // namespace forgestencil

#endif
