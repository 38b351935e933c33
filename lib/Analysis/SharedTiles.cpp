//===- SharedTiles.cpp - __shared__ tiles traced back to global reads -------===//

#include "KernelInterpreter.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

// ---------------------------------------------------------------------------
// __shared__ tiles
// ---------------------------------------------------------------------------

/// L - R of a comparison of two indices; its loads are not reads of the
/// stencil (a condition is evaluated for its shape only).
std::optional<Poly> Interpreter::comparedDifference(const BinaryOperator *B) {
  size_t ReadsBefore = Reads.size();
  Value L = eval(B->getLHS()), R = eval(B->getRHS());
  Reads.resize(ReadsBefore);
  if (L.K != Value::Index || R.K != Value::Index)
    return std::nullopt;
  // An order compared in an unsigned type with a side that may be negative
  // as a number (i - 1 < n - 2): not the difference's sign (comparison()).
  if (B->getLHS()->getType()->isUnsignedIntegerType() && B->isRelationalOp() &&
      (mayWrapNegative(L.Idx) || mayWrapNegative(R.Idx)))
    return std::nullopt;
  return L.Idx - R.Idx;
}

ThreadCond Interpreter::threadCond(const Expr *Cond) {
  ThreadCond C;
  C.Text = text(Cond);
  const Expr *E = namedCondition(Cond->IgnoreParenImpCasts());
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_LNot) {
    C.K = ThreadCond::Not;
    C.Args = {threadCond(U->getSubExpr())};
    return C;
  }
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return C;
  if (B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr) {
    C.K = B->getOpcode() == BO_LAnd ? ThreadCond::And : ThreadCond::Or;
    C.Args = {threadCond(B->getLHS()), threadCond(B->getRHS())};
    return C;
  }
  if (!B->isComparisonOp())
    return C;
  std::optional<Poly> D = comparedDifference(B);
  if (!D)
    return C;
  C.K = ThreadCond::Cmp;
  C.Op = B->getOpcode();
  C.D = *D;
  return C;
}

/// Whether the tree N reads global memory (a read that is not of a tile).
static bool readsGlobal(const DPtr &N) {
  if (!N)
    return false;
  if (N->K == DNode::Read && !N->Shared)
    return true;
  return std::any_of(N->Args.begin(), N->Args.end(),
                     [](const DPtr &A) { return readsGlobal(A); });
}

ThreadCond splitDomainBounds(const ThreadCond &C, const std::string &Tile,
                             std::vector<PosGuard> &Bounds) {
  if (C.K == ThreadCond::And) {
    ThreadCond R = C;
    for (ThreadCond &A : R.Args)
      A = splitDomainBounds(A, Tile, Bounds);
    return R;
  }
  if (C.K != ThreadCond::Cmp || !C.D.mentionsPrefix("@"))
    return C;
  // A position that is threadIdx.D alone (@gD-) is decided thread by
  // thread like threadIdx.D itself.
  if (std::all_of(C.D.terms().begin(), C.D.terms().end(), [](const auto &T) {
        return std::none_of(T.first.begin(), T.first.end(),
                            [](const std::string &S) {
                              return S[0] == '@' &&
                                     !(S.size() == 4 && S[3] == '-');
                            });
      }))
    return C;
  PosGuard G;
  G.D = C.D;
  G.Op = C.Op;
  G.Text = C.Text;
  G.Tile = Tile;
  Bounds.push_back(std::move(G));
  ThreadCond True; // 0 == 0
  True.K = ThreadCond::Cmp;
  True.Op = BO_EQ;
  True.Text = "true";
  return True;
}

