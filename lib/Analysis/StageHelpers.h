//===- StageHelpers.h - Functions the analysis stages share ----------------===//
///
/// \file
/// Internal to lib/Analysis. The free functions the stages (Guards.cpp,
/// Clamps.cpp, IRBuilder.cpp, ...) share over polynomials, symbolic values,
/// guards and clang's AST; the Interpreter that runs a kernel's body is in
/// KernelInterpreter.h.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_STAGEHELPERS_H
#define FORGESTENCIL_LIB_ANALYSIS_STAGEHELPERS_H

#include "forgestencil/Analysis/Poly.h"
#include "BlockLoops.h"
#include "InterpreterFacts.h"
#include "SymbolicValues.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

using namespace clang;
using llvm::StringRef;

// Helpers the stages share.

using ThreadPos = std::array<int64_t, 3>;

/// The symbols of P whose names start with Prefix.
std::set<std::string> symbolsWithPrefix(const Poly &P, const char *Prefix);
/// Whether P is a constant at least 0.
bool atLeast0(const Poly &P);
/// Of bounds a number apart (i < n && i < n - 1: an outer guard and the
/// update's own), keeps only the tighter one (IRBuilder.cpp).
void keepTightest(std::vector<Poly> &Bounds, bool Upper);
/// The bounds \p Guards put on the symbol \p S, the tightest of each kind
/// where they differ by a number (i < n && i < n - 1, an outer guard and
/// the update's own), and the points they exclude (i != v) (Guards.cpp).
void boundsOn(const std::vector<Constraint> &Guards, const std::string &S,
              std::vector<Poly> &Lowers, std::vector<Poly> &Uppers,
              std::vector<Poly> &Excluded);
/// Whether a position P may go below 0: a term with a negative coefficient.
bool mayBeNegative(const Poly &P);
/// Whether the comparison is made in unsigned arithmetic of a position that
/// may go below 0 (Clamps.cpp): it then chooses otherwise than the
/// mathematical comparison.
bool unsignedBelowZero(const BinaryOperator *Cmp, const Value &L,
                       const Value &R);
/// Number of scalars in one element of T (T[4][8] -> 32, float -> 1).
std::optional<int64_t> scalarsIn(QualType T, ASTContext &Ctx);
/// The scalar element type of an array or pointer type.
QualType scalarType(QualType T, ASTContext &Ctx);
bool isAtomicName(StringRef N);
/// Calls whose effect is outside the arrays: printing, assertions, the
/// device heap, traps (Statements.cpp; such a kernel is not rewritten).
bool hasOutsideEffect(StringRef N);
/// The C spelling of a comparison operator ("<", "==", ...), or null
/// (UniformBranches.cpp).
const char *comparisonSpelling(BinaryOperatorKind Op);
/// E as !A, A && B or A || B with each operand made by \p Operand: the
/// node, or null when an operand has none; nullopt when E is none of them
/// (UniformBranches.cpp).
std::optional<DPtr>
logicalNode(const Expr *E, const std::function<DPtr(const Expr *)> &Operand);
bool isMathFunction(StringRef N);
/// Folds blockIdx.A*blockDim.A + threadIdx.A into the global symbol @gA.
/// \p LoopDims: dimensions read with a block of their block-stride loops'
/// span (BlockLoops.h), whose BlockSizes entry is that span: there
/// blockIdx.E * (B * c) + threadIdx.D * c, E another dimension, is a block
/// row of B points numbered by blockIdx.E (NVIDIA's jBase + sj).
Poly foldGlobalThread(Poly P, std::map<int, int64_t> *BlockSizes = nullptr,
                      const std::map<int, BlockLoopDim> *LoopDims = nullptr);
/// Why the position symbols Syms (a store index's) are no box of points:
/// two of them formed from one threadIdx or blockIdx component move
/// together. Empty when none is.
std::string positionsSharingAComponent(const std::vector<std::string> &Syms);
/// Divides a byte offset by an element size (pitched rows).
Poly divideBySize(const Poly &Bytes, int64_t Size, bool &Assumed);
/// "file:line" of a location (its spelling), or the buffer's name.
std::string whereSpelled(SourceLocation L, const SourceManager &SM);
/// Whether the C expression Text names Name as a whole identifier.
bool namesIdentifier(const std::string &Text, const std::string &Name);
/// P with threadIdx (and blockDim, where known) replaced by numbers.
Poly atThread(const Poly &P, const ThreadPos &T,
              const std::map<int, int64_t> &BlockSizes,
              const std::vector<ThreadFn> &Fns,
              bool Positions = true);
/// C with each comparison of its conjunction that bounds the position (it
/// names @gx, @gy or @gz) taken out into Bounds (marked as Tile's) and
/// replaced by true; comparisons under || or ! stay.
ThreadCond splitDomainBounds(const ThreadCond &C, const std::string &Tile,
                             std::vector<PosGuard> &Bounds);
