//===- ColumnKernel.cpp - Points per thread, streamed along z --------------===//

#include "ColumnKernel.h"
#include "PlaneStage.h"

#include "forgestencil/Forge/CodeGen.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

namespace forgestencil {
namespace forge {

namespace {

using ir::Offset;

/// Whether VW-wide groups cut by the domain's edge along x get a block
/// column of their own (ColumnOptions::EdgeColumnPlanes).
bool edgeBlockColumn(const StrategyParams &P, const ColumnOptions &C) {
  return P.VectorWidth > 1 && P.ZChunk >= C.EdgeColumnPlanes;
}

/// Elements of the IR's type in a 128-byte cache line.
unsigned lineElements(const ir::StencilIR &IR) {
  return 128 / ir::elementSize(IR.ElementType);
}

/// Every line of S indented by Pad more.
std::string indented(const std::string &S, const std::string &Pad) {
  std::string Out;
  size_t Begin = 0;
  while (Begin < S.size()) {
    size_t End = S.find('\n', Begin);
    if (End == std::string::npos)
      End = S.size() - 1;
    Out += Pad + S.substr(Begin, End - Begin + 1);
    Begin = End + 1;
  }
  return Out;
}

/// The vector a thread loads for one array, row (middle axis, relative to
/// y0), plane (relative to z) and chunk (in vectors, relative to x0).
struct Chunk {
  std::string Array;
  int Row, Plane, Column;
  bool operator<(const Chunk &O) const {
    return std::tie(Array, Row, Plane, Column) <
           std::tie(O.Array, O.Row, O.Plane, O.Column);
  }
};

class ColumnEmitter {
public:
  ColumnEmitter(const StencilView &V, const StrategyParams &P, unsigned VW,
                const ColumnOptions &C, const PlaneStage *Stage = nullptr)
      : V(V), P(P), VW(VW), T(V.elementType()), VT(V.vectorType(VW)),
        Queue(P.RegisterQueue), C(C), Stage(Stage) {
    classifyReads();
  }

  /// The default body's reads the ring serves: every vector of a read-only
  /// array not kept in the register queue, and the new plane of the queue
  /// of an array staged anyway.
  void stageReads(PlaneStage &S) const {
    for (const Chunk &C : Loaded)
      if (const StencilView::Array *A = V.array(C.Array); A && A->readOnly())
        S.add(C.Array, C.Row, C.Plane, C.Column);
    for (auto &[Key, Range] : QueuePlanes) {
      auto &[A, Row, Col] = Key;
      if (S.has(A))
        S.add(A, Row, Range.second, Col);
    }
  }

  std::string kernel(const std::string &Name) const;

private:
  const StencilView &V;
  const StrategyParams &P;
  unsigned VW;
  std::string T, VT;
  bool Queue;
  const ColumnOptions &C;
  /// The ring of the whole-group kernel of a staged variant, else null.
  const PlaneStage *Stage;
  /// Per (array, row, column) vector kept in registers, its planes.
  std::map<std::tuple<std::string, int, int>, std::pair<int, int>> QueuePlanes;
  /// Vectors loaded afresh at every step.
  std::set<Chunk> Loaded;

  void locate(const std::string &Array, const Offset &O, unsigned Row,
              unsigned Lane, Chunk &C, unsigned &Component) const {
    VectorSlot S = vectorSlot(static_cast<int>(Lane) + O[0], VW);
    C.Array = Array;
    C.Column = S.Column;
    Component = S.Component;
    C.Row = static_cast<int>(Row) + O[1];
    C.Plane = O[2];
  }

  bool inQueue(const Chunk &C) const {
    if (!Queue)
      return false;
    if (P.PlaneQueue)
      return true;
    return C.Column == 0 && C.Row >= 0 && C.Row < static_cast<int>(P.PointsY);
  }

  void classifyReads() {
    for (const StencilView::Array &A : V.arrays())
      for (const Offset &O : A.Offsets)
        for (unsigned Row = 0; Row < P.PointsY; ++Row)
          for (unsigned Lane = 0; Lane < VW; ++Lane) {
            Chunk C;
            unsigned Comp;
            locate(A.Name, O, Row, Lane, C, Comp);
            if (!inQueue(C)) {
              Loaded.insert(C);
              continue;
            }
            auto Key = std::make_tuple(A.Name, C.Row, C.Column);
            auto It = QueuePlanes.find(Key);
            if (It == QueuePlanes.end())
              QueuePlanes[Key] = {C.Plane, C.Plane};
            else
              It->second = {std::min(It->second.first, C.Plane),
                            std::max(It->second.second, C.Plane)};
          }
  }