/// P with threadIdx (and blockDim, where known) replaced by numbers, and
/// the thread functions in Fns (tfn#N) by their values at T. With
/// Positions, so is a position that is threadIdx.D alone (@gD-); a value's
/// reads keep it, to be moved from writer to reader (traceTileRead).
Poly atThread(const Poly &P, const ThreadPos &T,
              const std::map<int, int64_t> &BlockSizes,
              const std::vector<ThreadFn> &Fns, bool Positions) {
  // Most of what is moved between threads names none of these (a value's
  // global reads at @gx + c): one look at its symbols settles that.
  bool Names = false;
  for (const auto &[M, C] : P.terms()) {
    for (const std::string &S : M)
      if (S.rfind("tid.", 0) == 0 || S.rfind("bdim.", 0) == 0 ||
          S.rfind(ThreadFnPrefix, 0) == 0 ||
          (Positions && S.size() == 4 && S.rfind("@g", 0) == 0 &&
           S[3] == '-')) {
        Names = true;
        break;
      }
    if (Names)
      break;
  }
  if (!Names)
    return P;
  Poly R = P;
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    R = R.substitute("tid." + Ax, Poly::constant(T[D]));
    if (Positions)
      R = R.substitute(mixedPosition(D, -1), Poly::constant(T[D]));
    if (auto It = BlockSizes.find(D); It != BlockSizes.end())
      R = R.substitute("bdim." + Ax, Poly::constant(It->second));
  }
  for (const std::string &S : symbolsWithPrefix(R, ThreadFnPrefix)) {
    size_t Id = std::stoul(S.substr(std::string(ThreadFnPrefix).size()));
    if (Id >= Fns.size())
      continue;
    const ThreadFn &F = Fns[Id];
    auto X = atThread(F.X, T, BlockSizes, Fns).constantValue();
    auto A = atThread(F.A, T, BlockSizes, Fns).constantValue();
    if (!X || !A || *A == 0)
      continue;
    R = R.substitute(S, Poly::constant(F.Div ? *X / *A : *X % *A));
  }
  return R;
}

std::optional<bool> holdsAt(const ThreadCond &C, const ThreadPos &T,
                            const std::map<int, int64_t> &BlockSizes,
                            const std::vector<ThreadFn> &Fns) {
  switch (C.K) {
  case ThreadCond::Opaque:
    return std::nullopt;
  case ThreadCond::Not: {
    auto V = holdsAt(C.Args[0], T, BlockSizes, Fns);
    return V ? std::optional<bool>(!*V) : std::nullopt;
  }
  case ThreadCond::And:
  case ThreadCond::Or: {
    auto A = holdsAt(C.Args[0], T, BlockSizes, Fns);
    auto B = holdsAt(C.Args[1], T, BlockSizes, Fns);
    bool IsAnd = C.K == ThreadCond::And;
    // A decided operand can settle the result alone (tx == 0 && i > 0 is
    // false for tx = 1 whatever i is).
    if ((A && *A != IsAnd) || (B && *B != IsAnd))
      return !IsAnd;
    if (A && B)
      return IsAnd;
    return std::nullopt;
  }
  case ThreadCond::Cmp: {
    auto V = atThread(C.D, T, BlockSizes, Fns).constantValue();
    if (!V)
      return std::nullopt;
    switch (C.Op) {
    case BO_LT: return *V < 0;
    case BO_LE: return *V <= 0;
    case BO_GT: return *V > 0;
    case BO_GE: return *V >= 0;
    case BO_EQ: return *V == 0;
    case BO_NE: return *V != 0;
    default: return std::nullopt;
    }
  }
  }
  return std::nullopt;
}

/// Adds the clamp sets of From's reads to those of Into, a tree of the same
/// shape (the same tile read seen by another thread).
void mergeClampSets(const DPtr &Into, const DPtr &From) {
  if (Into->K == DNode::Read) {
    Into->Clamps.insert(Into->Clamps.end(), From->Clamps.begin(),
                        From->Clamps.end());
    Into->InBounds.insert(Into->InBounds.end(), From->InBounds.begin(),
                          From->InBounds.end());
  }
  for (size_t I = 0; I < Into->Args.size() && I < From->Args.size(); ++I)
    mergeClampSets(Into->Args[I], From->Args[I]);
}

bool sameTree(const DNode &A, const DNode &B) {
  if (A.K != B.K || A.Op != B.Op || A.Name != B.Name || A.Value != B.Value ||
      A.Choice != B.Choice || A.Args.size() != B.Args.size())
    return false;
  if ((A.K == DNode::Read || A.K == DNode::Coef) && A.Index != B.Index)
    return false;
  for (size_t I = 0; I < A.Args.size(); ++I)
    if (A.Args[I] != B.Args[I] &&
        (!A.Args[I] || !B.Args[I] || !sameTree(*A.Args[I], *B.Args[I])))
      return false;
  return true;
}