/// Whether a condition on the thread's place holds for the thread T.
std::optional<bool> holdsAt(const ThreadCond &C, const ThreadPos &T,
                            const std::map<int, int64_t> &BlockSizes,
                            const std::vector<ThreadFn> &Fns);
void mergeClampSets(const DPtr &Into, const DPtr &From);
/// Whether \p X is a number (or its negation): the fill of a guarded load,
/// i > 0 ? in[i - 1] : 0.0f.
bool isLiteralFill(const Expr *X);
/// Whether X is +0 in its value's type (0, 0.0f, T(0), T()): a fill that
/// makes a guarded read a zero boundary (ZeroBoundaries.cpp).
bool isZeroFill(const Expr *X);
/// Whether a DNode literal's text spells +0.
bool isZeroText(const std::string &Literal);
/// Marks the guards \p Gs of a guarded value \p Taken as zero fills where
/// the value is a global read itself and \p FillIsZero (ZeroBoundaries.cpp).
void markZeroFill(std::vector<PosGuard> &Gs, const DPtr &Taken, bool FillIsZero);
/// A key that two trees share exactly when they are the same expression.
std::string treeKey(const DPtr &N);
/// Whether two value trees are the same computation (treeKey's fields,
/// compared rather than spelled).
bool sameTree(const DNode &A, const DNode &B);
/// A copy of V with Sym replaced by To in every index.
Value substituted(const Value &V, const std::string &Sym, const Poly &To,
                  bool &Ok);
bool sameValue(const Value &A, const Value &B);

/// Integer arithmetic of a Poly over uniform symbols (n - 1 if PositiveFirst).
DPtr polyNode(const Poly &P, bool PositiveFirst = false);
/// What \p S assigns to when it is an assignment (=, +=, ...) or an
/// increment or decrement: its operand; else null.
const Expr *assignedBy(const Stmt *S);
/// Whether \p P names the thread's place along dimension \p D:
/// threadIdx.D, or a position formed with it (@gD-, @gDx, ...).
bool mentionsThreadPlace(const Poly &P, int D);
/// The operator of a compound assignment (+ for +=), or null; whether two
/// lists of guards are the same constraints in the same order.
const char *compoundOperator(BinaryOperatorKind Op);
bool sameGuards(const std::vector<Constraint> &A,
                const std::vector<Constraint> &B);
/// N, its global reads taken only where Gs hold; *Guarded: there was one.
DPtr withInBounds(const DPtr &N, const std::vector<PosGuard> &Gs,
                  bool *Guarded = nullptr);
/// Calls \p Fn on every global read (a Read node not of a __shared__ tile)
/// of the writes' values, in tree order, until it returns false; whether
/// it never did.
bool eachGlobalRead(const std::vector<Write> &Writes,
                    const std::function<bool(const DNode &)> &Fn);
/// P / D when D's single monomial divides every monomial of P.
std::optional<Poly> exactQuotient(const Poly &P, const Poly &D);
bool isAxisSymbol(const std::string &S);
/// Element offsets Rel = sum_a Off[a]*Stride[a], slowest axis first.
std::optional<ir::Offset> solveOffset(Poly Rel, const std::vector<Poly> &Strides);
/// The order of a layout's axes, fastest first: stride 1, then by degree,
/// then by spelling.
bool fasterStride(const Poly &A, const Poly &B);
/// The term of highest degree of a non-zero \p S (the first of them): a
/// stride's decides the offset along its axis.
const std::pair<const Monomial, int64_t> &leadingTerm(const Poly &S);
/// The array's extent along an axis from its stride \p Lo and the next
/// axis' \p Hi (nx from 1 and nx; "64" from 4 and 256); empty when the
/// quotient is not a product of the symbols or a number.
std::string extentBetween(const Poly &Lo, const Poly &Hi);
/// Whether \p S names \p V anywhere in it.
bool namesVar(const Stmt *S, const VarDecl *V);
/// The variable a statement `V = e;` (e free of V; also alone in braces)
/// assigns; null for another statement (LoopPrefetch.cpp).
const VarDecl *plainAssignment(const Stmt *S);
/// A layout's strides as the IR spells them ("0" for an axis it does not
/// move along).
std::vector<std::string> layoutText(const std::vector<Poly> &Strides);
/// Rel = sum_a Off[a]*Strides[a] with each Off[a] a polynomial (a grid's
/// origin y_off*(nx + 2*h) + x_off is {x_off, y_off}): the division of Rel
/// by each stride's leading monomial, slowest axis first; nullopt when
/// something is left.
std::optional<std::vector<Poly>> symbolicOffset(Poly Rel,
                                                const std::vector<Poly> &Strides);
std::string typeName(QualType T, ASTContext &Ctx);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
