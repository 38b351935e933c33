//===- PeeledPlanes.cpp - A z loop with its first and last planes peeled --===//
//
// 3-D solvers that stream along z with a register queue often peel the
// queue's ends out of the loop (hotspot-style kernels):
//
//     below = here = in[c]; above = in[c + xy];
//     out[c] = f(below, here, above);            // plane Lo - 1
//     c += xy;
//     for (k = Lo; k < Hi; ++k) {
//       below = here; here = above; above = in[c + xy];
//       out[c] = f(below, here, above);          // plane k
//       c += xy;
//     }
//     below = here; here = above;
//     out[c] = f(below, here, above);            // plane Hi
//
// The three stores are one update on [Lo - 1, Hi] whose reads along z are
// clamped to that interval: at plane Lo - 1 the read below is the plane
// itself, at plane Hi the read above is. This reading checks exactly that,
// store by store: the store before the loop must be the loop's at
// k = Lo - 1 with its reads at k - 1 moved up to Lo - 1, the store after it
// the loop's at k = Hi with its reads at k + 1 moved down to Hi; every read
// of the loop lies within one plane of k (so the clamps never move a read
// of the loop's own planes). Then the loop's stores stand for all three,
// their reads along z clamped, the loop's range widened by a plane at each
// end, and the launcher checks that the loop ran at least once (Hi - Lo >=
// 1): the values after the loop are those of its last iteration only then.
//
// The loop must declare its own variable and run every round to its end (no
// break, continue, return or goto in its body). Anything else leaves the
// stores as they are (and the kernel partial).
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>
#include <cstdlib>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// The for statement whose body is \p Body, declaring its own variable.
class ForOfBody : public RecursiveASTVisitor<ForOfBody> {
public:
  explicit ForOfBody(const Stmt *Body) : Body(Body) {}
  bool VisitForStmt(ForStmt *F) {
    if (F->getBody() == Body)
      Found = F;
    return !Found;
  }
  const Stmt *Body;
  const ForStmt *Found = nullptr;
};

/// Whether \p S leaves the loop's body early (break, continue, return,
/// goto), so that the values after the loop may not be its last round's.
bool leavesEarly(const Stmt *S) {
  if (!S)
    return false;
  if (isa<BreakStmt>(S) || isa<ContinueStmt>(S) || isa<ReturnStmt>(S) ||
      isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  return std::any_of(S->child_begin(), S->child_end(),
                     [](const Stmt *C) { return leavesEarly(C); });
}

bool declaresOwnVariable(const ForStmt *F, const std::string &Var) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(F ? F->getInit() : nullptr);
  if (!DS || !DS->isSingleDecl())
    return false;
  const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
  return VD && VD->getName() == Var;
}

} // namespace

