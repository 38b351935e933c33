//===- Recognisers.h - Idioms that decide a kernel's verdict themselves ---===//
///
/// \file
/// Internal to lib/Analysis. A recogniser looks at a kernel for one idiom
/// and, where it finds it, decides the kernel's verdict over what the
/// interpreter concluded: a kernel that fuses time steps is reported as
/// in-kernel temporal blocking whatever the interpreter made of its body.
///
/// Adding one: a file pair (Name.h declares a factory, Name.cpp holds the
/// class), one line in the list of Recognisers.cpp, and lit tests under
/// test/Analysis with a kernel that has the idiom and one that does not.
/// A recogniser never makes a kernel a stencil; it only says what it is
/// when it is something else, with a typed reason. (Parts of a kernel that
/// the interpreter should not run are a slicer's job: Slices.h.)
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_RECOGNISERS_H
#define FORGESTENCIL_LIB_ANALYSIS_RECOGNISERS_H

#include "forgestencil/Analysis/StencilAnalysis.h"

#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

/// What a recogniser decided.
struct Recognised {
  KernelAnalysis::Verdict Result = KernelAnalysis::NotStencil;
  Reason Why;
  std::optional<TemporalBlocking> Temporal;
};

class KernelRecogniser {
public:
  virtual ~KernelRecogniser() = default;
  /// A short name for -v and the docs ("temporal-blocking").
  virtual const char *name() const = 0;
  /// The verdict for \p Kernel when it has the idiom; \p Interpreted is what
  /// the interpreter concluded.
  virtual std::optional<Recognised>
  examine(const clang::FunctionDecl &Kernel, clang::ASTContext &Ctx,
          const KernelAnalysis &Interpreted) const = 0;
};

/// Every recogniser, in the order they are asked; the first that
/// recognises the kernel decides.
const std::vector<std::unique_ptr<KernelRecogniser>> &kernelRecognisers();

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