std::string treeKey(const DPtr &N) {
  std::string S = std::to_string(N->K) + N->Op + N->Name + N->Value +
                  (N->Choice >= 0 ? "?" + std::to_string(N->Choice) : "");
  if (N->K == DNode::Read || N->K == DNode::Coef)
    S += "[" + N->Index.str() + "]";
  for (const DPtr &A : N->Args)
    S += "(" + treeKey(A) + ")";
  return S;
}

/// The stores of one tile with their named constants resolved and the
/// bounds on the position they are made under moved into their values
/// (traceTileRead); Why says why they cannot be followed.
struct Interpreter::TileStores {
  std::vector<SharedStore> Resolved;
  std::string Why;
};

/// Every store each thread of the block makes to one tile, threads in turn
/// and a thread's stores in program order: the store's place among the
/// tile's stores, the thread and the element; Why says why no such list
/// exists.
struct Interpreter::TileRuns {
  struct Run {
    size_t Store;
    ThreadPos T;
    int64_t E;
  };
  std::vector<Run> Made;
  std::string Why;
};

const Interpreter::TileStores &
Interpreter::tileStores(const std::string &Tile) {
  if (auto It = TileStoresOf.find(Tile); It != TileStoresOf.end())
    return *It->second;
  auto Found = std::make_shared<TileStores>();
  std::vector<SharedStore> &Resolved = Found->Resolved;
  std::string &Why = Found->Why;
  [&] {
    for (const SharedStore &S : SharedStores)
      if (S.Tile == Tile) {
        SharedStore R = S;
        R.Index = resolved(S.Index);
        std::vector<PosGuard> Bounds;
        for (ThreadCond &C : R.Conds)
          C = splitDomainBounds(resolvedCond(C), Tile, Bounds);
        for (const Constraint &G : S.DomainGuards) {
          if (G.Symbol.size() == 4 && G.Symbol.rfind("@g", 0) == 0 &&
              G.Symbol[3] == '-') {
            // threadIdx.D alone: which threads store, not where the domain is.
            ThreadCond C;
            C.K = ThreadCond::Cmp;
            C.D = Poly::symbol(G.Symbol) - resolved(G.Bound);
            C.Op = G.NotEqual ? BO_NE : G.Upper ? BO_LT : BO_GE;
            C.Text = G.Symbol + (G.NotEqual ? " != " : G.Upper ? " < " : " >= ") +
                     G.Bound.str();
            R.Conds.push_back(std::move(C));
            continue;
          }
          PosGuard P;
          P.D = Poly::symbol(G.Symbol) - G.Bound;
          P.Op = G.NotEqual ? BO_NE : G.Upper ? BO_LT : BO_GE;
          P.Text = G.Symbol + (G.NotEqual ? " != " : G.Upper ? " < " : " >= ") +
                   G.Bound.str();
          P.Tile = Tile;
          Bounds.push_back(std::move(P));
        }
        if (!Bounds.empty()) {
          // The bounds are checked through the value's global reads; a value
          // with none (a zero fill where gx >= n) would lose them, and every
          // point would seem to read it.
          if (!readsGlobal(R.Value)) {
            Why = "the __shared__ array '" + Tile + "' is stored a value that " +
                  "reads no array under a bound on the position (" +
                  Bounds.front().Text + "), so which elements hold it depends " +
                  "on the domain";
            return;
          }
          R.Value = withInBounds(R.Value, Bounds);
        }
        Resolved.push_back(std::move(R));
      }
  }();
  return *TileStoresOf.emplace(Tile, std::move(Found)).first->second;
}

