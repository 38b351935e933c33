//===- HelperReturns.cpp - A helper's value chosen by a test on data -------===//
//
// Limiters and flux functions are written as helpers that return early:
//
//   __device__ double minmod(double a, double b) {
//     if (a * b <= 0) return 0;
//     return fabs(a) < fabs(b) ? a : b;
//   }
//
// The test compares values the thread loaded (or parameters every thread of
// a launch has alike), so the helper computes, at every point,
// a * b <= 0 ? 0 : (fabs(a) < fabs(b) ? a : b): a select, as the same test
// written as a conditional expression would be (DataBranches.cpp). Each
// return under such a test is recorded in the helper's frame with its
// condition; the statements after it run for the other side only, and the
// helper's value is the selects around its last return (helperResult).
// Both sides returning (if (c) return a; else return b;) is one select.
//
// Not taken apart, with a reason: a side or a later statement that stores to
// memory (a store made only where the data says so is no stencil's), a
// return nested in a further branch of a side, and values that are not
// floating numbers or structs of them (a pointer or a whole number chosen
// by the data: the IR gives integer selects no type). A test on
// the thread's position in a helper stays refused as before: that is a
// guard, whose other side the domain decides.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// The value that is A where C holds and B elsewhere, or an unknown one.
Value chosenValue(const DPtr &C, const Value &A, const Value &B) {
  if (A.K == Value::Unknown)
    return A;
  if (B.K == Value::Unknown)
    return B;
  if (sameValue(A, B))
    return A;
  if (A.K == Value::Record && B.K == Value::Record && A.Fields && B.Fields) {
    if (A.Fields->size() != B.Fields->size())
      return Value::unknown("a helper returns structs with different members "
                            "set under a test on the data");
    auto Fields = std::make_shared<RecordFields>();
    for (const auto &[Name, FA] : *A.Fields) {
      auto FB = B.Fields->find(Name);
      if (FB == B.Fields->end())
        return Value::unknown("a helper returns structs with different "
                              "members set under a test on the data");
      Value V = chosenValue(C, FA, FB->second);
      if (V.K == Value::Unknown)
        return V;
      (*Fields)[Name] = std::move(V);
    }
    Value R = A;
    R.Fields = std::move(Fields);
    return R;
  }
  DPtr DA = numberNode(A), DB = DA ? numberNode(B) : nullptr;
  if (!DA || !DB)
    return Value::unknown("a helper returns values that are not numbers "
                          "(positions or pointers) under a test on the data");
  DPtr S = node(DNode::Select);
  S->Args = {C, DA, DB};
  return Value::data(S);
}

} // namespace

void Interpreter::execHelperReturnIf(const IfStmt *If) {
  if (helperReturnChosen(If))
    return;
  if (readsData(If->getCond()))
    partial(ReasonKind::DataBranch,
            "a helper returns under a test on the data that the analysis "
            "does not take apart (a whole number or a position chosen, or "
            "a test of data and positions together): " + text(If->getCond()));
  else
    partial(ReasonKind::Guard, "a helper returns under a condition that depends "
            "on the thread: " + text(If->getCond()));
  Frames.back().Result = Value::unknown("");
  Frames.back().Returned = true;
}

bool Interpreter::helperReturnChosen(const IfStmt *If) {
  if (Frames.empty())
    return false;
  // Numbers or structs of them: a whole number chosen by the data would be
  // a select of integers, whose arithmetic (i / 2) the IR does not type.
  const QualType RT = Frames.back().ReturnType;
  if (RT.isNull() || !(RT->isRealFloatingType() || RT->isRecordType()))
    return false;
  const Expr *Cond = If->getCond();
  DPtr C = uniformCondition(Cond);
  if (!C && readsData(Cond)) {
    const size_t ReadsBefore = Reads.size();
    C = dataCondition(Cond);
    if (!C)
      Reads.resize(ReadsBefore);
  }
  if (!C)
    return false;
  const size_t FI = Frames.size() - 1;
  const size_t EarlierBefore = Frames[FI].Earlier.size();
  const size_t WritesBefore = Writes.size();
  const size_t SharedBefore = SharedStores.size();
  const auto EnvBefore = Env;
  const auto ElemsBefore = LocalElems;
  // A side's return value, if it returned; the frame is left as before.
  auto Side = [&](const Stmt *S) -> std::optional<Value> {
    exec(S);
    HelperFrame &F = Frames[FI];
    std::optional<Value> R;
    if (F.Returned)
      R = std::move(F.Result);
    F.Returned = false;
    F.Result = Value();
    return R;
  };
  std::optional<Value> Then = Side(If->getThen());
  auto EnvThen = std::exchange(Env, EnvBefore);
  auto ElemsThen = std::exchange(LocalElems, ElemsBefore);
  std::optional<Value> Else = Side(If->getElse());
  HelperFrame &F = Frames[FI];
  const bool Clean = !Returned && Writes.size() == WritesBefore &&
                     SharedStores.size() == SharedBefore &&
                     F.Earlier.size() == EarlierBefore;
  if (!Clean || (!Then && !Else)) {
    partial(ReasonKind::ControlFlow,
            "a helper returns under '" + text(Cond) +
                "' and stores to memory or returns again in a further branch "
                "there, which the analysis does not take apart");
    F.Result = Value::unknown("");
    F.Returned = true;
    return true;
  }
  if (Then && Else) {
    F.Result = chosenValue(C, *Then, *Else);
    F.Returned = true;
    return true;
  }
  // One side returned: what follows runs on the other side's state.
  if (!Then) {
    Env = std::move(EnvThen);
    LocalElems = std::move(ElemsThen);
  }
  F.Earlier.push_back({C, /*Negated=*/!Then, Then ? *Then : *Else,
                       Writes.size(), SharedStores.size()});
  return true;
}

Value Interpreter::helperResult(const HelperFrame &F, const std::string &Name) {
  if (!F.Returned)
    return Value::unknown("helper '" + Name + "' has no return");
  Value R = F.Result;
  for (auto It = F.Earlier.rbegin(); It != F.Earlier.rend(); ++It) {
    if (Writes.size() != It->WritesBefore ||
        SharedStores.size() != It->SharedBefore) {
      partial(ReasonKind::DataBranch,
              "the helper '" + Name + "' stores to memory after a return "
              "under a test on the data: whether the store is made depends "
              "on the data");
      return Value::unknown("");
    }
    R = It->Negated ? chosenValue(It->Cond, R, It->Result)
                    : chosenValue(It->Cond, It->Result, R);
  }
  return R;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
