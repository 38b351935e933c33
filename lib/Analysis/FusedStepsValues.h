//===- FusedStepsValues.h - What the fused-step walk knows of a value -*- C++ -*-===//
///
/// \file
/// Internal to lib/Analysis (FusedSteps.cpp). The fused-step walk gives
/// every floating-point value a depth (the updates that produced it) and,
/// where the code says it, the global elements it was computed from; a
/// State holds them per variable with the integers the walk follows and
/// the last __shared__ store. Here: how values combine in an expression and
/// merge where two paths meet (a branch's sides, a loop's rounds).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_FUSEDSTEPSVALUES_H
#define FORGESTENCIL_LIB_ANALYSIS_FUSEDSTEPSVALUES_H

#include "forgestencil/Analysis/Poly.h"

#include "clang/AST/Decl.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace forgestencil {
namespace analysis {
namespace detail {
namespace fused {

/// The global elements a value was computed from: array name and index,
/// keyed by their text.
using Elements = std::map<std::string, std::pair<std::string, Poly>>;
using ElementsRef = std::shared_ptr<const Elements>;

/// A value: how many updates produced it, and from which elements (null
/// where that is not known).
struct Val {
  int Depth = -1; ///< -1: no array value (a constant, an index).
  ElementsRef From;
  /// Loops settle on depths; the elements are not compared.
  bool operator==(const Val &O) const { return Depth == O.Depth; }
};

/// Whether two values were computed from the same elements (both known).
bool sameElements(const Val &A, const Val &B);

/// The elements of a value computed from \p A and \p B.
ElementsRef unite(const Val &A, const Val &B);

/// The deeper of two values, computed from both.
Val combine(const Val &A, const Val &B);

/// One of two values (a branch's sides, a loop's rounds): the deeper; of
/// equal depth, the elements where both agree, else none.
Val either(const Val &A, const Val &B);

/// As either(), where \p Before is the value before a branch guarded by a
/// validity flag: a side that kept it did not assign, and the other side's
/// value is the one the assignment gives where the flag holds.
Val eitherAfter(const Val *Before, const Val &T, const Val &E);

/// An integer the walk follows as a polynomial, or none.
using IntVal = std::optional<Poly>;

/// What the walk knows at a point of the kernel.
struct State {
  std::map<const clang::VarDecl *, Val> Vars;
  std::map<const clang::VarDecl *, IntVal> Ints;
  std::set<const clang::VarDecl *> SharedPointers;
  Val Shared;          ///< The value last stored to __shared__ memory.
  IntVal SharedAt;     ///< The subscript of that store,
  const clang::ValueDecl *SharedBase = nullptr; ///< and the array or pointer.
  /// A called function's pointer parameters: the kernel's variables they
  /// were given.
  std::map<const clang::ValueDecl *, const clang::ValueDecl *> Aliases;
  /// Depths decide when a loop has settled.
  bool operator==(const State &O) const {
    return Vars == O.Vars && SharedPointers == O.SharedPointers &&
           Shared == O.Shared;
  }
};

/// The state after a branch or a loop round; \p Before, the state before
/// a branch guarded by a validity flag (isFlag()).
State merge(const State &A, const State &B, const State *Before);

} // namespace fused
} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
