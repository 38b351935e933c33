//===- ZSum.cpp - Streaming partial sums along the slowest axis ------------===//

#include "ZSum.h"

#include "../ColumnKernel.h"
#include "../PlaneStage.h"

#include "forgestencil/Forge/CodeGen.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace forgestencil {
namespace forge {

namespace {

using ir::Expr;
using ir::Offset;




/// Consecutive terms of an update's sum that read the same plane.
struct PlaneGroup {
  int Plane = 0;
  std::vector<const Expr *> Terms;
};

/// The terms of a left-leaning chain of `+`, in evaluation order:
/// ((a + b) + c) + d gives a, b, c, d.
void chainTerms(const Expr &E, std::vector<const Expr *> &Out) {
  if (E.Kind == Expr::Binary && E.Op == "+" && E.Args.size() == 2) {
    chainTerms(E.Args[0], Out);
    Out.push_back(&E.Args[1]);
    return;
  }
  Out.push_back(&E);
}

void readPlanes(const StencilView &V, const Expr &E, std::set<int> &Planes) {
  if (E.Kind == Expr::Read)
    Planes.insert(V.toView(E.Off)[2]);
  for (const Expr &A : E.Args)
    readPlanes(V, A, Planes);
}

void readArrays(const Expr &E, std::set<std::string> &Arrays) {
  if (E.Kind == Expr::Read)
    Arrays.insert(E.Name);
  for (const Expr &A : E.Args)
    readArrays(A, Arrays);
}

/// \p U's value as plane groups in evaluation order (planes increasing);
/// empty, with \p Why, when the value is not such a sum.
std::vector<PlaneGroup> planeGroups(const StencilView &V, const ir::Update &U,
                                    std::string &Why) {
  std::vector<const Expr *> Terms;
  chainTerms(U.Value, Terms);
  std::vector<int> Plane(Terms.size(), INT_MIN);
  for (size_t I = 0; I < Terms.size(); ++I) {
    std::set<int> P;
    readPlanes(V, *Terms[I], P);
    if (P.size() > 1) {
      Why = "a term of the sum for '" + U.Target +
            "' reads several planes along the slowest axis";
      return {};
    }
    if (!P.empty())
      Plane[I] = *P.begin();
  }
  // A term that reads nothing (a constant) joins the group before it, or
  // the first group when it leads.
  int Last = INT_MIN;
  for (int &P : Plane)
    P = P == INT_MIN ? Last : (Last = P);
  for (int &P : Plane)
    if (P == INT_MIN)
      P = Last;
  if (Last == INT_MIN) {
    Why = "the value of '" + U.Target + "' reads no array";
    return {};
  }
  std::vector<PlaneGroup> Groups;
  for (size_t I = 0; I < Terms.size(); ++I) {
    if (Groups.empty() || Groups.back().Plane != Plane[I]) {
      if (!Groups.empty() && Plane[I] < Groups.back().Plane) {
        Why = "the terms of the sum for '" + U.Target +
              "' are not in plane order";
        return {};
      }
      Groups.push_back({Plane[I], {}});
    }
    Groups.back().Terms.push_back(Terms[I]);
  }
  return Groups;
}

/// Why the IR is outside what this strategy computes, or "".
std::string zsumWhyNot(const ir::StencilIR &IR) {
  std::string Why;
  auto V = StencilView::create(IR, Why);
  if (!V)
    return Why;
  if (IR.Dims != 3)
    return "streaming partial sums needs three dimensions";
  bool Spread = false;
  for (const ir::Update &U : IR.Updates) {
    auto Groups = planeGroups(*V, U, Why);
    if (Groups.empty())
      return Why;
    Spread = Spread || Groups.size() > 1;
    std::set<std::string> Read;
    readArrays(U.Value, Read);
    for (const std::string &A : Read)
      if (const StencilView::Array *Arr = V->array(A); !Arr || !Arr->readOnly())
        return "the sum for '" + U.Target + "' reads '" + A +
               "', which the kernel also writes";
  }
  if (!Spread)
    return "no sum spans more than one plane";
  return "";
}

/// The vector (or the single element) a thread loads for one array and row
/// of the current plane.
struct ChunkKey {
  std::string Array;
  int Row, Column;
  bool operator<(const ChunkKey &O) const {
    return std::tie(Array, Row, Column) < std::tie(O.Array, O.Row, O.Column);
  }
};

struct ChunkUse {
  std::set<unsigned> Components;
  std::set<int> Planes;
};

class ZSumEmitter {
public:
  ZSumEmitter(const StencilView &V, const StrategyParams &P, unsigned VW,
              const PlaneStage *Stage = nullptr)
      : V(V), P(P), VW(VW), T(V.elementType()), VT(V.vectorType(VW)),
        Stage(Stage) {
    std::string Why;
    for (const ir::Update &U : V.ir().Updates)
      Groups.push_back(planeGroups(V, U, Why));
    for (const auto &G : Groups)
      for (const PlaneGroup &PG : G) {
        AllPlanes.insert(PG.Plane);
        for (const Expr *E : PG.Terms)
          for (unsigned Row = 0; Row < P.PointsY; ++Row)
            for (unsigned Lane = 0; Lane < VW; ++Lane)
              collectChunks(*E, Row, Lane, PG.Plane);
      }
  }

