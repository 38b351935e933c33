//===- Slices.h - Parts of a kernel another idiom accounts for ------------===//
///
/// \file
/// Internal to lib/Analysis. A slicer looks at a kernel before the
/// interpreter runs it and picks out statements that belong to an idiom
/// other than the stencil, which the interpreter then does not run: a
/// reduction over the thread block fused into a stencil sweep (the error
/// norm of a Jacobi step) is such a part. What a slicer takes out is
/// recorded as typed facts of the IR, so that the kernel is described for
/// what it is and no generator rewrites it as if the part were not there.
///
/// A slicer takes a part out only where it can show that the rest of the
/// kernel does not depend on it: the part's values reach no store of the
/// stencil, and its stores go to memory the stencil never reads or writes.
///
/// Adding one: a file pair (Name.h declares a factory, Name.cpp holds the
/// class), one line in the list of Recognisers.cpp, and lit tests under
/// test/Analysis with a kernel that has the idiom and one that does not.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_SLICES_H
#define FORGESTENCIL_LIB_ANALYSIS_SLICES_H

#include "forgestencil/IR/StencilIR.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

/// What the interpreter leaves out of a kernel, and why.
struct KernelSlices {
  /// Statements (calls, as expression statements) it does not run.
  std::set<const clang::Stmt *> Skipped;
  /// __shared__ arrays of the kernel whose stores it does not run.
  std::set<std::string> SkippedShared;
  /// The block reductions those parts compute, for the IR.
  std::vector<ir::BlockReduction> Reductions;
};

class KernelSlicer {
public:
  virtual ~KernelSlicer() = default;
  /// A short name for the docs ("block-reduction").
  virtual const char *name() const = 0;
  /// Adds to \p Out the parts of \p Kernel this slicer accounts for.
  virtual void slice(const clang::FunctionDecl &Kernel, clang::ASTContext &Ctx,
                     KernelSlices &Out) const = 0;
};

/// Every slicer; each adds its parts to the same KernelSlices.
const std::vector<std::unique_ptr<KernelSlicer>> &kernelSlicers();

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
