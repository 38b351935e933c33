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
// C (or the smaller of that and a bound U), C a whole number from 2 to 64;
// its body carries nothing from one point to the next, has no barrier and
// no __shared__ store, and nothing the kernel stores, reads or guards names
// blockIdx.z but through the loop's variable.
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
    return Refuse("its bounds are not the chunk's, clamped once each");
  const std::optional<Poly> CPoly = Base.coefficientOf(Lead);
  const int64_t C = CPoly ? numberOf(*CPoly).value_or(0) : 0;
  const Poly O = Base - (CPoly ? *CPoly : Poly()) * Poly::symbol(Lead);
  const Poly Span = End - Base + Poly::constant(Op == BO_LE ? 1 : 0);
  if (C < 2 || C > 64 || !uniformPoly(O) || numberOf(Span) != C)
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
  if (std::string Why = bodyProblem(Body, Var); !Why.empty())
    return Refuse("its body " + Why);
  if (Coarsened.count(D) || !ActiveCoarse.empty() || BlockLoops.count(D) ||
      Halo.count(D) || (ByBlock && BlockSizes.count(D) && BlockSizes.at(D) != 1))
    return Refuse("the block's threads along " + std::string(1, "xyz"[D]) +
                  " are taken otherwise");
  auto NamesBid = [&](const Poly &X) { return X.mentions(Lead); };
  auto NamesFirst = [&](const Poly &X) { return X.mentions(ByBlock ? Bid : First); };
  for (const ReadRecord &R : Reads)
    if (NamesBid(R.Index))
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
  Env[Var] = Value::index(P + O);
  execLoopBody(Body);
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
  if (Named)
    return Refuse("its body names the chunk's start other than through the loop's variable");
  Coarsened[D] = C;
  if (!ByBlock)
    return true;
  BlockSizes[D] = 1;
  ChunkWhy[D] = "a block's chunk of " + std::to_string(C) + " points along " +
                "xyz"[D] + " is one thread's loop over '" + Var->getName().str() + "'";
  return true;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