  /// A queue of one plane of an array the kernel also writes (pnext =
  /// 2 * pcur - pnext + ...): its value for the next step is loaded one step
  /// ahead. In program order that load would come after this step's store
  /// to the same array, and the compiler cannot move it above the store
  /// (it cannot tell that the two addresses differ), so each step would
  /// wait for it. Loading it before the store is exact: the IR reads such
  /// an array only at the points it writes, each by the thread that writes
  /// it, and the next plane is another element whenever s2 != 0.
  bool loadedAhead(const std::string &A,
                   const std::pair<int, int> &Range) const {
    const StencilView::Array *Arr = V.array(A);
    return Arr && !Arr->readOnly() && Range.first == Range.second;
  }
  /// A load of the fast path: emitLoad's, or with P.StreamingHints an
  /// evict-first load (__ldcs) for a read-only array read only at the point
  /// itself, whose lines no other point reads.
  std::string load(const std::string &A, const std::string &Address) const {
    const StencilView::Array *Arr = V.array(A);
    if (P.StreamingHints && Arr && Arr->readOnly() &&
        Arr->Offsets == std::vector<Offset>{Offset{0, 0, 0}})
      return "__ldcs((const " + VT + " *)(" + Address + "))";
    return emitLoad(V, A, VT, Address);
  }
  static std::string aheadVar(const std::string &A, int Row, int Column,
                              int Plane) {
    return queueVar(A, Row, Column, Plane) + "_next";
  }
  static std::string queueVar(const std::string &A, int Row, int Column,
                              int Plane) {
    std::string S = "q_" + A + "_" + signedTag(Row) + "_" + signedTag(Plane);
    return Column ? S + "_c" + signedTag(Column) : S;
  }
  static std::string chunkVar(const Chunk &C) {
    return "r_" + C.Array + "_" + signedTag(C.Row) + "_" + signedTag(C.Plane) + "_" +
           signedTag(C.Column);
  }
  /// Address of a chunk relative to the flat index Base.
  std::string address(const std::string &Array, const std::string &Base,
                      int Row, const std::string &Plane, int Column) const {
    std::string S = Array + " + " + Base;
    if (Row)
      S += " + (" + std::to_string(Row) + ") * s1";
    if (!Plane.empty())
      S += " + (" + Plane + ") * s2";
    if (Column)
      S += " + " + columnOffset(V, P, VW, Column * static_cast<int>(VW), VW);
    return S;
  }
  std::string element(const std::string &Var, unsigned Component) const {
    return VW == 1 ? Var : Var + "." + vectorLane(Component);
  }
  std::string read(const std::string &Array, const Offset &ViewOff,
                   unsigned Row, unsigned Lane) const {
    Chunk C;
    unsigned Comp;
    locate(Array, ViewOff, Row, Lane, C, Comp);
    if (inQueue(C))
      return element(queueVar(Array, C.Row, C.Column, C.Plane), Comp);
    return element(chunkVar(C), Comp);
  }
  /// The first multiple of VW at or after Lo, but not past Hi.
  std::string alignedStart(const std::string &Lo, const std::string &Hi) const {
    std::string Up = "(" + Lo + " + " + std::to_string(VW - 1) + ") / " +
                     std::to_string(VW) + " * " + std::to_string(VW);
    return "(" + Up + " < " + Hi + " ? " + Up + " : " + Hi + ")";
  }

