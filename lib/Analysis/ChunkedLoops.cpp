//===- ChunkedLoops.cpp - A block's chunk of an axis, one thread's loop ---===//
//
// 3-D kernels launched over a 2-D grid of threads often give each block a
// chunk of the third axis, which each of its threads walks:
//
//     const int k0 = blockIdx.z * CHUNK;
//     for (int k = max(k0, 1); k < min(k0 + CHUNK, nz - 1); ++k) { ... }
//     for (int k = k0; k < k0 + CHUNK && k < nz - 1; ++k) { ... }
//
// With one thread along z per block (blockDim.z == 1, threadIdx.z and
// blockDim.z named nowhere), that is thread coarsening along z: the thread
// at blockIdx.z computes the CHUNK consecutive points from CHUNK *
// blockIdx.z + O on, the loop's clamps bound the domain (k >= 1, k < nz -
// 1), and a launch covers CHUNK * gridDim.z points from O. The body is run
// once with k the point's position; the IR's z axis gets `thread_points`
// CHUNK and a block-dim assumption z == 1 the launcher checks.
//
// So is the same loop from C * g + O, g the thread's position along z
// (blockIdx.z * blockDim.z + threadIdx.z): each thread walks its own chunk,
// any block size. There the thread's first point, wherever the body names it
// otherwise than through the loop's variable, is a marker that refuses the
// reading.
//
// What makes the reading exact: the loop counts up by one from C * blockIdx.z
// + O (or the larger of that and a bound L) while below C * blockIdx.z + O +
// C (or the smaller of that and a bound U, or while also below U), C a whole
// number from 2 to 64; its body has no barrier and no __shared__ store, and
// nothing the kernel stores, reads or guards names blockIdx.z but through the
// loop's variable. A body that carries values from one point to the next (a
// register queue loaded at the chunk's start) is run as a loop over an axis
// first, whose carried values LoopCarry.cpp checks against those loaded
// before the loop (no clamped start then); the loop's symbol then becomes the
// point's position, and the carried variables are unknown after the loop.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "clang/AST/RecursiveASTVisitor.h"

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// Whether the kernel names threadIdx.D or blockDim.D (member D of the
/// builtin variables).
class NamesThreadDim : public RecursiveASTVisitor<NamesThreadDim> {
public:
  explicit NamesThreadDim(char D) : D(D) {}
  bool VisitMemberExpr(MemberExpr *ME) {
    const auto *DR = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts());
    if (!DR)
      return true;
    const std::string Base = DR->getDecl()->getName().str();
    const std::string Member = ME->getMemberDecl()->getName().str();
    // The builtins' members are x, y, z (or __fetch_builtin_x, ...).
    if ((Base == "threadIdx" || Base == "blockDim") && !Member.empty() &&
        Member.back() == D)
      Found = true;
    return !Found;
  }
  char D;
  bool Found = false;
};

/// Whether \p S returns or breaks out of the loop, or moves the loop's
/// variable \p Var itself.
bool leavesOrMoves(const Stmt *S, const VarDecl *Var) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<BreakStmt>(S) || isa<GotoStmt>(S))
    return true;
  if (const Expr *LHS = assignedBy(S))
    if (const auto *DR = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
        DR && DR->getDecl() == Var)
      return true;
  return std::any_of(S->child_begin(), S->child_end(),
                     [&](const Stmt *C) { return leavesOrMoves(C, Var); });
}

} // namespace

