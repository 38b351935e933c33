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
/// the thread functions in Fns (tfn#N) by their values at T.
Poly atThread(const Poly &P, const ThreadPos &T,
              const std::map<int, int64_t> &BlockSizes,
              const std::vector<ThreadFn> &Fns) {
  Poly R = P;
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    R = R.substitute("tid." + Ax, Poly::constant(T[D]));
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

std::string treeKey(const DPtr &N) {
  std::string S = std::to_string(N->K) + N->Op + N->Name + N->Value;
  if (N->K == DNode::Read || N->K == DNode::Coef)
    S += "[" + N->Index.str() + "]";
  for (const DPtr &A : N->Args)
    S += "(" + treeKey(A) + ")";
  return S;
}

/// The global value a read of tile[Index] sees: for every thread of the
/// block, the element it reads must have been stored by exactly the thread
/// and tile store that stand at the same place relative to the reader, so
/// that the read is one global access at a fixed offset. Decided thread by
/// thread over one block (the block size comes from blockIdx*B + threadIdx).
std::optional<DPtr> Interpreter::traceTileRead(const DNode &Read,
                                               std::string &Why) {
  const std::string &Tile = Read.Name;
  // Which thread stores which element is decided on numbers: the named
  // constants of the tile's indices and conditions (TILE) are resolved.
  std::function<ThreadCond(const ThreadCond &)> ResolveCond =
      [&](const ThreadCond &C) {
        ThreadCond R = C;
        R.D = resolved(C.D);
        for (ThreadCond &A : R.Args)
          A = ResolveCond(A);
        return R;
      };
  // A store under a bound on the position (if (inside), gx > 0 in a halo
  // load's condition) runs, for the thread-by-thread account below, in
  // every thread; the bound goes with the value it stores, as a guard on
  // its reads, moved to the reader's frame with them: the tile holds the
  // array's elements only where the domain's points make every such guard
  // hold (guardedReadsHold, as for cond ? in[g] : 0).
  std::vector<SharedStore> Resolved;
  for (const SharedStore &S : SharedStores)
    if (S.Tile == Tile) {
      SharedStore R = S;
      R.Index = resolved(S.Index);
      std::vector<PosGuard> Bounds;
      for (ThreadCond &C : R.Conds)
        C = splitDomainBounds(ResolveCond(C), Tile, Bounds);
      for (const Constraint &G : S.DomainGuards) {
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
          return std::nullopt;
        }
        R.Value = withInBounds(R.Value, Bounds);
      }
      Resolved.push_back(std::move(R));
    }
  std::vector<const SharedStore *> Stores;
  for (const SharedStore &S : Resolved)
    Stores.push_back(&S);
  const Poly ReadIndex = resolved(Read.Index);
  if (Stores.empty()) {
    Why = "the __shared__ array '" + Tile + "' is read but never stored";
    return std::nullopt;
  }
  ThreadPos Extent{1, 1, 1};
  auto UsesDim = [&](const Poly &P, int D) {
    std::string Ax(1, "xyz"[D]);
    return P.mentions("tid." + Ax) || P.mentions("bdim." + Ax);
  };
  for (int D = 0; D < 3; ++D) {
    bool Used = UsesDim(ReadIndex, D);
    for (const SharedStore *S : Stores)
      Used = Used || UsesDim(S->Index, D);
    if (!Used)
      continue;
    auto It = BlockSizes.find(D);
    if (It == BlockSizes.end()) {
      BlockSizeWanted.insert(D); // A launch may fix it (analyzeKernel).
      Why = std::string("the block size along ") + "xyz"[D] +
            " is not fixed in the kernel (blockIdx*B + threadIdx), so "
            "whether every element of the __shared__ array '" + Tile +
            "' is loaded cannot be decided";
      return std::nullopt;
    }
    Extent[D] = It->second;
  }
  if (Extent[0] * Extent[1] * Extent[2] > 4096) {
    Why = "a block of more than 4096 threads";
    return std::nullopt;
  }

  // Which store, run by which thread, fills each element.
  std::map<int64_t, std::pair<const SharedStore *, ThreadPos>> Filled;
  ThreadPos T;
  for (T[2] = 0; T[2] < Extent[2]; ++T[2])
    for (T[1] = 0; T[1] < Extent[1]; ++T[1])
      for (T[0] = 0; T[0] < Extent[0]; ++T[0])
        for (const SharedStore *S : Stores) {
          bool Runs = true;
          for (const ThreadCond &C : S->Conds) {
            auto V = holdsAt(C, T, BlockSizes, ThreadFns);
            if (!V) {
              Why = "a store to the __shared__ array '" + Tile +
                    "' under the condition '" + C.Text +
                    "', which is not on threadIdx alone";
              return std::nullopt;
            }
            Runs = Runs && *V;
          }
          if (!Runs)
            continue;
          auto E = atThread(S->Index, T, BlockSizes, ThreadFns).constantValue();
          if (!E) {
            Why = "a store to the __shared__ array '" + Tile +
                  "' at an index that is not threadIdx plus a constant (" +
                  S->Index.str() + ")";
            return std::nullopt;
          }
          // A later store to an element replaces an earlier one of the
          // same thread or from before a barrier (zero the tile, then load
          // it); two threads storing one element between barriers race,
          // and no reader can tell which value it sees.
          auto [It, New] = Filled.emplace(*E, std::make_pair(S, T));
          if (!New && It->second.second != T &&
              It->second.first->Barrier == S->Barrier) {
            const ThreadPos &O = It->second.second;
            Why = "the __shared__ array '" + Tile + "' element " +
                  std::to_string(*E) + " is stored by the threads " +
                  std::to_string(O[0]) + "," + std::to_string(O[1]) + "," +
                  std::to_string(O[2]) + " and " + std::to_string(T[0]) +
                  "," + std::to_string(T[1]) + "," + std::to_string(T[2]) +
                  " before the same barrier: which value a read sees is a "
                  "race";
            return std::nullopt;
          }
          It->second = std::make_pair(S, T);
        }

  std::optional<std::string> Key;
  DPtr Result;
  ThreadPos R;
  for (R[2] = 0; R[2] < Extent[2]; ++R[2])
    for (R[1] = 0; R[1] < Extent[1]; ++R[1])
      for (R[0] = 0; R[0] < Extent[0]; ++R[0]) {
        auto E = atThread(ReadIndex, R, BlockSizes, ThreadFns).constantValue();
        if (!E) {
          Why = "a read of the __shared__ array '" + Tile +
                "' at an index that is not threadIdx plus a constant (" +
                ReadIndex.str() + ")";
          return std::nullopt;
        }
        auto It = Filled.find(*E);
        if (It == Filled.end()) {
          Why = "the __shared__ array '" + Tile + "' is read at element " +
                std::to_string(*E) + " (thread " + std::to_string(R[0]) +
                "," + std::to_string(R[1]) + "," + std::to_string(R[2]) +
                ") that no thread stores";
          return std::nullopt;
        }
        const auto &[Store, W] = It->second;
        // The writer's position seen from the reader: @gA of the writer is
        // the reader's @gA + (W - R) along A.
        DPtr Moved = moveTraced(Store->Value, [&](const Poly &P) {
          Poly Q = atThread(P, W, BlockSizes, ThreadFns);
          for (int D = 0; D < 3; ++D) {
            Q = Q.substitute(GlobalThread[D],
                             Poly::symbol(GlobalThread[D]) +
                                 Poly::constant(W[D] - R[D]));
            // The block's origin without a thread (blockIdx.y*TILE + ly,
            // ly a tile row a loop gave the writer) is the reader's
            // position less its place in the block: B*bid = @g - tid.
            std::string Bid = std::string("bid.") + "xyz"[D];
            auto It = BlockSizes.find(D);
            if (It == BlockSizes.end())
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
        }, R);
        std::string K = treeKey(Moved);
        if (!Key) {
          Key = K;
          Result = Moved;
        } else if (*Key == K) {
          mergeClampSets(Result, Moved);
        } else {
          Why = "a read of the __shared__ array '" + Tile + "' (" +
                ReadIndex.str() + ") sees different global elements in "
                "different threads of the block";
          return std::nullopt;
        }
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

/// Records the global reads of the tree N (a value whose loads were not
/// recorded where they happened) as reads of the stencil.
void Interpreter::recordReads(const DPtr &N) {
  if (!N)
    return;
  if (N->K == DNode::Read && !N->Shared)
    Reads.push_back({N->Name, N->Index, N->Ldg});
  for (const DPtr &A : N->Args)
    recordReads(A);
}

/// Replaces every tile read in the tree by the global value it sees.
void Interpreter::resolveSharedReads(DPtr &N) {
  if (!N)
    return;
  if (N->K == DNode::Read && N->Shared) {
    std::string Why;
    auto Traced = traceTileRead(*N, Why);
    if (!Traced) {
      partial(ReasonKind::SharedTile, Why);
      TileReadsLost = true;
      return;
    }
    N = *Traced;
    recordReads(N);
    return;
  }
  for (DPtr &A : N->Args)
    resolveSharedReads(A);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