  std::string fastPath(const std::string &In) const;
  std::string slowPath(const std::string &In) const;
  /// The loops over this thread's z chunks and row groups around Body;
  /// ThreadY is the thread's row group within the block.
  std::string zLoops(const std::string &ThreadY, const std::string &Body) const;
  /// One group at (x0, y0): the fast path when whole, else point by point.
  /// WholeInX: no group is cut along x, only the last row group can be.
  std::string groupBody(bool WholeInX) const;
};

std::string ColumnEmitter::fastPath(const std::string &In) const {
  if (C.Group)
    return C.Group(V, P, VW, In, Stage);
  std::ostringstream OS;
  const ir::StencilIR &IR = V.ir();
  auto Staged = [&](const std::string &A) { return Stage && Stage->has(A); };
  OS << In << "const Idx fs_b = x0 * s0 + y0 * s1;\n";
  // The queue: planes [lo, hi] of the centre column; all but the last are
  // loaded before the loop, the last at each step, then all shift by one.
  for (auto &[Key, Range] : QueuePlanes) {
    auto &[A, Row, Col] = Key;
    OS << In << VT << " ";
    for (int D = Range.first; D <= Range.second; ++D)
      OS << (D == Range.first ? "" : ", ") << queueVar(A, Row, Col, D);
    OS << ";\n";
    if (Stage && Range.first < Range.second)
      OS << In << "if (fs_act) {\n";
    for (int D = Range.first; D < Range.second; ++D)
      OS << In << (Stage ? "  " : "") << queueVar(A, Row, Col, D) << " = "
         << load(A,
                     address(A, "fs_b", Row,
                             "zs + (" + std::to_string(D) + ")", Col))
         << ";\n";
    if (Stage && Range.first < Range.second)
      OS << In << "}\n";
    if (loadedAhead(A, Range)) {
      const std::string Next = aheadVar(A, Row, Col, Range.second);
      OS << In << VT << " " << Next << ";\n"
         << In << (Stage ? "if (fs_act)\n" + In + "  " : "") << Next << " = "
         << load(A,
                     address(A, "fs_b", Row,
                             "zs + (" + std::to_string(Range.second) + ")",
                             Col))
         << ";\n";
    }
  }
  if (Stage)
    OS << Stage->runStart(In, "zs", "ze - 1");
  if (P.Unroll > 1)
    OS << In << "#pragma unroll " << P.Unroll << "\n";
  else
    OS << In << "#pragma unroll 1\n";
  OS << In << "for (Idx z = zs; z < ze; ++z) {\n";
  std::string In2 = In + "  ";
  if (Stage) {
    // The whole block steps together; only threads with a group compute.
    OS << Stage->stepStart(In2, "z") << In2 << "if (fs_act) {\n";
    In2 += "  ";
  }
  OS << In2 << "const Idx fs_p = fs_b + z * s2;\n";
  for (auto &[Key, Range] : QueuePlanes) {
    auto &[A, Row, Col] = Key;
    if (loadedAhead(A, Range)) {
      // The last step loads its own element again, unused.
      const std::string Next = aheadVar(A, Row, Col, Range.second);
      OS << In2 << queueVar(A, Row, Col, Range.second) << " = " << Next
         << ";\n"
         << In2 << Next << " = "
         << load(A,
                     address(A, "fs_p", Row,
                             (Range.second
                                  ? "(" + std::to_string(Range.second) + ") + "
                                  : std::string()) +
                                 "(z + 1 < ze && s2 != 0 ? 1 : 0)",
                             Col))
         << ";\n";
      continue;
    }
    OS << In2 << queueVar(A, Row, Col, Range.second) << " = "
       << (Staged(A) ? Stage->read(A, Row, Range.second, Col)
                     : load(A,
                                address(A, "fs_p", Row,
                                        Range.second
                                            ? std::to_string(Range.second)
                                            : "",
                                        Col)))
       << ";\n";
  }
  std::vector<Chunk> Order(Loaded.begin(), Loaded.end());
  if (P.ReverseLoads)
    std::reverse(Order.begin(), Order.end());
  for (const Chunk &C : Order)
    OS << In2 << "const " << VT << " " << chunkVar(C) << " = "
       << (Staged(C.Array)
               ? Stage->read(C.Array, C.Row, C.Plane, C.Column)
               : load(C.Array,
                          address(C.Array, "fs_p", C.Row,
                                  C.Plane ? std::to_string(C.Plane) : "",
                                  C.Column)))
       << ";\n";
  // Values of every update at every point, then the stores.
  for (unsigned Row = 0; Row < P.PointsY; ++Row)
    for (unsigned Lane = 0; Lane < VW; ++Lane)
      for (size_t U = 0; U < IR.Updates.size(); ++U) {
        const ir::Update &Up = IR.Updates[U];
        auto Read = [&](const std::string &Name, const Offset &IROff) {
          return read(Name, V.toView(IROff), Row, Lane);
        };
        std::string Value = emitExpr(Up.Value, Read, &IR);
        if (Up.Accumulate)
          Value = "(" + read(Up.Target, V.writeOffset(Up.Target), Row, Lane) +
                  " + " + Value + ")";
        OS << In2 << "const " << T << " fs_u" << U << "_" << Row << "_"
           << Lane << " = " << Value << ";\n";
      }
  for (size_t U = 0; U < IR.Updates.size(); ++U) {
    const ir::Update &Up = IR.Updates[U];
    Offset W = V.writeOffset(Up.Target);
    for (unsigned Row = 0; Row < P.PointsY; ++Row) {
      std::vector<std::string> Parts;
      for (unsigned Lane = 0; Lane < VW; ++Lane)
        Parts.push_back("fs_u" + std::to_string(U) + "_" +
                        std::to_string(Row) + "_" + std::to_string(Lane));
      std::string Addr = "fs_p";
      if (Row + W[1])
        Addr += " + (" + std::to_string(static_cast<int>(Row) + W[1]) +
                ") * s1";
      if (W[2])
        Addr += " + (" + std::to_string(W[2]) + ") * s2";
      if (W[0])
        Addr += " + (" + std::to_string(W[0]) + ") * s0";
      OS << columnStore(V, P, VW, In2, Up.Target, Addr, Parts);
    }
  }
  for (auto &[Key, Range] : QueuePlanes) {
    auto &[A, Row, Col] = Key;
    for (int D = Range.first; D < Range.second; ++D)
      OS << In2 << queueVar(A, Row, Col, D) << " = "
         << queueVar(A, Row, Col, D + 1) << ";\n";
  }
  if (Stage)
    OS << In << "  }\n";
  OS << In << "}\n";
  if (Stage)
    OS << Stage->runEnd(In);
  return OS.str();
}

std::string ColumnEmitter::slowPath(const std::string &In) const {
  std::ostringstream OS;
  OS << In << "#pragma unroll 1\n"
     << In << "for (Idx z = zs; z < ze; ++z)\n"
     << In << "  for (int fs_row = 0; fs_row < " << P.PointsY
     << "; ++fs_row)\n"
     << In << "    for (int fs_lane = 0; fs_lane < " << VW
     << "; ++fs_lane) {\n"
     << In << "      const Idx x = x0 + fs_lane, y = y0 + fs_row;\n"
     << In << "      if (x < lo0 || x >= hi0 || y >= hi1)\n"
     << In << "        continue;\n"
     << In << "      const Idx fs_i = x * s0 + y * s1 + z * s2;\n"
     << emitPointUpdate(V, In + "      ", "fs_i") << In << "    }\n";
  return OS.str();
}

std::string ColumnEmitter::zLoops(const std::string &ThreadY,
                                  const std::string &Body) const {
  const unsigned BY = P.BlockY, PY = P.PointsY, ZC = P.ZChunk;
  std::ostringstream OS;
  OS << "  for (Idx bs = blockIdx.z; lo2 + bs * " << ZC
     << " < hi2; bs += gridDim.z) {\n"
     << "    const Idx zs = lo2 + bs * " << ZC << ";\n"
     << "    const Idx ze = zs + " << ZC << " < hi2 ? zs + " << ZC
     << " : hi2;\n"
     << "    for (Idx bm = blockIdx.y; lo1 + bm * " << BY * PY
     << " < hi1; bm += gridDim.y) {\n"
     << "      const Idx y0 = lo1 + (bm * " << BY << " + " << ThreadY
     << ") * " << PY << ";\n";
  if (Stage)
    // The whole block steps together: rows past the domain's edge stay,
    // computing nothing (one row per thread, so none is cut).
    OS << "      const bool fs_act = fs_xin && y0 < hi1;\n";
  else
    OS << "      if (y0 >= hi1)\n        continue;\n";
  OS << Body << "    }\n  }\n";
  return OS.str();
}

std::string ColumnEmitter::groupBody(bool WholeInX) const {
  std::ostringstream OS;
  if (VW == 1 && P.PointsY == 1) {
    // A group of one point inside [lo, hi) is always whole.
    OS << fastPath("      ");
    return OS.str();
  }
  OS << "      if (";
  if (!WholeInX)
    OS << "x0 >= lo0 && x0 + " << VW << " <= hi0 && ";
  OS << "y0 + " << P.PointsY << " <= hi1) {\n"
     << fastPath("        ") << "      } else {\n"
     << "        // A group on the domain's edge: point by point.\n"
     << slowPath("        ") << "      }\n";
  return OS.str();
}

std::string ColumnEmitter::kernel(const std::string &Name) const {
  const unsigned BX = P.BlockX, BY = P.BlockY;
  std::ostringstream OS;
  OS << "template <typename Idx>\n__global__ void __launch_bounds__("
     << BX * BY;
  if (P.MinBlocksPerSM)
    OS << ", " << P.MinBlocksPerSM;
  OS << ")\n" << Name << "(" << kernelParams(V, "Idx")
     << (Stage ? Stage->kernelParams() : "") << ") {\n";
  if (VW == 1) {
    OS << "  const Idx x0 = lo0 + (Idx)blockIdx.x * " << BX
       << " + (Idx)threadIdx.x;\n"
       << "  if (x0 >= hi0)\n    return;\n"
       << zLoops("(Idx)threadIdx.y", groupBody(true)) << "}\n";
    return OS.str();
  }
  if (!edgeBlockColumn(P, C) || P.MaskedEdges) {
    // Groups start at multiples of VW so vector accesses are aligned, the
    // first at or below lo0. A group cut by the domain's edge goes point by
    // point, which over a short run of planes costs less than a block
    // column of its own; with P.MaskedEdges it runs the vector path too and
    // stores only its points inside [lo0, hi0) (columnOffset, columnStore).
    const std::string First =
        "(lo0 / " + std::to_string(VW) + ") * " + std::to_string(VW);
    if (!P.MaskedEdges)
      OS << "  const Idx fs_xa = " << First << ";\n";
    OS << "  const Idx x0 = " << (P.MaskedEdges ? First : "fs_xa")
       << " + ((Idx)blockIdx.x * " << BX << " + (Idx)threadIdx.x) * " << VW
       << ";\n"
       << "  if (x0 >= hi0)\n    return;\n";
    if (P.MaskedEdges) {
      OS << "  const bool fs_xwhole = x0 >= lo0 && x0 + " << VW << " <= hi0;\n"
         << "  // A cut group's points inside the domain: loop-invariant\n"
         << "  // predicates, so each step's stores need no branch.\n"
         << "  const bool ";
      for (unsigned L = 0; L < VW; ++L)
        OS << (L ? ", " : "") << "fs_m" << L << " = !fs_xwhole && x0 + " << L
           << " >= lo0 && x0 + " << L << " < hi0";
      OS << ";\n";
    }
    OS << zLoops("(Idx)threadIdx.y", groupBody(P.MaskedEdges)) << "}\n";
    return OS.str();
  }
  // Whole groups start at multiples of VW (aligned vectors) in
  // [fs_xa, fs_xe). The fewer than VW columns before fs_xa and from fs_xe
  // on are computed one point wide by the grid's last block column, with
  // (column, row group) pairs as its threads: no warp mixes the vector path
  // with the per-point one.
  //
  // Unstaged, the first block starts at the 128-byte line holding fs_xa
  // (fs_xl) and its threads before fs_xa end at once: a warp's vectors then
  // cover whole lines instead of straddling one more. Where the domain
  // starts a few columns into a line (rtm's x = 4) this took fs-bench's rtm
  // from 83 to 89 % of copy (results/bench/NOTES.md, run 36). Staged kernels
  // keep every thread to the end for their barriers and start at fs_xa.
  const std::string Start = Stage ? "fs_xa" : "fs_xl";
  OS << "  const Idx fs_xa = " << alignedStart("lo0", "hi0") << ";\n"
     << "  const Idx fs_xe = fs_xa + (hi0 - fs_xa) / " << VW << " * " << VW
     << ";\n";
  // Without whole groups (a domain narrower than a vector: fs_xa was
  // clamped to hi0 and may not be a multiple of VW) there is no such block,
  // only the edge column; the launcher counts the same way.
  if (!Stage) {
    const unsigned Line = lineElements(V.ir());
    OS << "  const Idx fs_xl = fs_xa / " << Line << " * " << Line << ";\n"
       << "  const Idx fs_whole = fs_xe > fs_xa ? ((fs_xe - fs_xl) / " << VW
       << " + " << BX - 1 << ") / " << BX << " : 0;\n";
  } else {
    OS << "  const Idx fs_whole = ((fs_xe - fs_xa) / " << VW << " + " << BX - 1
       << ") / " << BX << ";\n";
  }
  OS << "  if ((Idx)blockIdx.x >= fs_whole) {\n"
     << "    const Idx fs_head = fs_xa - lo0;\n"
     << "    const Idx fs_cols = fs_head + (hi0 - fs_xe);\n"
     << "    const Idx fs_t = (Idx)threadIdx.y * " << BX
     << " + (Idx)threadIdx.x;\n"
     << "    if (fs_cols == 0 || fs_t >= fs_cols * " << BY << ")\n"
     << "      return;\n"
     << "    const Idx fs_c = fs_t % fs_cols, fs_g = fs_t / fs_cols;\n"
     << "    const Idx x0 = fs_c < fs_head ? lo0 + fs_c : fs_xe + (fs_c - "
        "fs_head);\n";
  ColumnEmitter Narrow(V, P, 1, C);
  OS << indented(Narrow.zLoops("fs_g", Narrow.groupBody(true)), "  ")
     << "    return;\n"
     << "  }\n";
  OS << "  const Idx x0 = " << Start << " + ((Idx)blockIdx.x * " << BX
     << " + (Idx)threadIdx.x) * " << VW << ";\n";
  if (!Stage) {
    OS << "  if (x0 < fs_xa || x0 >= fs_xe)\n    return;\n"
       << zLoops("(Idx)threadIdx.y", groupBody(true)) << "}\n";
    return OS.str();
  }
  // Staged: every thread of the block stays to the end, copies its share
  // of each plane and meets the barriers; those past the domain's edge
  // compute nothing. One row per thread, so a row group is never cut.
  OS << "  const bool fs_xin = x0 < fs_xe;\n"
     << Stage->declare("  ")
     << zLoops("(Idx)fs_ty", fastPath("      ")) << "}\n";
  return OS.str();
}

} // namespace

/// The extent of view axis 0 as the IR spells it (an expression of the
/// kernel's parameters), or "".
static std::string xExtent(const StencilView &V) {
  int A = V.irAxis(0);
  return A < 0 ? "" : V.ir().Axes[A].Extent;
}

std::string columnOffset(const StencilView &V, const StrategyParams &P,
                         unsigned VectorWidth, int Elem, unsigned Width) {
  const std::string Off = "(" + std::to_string(Elem) + ")";
  const int VW = static_cast<int>(VectorWidth);
  const int End = Elem + static_cast<int>(Width);
  if (!P.MaskedEdges || VW == 1 || (Elem >= 0 && End <= VW))
    return Off + " * s0";
  if (Elem < 0)
    return "(x0 + " + Off + " >= 0 ? " + Off + " : 0) * s0";
  return "(x0 + " + std::to_string(End) + " <= (Idx)(" + xExtent(V) + ") ? " +
         Off + " : 0) * s0";
}

std::string columnStore(const StencilView &V, const StrategyParams &P,
                        unsigned VectorWidth, const std::string &In,
                        const std::string &Target, const std::string &Offset,
                        const std::vector<std::string> &Parts) {
  const std::string VT = V.vectorType(VectorWidth);
  const std::string Ptr = "(" + VT + " *)(" + Target + " + " + Offset + ")";
  const std::string Vec = makeVector(VT, Parts);
  std::string Whole = P.StreamingHints ? "__stcs(" + Ptr + ", " + Vec + ");\n"
                                       : "*" + Ptr + " = " + Vec + ";\n";
  if (!P.MaskedEdges || VectorWidth == 1)
    return In + Whole;
  // Predicated stores, no branch around them: an if/else here made the
  // 27-point box branch at every step (results/bench/NOTES.md, run 32).
  std::string S = In + "if (fs_xwhole)\n" + In + "  " + Whole;
  for (unsigned L = 0; L < VectorWidth; ++L)
    S += In + "if (fs_m" + std::to_string(L) + ")\n" + In + "  " + Target +
         "[" + Offset + (L ? " + " + std::to_string(L) + " * s0" : "") +
         "] = " + Parts[L] + ";\n";
  return S;
}

/// Why P's staging cannot be generated, or "".
static std::string stageWhyNot(const ir::StencilIR &IR,
                               const StrategyParams &P,
                               const ColumnOptions &C) {
  if (!P.Stages)
    return "";
  if (IR.Dims != 3)
    return "staged planes need three dimensions";
  if (P.VectorWidth < 2 || !edgeBlockColumn(P, C))
    return "staged planes need vectors of 2 or 4 and runs of " +
           std::to_string(C.EdgeColumnPlanes) + " planes or more";
  if (P.PointsY != 1 || P.PlaneQueue)
    return "staged planes take one row per thread and no plane queue";
  return "";
}

/// Why P cannot be generated for IR with the column generator, or "".
static std::string columnWhyNot(const ir::StencilIR &IR,
                                const StrategyParams &P,
                                const ColumnOptions &C) {
  std::string Error;
  auto V = StencilView::create(IR, Error);
  if (!V)
    return Error;
  if (V->vectorType(P.VectorWidth).empty())
    return "no " + std::to_string(P.VectorWidth) + "-wide vector of " +
           IR.ElementType;
  if (IR.Dims < 3 && (P.PointsY != 1 || P.BlockY != 1))
    return "points_y and block y are 1 below three dimensions";
  if (P.PlaneQueue && !P.RegisterQueue)
    return "plane_queue needs register_queue";
  if (P.BlockX * P.BlockY > 1024 || P.BlockZ != 1)
    return "the block is (x, y, 1) with at most 1024 threads";
  if (std::string Why = stageWhyNot(IR, P, C); !Why.empty())
    return Why;
  if (P.MaskedEdges) {
    if (P.Stages || !edgeBlockColumn(P, C))
      return "masked edge groups need vectors of 2 or 4, runs of " +
             std::to_string(C.EdgeColumnPlanes) +
             " planes or more and no staging";
    if (xExtent(*V).empty())
      return "masked edge groups need the extent of the contiguous axis";
  }
  if (edgeBlockColumn(P, C) && P.BlockX < 2 * (P.VectorWidth - 1))
    return "block x must be at least " + std::to_string(2 * (P.VectorWidth - 1)) +
           ", one thread per edge column of " + std::to_string(P.VectorWidth) +
           "-wide groups";
  return "";
}

GeneratedSource generateColumnSource(const ir::StencilIR &IR,
                                     const StrategyParams &P,
                                     const GenerateOptions &Opts,
                                     const ColumnOptions &C) {
  GeneratedSource Out;
  Out.Error = columnWhyNot(IR, P, C);
  if (!Out.ok())
    return Out;
  auto V = StencilView::create(IR, Out.Error);
  const unsigned VW = P.VectorWidth;
  std::unique_ptr<PlaneStage> Stage;
  if (P.Stages) {
    Stage = std::make_unique<PlaneStage>(*V, P, VW);
    if (C.Collect)
      C.Collect(*V, P, VW, *Stage);
    else
      ColumnEmitter(*V, P, VW, C).stageReads(*Stage);
    if (Stage->empty()) {
      Out.Error = "nothing to stage: no read-only array is read at xy "
                  "neighbours outside the register queue";
      return Out;
    }
    // Dynamic shared memory: up to 96 KiB (sm_80 and later give a block
    // 163 KiB or more when asked).
    if (Stage->sharedBytes() > 96 * 1024) {
      Out.Error = "the staged planes need " +
                  std::to_string(Stage->sharedBytes()) +
                  " bytes of shared memory per block, more than 96 KiB";
      return Out;
    }
  }
  std::ostringstream OS;
  // Kernels are named after the launcher, so a profile names the stencil.
  const std::string Kernel = Opts.LauncherName + "_kernel";
  const std::string KernelScalar = Opts.LauncherName + "_kernel_scalar";
  OS << emitFilePrologue(IR, P) << (Stage ? PlaneStage::helpers() : "")
     << emitConstants(*V, Opts) << "namespace {\n";
  OS << ColumnEmitter(*V, P, VW, C, Stage.get()).kernel(Kernel);
  if (VW > 1) {
    OS << "\n// Unaligned arrays or strides: the same mapping, one point wide.\n"
       << ColumnEmitter(*V, P, 1, C).kernel(KernelScalar);
  }
  OS << "} // namespace\n\n";
  OS << emitLauncherHead(*V, Opts, 2 * VW);
  const unsigned BX = P.BlockX, BY = P.BlockY;
  OS << "  const dim3 fs_block(" << BX << ", " << BY << ", 1);\n"
     << "  const unsigned fs_gy = fs_blocks(fs_hi[1] - fs_lo[1], "
     << BY * P.PointsY << ", 65535);\n"
     << "  const unsigned fs_gz = fs_blocks(fs_hi[2] - fs_lo[2], " << P.ZChunk
     << ", 65535);\n";
  std::string Scalar = VW > 1 ? KernelScalar : Kernel;
  if (VW > 1) {
    if (Stage)
      OS << Stage->launcherSpans();
    std::string Masked;
    if (P.MaskedEdges)
      // Cut groups read within the row and whole groups as before: the
      // original's reads stay in the row, and the row is whole vectors.
      Masked = " && fs_lo[0] + (" + std::to_string(V->minOffset(0)) +
               ") >= 0 && fs_hi[0] + (" + std::to_string(V->maxOffset(0)) +
               ") <= (long long)(" + xExtent(*V) + ") && (long long)(" +
               xExtent(*V) + ") % " + std::to_string(VW) + " == 0";
    OS << "  if (fs_fits32 && " << emitVectorAlignmentCheck(*V, VW)
       << (Stage ? " && " + Stage->launchCondition() : "") << Masked
       << ") {\n";
    if (edgeBlockColumn(P, C) && !P.MaskedEdges) {
      OS << "    // Blocks of whole aligned groups, then one block column for the\n"
         << "    // columns before and after them.\n"
         << "    long long fs_xa = (fs_lo[0] + " << VW - 1 << ") / " << VW
         << " * " << VW << ";\n"
         << "    fs_xa = fs_xa < fs_hi[0] ? fs_xa : fs_hi[0];\n"
         << "    const long long fs_xe = fs_xa + (fs_hi[0] - fs_xa) / " << VW
         << " * " << VW << ";\n"
         << "    const bool fs_cols = fs_xa > fs_lo[0] || fs_xe < fs_hi[0];\n";
      // From the line holding fs_xa when unstaged, as the kernel counts.
      const unsigned Line = lineElements(V->ir());
      OS << "    const dim3 fs_grid(fs_blocks("
         << (Stage ? "fs_xe - fs_xa"
                   : "fs_xe > fs_xa ? fs_xe - fs_xa / " + std::to_string(Line) +
                         " * " + std::to_string(Line) + " : 0")
         << ", " << BX * VW
         << ", 2147483647LL) + (fs_cols ? 1 : 0), fs_gy, fs_gz);\n";
    } else {
      if (P.MaskedEdges)
        OS << "    // Groups from the multiple of " << VW
           << " at or below the first column,\n"
           << "    // those cut by the domain's edge masked.\n";
      OS << "    const long long fs_xa = (fs_lo[0] / " << VW << ") * " << VW
         << ";\n"
         << "    const dim3 fs_grid(fs_blocks(fs_hi[0] - fs_xa, " << BX * VW
         << ", 2147483647LL), fs_gy, fs_gz);\n";
    }
    const unsigned Shared = Stage ? Stage->sharedBytes() : 0;
    if (Shared > 48 * 1024)
      OS << "    // More than the default 48 KiB of dynamic shared memory, asked\n"
         << "    // for once.\n"
         << "    static const cudaError_t fs_smem_attr = cudaFuncSetAttribute("
         << Kernel << "<int>, cudaFuncAttributeMaxDynamicSharedMemorySize, "
         << Shared << ");\n"
         << "    (void)fs_smem_attr;\n";
    OS << "    " << Kernel << "<int><<<fs_grid, fs_block, " << Shared
       << ", stream>>>(" << kernelArgs(*V, "int")
       << (Stage ? Stage->launchArgs() : "") << ");\n"
       << "    return;\n  }\n";
  }
  OS << "  const dim3 fs_grid(fs_blocks(fs_hi[0] - fs_lo[0], " << BX
     << ", 2147483647LL), fs_gy, fs_gz);\n"
     << emitIndexWidthLaunch(*V, Scalar);
  Out.Source = OS.str();
  return Out;
}

} // namespace forge
} // namespace forgestencil