  std::string group(const std::string &In) const;
  /// Staged: every chunk of the current plane comes from the ring (every
  /// array a sum reads is read-only).
  void stageReads(PlaneStage &S) const {
    for (const auto &[K, Use] : Chunks)
      S.add(K.Array, K.Row, 0, K.Column);
  }

private:
  const StencilView &V;
  const StrategyParams &P;
  unsigned VW;
  std::string T, VT;
  const PlaneStage *Stage;
  /// Per update, its plane groups.
  std::vector<std::vector<PlaneGroup>> Groups;
  std::set<int> AllPlanes;
  std::map<ChunkKey, ChunkUse> Chunks;

  void locate(const std::string &Array, const Offset &ViewOff, unsigned Row,
              unsigned Lane, ChunkKey &K, unsigned &Component) const {
    VectorSlot S = vectorSlot(static_cast<int>(Lane) + ViewOff[0], VW);
    K.Array = Array;
    K.Row = static_cast<int>(Row) + ViewOff[1];
    K.Column = S.Column;
    Component = S.Component;
  }
  void collectChunks(const Expr &E, unsigned Row, unsigned Lane, int Plane) {
    if (E.Kind == Expr::Read) {
      ChunkKey K;
      unsigned C;
      locate(E.Name, V.toView(E.Off), Row, Lane, K, C);
      Chunks[K].Components.insert(C);
      Chunks[K].Planes.insert(Plane);
    }
    for (const Expr &A : E.Args)
      collectChunks(A, Row, Lane, Plane);
  }
  /// A chunk of which one element is used is loaded as that element.
  bool single(const ChunkUse &U) const {
    return VW > 1 && U.Components.size() == 1;
  }
  static std::string chunkVar(const ChunkKey &K) {
    return "r_" + K.Array + "_" + signedTag(K.Row) + "_c" + signedTag(K.Column);
  }
  std::string read(const std::string &Array, const Offset &ViewOff,
                   unsigned Row, unsigned Lane) const {
    ChunkKey K;
    unsigned C;
    locate(Array, ViewOff, Row, Lane, K, C);
    const ChunkUse &U = Chunks.at(K);
    if (VW == 1 || single(U))
      return chunkVar(K);
    return chunkVar(K) + "." + vectorLane(C);
  }
  static std::string onVar(int Plane) { return "fs_on_" + signedTag(Plane); }
  /// The partial sum of update U at (Row, Lane) for the output plane Slot
  /// planes from the current one.
  static std::string sumVar(size_t U, unsigned Row, unsigned Lane, int Slot) {
    return "fs_s" + std::to_string(U) + "_" + std::to_string(Row) + "_" +
           std::to_string(Lane) + "_" + signedTag(Slot);
  }
  /// With \p Active, the step is one of the first or last of a run long
  /// enough that which planes' terms it adds is known here: only those are
  /// loaded and added, with no test.
  std::string loads(const std::string &In, bool Guarded,
                    const std::set<int> *Active = nullptr) const;
  std::string addGroup(size_t U, size_t G, const std::string &In,
                       bool Guarded, const std::set<int> *Active = nullptr) const;
  std::string step(const std::string &In, bool Guarded,
                   const std::set<int> *Active = nullptr) const;
};

std::string ZSumEmitter::loads(const std::string &In, bool Guarded,
                               const std::set<int> *Active) const {
  std::ostringstream OS;
  for (const auto &[K, Use] : Chunks) {
    if (Active && std::none_of(Use.Planes.begin(), Use.Planes.end(),
                               [&](int Pl) { return Active->count(Pl); }))
      continue;
    bool One = single(Use);
    unsigned Comp = One ? *Use.Components.begin() : 0;
    std::string Type = One || VW == 1 ? T : VT;
    if (Stage) {
      // Shared memory holds the whole tile: reading any of it is safe.
      OS << In << "const " << Type << " " << chunkVar(K) << " = "
         << Stage->read(K.Array, K.Row, 0, K.Column,
                        One ? static_cast<int>(Comp) : -1)
         << ";\n";
      continue;
    }
    std::string Addr = K.Array + " + fs_p";
    if (K.Row)
      Addr += " + (" + std::to_string(K.Row) + ") * s1";
    int Elem = K.Column * static_cast<int>(VW) + static_cast<int>(Comp);
    if (Elem)
      Addr += " + " + columnOffset(V, P, VW, Elem, One || VW == 1 ? 1 : VW);
    std::string Load = emitLoad(V, K.Array, Type, Addr);
    if (!Guarded || Use.Planes == AllPlanes) {
      OS << In << "const " << Type << " " << chunkVar(K) << " = " << Load
         << ";\n";
      continue;
    }
    // Needed by some planes' terms only: loaded only when one of them is
    // added, so nothing outside what the original reads is touched.
    std::string Cond;
    for (int Pl : Use.Planes)
      Cond += (Cond.empty() ? "" : " || ") + onVar(Pl);
    OS << In << Type << " " << chunkVar(K) << "{};\n"
       << In << "if (" << Cond << ")\n"
       << In << "  " << chunkVar(K) << " = " << Load << ";\n";
  }
  return OS.str();
}

std::string ZSumEmitter::addGroup(size_t U, size_t G, const std::string &In,
                                  bool Guarded,
                                  const std::set<int> *Active) const {
  std::ostringstream OS;
  const ir::Update &Up = V.ir().Updates[U];
  const std::vector<PlaneGroup> &Gs = Groups[U];
  const PlaneGroup &PG = Gs[G];
  if (Active && !Active->count(PG.Plane))
    return "";
  const int Slot = -PG.Plane;
  const bool Last = G + 1 == Gs.size();
  OS << In << (Guarded ? "if (" + onVar(PG.Plane) + ") {\n" : "{\n");
  for (unsigned Row = 0; Row < P.PointsY; ++Row)
    for (unsigned Lane = 0; Lane < VW; ++Lane) {
      auto Read = [&](const std::string &Name, const Offset &IROff) {
        return read(Name, V.toView(IROff), Row, Lane);
      };
      std::string Sum = G == 0 ? "" : sumVar(U, Row, Lane, Slot);
      for (const Expr *E : PG.Terms) {
        std::string Term = emitExpr(*E, Read, &V.ir());
        Sum = Sum.empty() ? Term : "(" + Sum + " + " + Term + ")";
      }
      OS << In << "  " << sumVar(U, Row, Lane, Slot) << " = " << Sum << ";\n";
    }
  if (Last) {
    // The sum for plane p - Plane is complete: store it.
    Offset W = V.writeOffset(Up.Target);
    for (unsigned Row = 0; Row < P.PointsY; ++Row) {
      std::string Addr = "fs_p + (" + std::to_string(Slot + W[2]) + ") * s2";
      if (Row + W[1])
        Addr += " + (" + std::to_string(static_cast<int>(Row) + W[1]) +
                ") * s1";
      if (W[0])
        Addr += " + (" + std::to_string(W[0]) + ") * s0";
      std::vector<std::string> Parts;
      for (unsigned Lane = 0; Lane < VW; ++Lane) {
        std::string S = sumVar(U, Row, Lane, Slot);
        if (Up.Accumulate)
          S = "(" + Up.Target + "[" + Addr +
              (Lane ? " + " + std::to_string(Lane) + " * s0" : "") + "] + " +
              S + ")";
        Parts.push_back(S);
      }
      if (VW == 1)
        OS << In << "  " << Up.Target << "[" << Addr << "] = " << Parts[0]
           << ";\n";
      else
        OS << columnStore(V, P, VW, In + "  ", Up.Target, Addr, Parts);
    }
  }
  OS << In << "}\n";
  return OS.str();
}

std::string ZSumEmitter::group(const std::string &In) const {
  std::ostringstream OS;
  const int Lo = *AllPlanes.begin(), Hi = *AllPlanes.rbegin();
  OS << In << "const Idx fs_b = x0 * s0 + y0 * s1;\n";
  // Update U's sum for output plane p + s lives in slot s, for s from
  // minus its last plane to minus its first.
  for (size_t U = 0; U < Groups.size(); ++U) {
    OS << In << T << " ";
    bool First = true;
    for (unsigned Row = 0; Row < P.PointsY; ++Row)
      for (unsigned Lane = 0; Lane < VW; ++Lane)
        for (int S = -Groups[U].back().Plane; S <= -Groups[U].front().Plane;
             ++S) {
          OS << (First ? "" : ", ") << sumVar(U, Row, Lane, S) << " = 0";
          First = false;
        }
    OS << ";\n";
  }
  // Plane p holds terms of the outputs p - Hi .. p - Lo. The first and
  // last Hi - Lo planes of a chunk feed only some of them (the others are
  // outside [zs, ze)); every plane in between feeds all of them, with no
  // test.
  OS << In << "Idx p = zs + (" << Lo << ");\n";
  if (Stage)
    OS << Stage->runStart(In, "zs + (" + std::to_string(Lo) + ")",
                          "ze + (" + std::to_string(Hi) + ") - 1");
  auto Body = [&](const std::string &Pad) {
    return Pad + "#pragma unroll " + std::to_string(P.Unroll > 1 ? P.Unroll : 1) +
           "\n" + Pad + "for (; p < ze + (" + std::to_string(Lo) +
           "); ++p) {\n" + step(Pad + "  ", false) + Pad + "}\n";
  };
  auto Guarded = [&](const std::string &Pad) {
    return Pad + "#pragma unroll 1\n" + Pad + "for (; p < zs + (" +
           std::to_string(Hi) + "); ++p) {\n" + step(Pad + "  ", true) + Pad +
           "}\n" + Body(Pad) + Pad + "#pragma unroll 1\n" + Pad +
           "for (; p < ze + (" + std::to_string(Hi) + "); ++p) {\n" +
           step(Pad + "  ", true) + Pad + "}\n";
  };
  if (Stage) {
    OS << Guarded(In);
  } else {
    // A run of at least Hi - Lo planes: its first Hi - Lo steps feed the
    // outputs from zs on, its last ones those before ze, and which planes'
    // terms each step adds is fixed; shorter runs test at every step.
    OS << In << "if (ze - zs >= " << Hi - Lo << ") {\n";
    const std::string In2 = In + "  ";
    for (int J = 0; J < Hi - Lo; ++J) {
      std::set<int> Active;
      for (int Pl : AllPlanes)
        if (Lo + J - Pl >= 0)
          Active.insert(Pl);
      OS << In2 << "{\n" << step(In2 + "  ", false, &Active) << In2 << "}\n"
         << In2 << "++p;\n";
    }
    OS << Body(In2);
    for (int J = 0; J < Hi - Lo; ++J) {
      std::set<int> Active;
      for (int Pl : AllPlanes)
        if (Lo + J - Pl < 0)
          Active.insert(Pl);
      OS << In2 << "{\n" << step(In2 + "  ", false, &Active) << In2 << "}\n"
         << In2 << "++p;\n";
    }
    OS << In << "} else {\n" << Guarded(In2) << In << "}\n";
  }
  if (Stage)
    OS << Stage->runEnd(In);
  return OS.str();
}

std::string ZSumEmitter::step(const std::string &Pad, bool Guarded,
                              const std::set<int> *Active) const {
  std::ostringstream OS;
  std::string In = Pad;
  if (Stage) {
    // The whole block steps together; only threads with a group compute.
    OS << Stage->stepStart(In, "p") << In << "if (fs_act) {\n";
    In += "  ";
  }
  OS << In << "const Idx fs_p = fs_b + p * s2;\n";
  if (Guarded)
    for (int Pl : AllPlanes)
      OS << In << "const bool " << onVar(Pl) << " = p - (" << Pl
         << ") >= zs && p - (" << Pl << ") < ze;\n";
  OS << loads(In, Guarded, Active);
  for (size_t U = 0; U < Groups.size(); ++U)
    for (size_t G = 0; G < Groups[U].size(); ++G)
      OS << addGroup(U, G, In, Guarded, Active);
  // The sum for output p + s moves to slot s - 1.
  for (size_t U = 0; U < Groups.size(); ++U)
    for (int S = -Groups[U].back().Plane; S < -Groups[U].front().Plane; ++S)
      for (unsigned Row = 0; Row < P.PointsY; ++Row)
        for (unsigned Lane = 0; Lane < VW; ++Lane)
          OS << In << sumVar(U, Row, Lane, S) << " = "
             << sumVar(U, Row, Lane, S + 1) << ";\n";
  if (Stage)
    OS << Pad << "}\n";
  return OS.str();
}

} // namespace

std::string ZSumStrategy::whyNot(const ir::StencilIR &IR) const {
  std::string Why = Strategy::whyNot(IR);
  return Why.empty() ? zsumWhyNot(IR) : Why;
}

std::vector<StrategyParams>
ZSumStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  const unsigned VMax = IR.ElementType == "float" ? 4 : 2;
  auto Add = [&](unsigned BX, unsigned BY, unsigned VW, unsigned PY,
                 unsigned ZC, unsigned Unroll, unsigned Stages = 0,
                 bool Masked = false) {
    StrategyParams P = searchPoint(name(), BX, BY, VW, PY, ZC);
    P.Unroll = Unroll;
    P.Stages = Stages;
    P.MaskedEdges = Masked;
    // Staged points only where they fit (shared memory per block), masked
    // ones where the IR knows the row's extent.
    if ((!Stages && !Masked) || generate(IR, P, GenerateOptions()).ok())
      addSearchPoint(Space, P);
  };
  // Unrolling by the number of partial sums a point keeps (2r+1 for a box)
  // lets the compiler rename them instead of moving them at every step.
  std::string Why;
  unsigned Sums = 3;
  if (auto V = StencilView::create(IR, Why))
    Sums = static_cast<unsigned>(V->maxOffset(2) - V->minOffset(2) + 1);
  // The widest vectors with one row per thread came first on the H200 (box
  // r=1 f32, results/bench runs 6 to 19), runs of 8 planes best (z8 77.7 %,
  // z10 76.2 %, z16 74.1 %, z32 72.1 % of copy; z6 76.0 %, z4 74.7 %),
  // and without unrolling (40 registers instead of 43: 77.1 %); then their
  // neighbours in block shape, and two rows of pairs. Loading the next plane
  // a step ahead, asking L2 for planes ahead, __launch_bounds__ occupancy
  // targets (run 8) and rows addressed through advancing pointers (run 11)
  // did not help.
  Add(32, 4, VMax, 1, 8, 1);
  Add(32, 4, VMax, 1, 8, Sums);
  Add(32, 4, VMax, 1, 16, Sums);
  Add(32, 4, VMax, 1, 32, Sums);
  Add(64, 2, VMax, 1, 8, Sums);
  Add(64, 2, VMax, 1, 16, Sums);
  Add(32, 8, VMax, 1, 16, Sums);
  Add(32, 4, 2, 2, 32, Sums);
  Add(64, 2, 2, 2, 32, Sums);
  Add(32, 4, VMax, 2, 16, Sums);
  // Planes copied two steps ahead into shared memory (run 10): correct and
  // about as fast as the same shape read through L1 (z16: 74.7 % against
  // 74.2 %; z32 and z64 lost 2-10 points); kept for GPUs with less L1.
  Add(32, 4, VMax, 1, 16, Sums, 2);
  Add(32, 8, VMax, 1, 16, Sums, 2);
  // Groups cut by the domain's edge masked instead of a block column of
  // their own (run 32: 80.0 % against 77.6 % for this shape; the other
  // shapes lost 2-11 points with the masked stores).
  Add(32, 4, VMax, 1, 8, Sums, 0, true);
  return Space;
}

GeneratedSource ZSumStrategy::emit(const ir::StencilIR &IR,
                                   const StrategyParams &P,
                                   const GenerateOptions &Opts) const {
  GeneratedSource Out;
  Out.Error = whyNot(IR);
  if (!Out.ok())
    return Out;
  StrategyParams Q = P;
  Q.RegisterQueue = false;
  Q.PlaneQueue = false;
  ColumnOptions C;
  C.Group = [](const StencilView &V, const StrategyParams &P, unsigned VW,
               const std::string &In, const PlaneStage *Stage) {
    return ZSumEmitter(V, P, VW, Stage).group(In);
  };
  C.Collect = [](const StencilView &V, const StrategyParams &P, unsigned VW,
                 PlaneStage &Stage) { ZSumEmitter(V, P, VW).stageReads(Stage); };
  // A run reads 2r planes more than it computes, so runs of 4 already count
  // as long (box z4 on the H200: 38% of copy without the edge block column,
  // 70% with it; results/bench run 16).
  C.EdgeColumnPlanes = 4;
  return generateColumnSource(IR, Q, Opts, C);
}

} // namespace forge
} // namespace forgestencil