const Interpreter::TileRuns &
Interpreter::tileRuns(const std::string &Tile, const TileStores &S,
                      const ThreadPos &WLo, const ThreadPos &WHi) {
  const std::pair<std::string, std::array<int64_t, 6>> Key{
      Tile, {WLo[0], WLo[1], WLo[2], WHi[0], WHi[1], WHi[2]}};
  if (auto It = TileRunsOf.find(Key); It != TileRunsOf.end())
    return *It->second;
  auto Found = std::make_shared<TileRuns>();
  std::vector<TileRuns::Run> &Made = Found->Made;
  std::string &Why = Found->Why;
  [&] {
    ThreadPos T;
    for (T[2] = WLo[2]; T[2] < WHi[2]; ++T[2])
      for (T[1] = WLo[1]; T[1] < WHi[1]; ++T[1])
        for (T[0] = WLo[0]; T[0] < WHi[0]; ++T[0])
          for (size_t I = 0; I < S.Resolved.size(); ++I) {
            const SharedStore *St = &S.Resolved[I];
            bool Runs = true;
            for (const ThreadCond &C : St->Conds) {
              auto V = holdsAt(C, T, BlockSizes, ThreadFns);
              if (!V) {
                Why = "a store to the __shared__ array '" + Tile +
                      "' under the condition '" + C.Text +
                      "', which is not on threadIdx alone";
                Made.clear();
                return;
              }
              Runs = Runs && *V;
            }
            if (!Runs)
              continue;
            auto E =
                atThread(St->Index, T, BlockSizes, ThreadFns).constantValue();
            if (!E) {
              Why = "a store to the __shared__ array '" + Tile +
                    "' at an index that is not threadIdx plus a constant (" +
                    St->Index.str() + ")";
              Made.clear();
              return;
            }
            Made.push_back({I, T, *E});
          }
  }();
  return *TileRunsOf.emplace(Key, std::move(Found)).first->second;
}