bool Interpreter::chunkLoop(const VarDecl *Var, const Value &Init,
                            const BinaryOperator *Cond, const Value &Bound,
                            const Value &Step, const Stmt *Body,
                            const BinaryOperator *Also) {
  if (Init.K != Value::Index || Bound.K != Value::Index ||
      Step.K != Value::Index || Step.Idx != Poly::constant(1))
    return false;
  const BinaryOperatorKind Op = Cond->getOpcode();
  if (Op != BO_LT && Op != BO_LE)
    return false;
  // The chunk's start: C * blockIdx.D + O (one thread along D), or C * g +
  // O with g the thread's position along D (each thread its own chunk).
  int D = -1;
  bool ByBlock = true;
  for (int X = 0; X < 3; ++X)
    if (Init.Idx.mentions(std::string("bid.") + "xyz"[X]))
      D = D < 0 ? X : 3;
  if (D < 0)
    for (int X = 0; X < 3; ++X)
      if (Init.Idx.mentions(GlobalThread[X])) {
        D = D < 0 ? X : 3;
        ByBlock = false;
      }
  if (D < 0 || D > 2)
    return false;
  const std::string Bid = std::string("bid.") + "xyz"[D];
  const std::string G = GlobalThread[D];
  const std::string Lead = ByBlock ? Bid : G;
  // In the thread form the thread's first point, where the body names it
  // otherwise than through the loop's variable, is this marker.
  const std::string First = std::string("chunk#") + "xyz"[D];
  const std::string Loop = "the loop over '" + Var->getName().str() + "' (" + text(Cond) + ")";
  auto Refuse = [&](const std::string &Why) {
    partial(ReasonKind::LoopNotFollowed, "the analysis does not follow " + Loop +
            ", a chunk of an axis for each block: " + Why);
    return true;
  };
  // Init = max(C * bid + O, L), Bound = min(C * bid + O + C, U).
  Poly Base, End;
  std::vector<std::pair<int, Poly>> InitIds, EndIds;
  if (!splitClamps(Init.Idx, Base, InitIds) || !splitClamps(Bound.Idx, End, EndIds) ||
      InitIds.size() > 1 || EndIds.size() > 1)
    return false; // not a chunk's bounds, clamped once each
  const std::optional<Poly> CPoly = Base.coefficientOf(Lead);
  const Poly O = Base - (CPoly ? *CPoly : Poly()) * Poly::symbol(Lead);
  const Poly Span = End - Base + Poly::constant(Op == BO_LE ? 1 : 0);
  // Not a chunk at all (for (j = i; j < n; ++j)): the other readings decide.
  if (!CPoly || *CPoly != Span || !uniformPoly(Span) || !uniformPoly(O))
    return false;
  const int64_t C = numberOf(Span).value_or(0);
  if (C < 2 || C > 64)
    return Refuse("it does not run from C * " +
                  (ByBlock ? "blockIdx." + std::string(1, "xyz"[D]) : "the thread's position") +
                  " over C points, C a number from 2 to 64");
  std::optional<Poly> Lower, Upper;
  if (!InitIds.empty()) {
    const ClampInfo &CI = ClampInfos[InitIds.front().first];
    if (CI.Upper || CI.Wrap || CI.Equality || CI.Arg != Base ||
        InitIds.front().second != Poly::constant(1) || !uniformPoly(CI.Bound))
      return Refuse("its start is clamped otherwise than by max(start, bound)");
    Lower = CI.Bound;
  }
  if (!EndIds.empty()) {
    const ClampInfo &CI = ClampInfos[EndIds.front().first];
    if (!CI.Upper || CI.Wrap || CI.Equality || CI.Arg != End ||
        EndIds.front().second != Poly::constant(1) || !uniformPoly(CI.Bound))
      return Refuse("its end is clamped otherwise than by min(end, bound)");
    Upper = CI.Bound + Poly::constant(Op == BO_LE ? 1 : 0);
  }
  // for (k = k0; k < k0 + C && k < U; ++k): U bounds the domain.
  if (Also) {
    const auto *DR = dyn_cast<DeclRefExpr>(Also->getLHS()->IgnoreParenImpCasts());
    const Value U = eval(Also->getRHS());
    if (!DR || DR->getDecl() != Var || Upper || U.K != Value::Index ||
        !uniformPoly(U.Idx) ||
        (Also->getOpcode() != BO_LT && Also->getOpcode() != BO_LE))
      return Refuse("its second condition is not one upper bound on its variable");
    Upper = U.Idx + Poly::constant(Also->getOpcode() == BO_LE ? 1 : 0);
  }
  if (ByBlock) {
    NamesThreadDim Finder("xyz"[D]);
    Finder.TraverseStmt(const_cast<Stmt *>(Kernel.getBody()));
    if (Finder.Found)
      return Refuse(std::string("the kernel names threadIdx.") + "xyz"[D] + " or blockDim." +
                    "xyz"[D]);
  }
  // A body that carries values from one point of the chunk to the next (a
  // register queue loaded before the loop) is read as a loop over an axis
  // first (LoopCarry.cpp), whose symbol then becomes the point's position.
  const std::string Problem = bodyProblem(Body, Var);
  const bool Carries = !Problem.empty() && !leavesOrMoves(Body, Var);
  if (!Problem.empty() && !Carries)
    return Refuse("its body " + Problem);
  if (Carries && Lower)
    return Refuse("its body carries values from one point to the next and its start is "
                  "clamped");
  if (Coarsened.count(D) || !ActiveCoarse.empty() || BlockLoops.count(D) ||
      Halo.count(D) || (ByBlock && BlockSizes.count(D) && BlockSizes.at(D) != 1))
    return Refuse("the block's threads along " + std::string(1, "xyz"[D]) +
                  " are taken otherwise");
  auto NamesBid = [&](const Poly &X) { return X.mentions(Lead); };
  auto NamesFirst = [&](const Poly &X) { return X.mentions(ByBlock ? Bid : First); };
  // (Loads of the values a carrying body starts from are at the chunk's
  // start: carryValues checks them.)
  for (const ReadRecord &R : Reads)
    if (!Carries && NamesBid(R.Index))
      return Refuse("a read before it is at the chunk's start");
  for (const Write &W : Writes)
    if (NamesBid(W.Index))
      return Refuse("a store before it is at the chunk's start");
  for (const Constraint &Gd : Guards)
    if (Gd.Symbol == G || NamesBid(Gd.Bound))
      return Refuse("it runs under a guard on its axis");

  // Run the body once, the loop's variable the point's position.
  const Poly P = Poly::symbol(GlobalThread[D]);
  const size_t W0 = Writes.size(), R0 = Reads.size(), S0 = SharedStores.size(),
               C0 = ClampInfos.size(), G0 = Guards.size();
  const unsigned B0 = Barriers;
  if (Lower)
    Guards.push_back(Constraint{GlobalThread[D], false, *Lower - O, false});
  if (Upper)
    Guards.push_back(Constraint{GlobalThread[D], true, *Upper - O, false});
  auto Rename = [&](const std::string &From, const Poly &To) {
    bool Ok = true;
    for (auto &[VD, V] : Env)
      V = substituted(V, From, To, Ok);
    for (auto &[Array, Elems] : LocalElems)
      for (auto &[I, V] : Elems)
        V = substituted(V, From, To, Ok);
    return Ok;
  };
  if (!ByBlock && !Rename(G, Poly::symbol(First))) {
    Rename(First, P);
    return Refuse("a value before it was read through a clamp at the chunk's start");
  }
  if (!Carries) {
    Env[Var] = Value::index(P + O);
    execLoopBody(Body);
  } else if (std::string Why = runCarried(Var, Body, ByBlock ? Init.Idx
                                              : Init.Idx.substitute(G, Poly::symbol(First)),
                                          ByBlock ? End : End.substitute(G, Poly::symbol(First)),
                                          Upper, G, O, W0, C0);
             !Why.empty()) {
    Guards.resize(G0);
    Env[Var] = Value::unknown("the variable of a chunk loop after it");
    if (!ByBlock)
      Rename(First, P);
    if (Why != "-")
      Refuse(Why);
    return true;
  }
  Guards.resize(G0);
  Env[Var] = Value::unknown("the variable of a chunk loop after it");
  if (!ByBlock)
    Rename(First, P);
  if (Barriers != B0 || SharedStores.size() != S0)
    return Refuse("its body uses __shared__ memory or barriers");
  bool Named = false;
  for (size_t I = W0; I < Writes.size(); ++I) {
    Named = Named || NamesFirst(Writes[I].Index);
    for (const Constraint &W : Writes[I].Guards)
      Named = Named || NamesFirst(W.Bound);
  }
  for (size_t I = R0; I < Reads.size(); ++I)
    Named = Named || NamesFirst(Reads[I].Index);
  for (size_t I = C0; I < ClampInfos.size(); ++I)
    Named = Named || NamesFirst(ClampInfos[I].Arg) || NamesFirst(ClampInfos[I].Bound);
  if (Named) {
    // The reasons the rest of the analysis gives name the position, not the
    // marker.
    if (!ByBlock) {
      bool Ignored = true;
      for (size_t I = W0; I < Writes.size(); ++I) {
        Writes[I].Index = Writes[I].Index.substitute(First, P);
        Writes[I].Value = substituted(Value::data(Writes[I].Value), First, P, Ignored).D;
      }
      for (size_t I = R0; I < Reads.size(); ++I)
        Reads[I].Index = Reads[I].Index.substitute(First, P);
    }
    return Refuse("its body names the chunk's start other than through the loop's variable");
  }
  Coarsened[D] = C;
  if (!ByBlock)
    return true;
  BlockSizes[D] = 1;
  ChunkWhy[D] = "a block's chunk of " + std::to_string(C) + " points along " +
                "xyz"[D] + " is one thread's loop over '" + Var->getName().str() + "'";
  return true;
}

