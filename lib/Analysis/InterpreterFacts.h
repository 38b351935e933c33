//===- InterpreterFacts.h - What the interpreter records of a kernel ------===//
///
/// \file
/// Internal to lib/Analysis. The facts the Interpreter (KernelInterpreter.h)
/// collects while it runs a kernel's body: how arrays are stored, stores to
/// global and __shared__ memory, reads, guards, conditions on the thread's
/// place, index splits and loops over an axis.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_INTERPRETERFACTS_H
#define FORGESTENCIL_LIB_ANALYSIS_INTERPRETERFACTS_H

#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/IR/StencilIR.h"
#include "SymbolicValues.h"

#include "clang/AST/OperationKinds.h"
#include "clang/AST/Type.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace clang {
class Stmt;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

using clang::BinaryOperatorKind;
using clang::QualType;
using clang::Stmt;
using clang::BO_EQ;

/// How an array is stored.
enum class ArrayKind { Global, Constant, Shared, Local };

struct ArrayInfo {
  ArrayKind Kind = ArrayKind::Global;
  QualType ElemType;
  bool Restrict = false;
  bool Const = false;
  unsigned ConstSize = 0; // __constant__ arrays
  std::vector<unsigned> ConstShape; // their extents when multi-dimensional
  std::vector<int64_t> SharedShape; // a __shared__ array's declared extents
};

/// One bound on an axis symbol: Symbol + Shift (< | >=) Bound.
struct Constraint {
  std::string Symbol;
  bool Upper = false; // Symbol < Bound (else Symbol >= Bound)
  Poly Bound;
  /// Symbol != Bound (from "if (i == 0 || i == n-1) return;"): it moves a
  /// lower or upper bound it touches by one.
  bool NotEqual = false;
};

struct Write {
  std::string Array;
  Poly Index;
  bool Accumulate = false;
  DPtr Value;
  std::vector<Constraint> Guards;
  /// The enclosing if conditions it was stored under, by ThreadCond::Scope.
  std::vector<unsigned> Scopes;
  /// Made inside a block-stride loop read with a block that runs it once.
  bool InBlockLoop = false;
};

struct ReadRecord {
  std::string Array;
  Poly Index;
  bool Ldg = false;
  /// A value a loop carries into an iteration (a register queue's slot),
  /// read where it was loaded in an earlier one: part of the footprint only
  /// where some store's value uses it (a slot the body overwrites before it
  /// reads it holds a value no iteration uses).
  bool Carried = false;
};

/// A pair X = mod[X|A] + A * div[X|A] created by a 1-D index split.
struct Split {
  Poly X, A;
  std::string ModName, DivName;
  bool HaveMod = false, HaveDiv = false;
};

/// A condition on the thread's place in its block (threadIdx.x == 0), kept
/// so that the tile stores a thread runs can be decided thread by thread.
struct ThreadCond {
  enum Kind { Cmp, And, Or, Not, Opaque } K = Opaque;
  BinaryOperatorKind Op = BO_EQ;
  Poly D; // Cmp: D OP 0
  std::vector<ThreadCond> Args;
  std::string Text;
  /// In ActiveConds: which entry into a branch this is (a number no other
  /// entry has), so that a store and a later load can tell whether they run
  /// under the very same enclosing ifs. 0 elsewhere.
  unsigned Scope = 0;
};

/// A block with more threads along one dimension than the points it
/// computes there: the output tile plus its halo (`i = blockIdx.x * OUT +
/// threadIdx.x - R`, OUT + 2R threads), every thread loading one element
/// of the tile and threads First .. First + Points - 1 storing. They are
/// numbered from 0 (threadIdx.D is tid.D + First), so positions fold as for
/// a block of Points threads (HaloThreads.cpp).
struct HaloThreads {
  int64_t Points = 0, Threads = 0, First = 0;
};

/// tile[Index] = Value, run by the threads for which every Cond holds.
struct SharedStore {
  std::string Tile;
  Poly Index;
  DPtr Value;
  std::vector<ThreadCond> Conds;
  /// The guards on the position in force at the store (if (inside) where
  /// inside bounds the domain): the threads outside it store nothing.
  std::vector<Constraint> DomainGuards;
  unsigned Barrier = 0; // __syncthreads() calls before the store
  size_t Seq = 0;       // its place among the kernel's tile stores
  /// Made inside a block-stride loop that the run reads with a block that
  /// runs it once (BlockLoops.h).
  bool InBlockLoop = false;
};

/// tfn#N: a quotient or remainder of a value that depends only on the
/// thread's place in its block (k / (TILE + 2) for a tile element k that a
/// loop spreads over the block's threads), evaluated thread by thread.
struct ThreadFn {
  Poly X, A;
  bool Div = true;
};
const char *const ThreadFnPrefix = "tfn#";

struct AxisSym {
  std::string Symbol;
  ir::AxisSource Source = ir::AxisSource::Thread;
  char Dim = 'x';
  std::string LoopVar;
  Poly LoopLower, LoopUpper; // loops: half-open range of the variable
  bool HasLoopRange = false;
  Poly LoopFirst;  // loops: the variable's value at the first iteration
  int LoopDir = 1; // loops: +1 when it counts up, -1 when down
  /// loops: an index or pointer the loop carries could not be followed. The
  /// store then stays where it was before the loop; that the loop's reads
  /// move while it does not is no sign of a reduction.
  bool CarryRefused = false;
  /// loops: the body, and the Writes the run of it made ([WritesAt, WritesEnd)).
  const Stmt *Body = nullptr;
  size_t WritesAt = 0, WritesEnd = 0;
};

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
