//===- ThreadChoices.cpp - Values chosen by the thread's place in its block -===//
//
// A tiled kernel often lets the threads at the edge of the block read their
// halo neighbour from global memory and the others from the tile:
//
//     float w = threadIdx.x == 0 ? in[c - 1] : tile[ty][tx - 1];
//     float n = yhi ? in[c + nx] : tile[t + blockDim.x];
//
// The expression is one read of the grid when both sides, each for the
// threads that take it, give the same element relative to the thread's
// point. The interpreter keeps such an expression as a ThreadSelect node
// (its condition among ThreadChoices); once every tile store is known,
// resolveThreadSelect decides it thread by thread: each side's tile reads
// are traced for the threads that take that side only (traceTileRead's
// filter), and the sides must agree. A side no thread takes is dropped.
// Anything else leaves the kernel partial with the reason.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// Whether C is made of comparisons on the thread's place in its block
/// (threadIdx, blockDim, numbers and named constants) only, one at least
/// naming threadIdx.
bool onThreadPlace(const ThreadCond &C, bool &NamesThread) {
  switch (C.K) {
  case ThreadCond::Cmp:
    if (C.D.mentionsPrefix("@") || C.D.mentionsPrefix("bid.") ||
        C.D.mentionsPrefix("gdim.") || C.D.mentionsPrefix("clamp#") ||
        C.D.mentionsPrefix("mod[") || C.D.mentionsPrefix("div["))
      return false;
    NamesThread = NamesThread || C.D.mentionsPrefix("tid.");
    return true;
  case ThreadCond::And:
  case ThreadCond::Or:
  case ThreadCond::Not:
    return std::all_of(C.Args.begin(), C.Args.end(), [&](const ThreadCond &A) {
      return onThreadPlace(A, NamesThread);
    });
  case ThreadCond::Opaque:
    return false;
  }
  return false;
}

} // namespace

std::optional<Value> Interpreter::threadChosenValue(const ConditionalOperator *CO) {
  ThreadCond C = threadCond(CO->getCond());
  bool NamesThread = false;
  if (!onThreadPlace(C, NamesThread) || !NamesThread)
    return std::nullopt;
  Value T = eval(CO->getTrueExpr());
  Value F = eval(CO->getFalseExpr());
  if (T.K != Value::Data || F.K != Value::Data || !T.D || !F.D)
    return std::nullopt;
  DPtr N = node(DNode::ThreadSelect);
  N->Choice = static_cast<int>(ThreadChoices.size());
  N->Args = {T.D, F.D};
  ThreadChoices.push_back(std::move(C));
  return Value::data(N);
}

std::optional<DPtr> Interpreter::resolveThreadSelect(const DPtr &N,
                                                     const ThreadFilter &Only,
                                                     std::string &Why) {
  if (N->K == DNode::Read && N->Shared) {
    auto Traced = traceTileRead(*N, Why, Only);
    if (Traced && !*Traced) {
      Why = "no thread of the block reads the __shared__ array '" + N->Name +
            "' where a choice by the thread's place takes it";
      return std::nullopt;
    }
    return Traced;
  }
  if (N->K != DNode::ThreadSelect) {
    auto C = std::make_shared<DNode>(*N);
    for (DPtr &A : C->Args) {
      auto R = resolveThreadSelect(A, Only, Why);
      if (!R)
        return std::nullopt;
      A = *R;
    }
    return C;
  }
  const ThreadCond Cond = resolvedCond(ThreadChoices[N->Choice]);
  // Which of the reading threads take each side.
  ThreadPos Lo, Hi;
  blockRange(Lo, Hi, /*Readers=*/true);
  for (int D = 0; D < 3; ++D) {
    const std::string Ax(1, "xyz"[D]);
    std::function<bool(const ThreadCond &)> Names = [&](const ThreadCond &C) {
      return (C.K == ThreadCond::Cmp &&
              (C.D.mentions("tid." + Ax) || C.D.mentions("bdim." + Ax))) ||
             std::any_of(C.Args.begin(), C.Args.end(), Names);
    };
    if (Names(Cond) && !BlockSizes.count(D)) {
      BlockSizeWanted.insert(D);
      Why = std::string("the block size along ") + "xyz"[D] +
            " is not fixed in the kernel, so which threads take each side of '" +
            Cond.Text + "' cannot be decided";
      return std::nullopt;
    }
  }
  if ((Hi[0] - Lo[0]) * (Hi[1] - Lo[1]) * (Hi[2] - Lo[2]) > 4096) {
    Why = "a block of more than 4096 threads";
    return std::nullopt;
  }
  bool Undecided = false, TakesThen = false, TakesElse = false;
  auto Side = [&](bool Then) -> ThreadFilter {
    return [&, Then](const ThreadPos &T) {
      if (Only && !Only(T))
        return false;
      std::optional<bool> H = holdsAt(Cond, T, BlockSizes, ThreadFns);
      Undecided = Undecided || !H;
      return H && *H == Then;
    };
  };
  const ThreadFilter OnThen = Side(true), OnElse = Side(false);
  ThreadPos T;
  for (T[2] = Lo[2]; T[2] < Hi[2]; ++T[2])
    for (T[1] = Lo[1]; T[1] < Hi[1]; ++T[1])
      for (T[0] = Lo[0]; T[0] < Hi[0]; ++T[0]) {
        TakesThen = TakesThen || OnThen(T);
        TakesElse = TakesElse || OnElse(T);
      }
  if (Undecided) {
    Why = "'" + Cond.Text + "' is not decided by the thread's place in its block alone";
    return std::nullopt;
  }
  std::optional<DPtr> Then, Else;
  if (TakesThen && !(Then = resolveThreadSelect(N->Args[0], OnThen, Why)))
    return std::nullopt;
  if (TakesElse && !(Else = resolveThreadSelect(N->Args[1], OnElse, Why)))
    return std::nullopt;
  if (Then && Else) {
    if (!sameTree(**Then, **Else)) {
      Why = "the two sides of '" + Cond.Text + "' read different elements "
            "(a choice by the thread's place that is not one read of the grid)";
      return std::nullopt;
    }
    mergeClampSets(*Then, *Else);
    return Then;
  }
  if (Then || Else)
    return Then ? Then : Else;
  Why = "no thread of the block takes either side of '" + Cond.Text + "'";
  return std::nullopt;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
