//===- DataChosenOffsets.cpp - Neighbours chosen by a test on the data ----===//
//
// Upwind schemes pick the cell they read by the sign of a loaded value:
//
//   if (flux[i] > 0.0) { donor = -1; upwind = -2; }
//   else               { donor = 0;  upwind = 1; }
//   ... = u[i + donor] - u[i + upwind];
//
// After such an if, donor holds an index symbol "sel#N" standing for
// cond ? -1 : 0 (Choice). Index arithmetic carries it like any symbol
// (i + donor, row + donor * (nx + 4)); a load at an index that mentions it
// becomes the select, under the same condition, of the loads at each value
// (cond ? u[i - 1] : u[i]), so the update is a select of reads at fixed
// offsets and the footprint is the union of both sides. Only reads may take
// a choice: a store, a guard, a loop bound or an arithmetic value that
// mentions one is refused (whereChoiceLeaks), as is a load from a
// __shared__, local or __constant__ array at a chosen index.
//
// Which neighbour is read depends on the data, so a generated kernel, which
// reads its footprint at every point, could read where the original never
// does: such an IR is a stencil no generator rebuilds
// (ir::whyReadsChosenByData).
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "llvm/ADT/StringRef.h"

#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

constexpr llvm::StringLiteral ChoicePrefix = "sel#";

bool isChoice(llvm::StringRef Symbol) {
  return Symbol.starts_with(ChoicePrefix);
}

/// A number, or a polynomial over choice symbols and clamp corrections
/// only (an offset clamped at an edge: upwind = column == X ? 0 : 1).
bool isChoiceOrNumber(const Value &V) {
  if (V.K != Value::Index)
    return false;
  for (const auto &[M, C] : V.Idx.terms())
    for (const std::string &S : M)
      if (!isChoice(S) && !llvm::StringRef(S).starts_with(ClampPrefix))
        return false;
  return true;
}

/// Loads one index may expand into: a few choices, not an explosion.
constexpr unsigned MaxChoicesPerLoad = 4;

unsigned countChoices(const Poly &P) {
  std::set<std::string> Seen;
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (isChoice(S))
        Seen.insert(S);
  return static_cast<unsigned>(Seen.size());
}

} // namespace

std::optional<Value> Interpreter::chosenOffset(const DPtr &Cond,
                                               const Value &T,
                                               const Value &E) {
  if (!Cond || !isChoiceOrNumber(T) || !isChoiceOrNumber(E))
    return std::nullopt;
  Choices.push_back({Cond, T.Idx, E.Idx});
  return Value::index(
      Poly::symbol(ChoicePrefix.str() + std::to_string(Choices.size() - 1)));
}

std::optional<std::string> Interpreter::choiceIn(const Poly &P) const {
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (isChoice(S))
        return S;
  return std::nullopt;
}

Value Interpreter::loadChosen(const Value &Ptr, QualType T, bool Ldg,
                              const std::string &Symbol) {
  ArrayInfo *A = arrayOf(Ptr.Array);
  if (A && A->Kind != ArrayKind::Global)
    return Value::unknown("an index into the " +
                              std::string(A->Kind == ArrayKind::Shared
                                              ? "__shared__ "
                                              : "") +
                              "array '" + Ptr.Array +
                              "' that a test on the data chooses",
                          ReasonKind::DataBranch);
  if (countChoices(Ptr.Idx) > MaxChoicesPerLoad)
    return Value::unknown("an index into '" + Ptr.Array + "' that more than " +
                              std::to_string(MaxChoicesPerLoad) +
                              " tests on the data choose",
                          ReasonKind::DataBranch);
  const Choice C = Choices[std::stoul(Symbol.substr(ChoicePrefix.size()))];
  Value Then = load(Ptr.movedTo(Ptr.Idx.substitute(Symbol, C.Then)), T, Ldg);
  Value Else = load(Ptr.movedTo(Ptr.Idx.substitute(Symbol, C.Else)), T, Ldg);
  if (Then.K != Value::Data || Else.K != Value::Data)
    return Then.K != Value::Data ? Then : Else;
  DPtr N = node(DNode::Select);
  N->Args = {C.Cond, Then.D, Else.D};
  return Value::data(N);
}

std::string Interpreter::whereChoiceLeaks() const {
  if (Choices.empty())
    return "";
  for (const Write &W : Writes)
    if (choiceIn(W.Index))
      return "the data chooses which element of '" + W.Array +
             "' is stored (a scatter)";
  for (const SharedStore &S : SharedStores)
    if (choiceIn(S.Index))
      return "the data chooses which element of the __shared__ array '" +
             S.Tile + "' is stored";
  auto InGuards = [&](const std::vector<Constraint> &Gs) -> std::string {
    for (const Constraint &G : Gs)
      if (choiceIn(G.Bound) || isChoice(G.Symbol))
        return "a guard on the position moved by an offset that a test on "
               "the data chooses";
    return "";
  };
  for (const Write &W : Writes)
    if (std::string Why = InGuards(W.Guards); !Why.empty())
      return Why;
  return InGuards(Guards);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