/// The global value a read of tile[Index] sees: for every thread of the
/// block, the element it reads must have been stored by exactly the thread
/// and tile store that stand at the same place relative to the reader, so
/// that the read is one global access at a fixed offset. Decided thread by
/// thread over one block (the block size comes from blockIdx*B + threadIdx).
std::optional<DPtr> Interpreter::traceTileRead(const DNode &Read,
                                               std::string &Why,
                                               const ThreadFilter &Only) {
  const std::string &Tile = Read.Name;
  const TileStores &Found = tileStores(Tile);
  if (!Found.Why.empty()) {
    Why = Found.Why;
    return std::nullopt;
  }
  std::vector<const SharedStore *> Stores;
  for (const SharedStore &S : Found.Resolved)
    Stores.push_back(&S);
  const Poly ReadIndex = resolved(Read.Index);
  if (Stores.empty()) {
    Why = "the __shared__ array '" + Tile + "' is read but never stored";
    return std::nullopt;
  }
  // The threads that store run over WLo..WHi, those that read over
  // RLo..RHi (blockRange: the same block, but for halo threads, which load
  // the tile and compute nothing); one thread along a dimension neither
  // the tile's stores nor the read move along.
  ThreadPos WLo, WHi, RLo, RHi;
  blockRange(WLo, WHi, /*Readers=*/false);
  blockRange(RLo, RHi, /*Readers=*/true);
  auto UsesDim = [&](const Poly &P, int D) {
    std::string Ax(1, "xyz"[D]);
    return P.mentions("tid." + Ax) || P.mentions("bdim." + Ax) ||
           P.mentions(mixedPosition(D, -1));
  };
  for (int D = 0; D < 3; ++D) {
    bool Used = UsesDim(ReadIndex, D);
    for (const SharedStore *S : Stores)
      Used = Used || UsesDim(S->Index, D);
    if (!Used) {
      WLo[D] = RLo[D] = 0;
      WHi[D] = RHi[D] = 1;
      continue;
    }
    if (!BlockSizes.count(D)) {
      BlockSizeWanted.insert(D); // A launch may fix it (analyzeKernel).
      Why = std::string("the block size along ") + "xyz"[D] +
            " is not fixed in the kernel (blockIdx*B + threadIdx), so "
            "whether every element of the __shared__ array '" + Tile +
            "' is loaded cannot be decided";
      return std::nullopt;
    }
  }
  if ((WHi[0] - WLo[0]) * (WHi[1] - WLo[1]) * (WHi[2] - WLo[2]) > 4096) {
    Why = "a block of more than 4096 threads";
    return std::nullopt;
  }

  const TileRuns &Runs = tileRuns(Tile, Found, WLo, WHi);
  if (!Runs.Why.empty()) {
    Why = Runs.Why;
    return std::nullopt;
  }
  const std::vector<TileRuns::Run> &Made = Runs.Made;
  // Which store, run by which thread, fills each element, of the stores
  // made before the barrier Below (all stores: ~0u).
  using Filling = std::map<int64_t, std::pair<size_t, ThreadPos>>;
  std::map<unsigned, Filling> Fillings;
  auto Filled = [&](unsigned Below) -> const Filling * {
    if (auto It = Fillings.find(Below); It != Fillings.end())
      return &It->second;
    Filling F;
    for (const auto &[I, T, E] : Made) {
      const unsigned Phase = Stores[I]->Barrier;
      if (Phase >= Below)
        continue;
      // A later store to an element replaces an earlier one of the same
      // thread or from before a barrier (zero the tile, then load it); two
      // threads storing one element between barriers race, and no reader
      // can tell which value it sees.
      auto [It, New] = F.emplace(E, std::make_pair(I, T));
      const unsigned Had = Stores[It->second.first]->Barrier;
      if (!New && It->second.second != T && Had == Phase) {
        const ThreadPos &O = It->second.second;
        Why = "the __shared__ array '" + Tile + "' element " +
              std::to_string(E) + " is stored by the threads " +
              std::to_string(O[0]) + "," + std::to_string(O[1]) + "," +
              std::to_string(O[2]) + " and " + std::to_string(T[0]) + "," +
              std::to_string(T[1]) + "," + std::to_string(T[2]) +
              " before the same barrier: which value a read sees is a race";
        return nullptr;
      }
      // Threads run in no order, phases in the barriers' order: a store
      // from before a barrier never replaces one after it, even where its
      // thread comes later here.
      if (New || Phase >= Had)
        It->second = std::make_pair(I, T);
    }
    return &Fillings.emplace(Below, std::move(F)).first->second;
  };
  if (!Filled(~0u))
    return std::nullopt;
  // Every store of the phase after the barrier P, by element: (store's
  // place among Stores, thread).
  using Writers = std::map<int64_t, std::vector<std::pair<size_t, ThreadPos>>>;
  std::map<unsigned, Writers> PhaseWriters;
  auto InPhase = [&](unsigned P) -> const Writers & {
    if (auto It = PhaseWriters.find(P); It != PhaseWriters.end())
      return It->second;
    Writers Ws;
    for (const auto &[I, T, E] : Made)
      if (Stores[I]->Barrier == P)
        Ws[E].push_back({I, T});
    return PhaseWriters.emplace(P, std::move(Ws)).first->second;
  };

  // A value the thread W computed, seen from the thread R: the writer's
  // position is the reader's moved by W - R.
  auto Mover = [&](const ThreadPos &W, const ThreadPos &R) {
    return [&, W, R](const Poly &P) {
      Poly Q = atThread(P, W, BlockSizes, ThreadFns, /*Positions=*/false);
      if (!Q.mentionsPrefix("@g") && !Q.mentionsPrefix("bid."))
        return Q; // No position to move (a constant, a parameter).
      // S + By for S (nothing to do where the threads stand level or Q
      // holds no S: most of the values moved here).
      auto Shift = [&Q](const std::string &S, int64_t By) {
        if (By != 0 && Q.mentions(S))
          Q = Q.substitute(S, Poly::symbol(S) + Poly::constant(By));
      };
      // Positions formed from threadIdx.D without blockIdx.D (alone, or
      // with another dimension's blockIdx) move as @gD does.
      for (int D = 0; D < 3; ++D)
        for (int B = -1; B < 3; ++B)
          if (B != D)
            Shift(mixedPosition(D, B), W[D] - R[D]);
      for (int D = 0; D < 3; ++D) {
        Shift(GlobalThread[D], W[D] - R[D]);
        // The block's origin without a thread (blockIdx.y*TILE + ly, ly
        // a tile row a loop gave the writer) is the reader's position
        // less its place in the block: B*bid = @g - tid.
        std::string Bid = std::string("bid.") + "xyz"[D];
        auto It = BlockSizes.find(D);
        if (It == BlockSizes.end() || !Q.mentions(Bid))
          continue;
        Poly Moved;
        for (const auto &[M, C] : Q.terms()) {
          bool Origin = std::count(M.begin(), M.end(), Bid) == 1 &&
                        C % It->second == 0;
          Poly Term = Poly::constant(Origin ? C / It->second : C);
          for (const std::string &S : M)
            if (!Origin || S != Bid)
              Term = Term * Poly::symbol(S);
          if (Origin)
            Term = Term * (Poly::symbol(GlobalThread[D]) -
                           Poly::constant(R[D]));
          Moved = Moved + Term;
        }
        Q = Moved;
      }
      return Q;
    };
  };
  // The store (its place among Stores) and the thread whose value the
  // thread R sees at element E when it reads there after Phase barriers
  // and Before of the kernel's tile stores (SharedStore::Seq): its own
  // latest store of this phase made before the read, else the last store
  // from before the barrier. Another thread's store of the same phase races
  // with the read, whether the program puts it before or after.
  auto Source = [&](int64_t E, const ThreadPos &R, unsigned Phase,
                    size_t Before)
      -> std::optional<std::pair<size_t, ThreadPos>> {
    std::optional<std::pair<size_t, ThreadPos>> From;
    const Writers &Ws = InPhase(Phase);
    if (auto It = Ws.find(E); It != Ws.end())
      for (const auto &[I, T] : It->second) {
        if (T != R) {
          Why = "the __shared__ array '" + Tile + "' element " +
                std::to_string(E) + " is read by the thread " +
                std::to_string(R[0]) + "," + std::to_string(R[1]) + "," +
                std::to_string(R[2]) + " and stored by the thread " +
                std::to_string(T[0]) + "," + std::to_string(T[1]) + "," +
                std::to_string(T[2]) + " between the same barriers: a race";
          return std::nullopt;
        }
        if (Stores[I]->Seq < Before)
          From = std::make_pair(I, T);
      }
    if (From)
      return From;
    const Filling *F = Filled(Phase);
    if (!F)
      return std::nullopt;
    auto It = F->find(E);
    if (It == F->end()) {
      Why = "the __shared__ array '" + Tile + "' is read at element " +
            std::to_string(E) + " (thread " + std::to_string(R[0]) + "," +
            std::to_string(R[1]) + "," + std::to_string(R[2]) +
            ") that no thread stores before the read";
      return std::nullopt;
    }
    return It->second;
  };
  // A store's value as its writer W computed it, with every read of the
  // tile in it (a copy within the tile: a periodic image, a mirrored
  // halo) replaced by the value W saw there, from the stores made before
  // the barrier the copy follows.
  std::function<std::optional<DPtr>(const DPtr &, const ThreadPos &,
                                    size_t, int)>
      Resolve = [&](const DPtr &V, const ThreadPos &W, size_t Copy,
                    int Depth) -> std::optional<DPtr> {
    if (!V)
      return V;
    if (V->K == DNode::ThreadSelect) {
      Why = "the __shared__ array '" + Tile + "' is stored a value chosen by "
            "the thread's place in its block";
      return std::nullopt;
    }
    if (V->K == DNode::Read && V->Shared) {
      if (V->Name != Tile) {
        Why = "the __shared__ array '" + Tile +
              "' is stored values read from the __shared__ array '" +
              V->Name + "'";
        return std::nullopt;
      }
      if (Depth > 4) {
        Why = "the __shared__ array '" + Tile +
              "' is copied within itself more than four times over";
        return std::nullopt;
      }
      auto E = atThread(resolved(V->Index), W, BlockSizes, ThreadFns)
                   .constantValue();
      if (!E) {
        Why = "the __shared__ array '" + Tile + "' is copied within itself " +
              "from an element that is not threadIdx plus a constant (" +
              V->Index.str() + ")";
        return std::nullopt;
      }
      auto From = Source(*E, W, Stores[Copy]->Barrier, Stores[Copy]->Seq);
      if (!From)
        return std::nullopt;
      const auto &[Inner, W2] = *From;
      auto Seen = Resolve(Stores[Inner]->Value, W2, Inner, Depth + 1);
      if (!Seen)
        return std::nullopt;
      return moveTraced(*Seen, Mover(W2, W), W);
    }
    if (V->Args.empty())
      return V;
    auto C = std::make_shared<DNode>(*V);
    for (DPtr &A : C->Args) {
      auto R = Resolve(A, W, Copy, Depth);
      if (!R)
        return std::nullopt;
      A = *R;
    }
    return C;
  };

  DPtr Result;
  bool Differ = false;
  std::vector<std::pair<ThreadPos, DPtr>> Seen;
  ThreadPos R;
  for (R[2] = RLo[2]; R[2] < RHi[2]; ++R[2])
    for (R[1] = RLo[1]; R[1] < RHi[1]; ++R[1])
      for (R[0] = RLo[0]; R[0] < RHi[0]; ++R[0]) {
        if (Only && !Only(R))
          continue;
        auto E = atThread(ReadIndex, R, BlockSizes, ThreadFns).constantValue();
        if (!E) {
          Why = "a read of the __shared__ array '" + Tile +
                "' at an index that is not threadIdx plus a constant (" +
                ReadIndex.str() + ")";
          return std::nullopt;
        }
        auto From = Source(*E, R, Read.Phase, Read.StoresBefore);
        if (!From)
          return std::nullopt;
        const auto &[StoreAt, W] = *From;
        auto Value = Resolve(Stores[StoreAt]->Value, W, StoreAt, 0);
        if (!Value)
          return std::nullopt;
        DPtr Moved = moveTraced(*Value, Mover(W, R), R);
        Seen.push_back({R, Moved});
        if (!Result) {
          Result = Moved;
        } else if (sameTree(*Result, *Moved)) {
          mergeClampSets(Result, Moved);
        } else {
          Differ = true;
        }
      }
  if (Differ) {
    // A periodic image (TileImages.cpp), or no one global read.
    if (auto Image = periodicTileImage(Tile, Seen, RLo, RHi))
      return Image;
    Why = "a read of the __shared__ array '" + Tile + "' (" +
          ReadIndex.str() + ") sees different global elements in "
          "different threads of the block";
    return std::nullopt;
  }
  return Result;
}

