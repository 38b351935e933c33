//===- StartOffsets.cpp - Driver values for domain-start parameters -------===//

#include "StartOffsets.h"

#include "forgestencil/Forge/CaseShapes.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace forgestencil {
namespace forge {

namespace {

/// The identifiers of a C expression.
std::set<std::string> identifiersOf(const std::string &E) {
  std::set<std::string> Out;
  for (size_t I = 0; I < E.size();) {
    if (std::isalpha(static_cast<unsigned char>(E[I])) || E[I] == '_') {
      size_t J = I;
      while (J < E.size() &&
             (std::isalnum(static_cast<unsigned char>(E[J])) || E[J] == '_'))
        ++J;
      Out.insert(E.substr(I, J - I));
      I = J;
    } else {
      ++I;
    }
  }
  return Out;
}

} // namespace

std::map<std::string, long long> startOffsetParams(const ir::StencilIR &IR) {
  std::set<std::string> Elsewhere, InLower;
  for (const ir::Axis &X : IR.Axes) {
    for (const std::string *E : {&X.Upper, &X.LinearModulus, &X.LinearStep,
                                 &X.ThreadOffset, &X.Extent})
      for (const std::string &N : identifiersOf(*E))
        Elsewhere.insert(N);
    for (const std::string &N : identifiersOf(X.Lower))
      InLower.insert(N);
  }
  for (const std::string &S : IR.Strides)
    for (const std::string &N : identifiersOf(S))
      Elsewhere.insert(N);
  for (const std::vector<std::string> *Bounds :
       {&IR.Frame.Lower, &IR.Frame.Upper})
    for (const std::string &E : *Bounds)
      for (const std::string &N : identifiersOf(E))
        Elsewhere.insert(N);
  std::map<std::string, long long> Out;
  for (const ir::Param &P : IR.Params) {
    const bool Integer = P.Type.find('*') == std::string::npos &&
                         P.Type.find("float") == std::string::npos &&
                         P.Type.find("double") == std::string::npos &&
                         (P.Type.find("int") != std::string::npos ||
                          P.Type.find("long") != std::string::npos ||
                          P.Type.find("size_t") != std::string::npos);
    if (Integer && InLower.count(P.Name) && !Elsewhere.count(P.Name) &&
        !IR.constant(P.Name))
      Out[P.Name] = 0;
  }
  if (Out.empty())
    return Out;
  // The reads' lowest offset along each IR axis.
  long long MinOff[3] = {0, 0, 0};
  for (const ir::InputArray &In : IR.Inputs)
    for (const ir::Offset &O : In.Offsets)
      for (size_t A = 0; A < IR.Axes.size() && A < 3; ++A)
        MinOff[A] = std::min<long long>(MinOff[A], O[A]);
  std::map<std::string, long long> Vars = constantValues(IR);
  for (const ir::Axis &X : IR.Axes)
    if (ir::isIdentifier(X.Extent) && !Vars.count(X.Extent))
      Vars[X.Extent] = 64;
  for (auto &[Name, Value] : Out) {
    bool Found = false;
    for (long long Try = 0; Try <= 64 && !Found; ++Try) {
      Vars[Name] = Try;
      Found = true;
      for (size_t A = 0; A < IR.Axes.size() && Found; ++A) {
        const ir::Axis &X = IR.Axes[A];
        if (!identifiersOf(X.Lower).count(Name))
          continue;
        std::optional<long long> Lo = evaluateExpression(X.Lower, Vars);
        std::optional<long long> Hi = evaluateExpression(X.Upper, Vars);
        Found = Lo && Hi && *Lo + MinOff[A] >= 0 && *Hi > *Lo;
      }
    }
    if (!Found)
      return {};
    Value = Vars[Name];
  }
  return Out;
}

ir::StencilIR withStartOffsets(const ir::StencilIR &IR,
                               const std::map<std::string, long long> &Starts) {
  ir::StencilIR Model = IR;
  for (const auto &[Name, Value] : Starts) {
    ir::NamedConstant C;
    C.Name = Name;
    C.Type = "long long";
    C.Value = std::to_string(Value);
    C.Origin = ir::NamedConstant::Variable;
    C.DefinedAt = "the tuning driver";
    Model.Constants.push_back(std::move(C));
  }
  return Model;
}

} // namespace forge
} // namespace forgestencil
