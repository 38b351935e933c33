//===- HostConstants.h - What the host sets __constant__ integers to ------===//
///
/// \file
/// Internal to lib/Analysis. An integer `__constant__` variable is a symbol
/// to the kernel analysis (`d_slice_1`): its value is whatever the host
/// copied there. Codes that keep strides in constant memory often keep a
/// multiple beside the stride (`d_slice_2` for two slices), and read
/// `u[pos - d_slice_2]` beside `u[pos - d_slice_1]`; as two free symbols
/// these are not whole offsets along one axis.
///
/// This finds, from the host code of the translation unit, the integer
/// `__constant__` variables that are always a fixed multiple of another:
/// every host write of both is a `cudaMemcpyToSymbol` (or the Async or hip
/// form, offset 0) of a local or parameter, each function that writes one
/// writes the other exactly once, at the top level of its body, and there
/// the values are polynomials (over the function's parameters and integer
/// literals, through locals set once before the copy) one of which is an
/// integer multiple of the other. A variable that is `extern` (other
/// translation units may write it), or that host code names anywhere else
/// (its address taken, a copy with an offset), has no relation.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_HOSTCONSTANTS_H
#define FORGESTENCIL_LIB_ANALYSIS_HOSTCONSTANTS_H

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace clang {
class ASTContext;
class VarDecl;
} // namespace clang

namespace forgestencil {
namespace ir {
struct StencilIR;
} // namespace ir
namespace analysis {
namespace detail {

/// `Var == Factor * Of` wherever the kernels run.
struct ConstantMultiple {
  const clang::VarDecl *Of = nullptr;
  int64_t Factor = 0;
  /// Where the host writes them, for the IR's notes: "SetConst
  /// (kernel.cu:60, kernel.cu:59)".
  std::string Where;
};

/// By variable (canonical declaration). The base of a relation is never
/// itself a multiple of another (chains are followed to their end).
std::map<const clang::VarDecl *, ConstantMultiple>
constantMultiples(clang::ASTContext &Ctx);

/// Why no variant can be generated from \p IR when an expression the
/// launcher evaluates on the host (ir::hostExpressions) names one of the
/// kernel's integer `__constant__` variables \p ConstantSymbols: the host
/// reads its host-side shadow there, not what the app copied to the
/// device (a domain bound of 0, a stride of 0). "" when none does.
std::string deviceValuesOnHost(const ir::StencilIR &IR,
                               const std::set<std::string> &ConstantSymbols);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
