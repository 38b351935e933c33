//===- SliceSupport.h - What slicers look up in a kernel body -------------===//
///
/// \file
/// Internal to lib/Analysis. The parents of a kernel body's statements and
/// the references to each variable, and the tests the slicers (Slices.h)
/// share: whether an expression only computes a value, whether a statement
/// stands alone.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_SLICESUPPORT_H
#define FORGESTENCIL_LIB_ANALYSIS_SLICESUPPORT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

/// The statements of one kernel body with their parents, and the
/// references to each variable.
class BodyIndex {
public:
  explicit BodyIndex(const clang::Stmt *Body) { walk(Body, nullptr); }

  /// The nearest parent of \p S that is not a parenthesis or implicit cast.
  const clang::Stmt *parent(const clang::Stmt *S) const;
  const clang::Stmt *directParent(const clang::Stmt *S) const {
    auto It = Parents.find(S);
    return It == Parents.end() ? nullptr : It->second;
  }
  /// Whether \p S lies inside one of the statements \p In holds (or is one).
  bool within(const clang::Stmt *S,
              const std::set<const clang::Stmt *> &In) const {
    for (; S; S = directParent(S))
      if (In.count(S))
        return true;
    return false;
  }
  /// Whether \p S lies inside \p Root (or is it).
  bool within(const clang::Stmt *S, const clang::Stmt *Root) const {
    for (; S; S = directParent(S))
      if (S == Root)
        return true;
    return false;
  }
  const std::vector<const clang::DeclRefExpr *> &
  refs(const clang::ValueDecl *D) const {
    static const std::vector<const clang::DeclRefExpr *> None;
    auto It = Refs.find(D);
    return It == Refs.end() ? None : It->second;
  }
  /// The __shared__ arrays the body declares.
  const std::vector<const clang::VarDecl *> &sharedArrays() const {
    return Shared;
  }

private:
  void walk(const clang::Stmt *S, const clang::Stmt *Parent);

  std::map<const clang::Stmt *, const clang::Stmt *> Parents;
  std::map<const clang::ValueDecl *, std::vector<const clang::DeclRefExpr *>>
      Refs;
  std::vector<const clang::VarDecl *> Shared;
};

/// Whether evaluating \p E can do nothing but compute a value: no
/// assignment, increment or call other than to a math function.
bool pure(const clang::Expr *E, clang::ASTContext &Ctx);

/// Whether \p S stands as a statement of its own (its value unused): in a
/// compound statement, as a side of an if, or under an attribute.
bool standsAlone(const clang::Stmt *S, const BodyIndex &Index);

/// The pointer parameter of \p Kernel whose element \p Target is: with
/// \p Address, an address p, &p[e], p + e or e + p; else the element p[e]
/// itself; each with \p IndexOk(e). Null for anything else.
const clang::ParmVarDecl *
elementOfParam(const clang::Expr *Target, const clang::FunctionDecl &Kernel,
               const std::function<bool(const clang::Expr *)> &IndexOk,
               bool Address);

/// Whether \p C is a call of atomicAdd, atomicMax or atomicMin (or, with
/// \p Bitwise, atomicOr or atomicAnd): an accumulation into its target.
bool isAccumulatingAtomic(const clang::CallExpr *C, bool Bitwise);

/// The source text of \p E on one line, as a report shows it.
std::string oneLineText(const clang::Expr *E, clang::ASTContext &Ctx);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
