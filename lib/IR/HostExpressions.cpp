//===- HostExpressions.cpp - The IR's expressions the host evaluates ------===//
//
// A generated launcher works out on the host which points the original
// launch covers (axis bounds and offsets, clamp and wrap bounds, a frame's
// box), how the arrays are laid out (strides, fields, output boxes) and
// whether the launch is one the IR describes (assumptions); a tuning driver
// evaluates the same expressions. A name there must mean on the host what
// it means in the kernel: a kernel parameter or a compile-time constant
// does, a `__constant__` or `__device__` variable does not (the host sees
// only its host-side shadow, not what the app copied to the device).
//
//===----------------------------------------------------------------------===//

#include "forgestencil/IR/StencilIR.h"

#include <cctype>

namespace forgestencil {
namespace ir {

std::vector<std::string> hostExpressions(const StencilIR &IR) {
  std::vector<std::string> Out;
  auto Add = [&](const std::string &E) {
    if (!E.empty())
      Out.push_back(E);
  };
  auto AddAll = [&](const std::vector<std::string> &Es) {
    for (const std::string &E : Es)
      Add(E);
  };
  for (const Axis &A : IR.Axes)
    for (const std::string *E :
         {&A.Lower, &A.Upper, &A.Extent, &A.ThreadOffset, &A.LinearStep,
          &A.LinearModulus, &A.ClampLower, &A.ClampUpper, &A.WrapLower,
          &A.WrapUpper, &A.WrapPeriod, &A.ZeroLower, &A.ZeroUpper})
      Add(*E);
  AddAll(IR.Strides);
  for (const InputArray &In : IR.Inputs) {
    AddAll(In.Strides);
    Add(In.Field);
  }
  for (const OutputArray &Out : IR.Outputs) {
    AddAll(Out.Strides);
    AddAll(Out.Lower);
    AddAll(Out.Upper);
    Add(Out.Field);
  }
  AddAll(IR.Frame.Lower);
  AddAll(IR.Frame.Upper);
  for (const Assumption &A : IR.Assumptions) {
    Add(A.Expr);
    Add(A.Value);
  }
  return Out;
}

namespace {

/// Whether the C expression \p E names \p Name: an identifier token equal to
/// it (qualifiers joined by `::` count as part of the token), not a member
/// (after `.` or `->`).
bool namesIdentifier(const std::string &E, const std::string &Name) {
  auto IsId = [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  };
  for (size_t I = 0; I < E.size();) {
    if (!IsId(E[I]) || std::isdigit(static_cast<unsigned char>(E[I]))) {
      // A number's digits and suffix are one token; skip it whole.
      if (std::isdigit(static_cast<unsigned char>(E[I])))
        while (I < E.size() && (IsId(E[I]) || E[I] == '.'))
          ++I;
      else
        ++I;
      continue;
    }
    const size_t Begin = I;
    while (I < E.size() &&
           (IsId(E[I]) || (E.compare(I, 2, "::") == 0 && I + 2 < E.size() &&
                           IsId(E[I + 2]))))
      I += E.compare(I, 2, "::") == 0 ? 2 : 1;
    size_t Before = Begin;
    while (Before > 0 && E[Before - 1] == ' ')
      --Before;
    const bool Member =
        Before > 0 && (E[Before - 1] == '.' ||
                       (Before > 1 && E[Before - 1] == '>' && E[Before - 2] == '-'));
    if (!Member && E.compare(Begin, I - Begin, Name) == 0 && I - Begin == Name.size())
      return true;
  }
  return false;
}

} // namespace

std::string hostNameIn(const StencilIR &IR, const std::set<std::string> &Names) {
  if (Names.empty())
    return "";
  for (const std::string &E : hostExpressions(IR))
    for (const std::string &N : Names)
      if (namesIdentifier(E, N))
        return N;
  return "";
}

} // namespace ir
} // namespace forgestencil
