//===- ParamNames.h - Kernel parameters named like generated locals -------===//
///
/// \file
/// Generated kernels take the original kernel's parameters under their own
/// names and declare locals, bounds and template parameters of their own
/// (`x`, `lo0`, `s1`, `Idx`, ...). A kernel whose parameter is called like
/// one of those would make every candidate fail to compile ("x has already
/// been declared") or, worse, read the wrong variable. Before code is
/// generated, such parameters are renamed throughout the IR: the launcher
/// still takes the arguments in the same order, so the app's call sites do
/// not change.
///
/// Which identifiers the generated code uses is not a list kept by hand: the
/// generator is run once on a probe IR whose parameters have names no
/// generator uses, and every identifier of the functions that take those
/// parameters is taken.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_PARAMNAMES_H
#define FORGESTENCIL_FORGE_PARAMNAMES_H

#include "forgestencil/IR/StencilIR.h"

#include <functional>
#include <map>
#include <set>
#include <string>

namespace forgestencil {
namespace forge {

/// \p Text, a C expression, with every identifier that \p Renames maps
/// replaced; members (after `.` or `->`) and qualified names (next to `::`)
/// are left alone, as are identifiers inside literals.
std::string renameIdentifiers(const std::string &Text,
                              const std::map<std::string, std::string> &Renames);

/// The identifiers of C/CUDA source text that a parameter named in
/// \p Params can meet: every identifier (keywords included, members not) of
/// each top-level declaration whose head names one of \p Params (a kernel
/// or launcher taking it), outside comments, literals and preprocessor
/// lines. A helper function that takes none of them is not looked into: its
/// locals cannot clash with a parameter it does not see.
std::set<std::string> identifiersSeenBy(const std::string &Source,
                                        const std::set<std::string> &Params);

/// \p IR with the kernel parameters that \p Renames maps renamed wherever
/// the IR names them: the parameter list, arrays, coefficients, the update
/// expressions and every C expression of the axes, strides and launch
/// assumptions.
ir::StencilIR renameParams(const ir::StencilIR &IR,
                           const std::map<std::string, std::string> &Renames);

/// The renames that make \p IR's parameters safe for the code \p Emit
/// writes: each parameter whose name that code uses itself (found on a probe
/// IR, see above) becomes `fs_p_<name>` (with more underscores if that is
/// taken). Empty when no parameter collides, or when \p Emit writes nothing
/// for the probe.
std::map<std::string, std::string>
collidingParams(const ir::StencilIR &IR,
                const std::function<std::string(const ir::StencilIR &)> &Emit);

/// The IR \p Emit should write code from: \p IR itself, or a copy with the
/// parameters that collidingParams finds renamed.
ir::StencilIR
withSafeParamNames(const ir::StencilIR &IR,
                   const std::function<std::string(const ir::StencilIR &)> &Emit);

} // namespace forge
} // namespace forgestencil

#endif