/// A copy of a tile store's value seen from the thread at Reader: its reads
/// and the positions its clamps act on moved by Fn, each clamp set tagged
/// with the reader.
DPtr Interpreter::moveTraced(const DPtr &N,
                             const std::function<Poly(const Poly &)> &Fn,
                             const std::array<int64_t, 3> &Reader) {
  auto C = std::make_shared<DNode>(*N);
  if (C->K == DNode::Read) {
    C->Index = Fn(C->Index);
    for (PosGuard &G : C->InBounds)
      G.D = Fn(G.D);
    for (ClampSet &S : C->Clamps) {
      S.InBlock = true;
      S.Reader = Reader;
      for (auto &[Id, Coef] : S.Ids) {
        ClampInfo Moved = ClampInfos[Id];
        Moved.Arg = Fn(Moved.Arg);
        Id = static_cast<int>(ClampInfos.size());
        ClampInfos.push_back(std::move(Moved));
      }
    }
  }
  for (DPtr &A : C->Args)
    A = moveTraced(A, Fn, Reader);
  return C;
}

std::map<int, int64_t>
Interpreter::tileBlockGuesses(std::map<int, std::string> &Why) {
  std::map<int, int64_t> Out;
  // The tile reads the stores to global memory are computed from (copies
  // within a tile, periodic images, read far across it).
  std::map<std::string, std::vector<Poly>> TileReadIndices;
  std::function<void(const DPtr &)> Collect = [&](const DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read && N->Shared)
      TileReadIndices[N->Name].push_back(N->Index);
    for (const DPtr &A : N->Args)
      Collect(A);
  };
  for (const Write &W : Writes)
    Collect(W.Value);
  for (int D : BlockSizeWanted) {
    if (BlockSizes.count(D))
      continue;
    const std::string Tid = std::string("tid.") + char('x' + D);
    const std::string Alone = mixedPosition(D, -1);
    std::optional<int64_t> Guess;
    std::string From;
    bool Clash = false;
    for (const auto &[Tile, Indices] : TileReadIndices) {
      auto AI = Arrays.find(Tile);
      if (AI == Arrays.end() || AI->second.SharedShape.empty())
        continue;
      const std::vector<int64_t> &Shape = AI->second.SharedShape;
      std::vector<int64_t> Stride(Shape.size(), 1);
      for (size_t K = Shape.size() - 1; K-- > 0;)
        Stride[K] = Stride[K + 1] * Shape[K + 1];
      // The tile dimension threadIdx.D moves along, and the constant
      // offsets along it of every read that moves with threadIdx.D.
      std::optional<size_t> Dim;
      int64_t Lo = INT64_MAX, Hi = INT64_MIN;
      bool Ok = true;
      for (const Poly &Raw : Indices) {
        const Poly P = resolved(Raw);
        int64_t C = P.coefficient({Tid});
        if (C == 0)
          C = P.coefficient({Alone});
        if (C == 0)
          continue;
        auto K = std::find(Stride.begin(), Stride.end(), C);
        if (K == Stride.end() ||
            (Dim && *Dim != size_t(K - Stride.begin()))) {
          Ok = false;
          break;
        }
        Dim = size_t(K - Stride.begin());
        Poly Rest;
        for (const auto &[M, Coef] : P.terms())
          if (std::none_of(M.begin(), M.end(), [](const std::string &S) {
                return S.rfind("tid.", 0) == 0 || S.rfind("@g", 0) == 0;
              })) {
            Poly T = Poly::constant(Coef);
            for (const std::string &S : M)
              T = T * Poly::symbol(S);
            Rest = Rest + T;
          }
        std::optional<int64_t> Const = Rest.constantValue();
        if (!Const) {
          Ok = false;
          break;
        }
        // The offset along each dimension, outermost first, each the
        // nearest whole number of its stride (a halo read at -1 in a
        // row-major tile is one column back, not a row back and W - 1
        // columns on).
        int64_t Left = *Const, Along = 0;
        for (size_t J = 0; J < Shape.size(); ++J) {
          const int64_t Q = static_cast<int64_t>(
              std::llround(static_cast<double>(Left) / Stride[J]));
          Left -= Q * Stride[J];
          if (J == *Dim)
            Along = Q;
        }
        Lo = std::min(Lo, Along);
        Hi = std::max(Hi, Along);
      }
      if (!Ok || !Dim)
        continue;
      const int64_t B = Shape[*Dim] - (Hi - Lo);
      if (B < 1 || B > 1024)
        continue;
      if (Guess && *Guess != B)
        Clash = true;
      Guess = B;
      From = Tile;
    }
    if (!Guess || Clash)
      continue;
    Out[D] = *Guess;
    Why[D] = "the __shared__ tile '" + From + "' holds " +
             std::to_string(*Guess) + " threads along " + "xyz"[D] +
             " and the halo it is read at";
  }
  return Out;
}

/// Records the global reads of the tree N (a value whose loads were not
/// recorded where they happened) as reads of the stencil.
void Interpreter::recordReads(const DPtr &N, bool Carried) {
  if (!N)
    return;
  if (N->K == DNode::Read && !N->Shared)
    Reads.push_back({N->Name, N->Index, N->Ldg, Carried});
  for (const DPtr &A : N->Args)
    recordReads(A, Carried);
}

/// Replaces every tile read in the tree by the global value it sees.
void Interpreter::resolveSharedReads(DPtr &N) {
  if (!N)
    return;
  // A tile read, or a choice by the thread's place (ThreadChoices.cpp),
  // becomes the global value it sees.
  const bool Choice = N->K == DNode::ThreadSelect;
  if (Choice || (N->K == DNode::Read && N->Shared)) {
    std::string Why;
    auto Seen = Choice ? resolveThreadSelect(N, {}, Why) : traceTileRead(*N, Why);
    if (!Seen) {
      partial(ReasonKind::SharedTile, Why);
      ReadsLost = true;
      return;
    }
    N = *Seen;
    recordReads(N);
    return;
  }
  for (DPtr &A : N->Args)
    resolveSharedReads(A);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