std::string Interpreter::runCarried(const VarDecl *Var, const Stmt *Body,
                                    const Poly &Start, const Poly &End,
                                    const std::optional<Poly> &Upper, const std::string &G,
                                    const Poly &Shift, size_t W0, size_t C0) {
  AxisSym A;
  A.Symbol = "@loop:" + Var->getName().str();
  A.Source = ir::AxisSource::Loop;
  A.LoopVar = Var->getName().str();
  A.LoopFirst = A.LoopLower = Start;
  A.LoopUpper = End;
  A.HasLoopRange = true;
  A.LoopDir = 1;
  A.Body = Body;
  const std::string K = A.Symbol;
  const size_t Ix = LoopAxes.size();
  LoopAxes.push_back(A);
  Env[Var] = Value::index(Poly::symbol(K));
  bool IndexRefused = false;
  if (!carryValues(Body, Var, A, IndexRefused)) {
    LoopAxes.resize(Ix);
    return "-"; // carryValues gave the reason
  }
  if (Upper)
    Guards.push_back(Constraint{K, true, *Upper, false});
  execLoopBody(Body);
  if (LoopAxes.size() != Ix + 1) {
    LoopAxes.resize(Ix);
    return "its body holds a loop over an axis";
  }
  LoopAxes.resize(Ix);
  // The loop's symbol is the point's position: Point, a bound on it one on
  // the position itself.
  const Poly Point = Poly::symbol(G) + Shift;
  std::function<DPtr(const DPtr &)> Tree = [&](const DPtr &N) -> DPtr {
    if (!N)
      return N;
    auto C = std::make_shared<DNode>(*N);
    C->Index = C->Index.substitute(K, Point);
    for (PosGuard &PG : C->InBounds)
      PG.D = PG.D.substitute(K, Point);
    for (DPtr &Arg : C->Args)
      Arg = Tree(Arg);
    return C;
  };
  for (size_t I = W0; I < Writes.size(); ++I) {
    Write &W = Writes[I];
    W.Index = W.Index.substitute(K, Point);
    W.Value = Tree(W.Value);
    for (Constraint &Cn : W.Guards) {
      Cn.Bound = Cn.Bound.substitute(K, Point);
      if (Cn.Symbol == K) {
        Cn.Symbol = G;
        Cn.Bound = Cn.Bound - Shift;
      }
    }
  }
  for (ReadRecord &R : Reads)
    R.Index = R.Index.substitute(K, Point);
  for (size_t I = C0; I < ClampInfos.size(); ++I)
    for (Poly *X : {&ClampInfos[I].Arg, &ClampInfos[I].Bound, &ClampInfos[I].Lo, &ClampInfos[I].Hi})
      *X = X->substitute(K, Point);
  // What the loop leaves in its carried variables (and local arrays) is its
  // last round's: not followed after it.
  auto Forget = [&](Value &V) {
    bool Mentions = V.Idx.mentions(K);
    std::function<void(const DPtr &)> Find = [&](const DPtr &N) {
      if (N && !Mentions) {
        Mentions = N->Index.mentions(K);
        for (const DPtr &Arg : N->Args)
          Find(Arg);
      }
    };
    Find(V.D);
    if (Mentions)
      V = Value::unknown("a value the loop over '" + A.LoopVar + "' carried, after it");
  };
  for (auto &[VD, V] : Env)
    Forget(V);
  for (auto &[Array, Elems] : LocalElems)
    for (auto &[I, V] : Elems)
      Forget(V);
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
