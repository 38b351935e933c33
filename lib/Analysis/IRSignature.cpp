//===- IRSignature.cpp - The coefficients and parameters an IR states ------===//
///
/// \file
/// The part of the Stencil IR that describes the kernel's signature rather
/// than its footprint: which values of the update are coefficients (scalar
/// parameters, __constant__ scalars and tables, parameter arrays read at
/// elements every thread computes alike) and the role of every parameter
/// (input, output, in-out, scalar, size, other), as the generated launchers
/// must accept them.
///
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <functional>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {

void Interpreter::stateCoefficients(ir::StencilIR &IR) {
  std::set<std::string> SeenCoef;
  std::function<void(const ir::Expr &)> Coefs = [&](const ir::Expr &E) {
    if (E.Kind == ir::Expr::Coef && !E.IndexExpr.empty() &&
        SeenCoef.insert(E.Name).second) {
      ir::Coefficient C;
      C.Name = E.Name;
      C.Kind = ir::Coefficient::ParamArray;
      const ArrayInfo *AI = arrayOf(E.Name);
      C.Type = AI ? typeName(AI->ElemType, Ctx) : IR.ElementType;
      IR.Coefficients.push_back(C);
    }
    if (E.Kind == ir::Expr::Coef && SeenCoef.insert(E.Name).second) {
      ir::Coefficient C;
      C.Name = E.Name;
      const ArrayInfo *AI = arrayOf(E.Name);
      C.Kind = AI ? ir::Coefficient::ConstantArray
                  : ir::Coefficient::ConstantScalar;
      auto Declared = ConstantScalarTypes.find(E.Name);
      C.Type = AI ? typeName(AI->ElemType, Ctx)
               : Declared != ConstantScalarTypes.end()
                   ? typeName(Declared->second, Ctx)
                   : IR.ElementType;
      C.Size = AI ? AI->ConstSize : 1;
      if (AI)
        C.Shape = AI->ConstShape;
      IR.Coefficients.push_back(C);
    }
    if (E.Kind == ir::Expr::ParamRef && ScalarParams.count(E.Name) &&
        SeenCoef.insert(E.Name).second) {
      ir::Coefficient C;
      C.Name = E.Name;
      C.Kind = ir::Coefficient::ScalarParam;
      C.Type = IR.ElementType;
      IR.Coefficients.push_back(C);
    }
    for (const ir::Expr &A : E.Args)
      Coefs(A);
  };
  for (const ir::Update &U : IR.Updates)
    Coefs(U.Value);
}

void Interpreter::stateParams(
    ir::StencilIR &IR, const std::function<bool(const std::string &)> &IsRead,
    const std::function<bool(const std::string &)> &IsWritten) {
  for (const ParmVarDecl *P : Kernel.parameters()) {
    ir::Param X;
    X.Name = P->getName().str();
    X.Type = P->getType().getAsString(PrintingPolicy(Ctx.getLangOpts()));
    const bool Read = IsRead(X.Name), Written = IsWritten(X.Name);
    QualType T = P->getType();
    if (T->isPointerType() || T->isArrayType())
      X.Role = Read && Written ? ir::Param::InOut
               : Written       ? ir::Param::Output
               : Read          ? ir::Param::Input
                               : ir::Param::Other;
    else if (T->isRealFloatingType())
      X.Role = ir::Param::Scalar;
    else if (T->isIntegerType())
      X.Role = ir::Param::Size;
    IR.Params.push_back(std::move(X));
  }
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
