//===- SymbolicValues.h - The values the kernel interpreter computes with -===//
///
/// \file
/// Internal to lib/Analysis (KernelInterpreter.h includes it). The symbolic
/// values a kernel's body is run on: positions and indices as polynomials
/// over the thread's position symbols, floating-point values as expression
/// trees (DNode) whose reads carry their clamps and guards, pointers into
/// arrays, and the members of struct values the kernel makes.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_SYMBOLICVALUES_H
#define FORGESTENCIL_LIB_ANALYSIS_SYMBOLICVALUES_H

#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/Analysis/Reason.h"
#include "forgestencil/Analysis/StencilAnalysis.h"

#include "clang/AST/OperationKinds.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

/// Symbol names for the thread's global position along x, y, z.
const char *const GlobalThread[3] = {"@gx", "@gy", "@gz"};
/// The position variable blockIdx.B * blockDim.T + threadIdx.T for thread
/// dimension T and block dimension B (0..2; -1 for a term that is absent):
/// "@gyx" for blockIdx.x * blockDim.y + threadIdx.y, "@gx-" for threadIdx.x
/// alone, "@g-z" for blockIdx.z alone. With B == T it is GlobalThread[T].
inline std::string mixedPosition(int T, int B) {
  if (T == B && T >= 0)
    return GlobalThread[T];
  return std::string("@g") + (T < 0 ? '-' : char('x' + T)) +
         (B < 0 ? '-' : char('x' + B));
}

/// The prefix of the symbol a min/max clamp of a position adds to it: the
/// clamped value is the position plus "clamp#N" (what the clamp moves it by),
/// so every index formed from it names the clamps it went through.
const char *const ClampPrefix = "clamp#";

/// A min/max clamp of a position, e.g. max(i - 1, 0): Arg (the position,
/// without clamp symbols) kept at most (min) or at least (max) Bound.
/// Equality: i == 0 ? 0 : i - 1, which replaces only the position one point
/// beyond Bound and so equals the clamp only for reads at -1 (+1 for an
/// upper bound) on a domain within the bounds.
struct ClampInfo {
  bool Upper = false;
  bool Equality = false;
  Poly Bound, Arg;
  std::string Text;
  /// A periodic wrap of the position instead (Wraps.cpp): Arg outside the
  /// interval [Lo, Hi] moves by its period Hi - Lo + 1 into it, at Arg > Hi
  /// (Upper), at Arg < Lo (!Upper) or on both sides (Both, a remainder).
  /// Equality: the wrap is right only where it moves the position one
  /// point beyond the interval (i == n - 1 ? 0 : i + 1), so for reads at
  /// +1 (-1); wrappedAxis checks it like an equality clamp's.
  bool Wrap = false, Both = false;
  Poly Lo, Hi;
  /// The period where it is not Hi - Lo + 1: a grid whose last point
  /// repeats its first has the period Hi - Lo on [Lo, Hi] (a __shared__
  /// tile's periodic image copied from one point short of the far end).
  std::optional<Poly> Period;
  Poly period() const { return Period ? *Period : Hi - Lo + Poly::constant(1); }
};

/// The clamps one thread's read went through: ids into the interpreter's
/// clamps with the symbol's coefficient in the index (the axis' stride). A
/// read traced through a __shared__ tile has one set per reading thread,
/// whose place in the block is Reader.
struct ClampSet {
  bool InBlock = false;
  std::array<int64_t, 3> Reader{0, 0, 0};
  std::vector<std::pair<int, Poly>> Ids;
};

/// D OP 0 on positions; Text is the condition it came from.
struct PosGuard {
  Poly D;
  clang::BinaryOperatorKind Op = clang::BO_GE;
  std::string Text;
  /// Set when the guard is a __shared__ tile store's (the tile is loaded
  /// only where it holds), not a load's with a fill value.
  std::string Tile;
  /// Set when the guarded value is the read itself and its fill is +0
  /// (cond ? in[g] : 0.0f): a zero boundary where the domain fails the
  /// guard (ZeroBoundaries.cpp).
  bool ZeroFill = false;
};

