//===- Generators.cpp - What keeps every generator from an IR ---------------===//
///
/// \file
/// The reasons an IR that describes its kernel rightly still has no
/// generator that rebuilds it (whyNoGenerator and its parts, StencilIR.h):
/// arrays of other layouts, packed fields, outputs over boxes of their own,
/// reads chosen by the data, block-loop axes, members of a __constant__
/// struct, device calls, fused reductions. The analysis keeps such a
/// kernel's original launch with the reason; CodeGen refuses it.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/IR/StencilIR.h"

#include <algorithm>
#include <optional>
#include <string>

namespace forgestencil {
namespace ir {

namespace {

/// The reason \p Why gives for the first input, then output, that has one
/// (Why takes "input" or "output" and the array); empty when none has.
template <typename WhyFn>
std::string firstArrayReason(const StencilIR &IR, WhyFn Why) {
  for (const InputArray &In : IR.Inputs)
    if (std::string W = Why("input", In); !W.empty())
      return W;
  for (const OutputArray &Out : IR.Outputs)
    if (std::string W = Why("output", Out); !W.empty())
      return W;
  return "";
}

} // namespace

std::string whyMixedLayouts(const StencilIR &IR) {
  return firstArrayReason(IR, [](const char *What, const auto &A) -> std::string {
    if (A.Strides.empty())
      return "";
    std::string List;
    for (const std::string &S : A.Strides)
      List += (List.empty() ? "" : ", ") + S;
    return std::string("the ") + What + " '" + A.Param +
           "' has a layout of its own (strides " + List +
           "): no generator addresses arrays of more than one layout yet";
  });
}

namespace {

bool readsData(const Expr &E) {
  if (E.Kind == Expr::Read)
    return true;
  for (const Expr &A : E.Args)
    if (readsData(A))
      return true;
  return false;
}

/// The reads of E, as (array, offset), that every evaluation makes
/// (Always) and those made only on one side of a test on data (Sometimes).
void collectDataChosenReads(const Expr &E, bool UnderData,
                            std::set<std::pair<std::string, Offset>> &Always,
                            std::set<std::pair<std::string, Offset>> &Sometimes) {
  if (E.Kind == Expr::Read) {
    (UnderData ? Sometimes : Always).insert({E.Name, E.Off});
    return;
  }
  const bool DataSelect = E.Kind == Expr::Select && E.Args.size() == 3 &&
                          readsData(E.Args[0]);
  for (size_t I = 0; I < E.Args.size(); ++I)
    collectDataChosenReads(E.Args[I], UnderData || (DataSelect && I > 0),
                           Always, Sometimes);
}

/// The whole number Text spells ("1", "-2"), if it is one.
std::optional<long long> wholeNumber(const std::string &Text) {
  if (Text.empty() || Text.size() > 18)
    return std::nullopt;
  char *End = nullptr;
  const long long V = std::strtoll(Text.c_str(), &End, 10);
  return End == Text.c_str() + Text.size() ? std::optional(V) : std::nullopt;
}

/// How far Upper stays below Extent: 0 for "nx" under extent "nx", K for
/// "nx - K"; nullopt where the texts do not say.
std::optional<long long> marginBelow(const std::string &Upper,
                                     const std::string &Extent) {
  if (Extent.empty())
    return std::nullopt;
  if (Upper == Extent)
    return 0;
  const std::string Head = Extent + " - ";
  if (Upper.compare(0, Head.size(), Head) != 0)
    return std::nullopt;
  std::optional<long long> K = wholeNumber(Upper.substr(Head.size()));
  return K && *K >= 0 ? K : std::nullopt;
}

/// Whether reading Array at Off at every point of the domain stays inside
/// the array: along every axis Off moves on, the domain's range moved by
/// the offset lies in [0, extent) (upwind in x over [1, nx - 1) of rows of
/// nx reads x - 1 >= 0 and x + 1 <= nx - 1). Along the other axes the read
/// is at the point's own coordinate, as the centre read is. Arrays with a
/// layout of their own, and axes clamped, wrapped or without an extent the
/// strides give, are not decided.
bool readInsideArray(const StencilIR &IR, const std::string &Array,
                     const Offset &Off) {
  for (const InputArray &In : IR.Inputs)
    if (In.Param == Array && !In.Strides.empty())
      return false;
  for (size_t A = 0; A < 3; ++A) {
    if (Off[A] == 0)
      continue;
    if (A >= IR.Axes.size())
      return false;
    const Axis &X = IR.Axes[A];
    if (X.hasBoundary())
      return false;
    std::optional<long long> Lo = wholeNumber(X.Lower);
    std::optional<long long> Margin = marginBelow(X.Upper, X.Extent);
    if (!Lo || !Margin || *Lo + Off[A] < 0 || Off[A] > *Margin)
      return false;
  }
  return true;
}

} // namespace

std::string whyReadsChosenByData(const StencilIR &IR) {
  std::set<std::pair<std::string, Offset>> Always, Sometimes;
  for (const Update &U : IR.Updates)
    collectDataChosenReads(U.Value, false, Always, Sometimes);
  for (const auto &[Array, Off] : Sometimes) {
    if (Always.count({Array, Off}) || Off == Offset{0, 0, 0} ||
        readInsideArray(IR, Array, Off))
      continue;
    return "the data decides whether '" + Array + "' is read at (" +
           std::to_string(Off[0]) + "," + std::to_string(Off[1]) + "," +
           std::to_string(Off[2]) +
           "): a generated kernel would read it at every point, where the "
           "original may not";
  }
  return "";
}

std::string whyOutputBoxes(const StencilIR &IR) {
  for (const OutputArray &Out : IR.Outputs)
    if (!Out.Lower.empty()) {
      std::string Box;
      for (size_t A = 0; A < Out.Lower.size() && A < Out.Upper.size(); ++A)
        Box += (Box.empty() ? "[" : " x [") + Out.Lower[A] + ", " +
               Out.Upper[A] + ")";
      return "the output '" + Out.Param + "' is stored over a box of its own " +
             Box + ": no generator stores outputs over different boxes yet";
    }
  return "";
}

std::string whyPackedFields(const StencilIR &IR) {
  return firstArrayReason(IR, [](const char *What, const auto &A) -> std::string {
    if (A.Field.empty())
      return "";
    return std::string("the ") + What + " '" + A.Param +
           "' is one of several fields of one allocation (the field at element " +
           A.Field + "): no generator addresses packed fields yet";
  });
}

std::string whyNoGenerator(const StencilIR &IR) {
  if (std::string Why = whyMixedLayouts(IR); !Why.empty())
    return Why;
  if (std::string Why = whyPackedFields(IR); !Why.empty())
    return Why;
  for (const Axis &X : IR.Axes)
    if (X.BlockLoop) {
      // Loops stepping by a number hold the block to it (a block-dim
      // assumption); those stepping by blockDim take any block.
      const bool Fixed = std::any_of(
          IR.Assumptions.begin(), IR.Assumptions.end(), [&](const Assumption &A) {
            return A.Kind == Assumption::BlockDim &&
                   A.Expr == std::string(1, X.ThreadDim);
          });
      return "the axis '" + X.Name + "' is covered by loops over the block's "
             "threads (" + std::to_string(X.BlockPoints) + " points a block" +
             (Fixed ? "" : " whatever its size") +
             "): no generator maps threads to points that way yet";
    }
  if (std::string Why = whyOutputBoxes(IR); !Why.empty())
    return Why;
  if (std::string Why = whyReadsChosenByData(IR); !Why.empty())
    return Why;
  for (const Coefficient &C : IR.Coefficients)
    if (C.Kind == Coefficient::ConstantScalar &&
        C.Name.find('.') != std::string::npos)
      return "the update reads '" + C.Name + "', a member of the __constant__ struct '" +
             C.Name.substr(0, C.Name.find('.')) +
             "': the tuning drivers and the float64 reference set only "
             "__constant__ variables of their own, not members of the app's struct";
  if (!IR.DeviceCalls.empty())
    return "the kernel calls " + IR.DeviceCalls.front() +
           ", whose effect is outside the arrays (a generated kernel would "
           "not make it)";
  if (!IR.Reductions.empty()) {
    const BlockReduction &R = IR.Reductions.front();
    std::string Outs;
    for (const std::string &O : R.Outputs)
      Outs += (Outs.empty() ? "'" : ", '") + O + "'";
    if (R.Shared.empty())
      return "the kernel also accumulates into " + Outs + " by " + R.Call +
             ", which no generator reproduces";
    return "the kernel also reduces the __shared__ array '" + R.Shared +
           "' over its block into " + Outs +
           ", which no generator reproduces";
  }
  return "";
}

} // namespace ir
} // namespace forgestencil