void Interpreter::mergePeeledPlanes() {
  if (LoopAxes.size() != 1 || !FrameWrites.empty() || !SharedStores.empty() ||
      !BlockLoops.empty() || Writes.empty())
    return;
  AxisSym &L = LoopAxes.front();
  const size_t N = L.WritesEnd - L.WritesAt;
  if (L.LoopDir != 1 || !L.HasLoopRange || L.CarryRefused || N == 0 ||
      L.WritesAt != N || Writes.size() != 3 * N || !L.Body ||
      L.LoopLower != L.LoopFirst)
    return;
  const std::string K = L.Symbol;
  const Poly Lo = L.LoopLower, Hi = L.LoopUpper, One = Poly::constant(1);
  if (!uniformPoly(Lo) || !uniformPoly(Hi))
    return;
  // After the loop the interpreter's values are its last iteration's, in
  // terms of the loop's symbol: right for the loop's own variables only.
  {
    ForOfBody Finder(L.Body);
    Finder.TraverseStmt(const_cast<Stmt *>(Kernel.getBody()));
    if (!declaresOwnVariable(Finder.Found, L.LoopVar) || leavesEarly(L.Body))
      return;
  }

  // The strides of the loop's first store, fastest first, and where the
  // loop's axis is among them.
  const Poly &Main = Writes[N].Index;
  const std::optional<Poly> Stride = Main.coefficientOf(K);
  if (!Stride || Stride->mentionsPrefix("@") || *Stride == Poly())
    return;
  std::vector<std::pair<std::string, Poly>> Axes;
  for (const auto &[M, C] : Main.terms())
    for (const std::string &S : M)
      if (isAxisSymbol(S) &&
          std::none_of(Axes.begin(), Axes.end(), [&](auto &A) { return A.first == S; })) {
        auto Str = Main.coefficientOf(S);
        if (!Str || Str->mentionsPrefix("@"))
          return;
        Axes.push_back({S, *Str});
      }
  if (Axes.size() > 3)
    return;
  std::sort(Axes.begin(), Axes.end(), [](const auto &A, const auto &B) {
    return fasterStride(A.second, B.second);
  });
  std::vector<Poly> Strides;
  size_t KAxis = 0;
  for (size_t I = 0; I < Axes.size(); ++I) {
    Strides.push_back(Axes[I].second);
    if (Axes[I].first == K)
      KAxis = I;
  }

  // Whether a clamp a read went through is one of a position the loop
  // does not move (x and y clamps computed before or in the loop).
  auto StillClamp = [&](const DNode &R) {
    for (const ClampSet &CS : R.Clamps)
      for (const auto &[Id, C] : CS.Ids)
        if (Id < 0 || static_cast<size_t>(Id) >= ClampInfos.size() ||
            ClampInfos[Id].Arg.mentions(K) || ClampInfos[Id].Bound.mentions(K) ||
            C.mentions(K))
          return false;
    return R.Clamps.size() <= 1;
  };
  // The offset along the loop's axis of a read of the loop's store W.
  auto OffsetAlongK = [&](const DNode &R, const Poly &W) -> std::optional<int64_t> {
    if (R.Index.coefficientOf(K) != Stride)
      return std::nullopt;
    auto O = offsetAlong(R.Index - W, Strides);
    if (!O)
      return std::nullopt;
    return (*O)[KAxis];
  };

  // The loop's value at plane P (a Poly over the parameters) with its reads
  // along the axis moved into [Lo - 1, Hi] (Edge: -1 at the lower end, +1
  // at the upper one), or with clamps added (Edge 0, P the symbol itself).
  bool Ok = true;
  std::function<DPtr(const DPtr &, const Poly &, const Poly &, int)> Plane =
      [&](const DPtr &V, const Poly &W, const Poly &P, int Edge) -> DPtr {
    auto C = std::make_shared<DNode>(*V);
    if (C->K == DNode::Coef && C->Index.mentions(K))
      Ok = false;
    if (C->K == DNode::Read && (C->Shared || !C->InBounds.empty()))
      Ok = false;
    if (C->K == DNode::Read && Ok && C->Index.mentions(K)) {
      std::optional<int64_t> D = OffsetAlongK(*C, W);
      if (!D || std::llabs(*D) > 1 || !StillClamp(*C)) {
        Ok = false;
        return C;
      }
      if (Edge == 0 && *D != 0) {
        ClampInfo CI;
        CI.Upper = *D > 0;
        CI.Bound = *D > 0 ? Hi : Lo - One;
        CI.Arg = Poly::symbol(K) + Poly::constant(*D);
        CI.Text = std::string(*D > 0 ? "the last" : "the first") +
                  " plane of the loop over '" + L.LoopVar + "', peeled";
        const int Id = static_cast<int>(ClampInfos.size());
        Clamps.insert(CI.Text);
        ClampInfos.push_back(CI);
        if (C->Clamps.empty())
          C->Clamps.push_back(ClampSet());
        C->Clamps.front().Ids.push_back({Id, *Stride});
      } else if (Edge != 0) {
        C->Index = C->Index.substitute(K, P);
        if (*D == Edge) // beyond the plane: the plane itself
          C->Index = C->Index - Poly::constant(*D) * *Stride;
      }
    }
    for (DPtr &A : C->Args)
      A = Plane(A, W, P, Edge);
    return C;
  };
  // A value after the loop at its last iteration.
  std::function<DPtr(const DPtr &)> Last = [&](const DPtr &V) -> DPtr {
    auto C = std::make_shared<DNode>(*V);
    if (C->K == DNode::Coef && C->Index.mentions(K))
      Ok = false;
    if (C->K == DNode::Read) {
      if (!StillClamp(*C) || !C->InBounds.empty())
        Ok = false;
      C->Index = C->Index.substitute(K, Hi - One);
    }
    for (DPtr &A : C->Args)
      A = Last(A);
    return C;
  };
  // Two values alike, clamps compared by what they clamp (each evaluation
  // of a ternary clamp names its own).
  std::function<bool(const DNode &, const DNode &)> Same = [&](const DNode &A,
                                                             const DNode &B) {
    // (A choice by the thread's place names its condition by a number each
    // evaluation gives anew: not compared, refused.)
    if (A.K != B.K || A.Op != B.Op || A.Name != B.Name || A.Value != B.Value ||
        A.Ldg != B.Ldg || A.Shared != B.Shared || A.Args.size() != B.Args.size() ||
        A.K == DNode::ThreadSelect)
      return false;
    if ((A.K == DNode::Read || A.K == DNode::Coef) && A.Index != B.Index)
      return false;
    if (A.K == DNode::Read) {
      auto Ids = [](const DNode &R) {
        return R.Clamps.empty() ? std::vector<std::pair<int, Poly>>()
                                : R.Clamps.front().Ids;
      };
      auto IA = Ids(A), IB = Ids(B);
      if (IA.size() != IB.size())
        return false;
      for (size_t I = 0; I < IA.size(); ++I) {
        const ClampInfo &X = ClampInfos[IA[I].first], &Y = ClampInfos[IB[I].first];
        if (IA[I].second != IB[I].second || X.Upper != Y.Upper ||
            X.Equality != Y.Equality || X.Wrap != Y.Wrap || X.Both != Y.Both ||
            X.Bound != Y.Bound || X.Arg != Y.Arg || X.Lo != Y.Lo || X.Hi != Y.Hi ||
            X.Period != Y.Period)
          return false;
      }
    }
    for (size_t I = 0; I < A.Args.size(); ++I)
      if (!A.Args[I] || !B.Args[I] || !Same(*A.Args[I], *B.Args[I]))
        return false;
    return true;
  };
  auto SameGuards = [](const std::vector<Constraint> &A,
                       const std::vector<Constraint> &B) {
    return A.size() == B.size() &&
           std::equal(A.begin(), A.end(), B.begin(), [](const auto &X, const auto &Y) {
             return X.Symbol == Y.Symbol && X.Upper == Y.Upper &&
                    X.Bound == Y.Bound && X.NotEqual == Y.NotEqual;
           });
  };

  const size_t Clamps0 = ClampInfos.size();
  const std::set<std::string> ClampTexts = Clamps;
  std::vector<DPtr> Merged;
  for (size_t I = 0; I < N && Ok; ++I) {
    const Write &Pre = Writes[I], &Loop = Writes[N + I], &Post = Writes[2 * N + I];
    if (Pre.Array != Loop.Array || Post.Array != Loop.Array || Pre.Accumulate ||
        Loop.Accumulate || Post.Accumulate || !Pre.Value || !Loop.Value ||
        !Post.Value || Pre.InBlockLoop || Loop.InBlockLoop || Post.InBlockLoop ||
        Pre.Scopes != Loop.Scopes || Post.Scopes != Loop.Scopes ||
        !SameGuards(Pre.Guards, Loop.Guards) || !SameGuards(Post.Guards, Loop.Guards) ||
        std::any_of(Loop.Guards.begin(), Loop.Guards.end(),
                    [&](const Constraint &G) { return G.Bound.mentions(K) || G.Symbol == K; }) ||
        Loop.Index.coefficientOf(K) != Stride ||
        Pre.Index != Loop.Index.substitute(K, Lo - One) ||
        Post.Index.substitute(K, Hi - One) != Loop.Index.substitute(K, Hi)) {
      Ok = false;
      break;
    }
    DPtr AtFirst = Plane(Loop.Value, Loop.Index, Lo - One, -1);
    DPtr AtLast = Plane(Loop.Value, Loop.Index, Hi, +1);
    DPtr After = Last(Post.Value);
    if (!Ok || !Same(*AtFirst, *Pre.Value) || !Same(*AtLast, *After)) {
      Ok = false;
      break;
    }
    Merged.push_back(Plane(Loop.Value, Loop.Index, Poly::symbol(K), 0));
  }
  if (!Ok) {
    ClampInfos.resize(Clamps0);
    Clamps = ClampTexts;
    return;
  }

  // The loads of the three stores are now the merged values' loads.
  std::function<void(const DPtr &, std::vector<ReadRecord> &)> Loads =
      [&](const DPtr &V, std::vector<ReadRecord> &Out) {
        if (V->K == DNode::Read)
          Out.push_back({V->Name, V->Index, V->Ldg});
        for (const DPtr &A : V->Args)
          Loads(A, Out);
      };
  std::vector<ReadRecord> Old, New;
  for (const Write &W : Writes)
    Loads(W.Value, Old);
  for (const DPtr &V : Merged)
    Loads(V, New);
  Reads.erase(std::remove_if(Reads.begin(), Reads.end(),
                             [&](const ReadRecord &R) {
                               return std::any_of(Old.begin(), Old.end(), [&](auto &O) {
                                 return O.Array == R.Array && O.Index == R.Index;
                               });
                             }),
              Reads.end());
  Reads.insert(Reads.end(), New.begin(), New.end());
  std::vector<Write> Kept(Writes.begin() + N, Writes.begin() + 2 * N);
  for (size_t I = 0; I < N; ++I)
    Kept[I].Value = Merged[I];
  Writes = std::move(Kept);
  L.LoopLower = L.LoopFirst = Lo - One;
  L.LoopUpper = Hi + One;

  const Poly Runs = Hi - Lo;
  if (auto C = Runs.constantValue()) {
    if (*C < 1)
      partial(ReasonKind::Loop, "the loop over '" + L.LoopVar + "' between its peeled "
              "planes never runs (" + Lo.str() + " to " + Hi.str() + ")");
    return;
  }
  ir::Assumption A;
  A.Kind = ir::Assumption::AtLeast;
  A.Expr = Runs.str();
  A.Value = "1";
  A.Why = "the loop over '" + L.LoopVar + "' between the peeled first and last planes "
          "runs at least once: the store after it is at the last plane only then";
  Checked.push_back(std::move(A));
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