/// A floating-point value as an expression tree whose reads still carry the
/// raw element index (offsets are known only once the axes are).
struct DNode {
  /// Select: Args {condition, then, else}; the condition (comparisons,
  /// && || ! over integer ParamRefs and Literals) holds alike for every
  /// thread of a launch.
  /// ThreadSelect: Args {then, else}, chosen by a condition on the thread's
  /// place in its block (the interpreter's ThreadChoices[Choice]): a halo
  /// read from global memory by the edge threads, from a tile by the others
  /// (SharedTiles.cpp resolves it to the one read both give).
  enum Kind { Read, Coef, ParamRef, Literal, Unary, Binary, Call, Select, ThreadSelect } K =
      Literal;
  int Choice = -1;
  std::string Op, Name, Value;
  Poly Index;     // Read: element index; Coef: element (constant) index
  bool Ldg = false;
  bool Shared = false; // Read of a __shared__ tile, resolved in finish()
  bool Integer = false; // Read of global memory holding integers (pixels)
  // A tile read's place: the barriers before it, and the tile stores
  // (SharedStore::Seq) made before it by the reading thread's program.
  unsigned Phase = 0;
  size_t StoresBefore = 0;
  std::vector<ClampSet> Clamps; // Read of global memory: see ClampSet
  /// Read of global memory taken only where every D OP 0 holds (a load
  /// guarded by the array's bounds, cond ? in[g] : 0); the analysis must
  /// show that the domain never takes the other value.
  std::vector<PosGuard> InBounds;
  std::vector<std::shared_ptr<DNode>> Args;
};
using DPtr = std::shared_ptr<DNode>;
/// The Unary op of data converted to a whole number: no IR op states it.
inline constexpr const char *WholeNumberOp = "to_whole_number";

inline DPtr node(DNode::Kind K) {
  auto N = std::make_shared<DNode>();
  N->K = K;
  return N;
}

struct Value;
/// The members of a local struct value (int3 p = make_int3(...)), by name.
using RecordFields = std::map<std::string, Value>;

/// A symbolic value of the interpreter.
struct Value {
  enum Kind { Unknown, Index, Data, Pointer, Record } K = Unknown;
  Poly Idx;          // Index value, or Pointer element offset
  DPtr D;            // Data value
  std::string Array; // Pointer base
  /// Pointer: bytes per unit of Idx when the pointer was cast to a type of
  /// another size ((char *)u + j*pitch); 0 means the array's element.
  unsigned UnitBytes = 0;
  std::string Why;   // Unknown: why
  ReasonKind WhyKind = ReasonKind::Update;
  /// Unknown: a local declared without a value and not set since (float v;
  /// if (inside) v = in[g];): where a branch sets it, the value of the
  /// other side never matters if the branch's guard holds wherever the
  /// value is used, which is what a fill (inside ? in[g] : 0) needs too.
  bool Unset = false;
  /// Record: the members set so far (a member not in it is unset).
  std::shared_ptr<const RecordFields> Fields;

  static Value unknown(std::string Why, ReasonKind K = ReasonKind::Update) {
    Value V;
    V.Why = std::move(Why);
    V.WhyKind = K;
    return V;
  }
  static Value unset(std::string Why) {
    Value V = unknown(std::move(Why));
    V.Unset = true;
    return V;
  }
  static Value index(Poly P) {
    Value V;
    V.K = Index;
    V.Idx = std::move(P);
    return V;
  }
  static Value data(DPtr D) {
    Value V;
    V.K = Data;
    V.D = std::move(D);
    return V;
  }
  static Value pointer(std::string A, Poly Off) {
    Value V;
    V.K = Pointer;
    V.Array = std::move(A);
    V.Idx = std::move(Off);
    return V;
  }
  static Value record(RecordFields F) {
    Value V;
    V.K = Record;
    V.Fields = std::make_shared<const RecordFields>(std::move(F));
    return V;
  }
  /// The same pointer moved to another offset (in the same units).
  Value movedTo(Poly Off) const {
    Value V = *this;
    V.Idx = std::move(Off);
    return V;
  }
};

/// Whether V is an index that moves with the thread's position (a clamp's
/// position, as opposed to its bound): also the block's origin plus a tile
/// element a loop gave the thread (blockIdx.x * TILE + lx - 1).
inline bool moves(const Value &V) {
  return V.K == Value::Index &&
         (V.Idx.mentionsPrefix("@") || V.Idx.mentionsPrefix("tid.") ||
          V.Idx.mentionsPrefix("bid.") || V.Idx.mentionsPrefix("tfn#") ||
          V.Idx.mentionsPrefix("mod[") || V.Idx.mentionsPrefix("div["));
}

/// V as a number of the update: its data, or the literal of a whole number
/// it holds (double d = 0; return 0;); null for anything else.
inline DPtr numberNode(const Value &V) {
  if (V.K == Value::Data)
    return V.D;
  if (V.K == Value::Index)
    if (std::optional<int64_t> C = V.Idx.constantValue()) {
      DPtr N = node(DNode::Literal);
      N->Value = std::to_string(*C);
      return N;
    }
  return nullptr;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif // FORGESTENCIL_LIB_ANALYSIS_SYMBOLICVALUES_H
