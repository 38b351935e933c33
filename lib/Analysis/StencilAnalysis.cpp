//===- StencilAnalysis.cpp - From a kernel's AST to Stencil IR -------------===//

#include "forgestencil/Analysis/StencilAnalysis.h"
#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/Analysis/PreprocessorFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>

using namespace clang;

namespace forgestencil {
namespace analysis {

const char *verdictName(KernelAnalysis::Verdict V) {
  switch (V) {
  case KernelAnalysis::Stencil:
    return "stencil";
  case KernelAnalysis::Partial:
    return "partial";
  case KernelAnalysis::NotStencil:
    return "not-stencil";
  }
  return "not-stencil";
}

std::string KernelAnalysis::reasonText() const {
  std::string S;
  for (const std::string &R : Reasons)
    S += (S.empty() ? "" : "; ") + R;
  return S;
}

namespace {

/// Symbol names for the thread's global position along x, y, z.
const char *const GlobalThread[3] = {"@gx", "@gy", "@gz"};

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
  BinaryOperatorKind Op = BO_GE;
  std::string Text;
};

/// A floating-point value as an expression tree whose reads still carry the
/// raw element index (offsets are known only once the axes are).
struct DNode {
  enum Kind { Read, Coef, ParamRef, Literal, Unary, Binary, Call } K = Literal;
  std::string Op, Name, Value;
  Poly Index;     // Read: element index; Coef: element (constant) index
  bool Ldg = false;
  bool Shared = false; // Read of a __shared__ tile, resolved in finish()
  std::vector<ClampSet> Clamps; // Read of global memory: see ClampSet
  /// Read of global memory taken only where every D OP 0 holds (a load
  /// guarded by the array's bounds, cond ? in[g] : 0); the analysis must
  /// show that the domain never takes the other value.
  std::vector<PosGuard> InBounds;
  std::vector<std::shared_ptr<DNode>> Args;
};
using DPtr = std::shared_ptr<DNode>;

DPtr node(DNode::Kind K) {
  auto N = std::make_shared<DNode>();
  N->K = K;
  return N;
}

/// A symbolic value of the interpreter.
struct Value {
  enum Kind { Unknown, Index, Data, Pointer } K = Unknown;
  Poly Idx;          // Index value, or Pointer element offset
  DPtr D;            // Data value
  std::string Array; // Pointer base
  /// Pointer: bytes per unit of Idx when the pointer was cast to a type of
  /// another size ((char *)u + j*pitch); 0 means the array's element.
  unsigned UnitBytes = 0;
  std::string Why;   // Unknown: why

  static Value unknown(std::string Why) {
    Value V;
    V.Why = std::move(Why);
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
bool moves(const Value &V) {
  return V.K == Value::Index &&
         (V.Idx.mentionsPrefix("@") || V.Idx.mentionsPrefix("tid.") ||
          V.Idx.mentionsPrefix("bid.") || V.Idx.mentionsPrefix("tfn#") ||
          V.Idx.mentionsPrefix("mod[") || V.Idx.mentionsPrefix("div["));
}

/// How an array is stored.
enum class ArrayKind { Global, Constant, Shared, Local };

struct ArrayInfo {
  ArrayKind Kind = ArrayKind::Global;
  QualType ElemType;
  bool Restrict = false;
  bool Const = false;
  unsigned ConstSize = 0; // __constant__ arrays
  std::vector<unsigned> ConstShape; // their extents when multi-dimensional
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
};

struct ReadRecord {
  std::string Array;
  Poly Index;
  bool Ldg = false;
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
};

/// tile[Index] = Value, run by the threads for which every Cond holds.
struct SharedStore {
  std::string Tile;
  Poly Index;
  DPtr Value;
  std::vector<ThreadCond> Conds;
  bool UnderDomainGuard = false;
  unsigned Barrier = 0; // __syncthreads() calls before the store
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
};

class Interpreter {
public:
  /// BlockSizes: block sizes a first run found only after a loop needed
  /// them (the kernel indexes blocks by B after loading its tile).
  /// Which named integer constants are taken as their numbers from the
  /// start (the others stay symbols until something needs their number).
  struct NumericConstants {
    std::set<std::string> Names;
    bool AllNumeric = false;
  };
  Interpreter(ASTContext &Ctx, const FunctionDecl &Kernel,
              const PreprocessorFacts *PP, NumericConstants Numbers,
              std::map<int, int64_t> BlockSizes = {})
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Kernel(Kernel), PP(PP),
        Numbers(std::move(Numbers)), BlockSizes(std::move(BlockSizes)) {}
  /// The named constants this run needed the numbers of.
  const std::set<std::string> &assumedConstants() const { return NamedAssumed; }

  KernelAnalysis run();
  /// Block sizes a tile loop lacked when it ran, but that the kernel fixes
  /// further on: run again with them. Empty when no second run would help.
  std::map<int, int64_t> lateBlockSizes() const {
    for (int D : BlockSizeWanted)
      if (!BlockSizes.count(D))
        return {};
    return BlockSizeWanted.empty() ? std::map<int, int64_t>() : BlockSizes;
  }

private:
  // Statements.
  void exec(const Stmt *S);
  void execFor(const ForStmt *F);
  void execWhile(const Expr *Cond, const Stmt *Body, bool Do);
  /// for (Var = Init; Var Cond; Var += Step) Body, however it was spelled.
  void execLoop(const VarDecl *Var, const Value &Init,
                const BinaryOperator *Cond, const Value &Step,
                const Stmt *Body);
  /// Values the loop over an axis carries from one iteration to the next
  /// (a register queue below = cur; cur = above;, an index or pointer
  /// stepped by a fixed amount): puts in Env their value at the iteration
  /// of the axis symbol, when it is a function of it that also gives their
  /// value before the loop. False (with a reason) when the loop carries a
  /// value the analysis cannot express so.
  bool carryValues(const Stmt *Body, const VarDecl *Var, const AxisSym &Loop);
  void execIf(const IfStmt *If);
  Value compound(const Value &L, const Value &R, BinaryOperatorKind Op,
                 const Expr *LHS, const Expr *RHS);
  /// Pre: the value of RHS, already evaluated (an if/else turned into one
  /// guarded store).
  void assign(const Expr *LHS, const Expr *RHS, BinaryOperatorKind Op,
              bool IsCompound, const Value *Pre = nullptr);

  // Expressions.
  Value eval(const Expr *E);
  Value evalBinary(const BinaryOperator *B);
  Value evalCall(const CallExpr *C);
  Value valueOf(const VarDecl *VD);
  std::optional<Value> scalarParam(const std::string &Name, QualType T);
  Value evalSubscriptBase(const Expr *E);
  Value load(const Value &Ptr, QualType T, bool Ldg);
  DPtr asData(const Value &V, const Expr *Where);
  Value builtinIndex(const Expr *E);
  Value castPointer(Value V, QualType To);
  Value member(const MemberExpr *M);
  unsigned elementBytes(const std::string &Array);

  // __shared__ tiles.
  ThreadCond threadCond(const Expr *Cond);
  std::optional<Poly> comparedDifference(const BinaryOperator *B);
  void resolveSharedReads(DPtr &N);
  void recordReads(const DPtr &N);
  std::optional<DPtr> traceTileRead(const DNode &Read, std::string &Why);

  // Conditions.
  bool readsData(const Expr *Cond);
  bool guardConstraints(const Expr *Cond, bool Negate,
                        std::vector<Constraint> &Out);
  bool conjunction(const Expr *Cond, bool Negate,
                   const std::function<bool(const BinaryOperator *, bool)> &Leaf);
  bool comparison(const Expr *E, bool Negate, std::vector<Constraint> &Out);

  // Finalisation.
  /// The IR's named constants and the assumptions its launcher must check.
  void recordBuildFacts(ir::StencilIR &IR);
  void scanForNonStencilCalls(const Stmt *S);
  void applySplits();
  KernelAnalysis finish();
  std::string text(const Expr *E) const;
  void partial(const std::string &Why) { PartialReasons.insert(Why); }
  void notStencil(const std::string &Why) { HardReasons.insert(Why); }
  ArrayInfo *arrayOf(const std::string &Name);

  ASTContext &Ctx;
  SourceManager &SM;
  const FunctionDecl &Kernel;
  const PreprocessorFacts *PP;
  NumericConstants Numbers;
  std::map<const VarDecl *, Value> Env;
  std::map<std::string, ArrayInfo> Arrays;
  /// Local arrays indexed by constants (a register queue q[0..2R]): the
  /// value each element holds, like a variable's in Env.
  std::map<std::string, std::map<int64_t, Value>> LocalElems;
  std::vector<Write> Writes;
  std::vector<ReadRecord> Reads;
  std::vector<Constraint> Guards; // active guards
  std::vector<ThreadCond> ActiveConds; // enclosing if conditions
  std::vector<SharedStore> SharedStores;
  std::map<int, int64_t> BlockSizes; // blockDim assumed from bid*B + tid
  std::set<int> BlockSizeWanted;     // by a tile loop, before it was known
  std::vector<ThreadFn> ThreadFns;    // by the N of their symbol tfn#N
  std::map<std::string, int> ThreadFnIds;
  std::set<std::string> Clamps;      // min/max clamps of an index
  std::vector<ClampInfo> ClampInfos; // by the N of their symbol clamp#N
  /// Index without clamp symbols; their ids and coefficients in Ids. False
  /// when a clamp symbol is not linear in the index.
  bool splitClamps(const Poly &Index, Poly &Stripped,
                   std::vector<std::pair<int, Poly>> &Ids) const;
  DPtr moveTraced(const DPtr &N, const std::function<Poly(const Poly &)> &Fn,
                  const std::array<int64_t, 3> &Reader);
  /// Pos kept at most (Upper, min) or at least (max) Bound: the position
  /// plus a fresh clamp symbol.
  Value clampOf(bool Upper, const Value &Pos, const Value &Bound,
                const std::string &Text);
  /// c ? p : b (or c ? b : p) that chooses exactly as max(p, b) or
  /// min(p, b) does, e.g. i > 0 ? i - 1 : 0; nullopt for any other choice.
  std::optional<Value> ternaryClamp(const ConditionalOperator *CO);
  /// c ? v : fill (or c ? fill : v) with fill a constant and c bounds on
  /// positions (a load kept inside the array): v, its reads guarded by c.
  std::optional<Value> guardedLoad(const ConditionalOperator *CO);
  std::optional<Value> guardedValue(const Expr *Cond, const Expr *TrueE,
                                    const Expr *FalseE);
  bool positionGuards(const Expr *Cond, bool Negate,
                      std::vector<PosGuard> &Out);
  /// Why some guarded read of the update would take its fill value at a
  /// point of the domain ([TLo, THi) along each axis symbol); "" if none.
  std::string guardedReadsHold(const std::vector<std::string> &AxisSyms,
                               const std::vector<std::optional<Poly>> &TLo,
                               const std::vector<std::optional<Poly>> &THi);
  std::optional<Value> equalityClamp(const BinaryOperator *Cmp, const Value &L,
                                     const Value &R, const Value &T,
                                     const Value &F, const std::string &Text);
  /// Fills the clamp bounds of IR's axes from the clamps the update's reads
  /// went through; the reason when they are not a replicated boundary.
  std::string clampedBounds(
      ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
      const std::vector<Poly> &Strides, const ir::Offset &Shift,
      const std::vector<std::optional<Poly>> &TLo,
      const std::vector<std::optional<Poly>> &THi,
      const std::function<std::optional<ir::Offset>(const Poly &,
                                                    std::string &)> &OffsetOf);
  std::map<std::string, Split> Splits;
  std::vector<AxisSym> LoopAxes;
  std::set<std::string> GridStrideSyms;
  std::set<std::string> ScalarParams;
  std::set<std::string> PartialReasons, HardReasons;
  /// What the analysis had to assume; becomes the IR's notes.
  std::set<std::string> Assumptions;

  // Named compile-time constants (macros, constexpr variables, enumerators).
  /// A named constant the kernel spells, by its Poly symbol (its C spelling).
  struct NamedValue {
    ir::NamedConstant Info;
    std::optional<int64_t> Int; ///< Integer constants' value.
  };
  std::map<std::string, NamedValue> Named;
  /// Named constants whose number some conclusion of the analysis rests on:
  /// they become compile-time assumptions the launcher checks.
  std::set<std::string> NamedAssumed;
  /// Object-like macros in the size of an array type the kernel indexes
  /// (float (*u)[N]): the row strides are numbers of that build.
  std::map<std::string, NamedValue> TypeMacros;
  /// The source ranges of the kernel and of the helpers it called, where a
  /// conditional directive decides what the IR describes.
  std::vector<SourceRange> BodiesRun;
  std::optional<Value> namedConstant(const Expr *E);
  std::optional<std::string> wholeMacro(const Expr *E, std::string &DefinedAt);
  void noteArraySizeMacros(const DeclaratorDecl *D);
  void noteSizeMacros(const Expr *E);
  /// P with every named constant replaced by its number, each one recorded
  /// as assumed; Only limits it to the constants Only accepts.
  Poly resolved(const Poly &P,
                const std::function<bool(const std::string &)> &Only = nullptr);
  /// The number P stands for, resolving named constants if it must.
  std::optional<int64_t> numberOf(const Poly &P);
  /// Whether P >= 0, resolving named constants if it must.
  bool nonNegative(const Poly &P);
  /// Whether every symbol of P is the thread's place in its block, a block
  /// size, a function of those or a named constant.
  bool inBlock(const Poly &P) const;
  /// solveOffset, resolving the named constants the strides do not name,
  /// then all of them, if it must.
  std::optional<ir::Offset> offsetAlong(const Poly &Rel,
                                        const std::vector<Poly> &Strides);
  bool Returned = false;
  unsigned Barriers = 0;       // __syncthreads() calls so far
  bool TileReadsLost = false;  // a tile read could not be traced
  unsigned InlineDepth = 0;
  unsigned Steps = 0;
  /// Per lambda defined in the kernel: the values it captured by copy (and
  /// its init-captures) where it was defined.
  std::map<const CXXRecordDecl *, std::map<const VarDecl *, Value>>
      LambdaCopies;
};

std::string Interpreter::text(const Expr *E) const {
  CharSourceRange R = CharSourceRange::getTokenRange(E->getSourceRange());
  R = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (R.isValid())
    return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
  // Inside a macro's body: the text where it is spelled (the #define).
  SourceLocation B = SM.getSpellingLoc(E->getBeginLoc()),
                 End = SM.getSpellingLoc(E->getEndLoc());
  if (B.isValid() && End.isValid() && SM.getFileID(B) == SM.getFileID(End) &&
      !SM.isBeforeInTranslationUnit(End, B))
    return Lexer::getSourceText(CharSourceRange::getTokenRange(B, End), SM,
                                Ctx.getLangOpts())
        .str();
  return "<expr>";
}

/// The symbols of P whose names start with Prefix.
std::set<std::string> symbolsWithPrefix(const Poly &P, const char *Prefix) {
  std::set<std::string> Syms;
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (S.rfind(Prefix, 0) == 0)
        Syms.insert(S);
  return Syms;
}

/// Whether P is a constant at least 0.
bool atLeast0(const Poly &P) {
  auto C = P.constantValue();
  return C && *C >= 0;
}

/// Whether every symbol of P is the thread's place in its block, a block
/// size or a function of those (tfn#N): the same in every block.
bool onlyInBlock(const Poly &P) {
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (S.rfind("tid.", 0) != 0 && S.rfind("bdim.", 0) != 0 &&
          S.rfind(ThreadFnPrefix, 0) != 0)
        return false;
  return true;
}

bool Interpreter::splitClamps(const Poly &Index, Poly &Stripped,
                              std::vector<std::pair<int, Poly>> &Ids) const {
  const std::set<std::string> Syms = symbolsWithPrefix(Index, ClampPrefix);
  for (const std::string &S : Syms) {
    auto Coef = Index.coefficientOf(S);
    if (!Coef || Coef->mentionsPrefix(ClampPrefix))
      return false;
    Ids.push_back({std::stoi(S.substr(std::string(ClampPrefix).size())), *Coef});
  }
  Stripped = Index.without({Syms.begin(), Syms.end()});
  return true;
}

ArrayInfo *Interpreter::arrayOf(const std::string &Name) {
  auto It = Arrays.find(Name);
  return It == Arrays.end() ? nullptr : &It->second;
}

// ---------------------------------------------------------------------------
// Named compile-time constants
// ---------------------------------------------------------------------------

/// "file:line" of a location (its spelling), or the buffer's name.
static std::string whereSpelled(SourceLocation L, const SourceManager &SM) {
  PresumedLoc P = SM.getPresumedLoc(SM.getSpellingLoc(L));
  if (P.isInvalid())
    return "";
  return std::string(llvm::sys::path::filename(P.getFilename())) + ":" +
         std::to_string(P.getLine());
}

std::optional<std::string> Interpreter::wholeMacro(const Expr *E,
                                                   std::string &DefinedAt) {
  SourceLocation B = E->getBeginLoc(), End = E->getEndLoc();
  std::optional<std::string> Best;
  // Walk out from the innermost expansion while E is all of it; the
  // outermost object-like macro whose expansion E is names it (NX in
  // #define NX (N + 2)), also inside a function-like macro's body.
  for (unsigned Depth = 0; Depth < 64 && B.isMacroID() && End.isMacroID();
       ++Depth) {
    SourceLocation ExpB, ExpE;
    // The end test wants the location just past E's last token.
    unsigned Len = Lexer::MeasureTokenLength(SM.getSpellingLoc(End), SM,
                                             Ctx.getLangOpts());
    SourceLocation Last = End.getLocWithOffset(Len);
    if (!SM.isAtStartOfImmediateMacroExpansion(B, &ExpB) ||
        !SM.isAtEndOfImmediateMacroExpansion(Last, &ExpE))
      break;
    const SrcMgr::SLocEntry &Entry = SM.getSLocEntry(SM.getFileID(B));
    if (!Entry.isExpansion())
      break;
    const SrcMgr::ExpansionInfo &Info = Entry.getExpansion();
    if (!Info.isMacroArgExpansion() && !Info.isFunctionMacroExpansion() &&
        ExpB == ExpE) {
      SmallString<32> Buf;
      bool Invalid = false;
      StringRef Name = Lexer::getSpelling(SM.getSpellingLoc(ExpB), Buf, SM,
                                          Ctx.getLangOpts(), &Invalid);
      if (Invalid || Name.empty() ||
          !(std::isalpha(static_cast<unsigned char>(Name[0])) ||
            Name[0] == '_'))
        break;
      Best = Name.str();
      DefinedAt = whereSpelled(B, SM);
    }
    B = ExpB;
    End = ExpE;
  }
  return Best;
}

std::optional<Value> Interpreter::namedConstant(const Expr *E) {
  QualType T = E->getType();
  if (T.isNull() || T->isDependentType() || T->isBooleanType() ||
      !(T->isIntegerType() || T->isRealFloatingType()) ||
      E->isValueDependent())
    return std::nullopt;
  ir::NamedConstant C;
  const Expr *Inner = E->IgnoreParenImpCasts();
  if (E->getBeginLoc().isMacroID()) {
    std::optional<std::string> Name = wholeMacro(E, C.DefinedAt);
    if (!Name)
      return std::nullopt;
    C.Name = *Name;
    C.Origin = ir::NamedConstant::Macro;
  } else if (const auto *DR = dyn_cast<DeclRefExpr>(Inner)) {
    const ValueDecl *D = DR->getDecl();
    const auto *VD = dyn_cast<VarDecl>(D);
    // clang marks constexpr variables __constant__ for device code itself
    // (an implicit attribute); a __constant__ the app declares is memory.
    auto Explicit = [&](const Attr *A) { return A && !A->isImplicit(); };
    bool Var = VD && !isa<ParmVarDecl>(VD) && !VD->isLocalVarDeclOrParm() &&
               (VD->isConstexpr() || VD->getType().isConstQualified()) &&
               VD->hasInit() && !Explicit(VD->getAttr<CUDAConstantAttr>()) &&
               !Explicit(VD->getAttr<CUDADeviceAttr>()) &&
               !VD->hasAttr<CUDASharedAttr>();
    bool Enum = isa<EnumConstantDecl>(D);
    if (!Var && !Enum)
      return std::nullopt;
    // Fully qualified, so that the name means the same in any scope the
    // generated code is compiled in.
    C.Name = "::" + D->getQualifiedNameAsString();
    if (C.Name.find('(') != std::string::npos ||
        C.Name.find('<') != std::string::npos)
      return std::nullopt; // anonymous namespaces, templates: no spelling
    C.Origin = Enum ? ir::NamedConstant::Enumerator : ir::NamedConstant::Variable;
    C.DefinedAt = whereSpelled(SM.getFileLoc(D->getLocation()), SM);
  } else {
    return std::nullopt;
  }
  PrintingPolicy PP(Ctx.getLangOpts());
  C.Type = T.getCanonicalType().getUnqualifiedType().getAsString(PP);
  NamedValue NV;
  if (T->isIntegerType()) {
    std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx);
    if (!V || V->getSignificantBits() > 63)
      return std::nullopt;
    NV.Int = V->getSExtValue();
    C.Value = std::to_string(*NV.Int);
  } else {
    Expr::EvalResult R;
    if (!E->EvaluateAsRValue(R, Ctx) || !R.Val.isFloat())
      return std::nullopt;
    SmallString<32> Buf;
    R.Val.getFloat().toString(Buf, 0, 0);
    C.Value = std::string(Buf);
  }
  NV.Info = C;
  auto [It, New] = Named.emplace(C.Name, NV);
  if (!New && It->second.Info.Value != C.Value)
    return std::nullopt; // one name, two values (a macro redefined)
  if (NV.Int && (Numbers.AllNumeric || Numbers.Names.count(C.Name))) {
    // An earlier run needed its number: it is one from the start.
    NamedAssumed.insert(C.Name);
    return Value::index(Poly::constant(*NV.Int));
  }
  if (NV.Int)
    return Value::index(Poly::symbol(C.Name));
  DPtr N = node(DNode::ParamRef);
  N->Name = C.Name;
  return Value::data(N);
}

void Interpreter::noteSizeMacros(const Expr *E) {
  if (!E)
    return;
  // A constexpr (or enumerator) in the size is a named constant like any.
  if (!E->getBeginLoc().isMacroID() &&
      isa<DeclRefExpr>(E->IgnoreParenImpCasts())) {
    size_t Before = Named.size();
    std::optional<Value> V = namedConstant(E);
    if (V && V->K == Value::Index)
      for (const auto &[Name, NV] : Named)
        if (V->Idx == Poly::symbol(Name) && NV.Int)
          TypeMacros.emplace(Name, NV);
    (void)Before;
    return;
  }
  std::string At;
  if (E->getBeginLoc().isMacroID())
    if (std::optional<std::string> Name = wholeMacro(E, At)) {
      if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx)) {
        NamedValue NV;
        NV.Info.Name = *Name;
        NV.Info.Type = "int";
        NV.Info.Value = std::to_string(V->getSExtValue());
        NV.Info.DefinedAt = At;
        NV.Int = V->getSExtValue();
        TypeMacros.emplace(*Name, NV);
      }
      return;
    }
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      noteSizeMacros(CE);
}

void Interpreter::noteArraySizeMacros(const DeclaratorDecl *D) {
  const TypeSourceInfo *TSI = D ? D->getTypeSourceInfo() : nullptr;
  if (!TSI)
    return;
  for (TypeLoc TL = TSI->getTypeLoc(); !TL.isNull(); TL = TL.getNextTypeLoc())
    if (auto AL = TL.getAs<ArrayTypeLoc>())
      noteSizeMacros(AL.getSizeExpr());
}

Poly Interpreter::resolved(const Poly &P,
                           const std::function<bool(const std::string &)> &Only) {
  Poly R = P;
  for (const auto &[Name, NV] : Named) {
    if (!NV.Int || !R.mentions(Name) || (Only && !Only(Name)))
      continue;
    R = R.substitute(Name, Poly::constant(*NV.Int));
    NamedAssumed.insert(Name);
  }
  return R;
}

std::optional<int64_t> Interpreter::numberOf(const Poly &P) {
  if (auto C = P.constantValue())
    return C;
  return resolved(P).constantValue();
}

bool Interpreter::nonNegative(const Poly &P) {
  auto C = numberOf(P);
  return C && *C >= 0;
}

bool Interpreter::inBlock(const Poly &P) const {
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (S.rfind("tid.", 0) != 0 && S.rfind("bdim.", 0) != 0 &&
          S.rfind(ThreadFnPrefix, 0) != 0 && !Named.count(S))
        return false;
  return true;
}

/// Number of scalars in one element of T (T[4][8] -> 32, float -> 1).
std::optional<int64_t> scalarsIn(QualType T, ASTContext &Ctx) {
  int64_t N = 1;
  while (const auto *A = Ctx.getAsConstantArrayType(T)) {
    N *= A->getSize().getSExtValue();
    T = A->getElementType();
  }
  if (T->isArrayType())
    return std::nullopt;
  return N;
}

QualType scalarType(QualType T, ASTContext &Ctx) {
  while (const ArrayType *A = Ctx.getAsArrayType(T))
    T = A->getElementType();
  if (const auto *P = T->getAs<PointerType>())
    return scalarType(P->getPointeeType(), Ctx);
  return T;
}

bool isAtomicName(StringRef N) {
  return N.starts_with("atomic") || N.starts_with("__atomic");
}

bool isMathFunction(StringRef N) {
  static const llvm::StringSet<> Names = {
      "sqrt",  "sqrtf", "rsqrt", "rsqrtf", "fabs", "fabsf", "abs",  "exp",
      "expf",  "exp2f", "log",   "logf",   "sin",  "sinf",  "cos",  "cosf",
      "pow",   "powf",  "fmax",  "fmaxf",  "fmin", "fminf", "fma",  "fmaf",
      "tanh",  "tanhf", "cbrt",  "cbrtf",  "__fmul_rn", "__fadd_rn",
      "__fmaf_rn", "__dmul_rn", "__dadd_rn", "__fma_rn", "max", "min",
      "std::sqrt", "std::abs", "std::exp", "std::max", "std::min"};
  return Names.contains(N);
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// threadIdx.x, blockIdx.y, blockDim.z, gridDim.x as polynomial symbols.
Value Interpreter::builtinIndex(const Expr *E) {
  const Expr *Inner = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(Inner))
    Inner = PO->getSyntacticForm()->IgnoreParenImpCasts();
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(Inner);
  if (!Prop)
    return Value::unknown("");
  const Expr *BaseExpr = Prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(BaseExpr))
    BaseExpr = OV->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = dyn_cast<DeclRefExpr>(BaseExpr);
  if (!Base)
    return Value::unknown("");
  std::string Var = Base->getDecl()->getName().str();
  std::string Field = Prop->getPropertyDecl()->getName().str();
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return Value::unknown("");
  static const std::map<std::string, std::string> Prefix = {
      {"threadIdx", "tid."}, {"blockIdx", "bid."},
      {"blockDim", "bdim."}, {"gridDim", "gdim."}};
  auto It = Prefix.find(Var);
  if (It == Prefix.end())
    return Value::unknown("");
  return Value::index(Poly::symbol(It->second + Field));
}

/// Folds blockIdx.A*blockDim.A + threadIdx.A into the global symbol @gA.
/// blockIdx.A*B + threadIdx.A with a constant B folds too (the kernel then
/// assumes blockDim.A == B); BlockSizes records B.
Poly foldGlobalThread(Poly P, std::map<int, int64_t> *BlockSizes = nullptr) {
  for (int D = 0; D < 3 && BlockSizes; ++D) {
    std::string Ax(1, "xyz"[D]);
    int64_t CB = P.coefficient({"bid." + Ax});
    int64_t CT = P.coefficient({"tid." + Ax});
    if (CT <= 0 || CB <= CT || CB % CT != 0)
      continue;
    auto It = BlockSizes->find(D);
    if (It != BlockSizes->end() && It->second != CB / CT)
      continue;
    (*BlockSizes)[D] = CB / CT;
    Poly Both = Poly::constant(CB) * Poly::symbol("bid." + Ax) +
                Poly::constant(CT) * Poly::symbol("tid." + Ax);
    P = P - Both + Poly::constant(CT) * Poly::symbol(GlobalThread[D]);
  }
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    Monomial BB = {"bdim." + Ax, "bid." + Ax};
    std::sort(BB.begin(), BB.end());
    int64_t CB = P.coefficient(BB);
    int64_t CT = P.coefficient({"tid." + Ax});
    int64_t C = std::min(CB, CT);
    if (CB > 0 && CT > 0 && CB == CT) {
      Poly Both = Poly::symbol("bid." + Ax) * Poly::symbol("bdim." + Ax) +
                  Poly::symbol("tid." + Ax);
      P = P - Poly::constant(C) * Both + Poly::constant(C) * Poly::symbol(GlobalThread[D]);
    }
  }
  return P;
}

unsigned Interpreter::elementBytes(const std::string &Array) {
  ArrayInfo *A = arrayOf(Array);
  if (!A || A->ElemType.isNull() || A->ElemType->isIncompleteType())
    return 0;
  return static_cast<unsigned>(Ctx.getTypeSizeInChars(A->ElemType).getQuantity());
}

/// Divides a byte offset by an element size. A term that is not a whole
/// multiple (j*pitch / 4 for a pitch in bytes) becomes a term of the derived
/// symbol "pitch/4": sound because a pitched row is aligned to the element.
Poly divideBySize(const Poly &Bytes, int64_t Size, bool &Assumed) {
  Poly R;
  for (const auto &[M, C] : Bytes.terms()) {
    if (C % Size == 0) {
      Poly Term = Poly::constant(C / Size);
      for (const std::string &S : M)
        Term = Term * Poly::symbol(S);
      R = R + Term;
      continue;
    }
    if (M.empty())
      return Poly::symbol("?");
    int64_t G = std::gcd(C < 0 ? -C : C, Size);
    Poly Term = Poly::constant(C / G) *
                Poly::symbol(M.back() + "/" + std::to_string(Size / G));
    for (size_t I = 0; I + 1 < M.size(); ++I)
      Term = Term * Poly::symbol(M[I]);
    R = R + Term;
    Assumed = true;
  }
  return R;
}

/// A cast between pointer types of different element sizes rescales the
/// offset: (char *)u counts bytes, (float *)(...) counts floats again.
Value Interpreter::castPointer(Value V, QualType To) {
  if (V.K != Value::Pointer || !To->isPointerType())
    return V;
  QualType Pointee = To->getPointeeType();
  // A pointer to rows (float (*)[NX]) still counts scalars.
  Pointee = scalarType(Pointee, Ctx);
  if (Pointee->isVoidType() || Pointee->isIncompleteType() ||
      Pointee->isDependentType())
    return V;
  unsigned Elem = elementBytes(V.Array);
  unsigned From = V.UnitBytes ? V.UnitBytes : Elem;
  unsigned Dest = static_cast<unsigned>(Ctx.getTypeSizeInChars(Pointee).getQuantity());
  if (From == 0 || Dest == 0 || From == Dest)
    return V;
  Poly Bytes = V.Idx * Poly::constant(From);
  bool Assumed = false;
  V.Idx = divideBySize(Bytes, Dest, Assumed);
  if (V.Idx.mentions("?"))
    return Value::unknown("a pointer cast to a misaligned element");
  if (Assumed)
    Assumptions.insert("the pitch is a whole number of elements (a byte "
                       "offset was divided by " + std::to_string(Dest) + ")");
  V.UnitBytes = Dest == Elem ? 0 : Dest;
  return V;
}

/// A kernel parameter, or a field of one passed by value, of scalar type:
/// an integer is a size symbol, a floating-point value a scalar
/// coefficient; nothing for other types.
std::optional<Value> Interpreter::scalarParam(const std::string &Name,
                                              QualType T) {
  if (T->isIntegerType())
    return Value::index(Poly::symbol(Name));
  if (!T->isRealFloatingType())
    return std::nullopt;
  ScalarParams.insert(Name);
  DPtr N = node(DNode::ParamRef);
  N->Name = Name;
  return Value::data(N);
}

/// g.nx of a struct passed by value: integer fields are size symbols,
/// floating-point fields scalar coefficients.
Value Interpreter::member(const MemberExpr *M) {
  const auto *Base = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
  const auto *P = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
  if (!P || M->isArrow() || !P->getType()->isRecordType())
    return Value::unknown("the member '" + text(M) + "' is not followed");
  std::string Name = P->getName().str() + "." +
                     M->getMemberDecl()->getName().str();
  QualType T = M->getType();
  if (std::optional<Value> V = scalarParam(Name, T))
    return *V;
  if (T->isPointerType()) {
    ArrayInfo &A = Arrays[Name];
    A.Kind = ArrayKind::Global;
    A.ElemType = scalarType(T, Ctx);
    A.Const = T->getPointeeType().isConstQualified();
    return Value::pointer(Name, Poly());
  }
  return Value::unknown("the member '" + text(M) + "' is not followed");
}

DPtr Interpreter::asData(const Value &V, const Expr *Where) {
  if (V.K == Value::Data)
    return V.D;
  if (V.K == Value::Index) {
    if (auto C = V.Idx.constantValue()) {
      DPtr N = node(DNode::Literal);
      N->Value = std::to_string(*C);
      return N;
    }
    // A value that depends on the position (x = i*dx) or on a size is not
    // part of a fixed stencil update; say so rather than guess.
    if (V.Idx.mentionsPrefix("@") || V.Idx.mentionsPrefix("tid.") ||
        V.Idx.mentionsPrefix("bid.") || V.Idx.mentionsPrefix("mod[") ||
        V.Idx.mentionsPrefix("div["))
      partial("the update uses the grid position as a value (" +
              text(Where) + ")");
    DPtr N = node(DNode::ParamRef);
    N->Name = V.Idx.str();
    return N;
  }
  if (V.K == Value::Unknown && !V.Why.empty())
    partial(V.Why);
  else
    partial("a value the analysis does not follow: " + text(Where));
  return nullptr;
}

Value Interpreter::load(const Value &Ptr, QualType T, bool Ldg) {
  ArrayInfo *A = arrayOf(Ptr.Array);
  if (!A)
    return Value::unknown("a load through an untracked pointer");
  if (!T->isRealFloatingType() && !T->isIntegerType())
    return Value::unknown("a load of a non-scalar type");
  Poly Index;
  std::vector<std::pair<int, Poly>> ClampIds;
  if (!splitClamps(Ptr.Idx, Index, ClampIds))
    return Value::unknown("an index that multiplies clamped positions");
  if (!ClampIds.empty() && A->Kind != ArrayKind::Global) {
    partial("a clamped index into the " +
            std::string(A->Kind == ArrayKind::Shared ? "__shared__ " : "") +
            "array '" + Ptr.Array + "'");
    return Value::unknown("");
  }
  if (A->Kind == ArrayKind::Shared) {
    // Resolved against the tile's stores once the whole body is seen.
    DPtr N = node(DNode::Read);
    N->Name = Ptr.Array;
    N->Index = Ptr.Idx;
    N->Shared = true;
    return Value::data(N);
  }
  if (A->Kind == ArrayKind::Local) {
    auto E = numberOf(Ptr.Idx);
    if (!E || Ptr.UnitBytes != 0)
      return Value::unknown("a local array '" + Ptr.Array +
                            "' indexed by a non-constant");
    auto It = LocalElems[Ptr.Array].find(*E);
    if (It == LocalElems[Ptr.Array].end())
      return Value::unknown("an element of the local array '" + Ptr.Array +
                            "' read before it is stored");
    return It->second;
  }
  if (Ptr.UnitBytes != 0)
    return Value::unknown("a load through a pointer cast to another element "
                          "type than the array's");
  if (T->isIntegerType() && A->Kind == ArrayKind::Global) {
    notStencil("an index loaded from memory ('" + Ptr.Array +
               "'): an indirect access whose footprint depends on data");
    return Value::unknown("an integer loaded from memory (indirect index)");
  }
  if (A->Kind == ArrayKind::Constant) {
    std::optional<int64_t> Element = numberOf(Ptr.Idx);
    if (!Element) {
      partial("a __constant__ array indexed by a non-constant");
      return Value::unknown("");
    }
    DPtr N = node(DNode::Coef);
    N->Name = Ptr.Array;
    N->Index = Poly::constant(*Element);
    return Value::data(N);
  }
  // An element this thread stored before, under the same guards, holds the
  // stored value: b[i] = a[i] * 2 after a[i] = ... reads no memory. (The
  // latest store to the element decides; out[i] += v is not forwarded.)
  for (auto It = Writes.rbegin(); It != Writes.rend(); ++It) {
    if (It->Array != Ptr.Array || It->Index != Index)
      continue;
    auto Same = [](const Constraint &X, const Constraint &Y) {
      return X.Symbol == Y.Symbol && X.Upper == Y.Upper && X.Bound == Y.Bound &&
             X.NotEqual == Y.NotEqual;
    };
    if (ClampIds.empty() && !It->Accumulate && ActiveConds.empty() &&
        It->Guards.size() == Guards.size() &&
        std::equal(Guards.begin(), Guards.end(), It->Guards.begin(), Same))
      return Value::data(It->Value);
    break;
  }
  DPtr N = node(DNode::Read);
  N->Name = Ptr.Array;
  N->Index = Index;
  N->Ldg = Ldg;
  N->Clamps.push_back(ClampSet());
  N->Clamps.back().Ids = ClampIds;
  Reads.push_back({Ptr.Array, Index, Ldg});
  return Value::data(N);
}

Value Interpreter::evalSubscriptBase(const Expr *E) {
  Value B = eval(E);
  if (B.K != Value::Pointer)
    return Value::unknown("subscript of an untracked base: " + text(E));
  return B;
}

/// The value of a variable where it is read: its value in the environment,
/// else what a parameter, a __constant__ or __device__ symbol or a constant
/// with an initializer stands for.
Value Interpreter::valueOf(const VarDecl *VD) {
  auto It = Env.find(VD);
  if (It != Env.end())
    return It->second;
  std::string Name = VD->getName().str();
  QualType T = VD->getType();
  if (isa<ParmVarDecl>(VD)) {
    if (T->isPointerType() || T->isArrayType())
      return Value::pointer(Name, Poly());
    if (std::optional<Value> V = scalarParam(Name, T))
      return *V;
    return Value::unknown("parameter '" + Name + "' of type " +
                          T.getAsString());
  }
  if (VD->hasAttr<CUDAConstantAttr>() || VD->hasAttr<CUDADeviceAttr>()) {
    bool IsConst = VD->hasAttr<CUDAConstantAttr>();
    if (T->isArrayType()) {
      noteArraySizeMacros(VD);
      ArrayInfo &A = Arrays[Name];
      A.Kind = IsConst ? ArrayKind::Constant : ArrayKind::Global;
      A.ElemType = scalarType(T, Ctx);
      if (auto N = scalarsIn(T, Ctx))
        A.ConstSize = static_cast<unsigned>(*N);
      A.ConstShape.clear();
      for (QualType E = T; const auto *CA = Ctx.getAsConstantArrayType(E);
           E = CA->getElementType())
        A.ConstShape.push_back(
            static_cast<unsigned>(CA->getSize().getZExtValue()));
      if (A.ConstShape.size() < 2)
        A.ConstShape.clear();
      return Value::pointer(Name, Poly());
    }
    if (IsConst && T->isRealFloatingType()) {
      DPtr N = node(DNode::Coef);
      N->Name = Name;
      N->Index = Poly::constant(-1);
      return Value::data(N);
    }
    if (IsConst && T->isIntegerType())
      return Value::index(Poly::symbol(Name));
    return Value::unknown("__device__ variable '" + Name + "'");
  }
  // File-scope or static constants with a visible initializer.
  if (T.isConstQualified() && VD->hasInit() && T->isIntegerType()) {
    if (auto V = VD->getInit()->getIntegerConstantExpr(Ctx))
      return Value::index(Poly::constant(V->getSExtValue()));
    return eval(VD->getInit());
  }
  if (T.isConstQualified() && VD->hasInit() && T->isRealFloatingType() &&
      !VD->isLocalVarDecl()) {
    return eval(VD->getInit());
  }
  return Value::unknown("the variable '" + Name + "' is not followed");
}

Value Interpreter::eval(const Expr *E) {
  if (++Steps > 200000)
    return Value::unknown("the kernel is too large to interpret");
  // A constant the kernel names (a macro, a constexpr): kept by its name.
  if (std::optional<Value> NC = namedConstant(E))
    return *NC;
  E = E->IgnoreParens();
  if (const auto *C = dyn_cast<ImplicitCastExpr>(E))
    return castPointer(eval(C->getSubExpr()), C->getType());
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    return castPointer(eval(C->getSubExpr()), C->getType());
  if (const auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return eval(S->getReplacement());
  if (const auto *C = dyn_cast<ConstantExpr>(E))
    return eval(C->getSubExpr());
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return eval(M->getSubExpr());

  Value B = builtinIndex(E);
  if (B.K == Value::Index)
    return B;

  if (const auto *I = dyn_cast<IntegerLiteral>(E))
    return Value::index(Poly::constant(I->getValue().getSExtValue()));
  if (const auto *CL = dyn_cast<CharacterLiteral>(E))
    return Value::index(Poly::constant(CL->getValue()));
  if (const auto *BL = dyn_cast<CXXBoolLiteralExpr>(E))
    return Value::index(Poly::constant(BL->getValue()));
  if (const auto *F = dyn_cast<FloatingLiteral>(E)) {
    // The literal's own token, also when a macro wrote it (its expansion
    // has no file range, but the token has a spelling): the generated code
    // must read the same constant.
    DPtr N = node(DNode::Literal);
    SmallString<32> Buf;
    bool Invalid = false;
    StringRef Spelling =
        Lexer::getSpelling(SM.getSpellingLoc(F->getLocation()), Buf, SM,
                           Ctx.getLangOpts(), &Invalid);
    N->Value = Invalid || Spelling.empty() ? text(E) : Spelling.str();
    return Value::data(N);
  }
  if (const auto *UE = dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    if (UE->getKind() == UETT_SizeOf) {
      QualType T = UE->isArgumentType() ? UE->getArgumentType()
                                        : UE->getArgumentExpr()->getType();
      if (!T->isDependentType())
        return Value::index(
            Poly::constant(Ctx.getTypeSizeInChars(T).getQuantity()));
    }
    return Value::unknown("");
  }

  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DR->getDecl();
    if (const auto *EC = dyn_cast<EnumConstantDecl>(D))
      return Value::index(Poly::constant(EC->getInitVal().getSExtValue()));
    if (const auto *VD = dyn_cast<VarDecl>(D))
      return valueOf(VD);
    return Value::unknown("");
  }

  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    switch (U->getOpcode()) {
    case UO_Minus: {
      Value V = eval(U->getSubExpr());
      if (V.K == Value::Index)
        return Value::index(-V.Idx);
      if (V.K == Value::Data) {
        DPtr N = node(DNode::Unary);
        N->Op = "neg";
        N->Args = {V.D};
        return Value::data(N);
      }
      return V;
    }
    case UO_Plus:
      return eval(U->getSubExpr());
    case UO_AddrOf: {
      const Expr *Sub = U->getSubExpr()->IgnoreParens();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub)) {
        Value Base = evalSubscriptBase(AS->getBase());
        Value Idx = eval(AS->getIdx());
        if (Base.K == Value::Pointer && Idx.K == Value::Index)
          return Base.movedTo(Base.Idx + Idx.Idx);
      }
      return Value::unknown("address of " + text(Sub));
    }
    case UO_Deref: {
      Value P = eval(U->getSubExpr());
      if (P.K != Value::Pointer)
        return Value::unknown("dereference of an untracked pointer");
      return load(P, U->getType(), false);
    }
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec: {
      const auto *DR =
          dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts());
      const VarDecl *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (!VD || !Env.count(VD))
        return Value::unknown("increment of " + text(U->getSubExpr()));
      Value Old = Env[VD];
      int64_t Step = U->isIncrementOp() ? 1 : -1;
      if (Old.K == Value::Index)
        Env[VD] = Value::index(Old.Idx + Poly::constant(Step));
      else if (Old.K == Value::Pointer)
        Env[VD] = Old.movedTo(Old.Idx + Poly::constant(Step));
      else
        Env[VD] = Value::unknown("increment of a non-index");
      return U->isPrefix() ? Env[VD] : Old;
    }
    case UO_LNot:
      return Value::unknown("");
    default:
      return Value::unknown("operator " +
                            UnaryOperator::getOpcodeStr(U->getOpcode()).str());
    }
  }

  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp()) {
      assign(BO->getLHS(), BO->getRHS(), BO->getOpcode(),
             BO->isCompoundAssignmentOp());
      // The value of an assignment expression is not followed (re-reading
      // the stored element would record a read that the kernel never does).
      return Value::unknown("the value of an assignment expression");
    }
    return evalBinary(BO);
  }

  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Value Base = evalSubscriptBase(AS->getBase());
    Value Idx = eval(AS->getIdx());
    if (Base.K != Value::Pointer)
      return Base;
    if (Idx.K == Value::Data)
      return Value::unknown("an index computed from loaded data (indirect "
                            "access " + text(AS) + ")");
    if (Idx.K != Value::Index)
      return Value::unknown(Idx.Why.empty() ? "an index the analysis does not "
                                              "follow: " + text(AS->getIdx())
                                            : Idx.Why);
    QualType T = AS->getType();
    if (T->isArrayType()) {
      // u[k][j] of float u[NZ][NY][NX]: a row, in scalars.
      auto N = scalarsIn(T, Ctx);
      if (!N)
        return Value::unknown("a variable-length array row");
      return Base.movedTo(Base.Idx + Idx.Idx * Poly::constant(*N));
    }
    return load(Base.movedTo(Base.Idx + Idx.Idx), T, false);
  }

  if (const auto *C = dyn_cast<CallExpr>(E))
    return evalCall(C);

  if (const auto *L = dyn_cast<LambdaExpr>(E)) {
    // What the lambda captures by copy (and its init-captures) is fixed
    // here; what it captures by reference is read when it is called.
    auto &Copies = LambdaCopies[L->getLambdaClass()];
    Copies.clear();
    for (const LambdaCapture &Cap : L->captures()) {
      if (!Cap.capturesVariable())
        continue;
      const auto *V = dyn_cast<VarDecl>(Cap.getCapturedVar());
      if (!V)
        continue;
      if (V->isInitCapture()) {
        Copies[V] = V->getInit() ? eval(V->getInit())
                                 : Value::unknown("an init-capture without "
                                                  "a value");
      } else if (Cap.getCaptureKind() == LCK_ByCopy) {
        Copies[V] = valueOf(V);
      }
    }
    return Value::unknown("a lambda used as a value");
  }

  if (const auto *M = dyn_cast<MemberExpr>(E))
    return member(M);

  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    if (std::optional<Value> V = ternaryClamp(CO))
      return *V;
    if (std::optional<Value> V = guardedLoad(CO))
      return *V;
    return Value::unknown("a conditional expression (" + text(CO) +
                          ") in the update");
  }
  return Value::unknown("");
}

Value Interpreter::clampOf(bool Upper, const Value &Pos, const Value &Bound,
                           const std::string &Text) {
  Clamps.insert(Text);
  ClampInfo CI;
  CI.Upper = Upper;
  CI.Bound = Bound.Idx;
  std::vector<std::pair<int, Poly>> Inner;
  if (!splitClamps(Pos.Idx, CI.Arg, Inner))
    return Value::unknown("a clamp of a clamped position times another (" +
                          Text + ")");
  CI.Text = Text;
  std::string Sym = ClampPrefix + std::to_string(ClampInfos.size());
  ClampInfos.push_back(std::move(CI));
  return Value::index(Pos.Idx + Poly::symbol(Sym));
}

/// Position bounds implied by Cond (or by its negation): a conjunction of
/// comparisons of positions, each kept as D OP 0.
bool Interpreter::positionGuards(const Expr *Cond, bool Negate,
                                 std::vector<PosGuard> &Out) {
  return conjunction(Cond, Negate, [&](const BinaryOperator *B, bool N) {
    std::optional<Poly> D = comparedDifference(B);
    if (!D || !moves(Value::index(*D)) || D->mentionsPrefix(ClampPrefix))
      return false;
    PosGuard G;
    G.D = *D;
    G.Op = N ? BinaryOperator::negateComparisonOp(B->getOpcode())
             : B->getOpcode();
    G.Text = text(B);
    Out.push_back(std::move(G));
    return true;
  });
}

std::optional<Value> Interpreter::guardedLoad(const ConditionalOperator *CO) {
  if (!CO->getType()->isRealFloatingType())
    return std::nullopt;
  return guardedValue(CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr());
}

std::optional<Value> Interpreter::guardedValue(const Expr *Cond,
                                               const Expr *TrueE,
                                               const Expr *FalseE) {
  if (readsData(Cond))
    return std::nullopt;
  auto IsFill = [](const Expr *X) {
    X = X->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(X);
        U && U->getOpcode() == UO_Minus)
      X = U->getSubExpr()->IgnoreParenImpCasts();
    return isa<FloatingLiteral>(X) || isa<IntegerLiteral>(X);
  };
  const bool FillTrue = IsFill(TrueE);
  if (FillTrue == IsFill(FalseE))
    return std::nullopt;
  std::vector<PosGuard> Gs;
  if (!positionGuards(Cond, /*Negate=*/FillTrue, Gs))
    return std::nullopt;
  const Expr *VE = FillTrue ? FalseE : TrueE;
  Value V = eval(VE);
  DPtr D = V.K == Value::Data ? V.D : nullptr;
  if (!D)
    return std::nullopt;
  // A copy whose global reads carry the guards (the value may be shared
  // with other uses that are not guarded).
  std::function<DPtr(const DPtr &)> Guard = [&](const DPtr &N) {
    auto C = std::make_shared<DNode>(*N);
    if (C->K == DNode::Read && !C->Shared)
      C->InBounds.insert(C->InBounds.end(), Gs.begin(), Gs.end());
    for (DPtr &A : C->Args)
      A = Guard(A);
    return C;
  };
  return Value::data(Guard(D));
}

std::string Interpreter::guardedReadsHold(
    const std::vector<std::string> &AxisSyms,
    const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi) {
  // E >= 0 at every point of the domain, E = s*sym + rest with s = +-1.
  auto Everywhere = [&](const Poly &E) {
    std::optional<size_t> Axis;
    for (size_t A = 0; A < AxisSyms.size(); ++A)
      if (E.mentions(AxisSyms[A])) {
        if (Axis)
          return false;
        Axis = A;
      }
    if (!Axis)
      return nonNegative(E);
    auto C = E.coefficientOf(AxisSyms[*Axis]);
    auto K = C ? numberOf(*C) : std::nullopt;
    if (!K || (*K != 1 && *K != -1))
      return false;
    const std::optional<Poly> &End =
        *K > 0 ? TLo[*Axis]
               : (THi[*Axis] ? std::optional<Poly>(*THi[*Axis] -
                                                   Poly::constant(1))
                             : std::nullopt);
    return End && nonNegative(E.substitute(AxisSyms[*Axis], *End));
  };
  auto Holds = [&](const PosGuard &G) {
    const Poly &D = G.D;
    const Poly One = Poly::constant(1);
    switch (G.Op) {
    case BO_GE: return Everywhere(D);
    case BO_GT: return Everywhere(D - One);
    case BO_LE: return Everywhere(-D);
    case BO_LT: return Everywhere(-D - One);
    case BO_NE: return Everywhere(D - One) || Everywhere(-D - One);
    default: return false;
    }
  };
  std::string Why;
  std::function<void(const DPtr &)> Walk = [&](const DPtr &N) {
    if (!N || !Why.empty())
      return;
    if (N->K == DNode::Read)
      for (const PosGuard &G : N->InBounds)
        if (!Holds(G)) {
          Why = "the load of '" + N->Name + "' guarded by " + G.Text +
                " takes its fill value at points of the domain (a boundary "
                "value the IR does not state)";
          return;
        }
    for (const DPtr &A : N->Args)
      Walk(A);
  };
  for (const Write &W : Writes)
    Walk(W.Value);
  return Why;
}

/// c == e ? b : p (or c != e ? p : b) that replaces p only where it is one
/// point beyond the bound: i == 0 ? 0 : i - 1, i == nx - 1 ? nx - 1 : i + 1,
/// j == ny - 1 ? j : j + 1. It equals max(p, b) (min) only for reads at -1
/// (+1) on a domain within the bounds; clampedBounds checks both.
std::optional<Value> Interpreter::equalityClamp(const BinaryOperator *Cmp,
                                                const Value &L, const Value &R,
                                                const Value &T, const Value &F,
                                                const std::string &Text) {
  const bool Eq = Cmp->getOpcode() == BO_EQ;
  const Value &Pos = Eq ? F : T, &AtEq = Eq ? T : F;
  Poly P, Lp, Rp, B;
  std::vector<std::pair<int, Poly>> Ignored;
  if (!moves(Pos) || !splitClamps(Pos.Idx, P, Ignored) ||
      !splitClamps(L.Idx, Lp, Ignored) || !splitClamps(R.Idx, Rp, Ignored) ||
      !splitClamps(AtEq.Idx, B, Ignored))
    return std::nullopt;
  const Poly D = Lp - Rp;
  // A value chosen at equality that moves (j == ny - 1 ? j : ...) is, where
  // it is chosen, the fixed bound it equals there.
  if (moves(AtEq)) {
    std::optional<Poly> Fixed;
    for (const Poly &C : {B - D, B + D})
      if (!moves(Value::index(C)))
        Fixed = C;
    if (!Fixed)
      return std::nullopt;
    B = *Fixed;
  }
  for (bool Upper : {false, true}) {
    Poly Rest = P - B + Poly::constant(Upper ? -1 : 1);
    if (Rest != D && Rest != -D)
      continue;
    Value V = clampOf(Upper, Pos, Value::index(B), Text);
    if (V.K == Value::Index)
      ClampInfos.back().Equality = true;
    return V;
  }
  return std::nullopt;
}

std::optional<Value> Interpreter::ternaryClamp(const ConditionalOperator *CO) {
  const auto *Cmp =
      dyn_cast<BinaryOperator>(CO->getCond()->IgnoreParenImpCasts());
  if (!Cmp || !Cmp->isComparisonOp() || !CO->getType()->isIntegerType())
    return std::nullopt;
  Value L = eval(Cmp->getLHS()), R = eval(Cmp->getRHS());
  Value T = eval(CO->getTrueExpr()), F = eval(CO->getFalseExpr());
  if (L.K != Value::Index || R.K != Value::Index || T.K != Value::Index ||
      F.K != Value::Index)
    return std::nullopt;
  if (Cmp->isEqualityOp())
    return equalityClamp(Cmp, L, R, T, F, text(CO));
  if (moves(T) == moves(F))
    return std::nullopt;
  const bool PosTrue = moves(T);
  const Value &Pos = PosTrue ? T : F, &Bound = PosTrue ? F : T;
  Poly P, Lp, Rp;
  std::vector<std::pair<int, Poly>> Ignored;
  if (!splitClamps(Pos.Idx, P, Ignored) || !splitClamps(L.Idx, Lp, Ignored) ||
      !splitClamps(R.Idx, Rp, Ignored))
    return std::nullopt;
  // The condition as "Pos - Bound + c REL 0", when it is one; REL chooses Pos.
  BinaryOperatorKind Op = Cmp->getOpcode();
  auto Mirror = [](BinaryOperatorKind O) {
    return O == BO_LT ? BO_GT : O == BO_GT ? BO_LT : O == BO_LE ? BO_GE : BO_LE;
  };
  auto Negate = [](BinaryOperatorKind O) {
    return O == BO_LT ? BO_GE : O == BO_GE ? BO_LT : O == BO_GT ? BO_LE : BO_GT;
  };
  for (int Swap = 0; Swap < 2; ++Swap) {
    Poly D = Swap ? Rp - Lp : Lp - Rp;
    BinaryOperatorKind Rel = Swap ? Mirror(Op) : Op;
    if (!PosTrue)
      Rel = Negate(Rel);
    auto C = numberOf(D - (P - Bound.Idx));
    if (!C)
      continue;
    // Pos is chosen when Pos - Bound >= K (max) or <= K (min); when K is the
    // value at which Pos equals Bound, or one off towards choosing Bound, the
    // choice is exactly max or min.
    if (Rel == BO_GT || Rel == BO_GE) {
      int64_t K = Rel == BO_GT ? 1 - *C : -*C;
      if (K == 0 || K == 1)
        return clampOf(false, Pos, Bound, text(CO));
    } else {
      int64_t K = Rel == BO_LT ? -*C - 1 : -*C;
      if (K == 0 || K == -1)
        return clampOf(true, Pos, Bound, text(CO));
    }
    return std::nullopt;
  }
  return std::nullopt;
}

Value Interpreter::evalBinary(const BinaryOperator *B) {
  BinaryOperatorKind Op = B->getOpcode();
  if (B->isComparisonOp() || B->isLogicalOp())
    return Value::unknown("a comparison used as a value");
  Value L = eval(B->getLHS());
  Value R = eval(B->getRHS());
  // Pointer arithmetic.
  if (L.K == Value::Pointer && R.K == Value::Index &&
      (Op == BO_Add || Op == BO_Sub))
    return L.movedTo(Op == BO_Add ? L.Idx + R.Idx : L.Idx - R.Idx);
  if (R.K == Value::Pointer && L.K == Value::Index && Op == BO_Add)
    return R.movedTo(R.Idx + L.Idx);

  bool Floating = B->getType()->isRealFloatingType();
  if (!Floating && L.K == Value::Index && R.K == Value::Index) {
    // blockIdx.x * TILE + threadIdx.x fixes the block size: the number of a
    // named constant that multiplies a block index is needed.
    auto Fold = [&](const Poly &P) {
      std::set<std::string> ByBlock;
      for (const auto &[M, C] : P.terms())
        if (std::any_of(M.begin(), M.end(), [](const std::string &S) {
              return S.rfind("bid.", 0) == 0;
            }))
          ByBlock.insert(M.begin(), M.end());
      Poly Q = resolved(P, [&](const std::string &S) { return ByBlock.count(S) > 0; });
      return Value::index(foldGlobalThread(Q, &BlockSizes));
    };
    switch (Op) {
    case BO_Add:
      return Fold(L.Idx + R.Idx);
    case BO_Sub:
      return Fold(L.Idx - R.Idx);
    case BO_Mul:
      return Fold(L.Idx * R.Idx);
    case BO_Div:
    case BO_Rem: {
      auto LC = L.Idx.constantValue(), RC = R.Idx.constantValue();
      if (LC && RC && *RC != 0)
        return Value::index(
            Poly::constant(Op == BO_Div ? *LC / *RC : *LC % *RC));
      // Sizes only (N / 2): their quotient needs the numbers.
      if (inBlock(L.Idx) && inBlock(R.Idx) && !L.Idx.mentionsPrefix("tid.") &&
          !L.Idx.mentionsPrefix(ThreadFnPrefix) &&
          !R.Idx.mentionsPrefix("tid.") && !R.Idx.mentionsPrefix(ThreadFnPrefix)) {
        LC = numberOf(L.Idx);
        RC = numberOf(R.Idx);
        if (LC && RC && *RC != 0)
          return Value::index(
              Poly::constant(Op == BO_Div ? *LC / *RC : *LC % *RC));
      }
      if (Op == BO_Div && RC)
        if (auto Q = L.Idx.divideExactly(R.Idx))
          return Value::index(*Q);
      // A place in the block split into tile coordinates (k / (TILE + 2),
      // k % (TILE + 2)): decided thread by thread where the tile is traced.
      if (inBlock(L.Idx) && inBlock(R.Idx) &&
          (L.Idx.mentionsPrefix("tid.") ||
           L.Idx.mentionsPrefix(ThreadFnPrefix))) {
        std::string Key = L.Idx.str() + (Op == BO_Div ? "/" : "%") +
                          R.Idx.str();
        auto [It, New] = ThreadFnIds.emplace(Key, ThreadFns.size());
        if (New)
          ThreadFns.push_back({resolved(L.Idx), resolved(R.Idx), Op == BO_Div});
        return Value::index(
            Poly::symbol(ThreadFnPrefix + std::to_string(It->second)));
      }
      // A 1-D id split into axes: mod[X|A], div[X|A]; div of div
      // canonicalises to one division by the product.
      Poly X = L.Idx, A = R.Idx;
      if (Op == BO_Div && X.terms().size() == 1 &&
          X.terms().begin()->second == 1 &&
          X.terms().begin()->first.size() == 1 &&
          X.terms().begin()->first[0].rfind("div[", 0) == 0) {
        std::string Sym = X.terms().begin()->first[0];
        auto It = std::find_if(Splits.begin(), Splits.end(), [&](auto &S) {
          return S.second.DivName == Sym;
        });
        if (It != Splits.end()) {
          X = It->second.X;
          A = It->second.A * A;
        }
      }
      std::string Key = X.str() + "|" + A.str();
      Split &S = Splits[Key];
      S.X = X;
      S.A = A;
      S.ModName = "mod[" + Key + "]";
      S.DivName = "div[" + Key + "]";
      if (Op == BO_Div)
        S.HaveDiv = true;
      else
        S.HaveMod = true;
      return Value::index(Poly::symbol(Op == BO_Div ? S.DivName : S.ModName));
    }
    default:
      return Value::unknown("integer operator " +
                            BinaryOperator::getOpcodeStr(Op).str());
    }
  }
  if (L.K == Value::Unknown)
    return L;
  if (R.K == Value::Unknown)
    return R;
  if (L.K == Value::Pointer || R.K == Value::Pointer)
    return Value::unknown("pointer arithmetic the analysis does not follow");
  DPtr LD = asData(L, B->getLHS()), RD = asData(R, B->getRHS());
  if (!LD || !RD)
    return Value::unknown("");
  static const std::map<BinaryOperatorKind, std::string> Ops = {
      {BO_Add, "+"}, {BO_Sub, "-"}, {BO_Mul, "*"}, {BO_Div, "/"}};
  auto It = Ops.find(Op);
  if (It == Ops.end())
    return Value::unknown("operator " + BinaryOperator::getOpcodeStr(Op).str() +
                          " on floating-point values");
  DPtr N = node(DNode::Binary);
  N->Op = It->second;
  N->Args = {LD, RD};
  return Value::data(N);
}

Value Interpreter::evalCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD)
    return Value::unknown("an indirect call");
  std::string Name = FD->getQualifiedNameAsString();
  if (isAtomicName(FD->getName())) {
    notStencil("atomic update (" + FD->getName().str() +
               "): a scatter or reduction, not a stencil");
    return Value::unknown("");
  }
  if (FD->getName() == "__syncthreads") {
    ++Barriers;
    return Value::unknown("");
  }
  if (FD->getName() == "__syncwarp")
    return Value::unknown("");
  if (FD->getName().starts_with("__shfl")) {
    notStencil("warp shuffles (" + FD->getName().str() + "): a reduction or "
               "exchange between threads");
    return Value::unknown("");
  }
  if (FD->getName() == "__ldg" && C->getNumArgs() == 1) {
    Value P = eval(C->getArg(0));
    if (P.K != Value::Pointer)
      return Value::unknown("__ldg of an untracked pointer");
    return load(P, C->getType(), true);
  }
  if ((FD->getName() == "min" || FD->getName() == "max") &&
      C->getNumArgs() == 2 && C->getType()->isIntegerType()) {
    // min(i + 1, n - 1): the position, clamped to an edge. The value is the
    // position; the clamp is reported (a replicated boundary).
    Value A = eval(C->getArg(0)), B = eval(C->getArg(1));
    if (A.K == Value::Index && B.K == Value::Index && moves(A) != moves(B))
      return clampOf(FD->getName() == "min", moves(A) ? A : B,
                     moves(A) ? B : A, text(C));
    if (A.K == Value::Index && B.K == Value::Index && !moves(A))
      return Value::unknown("min/max of sizes: " + text(C));
    if (A.K == Value::Index && B.K == Value::Index)
      return Value::unknown("an index computed with min/max of positions (" +
                            text(C) + ")");
  }
  if (isMathFunction(FD->getName()) || isMathFunction(Name)) {
    DPtr N = node(DNode::Call);
    N->Op = FD->getName().str();
    for (const Expr *A : C->arguments()) {
      DPtr D = asData(eval(A), A);
      if (!D)
        return Value::unknown("");
      N->Args.push_back(D);
    }
    return Value::data(N);
  }
  // An inline __device__ helper, or a lambda defined in the kernel
  // (auto idx = [=](int x, int y) { return y * nx + x; }): interpret its
  // body with the arguments bound to the parameters; its single return
  // value is the result. The body of a lambda names the kernel's variables
  // it captures: by reference, they are read as they are at the call; by
  // copy, as they were at the lambda's definition (LambdaCopies).
  const FunctionDecl *Def = FD->getDefinition();
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Def);
  const bool Lambda = MD && MD->getParent()->isLambda();
  auto Copies =
      Lambda ? LambdaCopies.find(MD->getParent()) : LambdaCopies.end();
  if (Lambda && Copies == LambdaCopies.end())
    return Value::unknown("a lambda not defined in the kernel: " + text(C));
  if (Def && Def->hasBody() && InlineDepth < 8 &&
      (Def->hasAttr<CUDADeviceAttr>() || Def->isConstexpr() || Lambda)) {
    // The call operator of a lambda takes the closure as argument 0.
    const unsigned First = isa<CXXOperatorCallExpr>(C) && MD ? 1 : 0;
    std::vector<std::pair<const VarDecl *, Value>> Bound;
    for (unsigned I = 0;
         I < Def->getNumParams() && I + First < C->getNumArgs(); ++I)
      Bound.push_back({Def->getParamDecl(I), eval(C->getArg(I + First))});
    const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
    if (!Body)
      return Value::unknown("helper " + Name);
    ++InlineDepth;
    BodiesRun.push_back(Def->getSourceRange());
    auto SavedEnv = Env;
    if (Lambda)
      for (const auto &[Var, V] : Copies->second)
        Env[Var] = V;
    for (auto &[P, V] : Bound)
      Env[P] = V;
    Value Result = Value::unknown("helper '" + Name + "' has no return");
    for (const Stmt *S : Body->body()) {
      if (const auto *R = dyn_cast<ReturnStmt>(S)) {
        if (R->getRetValue())
          Result = eval(R->getRetValue());
        break;
      }
      exec(S);
    }
    Env = std::move(SavedEnv);
    --InlineDepth;
    return Result;
  }
  return Value::unknown("a call to '" + Name + "'");
}

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
  const Expr *E = Cond->IgnoreParenImpCasts();
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

namespace {

using ThreadPos = std::array<int64_t, 3>;

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

} // namespace

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
  std::vector<SharedStore> Resolved;
  for (const SharedStore &S : SharedStores)
    if (S.Tile == Tile) {
      SharedStore R = S;
      R.Index = resolved(S.Index);
      for (ThreadCond &C : R.Conds)
        C = ResolveCond(C);
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
  for (const SharedStore *S : Stores)
    if (S->UnderDomainGuard) {
      Why = "the __shared__ array '" + Tile + "' is loaded after a domain "
            "guard, so which elements are loaded depends on the domain";
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
      partial(Why);
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

// ---------------------------------------------------------------------------
// Conditions
// ---------------------------------------------------------------------------

/// Whether a condition compares values loaded from memory.
bool Interpreter::readsData(const Expr *Cond) {
  const Expr *E = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return readsData(U->getSubExpr());
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return false;
  if (B->isLogicalOp())
    return readsData(B->getLHS()) || readsData(B->getRHS());
  if (!B->isComparisonOp())
    return false;
  size_t ReadsBefore = Reads.size();
  Value L = eval(B->getLHS()), R = eval(B->getRHS());
  Reads.resize(ReadsBefore);
  return L.K == Value::Data || R.K == Value::Data;
}

/// Bounds from "a OP b" on index values, as constraints on one symbol.
bool Interpreter::comparison(const Expr *E, bool Negate,
                             std::vector<Constraint> &Out) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!B || !B->isComparisonOp())
    return false;
  Value L = eval(B->getLHS()), R = eval(B->getRHS());
  if (L.K != Value::Index || R.K != Value::Index)
    return false;
  BinaryOperatorKind Op = B->getOpcode();
  if (Negate) {
    switch (Op) {
    case BO_LT: Op = BO_GE; break;
    case BO_LE: Op = BO_GT; break;
    case BO_GT: Op = BO_LE; break;
    case BO_GE: Op = BO_LT; break;
    case BO_EQ: Op = BO_NE; break;
    case BO_NE: Op = BO_EQ; break;
    default: break;
    }
  }
  // Normalise to D OP 0 with D = L - R, then to Sym (<|>=) Bound.
  Poly D = L.Idx - R.Idx;
  std::string Sym;
  int64_t Coef = 0;
  for (const auto &[M, C] : D.terms()) {
    if (M.size() == 1 && (M[0][0] == '@' || M[0].rfind("mod[", 0) == 0 ||
                          M[0].rfind("div[", 0) == 0)) {
      if (!Sym.empty() && Sym != M[0])
        return false;
      Sym = M[0];
      Coef = C;
    }
  }
  if (Sym.empty() || (Coef != 1 && Coef != -1))
    return false;
  if (D.without({Sym}).mentionsPrefix("@"))
    return false;
  // Coef*Sym + Rest OP 0.
  Poly Rest = D.without({Sym});
  if (Coef == -1) {
    // -Sym + Rest OP 0  <=>  Sym - Rest OP' 0 with OP mirrored.
    Rest = -Rest;
    switch (Op) {
    case BO_LT: Op = BO_GT; break;
    case BO_LE: Op = BO_GE; break;
    case BO_GT: Op = BO_LT; break;
    case BO_GE: Op = BO_LE; break;
    default: break;
    }
  }
  // Sym + Rest OP 0  <=>  Sym OP -Rest.
  Poly Bound = -Rest;
  switch (Op) {
  case BO_LT:
    Out.push_back({Sym, true, Bound});
    return true;
  case BO_LE:
    Out.push_back({Sym, true, Bound + Poly::constant(1)});
    return true;
  case BO_GE:
    Out.push_back({Sym, false, Bound});
    return true;
  case BO_GT:
    Out.push_back({Sym, false, Bound + Poly::constant(1)});
    return true;
  case BO_NE: {
    Constraint C{Sym, false, Bound};
    C.NotEqual = true;
    Out.push_back(C);
    return true;
  }
  default:
    return false;
  }
}

/// Constraints implied by Cond being true (or false when Negate): a
/// conjunction of comparisons (or, negated, a disjunction).
bool Interpreter::guardConstraints(const Expr *Cond, bool Negate,
                                   std::vector<Constraint> &Out) {
  return conjunction(Cond, Negate, [&](const BinaryOperator *B, bool N) {
    return comparison(B, N, Out);
  });
}

/// Leaf(comparison, negated) for every comparison of Cond, a conjunction
/// (or, negated, a disjunction) under any number of !; false when Cond is
/// not one or a Leaf is false.
bool Interpreter::conjunction(
    const Expr *Cond, bool Negate,
    const std::function<bool(const BinaryOperator *, bool)> &Leaf) {
  const Expr *E = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_LNot)
    return conjunction(U->getSubExpr(), !Negate, Leaf);
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return false;
  if ((B->getOpcode() == BO_LAnd && !Negate) ||
      (B->getOpcode() == BO_LOr && Negate))
    return conjunction(B->getLHS(), Negate, Leaf) &&
           conjunction(B->getRHS(), Negate, Leaf);
  return B->isComparisonOp() && Leaf(B, Negate);
}

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

/// L OP= R for a variable (or a local array's element) holding L: an index,
/// a pointer moved, or an expression; unknown for anything else.
Value Interpreter::compound(const Value &L, const Value &R,
                            BinaryOperatorKind Op, const Expr *LHS,
                            const Expr *RHS) {
  if (L.K == Value::Index && R.K == Value::Index) {
    if (Op == BO_AddAssign)
      return Value::index(L.Idx + R.Idx);
    if (Op == BO_SubAssign)
      return Value::index(L.Idx - R.Idx);
    if (Op == BO_MulAssign)
      return Value::index(L.Idx * R.Idx);
    return Value::unknown("compound index assignment");
  }
  if (L.K == Value::Pointer && R.K == Value::Index &&
      (Op == BO_AddAssign || Op == BO_SubAssign))
    return L.movedTo(Op == BO_AddAssign ? L.Idx + R.Idx : L.Idx - R.Idx);
  static const std::map<BinaryOperatorKind, std::string> Ops = {
      {BO_AddAssign, "+"}, {BO_SubAssign, "-"}, {BO_MulAssign, "*"},
      {BO_DivAssign, "/"}};
  auto It = Ops.find(Op);
  DPtr LD = asData(L, LHS), RD = asData(R, RHS);
  if (!LD || !RD || It == Ops.end())
    return Value::unknown("");
  DPtr N = node(DNode::Binary);
  N->Op = It->second;
  N->Args = {LD, RD};
  return Value::data(N);
}

void Interpreter::assign(const Expr *LHS, const Expr *RHS,
                         BinaryOperatorKind Op, bool IsCompound,
                         const Value *Pre) {
  LHS = LHS->IgnoreParenImpCasts();
  // A local variable.
  if (const auto *DR = dyn_cast<DeclRefExpr>(LHS)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return;
    Value R = Pre ? *Pre : eval(RHS);
    if (IsCompound)
      R = compound(Env.count(VD) ? Env[VD] : Value::unknown(""), R, Op, LHS,
                   RHS);
    Env[VD] = R;
    return;
  }
  // A store through a subscript or a pointer.
  Value Ptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS)) {
    Value Base = evalSubscriptBase(AS->getBase());
    Value Idx = eval(AS->getIdx());
    if (Base.K == Value::Pointer && Idx.K == Value::Index)
      Ptr = Base.movedTo(Base.Idx + Idx.Idx);
    else if (Idx.K == Value::Data)
      notStencil("a store at an index computed from loaded data (scatter: " +
                 text(LHS) + ")");
    else
      partial("a store the analysis does not follow: " + text(LHS));
  } else if (const auto *U = dyn_cast<UnaryOperator>(LHS);
             U && U->getOpcode() == UO_Deref) {
    Ptr = eval(U->getSubExpr());
  }
  if (Ptr.K != Value::Pointer) {
    if (Ptr.K == Value::Unknown && !isa<ArraySubscriptExpr>(LHS))
      partial("a store the analysis does not follow: " + text(LHS));
    return;
  }
  ArrayInfo *A = arrayOf(Ptr.Array);
  if (Ptr.Idx.mentionsPrefix(ClampPrefix)) {
    partial("a store at a clamped index (" + text(LHS) + ")");
    return;
  }
  if (A && A->Kind == ArrayKind::Shared) {
    // The global reads of a tile store count where the tile is read, in
    // the reading thread's frame; not here.
    size_t ReadsBefore = Reads.size();
    Value R = Pre ? *Pre : eval(RHS);
    Reads.resize(ReadsBefore);
    DPtr D = R.K == Value::Data ? R.D : nullptr;
    if (R.K == Value::Index && R.Idx.isConstant())
      D = asData(R, RHS);
    if (!D || IsCompound || Ptr.UnitBytes != 0) {
      partial("a store to the __shared__ array '" + Ptr.Array +
              "' the analysis does not follow: " + text(LHS));
      return;
    }
    SharedStores.push_back(
        {Ptr.Array, Ptr.Idx, D, ActiveConds, !Guards.empty(), Barriers});
    return;
  }
  if (A && A->Kind == ArrayKind::Local) {
    // An element at a constant index is a variable of its own.
    auto E = numberOf(Ptr.Idx);
    if (!E || Ptr.UnitBytes != 0) {
      partial("a local array '" + Ptr.Array + "' indexed by a non-constant "
              "holds intermediate values");
      return;
    }
    Value R = Pre ? *Pre : eval(RHS);
    if (IsCompound) {
      auto It = LocalElems[Ptr.Array].find(*E);
      R = compound(It == LocalElems[Ptr.Array].end() ? Value::unknown("")
                                                     : It->second,
                   R, Op, LHS, RHS);
    }
    LocalElems[Ptr.Array][*E] = R;
    return;
  }
  Value R = Pre ? *Pre : eval(RHS);
  DPtr D = asData(R, RHS);
  if (!D)
    return;
  bool Accumulate = IsCompound;
  if (IsCompound && Op != BO_AddAssign) {
    // out[p] *= v still reads out[p].
    Reads.push_back({Ptr.Array, Ptr.Idx, false});
    partial("a compound store other than += (" + text(LHS) + ")");
    return;
  }
  if (IsCompound) {
    // out[p] += v reads out[p].
    Reads.push_back({Ptr.Array, Ptr.Idx, false});
  }
  Writes.push_back({Ptr.Array, Ptr.Idx, Accumulate, D, Guards});
}

void Interpreter::execIf(const IfStmt *If) {
  std::vector<Constraint> Cs;
  const Stmt *Then = If->getThen();
  // if (g >= 0 && g < n) a[k] = in[g]; else a[k] = 0.0f;  is the store
  // a[k] = g >= 0 && g < n ? in[g] : 0.0f (a tile load kept inside the array).
  if (const Stmt *Else = If->getElse()) {
    auto SingleStore = [](const Stmt *S) -> const BinaryOperator * {
      if (const auto *CS = dyn_cast<CompoundStmt>(S); CS && CS->size() == 1)
        S = CS->body_front();
      const auto *B = dyn_cast<BinaryOperator>(S);
      return B && B->getOpcode() == BO_Assign &&
                     isa<ArraySubscriptExpr>(B->getLHS()->IgnoreParenImpCasts())
                 ? B
                 : nullptr;
    };
    const BinaryOperator *A = SingleStore(Then), *B = SingleStore(Else);
    if (A && B && text(A->getLHS()) == text(B->getLHS()))
      if (std::optional<Value> V =
              guardedValue(If->getCond(), A->getRHS(), B->getRHS())) {
        assign(A->getLHS(), A->getRHS(), BO_Assign, false, &*V);
        return;
      }
  }
  bool ThenReturns = false;
  if (isa<ReturnStmt>(Then))
    ThenReturns = true;
  if (const auto *CS = dyn_cast<CompoundStmt>(Then);
      CS && CS->size() == 1 && isa<ReturnStmt>(CS->body_front()))
    ThenReturns = true;
  if (ThenReturns && !If->getElse()) {
    // if (out of range) return;  constrains everything after it.
    if (guardConstraints(If->getCond(), /*Negate=*/true, Cs)) {
      Guards.insert(Guards.end(), Cs.begin(), Cs.end());
      return;
    }
    partial("an early return under a condition the analysis does not "
            "follow: " + text(If->getCond()));
    return;
  }
  ThreadCond TC = threadCond(If->getCond());
  ThreadCond NotTC;
  NotTC.K = ThreadCond::Not;
  NotTC.Args = {TC};
  NotTC.Text = "!(" + TC.Text + ")";
  auto ExecUnder = [&](const Stmt *S, const ThreadCond &C) {
    ActiveConds.push_back(C);
    exec(S);
    ActiveConds.pop_back();
  };
  if (guardConstraints(If->getCond(), false, Cs)) {
    size_t Saved = Guards.size();
    Guards.insert(Guards.end(), Cs.begin(), Cs.end());
    ExecUnder(Then, TC);
    Guards.resize(Saved);
    if (const Stmt *Else = If->getElse()) {
      size_t Before = Writes.size();
      ExecUnder(Else, NotTC);
      if (Writes.size() != Before)
        partial("different updates on the two sides of '" +
                text(If->getCond()) + "' (boundary and interior regions)");
    }
    return;
  }
  // A condition that is not a bound on the position.
  size_t Before = Writes.size();
  ExecUnder(Then, TC);
  if (If->getElse())
    ExecUnder(If->getElse(), NotTC);
  if (Writes.size() != Before) {
    if (readsData(If->getCond()))
      notStencil("a data-dependent branch decides the store");
    else
      partial("a store under the condition '" + text(If->getCond()) +
              "', which is not a bound on the grid position");
  }
}

namespace {

/// A copy of V with Sym replaced by To in every index (false in Ok when a
/// read carries clamps, whose recorded positions would not move).
Value substituted(const Value &V, const std::string &Sym, const Poly &To,
                  bool &Ok) {
  Value R = V;
  if (V.K == Value::Index || V.K == Value::Pointer)
    R.Idx = V.Idx.substitute(Sym, To);
  std::function<DPtr(const DPtr &)> Tree = [&](const DPtr &N) {
    auto C = std::make_shared<DNode>(*N);
    if (C->K == DNode::Read) {
      C->Index = C->Index.substitute(Sym, To);
      for (PosGuard &G : C->InBounds)
        G.D = G.D.substitute(Sym, To);
      for (const ClampSet &CS : C->Clamps)
        if (!CS.Ids.empty())
          Ok = false;
    }
    for (DPtr &A : C->Args)
      A = Tree(A);
    return C;
  };
  if (V.K == Value::Data && V.D)
    R.D = Tree(V.D);
  return R;
}

bool sameValue(const Value &A, const Value &B) {
  if (A.K != B.K)
    return false;
  switch (A.K) {
  case Value::Unknown:
    return false;
  case Value::Index:
    return A.Idx == B.Idx;
  case Value::Pointer:
    return A.Array == B.Array && A.Idx == B.Idx && A.UnitBytes == B.UnitBytes;
  case Value::Data:
    return A.D && B.D && treeKey(A.D) == treeKey(B.D);
  }
  return false;
}

} // namespace

bool Interpreter::carryValues(const Stmt *Body, const VarDecl *Var,
                              const AxisSym &Loop) {
  // What the loop carries: variables from before the loop that its body
  // assigns, and the elements a local array held before the loop when the
  // body assigns to the array (a queue q[s] = q[s + 1]).
  struct Slot {
    const VarDecl *V = nullptr;
    std::string Array;
    int64_t Elem = 0;
    std::string name() const {
      return V ? V->getName().str()
               : Array + "[" + std::to_string(Elem) + "]";
    }
  };
  std::vector<Slot> Carried;
  std::set<std::string> Seen;
  auto Add = [&](Slot S) {
    if (Seen.insert(S.name()).second)
      Carried.push_back(std::move(S));
  };
  std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
    if (!S)
      return;
    const Expr *Target = nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
      Target = B->getLHS();
    else if (const auto *U = dyn_cast<UnaryOperator>(S);
             U && U->isIncrementDecrementOp())
      Target = U->getSubExpr();
    if (Target) {
      const Expr *Root = Target->IgnoreParenImpCasts();
      bool Element = false;
      while (const auto *AS = dyn_cast<ArraySubscriptExpr>(Root)) {
        Root = AS->getBase()->IgnoreParenImpCasts();
        Element = true;
      }
      if (const auto *DR = dyn_cast<DeclRefExpr>(Root))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
            VD && VD != Var && Env.count(VD)) {
          std::string Name = VD->getName().str();
          auto A = Arrays.find(Name);
          if (!Element) {
            Add({VD, "", 0});
          } else if (A != Arrays.end() && A->second.Kind == ArrayKind::Local) {
            for (const auto &[E, V] : LocalElems[Name])
              Add({nullptr, Name, E});
          }
        }
    }
    for (const Stmt *C : S->children())
      Scan(C);
  };
  Scan(Body);
  if (Carried.empty())
    return true;
  auto Get = [&](const Slot &S) -> Value & {
    return S.V ? Env[S.V] : LocalElems[S.Array][S.Elem];
  };

  const std::string K = Loop.Symbol;
  const Poly KSym = Poly::symbol(K);
  std::vector<Value> Before, Start;
  for (const Slot &S : Carried) {
    Before.push_back(Get(S));
    // An index or pointer starts as a symbol of its own, so that one run of
    // the body shows its step.
    const Value &B = Before.back();
    Start.push_back(B.K == Value::Index || B.K == Value::Pointer
                        ? B.movedTo(Poly::symbol("carry#" + S.name()))
                        : Value::unknown(""));
  }
  auto Refuse = [&](const std::string &What) {
    std::string L;
    for (const Slot &S : Carried)
      L += (L.empty() ? "" : ", ") + S.name();
    partial("the loop over '" + Var->getName().str() + "' carries " + What +
            " from one iteration to the next (" + L +
            "), which the analysis does not follow");
    for (size_t I = 0; I < Carried.size(); ++I)
      Get(Carried[I]) = Before[I];
    return false;
  };
  bool Settled = false;
  for (size_t Round = 0; Round <= Carried.size() + 1 && !Settled; ++Round) {
    // One run of the body whose effects are thrown away.
    auto Saved = std::make_tuple(
        Env, Arrays, LocalElems, Writes, Reads, Guards, ActiveConds,
        SharedStores, BlockSizes, BlockSizeWanted, ThreadFns, ThreadFnIds,
        Clamps, ClampInfos, Splits, LoopAxes, GridStrideSyms, PartialReasons,
        HardReasons, Assumptions, Returned, Barriers, TileReadsLost);
    for (size_t I = 0; I < Carried.size(); ++I)
      Get(Carried[I]) = Start[I];
    Env[Var] = Value::index(KSym);
    exec(Body);
    std::vector<Value> End;
    for (const Slot &S : Carried)
      End.push_back(Get(S));
    std::tie(Env, Arrays, LocalElems, Writes, Reads, Guards, ActiveConds,
             SharedStores, BlockSizes, BlockSizeWanted, ThreadFns, ThreadFnIds,
             Clamps, ClampInfos, Splits, LoopAxes, GridStrideSyms,
             PartialReasons, HardReasons, Assumptions, Returned, Barriers,
             TileReadsLost) = Saved;
    Settled = true;
    for (size_t I = 0; I < Carried.size(); ++I) {
      const Value &S = Start[I], &E = End[I];
      Value Next;
      bool Ok = true;
      if ((S.K == Value::Index || S.K == Value::Pointer) &&
          S.Idx == Poly::symbol("carry#" + Carried[I].name())) {
        // v += step: v at iteration k is its value before the loop plus
        // (k - lower) steps.
        Poly Step = E.Idx - S.Idx;
        if (E.K == S.K && E.Array == S.Array && E.UnitBytes == S.UnitBytes &&
            !Step.mentionsPrefix("carry#") && !Step.mentions(K))
          Next = Before[I].movedTo(Before[I].Idx +
                                   (KSym - Loop.LoopLower) * Step);
      } else if (E.K != Value::Unknown) {
        // v at iteration k is what the body left in it at iteration k - 1.
        Next = substituted(E, K, KSym - Poly::constant(1), Ok);
      }
      if (!Ok)
        return Refuse("a clamped value");
      if (!sameValue(Next, S))
        Settled = false;
      Start[I] = Next;
    }
  }
  for (size_t I = 0; I < Carried.size(); ++I) {
    bool Ok = true;
    if (!Settled || Start[I].K == Value::Unknown ||
        !sameValue(substituted(Start[I], K, Loop.LoopLower, Ok), Before[I]) ||
        !Ok)
      return Refuse("values");
  }
  // The loads before the loop that gave the carried values their first
  // value are the body's loads at its first iteration, not reads of their
  // own; what each iteration reads through them is.
  std::function<void(const DPtr &)> Drop = [&](const DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read && !N->Shared) {
      auto It = std::find_if(Reads.begin(), Reads.end(), [&](const ReadRecord &R) {
        return R.Array == N->Name && R.Index == N->Index;
      });
      if (It != Reads.end())
        Reads.erase(It);
    }
    for (const DPtr &A : N->Args)
      Drop(A);
  };
  for (size_t I = 0; I < Carried.size(); ++I) {
    if (Before[I].K == Value::Data) {
      Drop(Before[I].D);
      recordReads(Start[I].D);
    }
    Get(Carried[I]) = Start[I];
  }
  return true;
}

void Interpreter::execFor(const ForStmt *F) {
  // for (int v = A; v OP B; v += S)
  const VarDecl *Var = nullptr;
  Value Init;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
      DS && DS->isSingleDecl()) {
    Var = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (Var && Var->hasInit())
      Init = eval(Var->getInit());
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit());
             BO && BO->getOpcode() == BO_Assign) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
      Var = dyn_cast<VarDecl>(DR->getDecl());
    Init = eval(BO->getRHS());
  }
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  Value Step;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(F->getInc())) {
    if (U->isIncrementOp())
      Step = Value::index(Poly::constant(1));
    else if (U->isDecrementOp())
      Step = Value::index(Poly::constant(-1));
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(F->getInc())) {
    Value S = eval(CA->getRHS());
    if (S.K == Value::Index)
      Step = Value::index(CA->getOpcode() == BO_AddAssign ? S.Idx
                          : CA->getOpcode() == BO_SubAssign ? -S.Idx
                                                            : Poly());
  }
  if (!Var || Init.K != Value::Index || !Cond || !Cond->isComparisonOp() ||
      Step.K != Value::Index) {
    partial("a loop the analysis does not follow");
    notStencil("a loop whose trip count is not a fixed radius or an axis");
    return;
  }
  execLoop(Var, Init, Cond, Step, F->getBody());
}

void Interpreter::execWhile(const Expr *CondE, const Stmt *BodyS, bool Do) {
  // int k = A; while (k OP B) { ...; ++k; }  is  for (; k OP B; ++k) { ... }
  // when the increment is the body's last statement and the only one. So is
  // do { ...; ++k; } while (k OP B); where k OP B holds at the start.
  const char *What = Do ? "do" : "while";
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      CondE ? CondE->IgnoreParenImpCasts() : nullptr);
  const auto *Body = dyn_cast_or_null<CompoundStmt>(BodyS);
  const VarDecl *Var = nullptr;
  if (Cond && Cond->isComparisonOp())
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts()))
      Var = dyn_cast<VarDecl>(DR->getDecl());
  auto IsVar = [&](const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == Var;
  };
  Value Step;
  if (Var && Body && !Body->body_empty()) {
    const Stmt *Last = Body->body_back();
    if (const auto *U = dyn_cast<UnaryOperator>(Last);
        U && U->isIncrementDecrementOp() && IsVar(U->getSubExpr()))
      Step = Value::index(Poly::constant(U->isIncrementOp() ? 1 : -1));
    else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Last);
             CA && IsVar(CA->getLHS()) &&
             (CA->getOpcode() == BO_AddAssign ||
              CA->getOpcode() == BO_SubAssign)) {
      Value S = eval(CA->getRHS());
      if (S.K == Value::Index)
        Step = Value::index(CA->getOpcode() == BO_AddAssign ? S.Idx : -S.Idx);
    }
  }
  // No other statement may move the variable.
  unsigned Moves = 0;
  std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && IsVar(B->getLHS()))
      ++Moves;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && U->isIncrementDecrementOp() && IsVar(U->getSubExpr()))
      ++Moves;
    for (const Stmt *C : S->children())
      Count(C);
  };
  Count(Body);
  if (!Var || !Env.count(Var) || Env[Var].K != Value::Index ||
      Step.K != Value::Index || Moves != 1) {
    notStencil(std::string("a ") + What +
               " loop inside the kernel that is not a counted loop " +
               (Do ? "(k = A; do { ...; ++k; } while (k < B);)"
                   : "(k = A; while (k < B) { ...; ++k; })"));
    return;
  }
  if (Do)
    Assumptions.insert("the do loop over '" + Var->getName().str() +
                       "' starts within its range (" + text(Cond) +
                       " at the start): where it does not, the original "
                       "runs its body once and the replacement does not");
  execLoop(Var, Env[Var], Cond, Step, Body);
}

void Interpreter::execLoop(const VarDecl *Var, const Value &Init,
                           const BinaryOperator *Cond, const Value &Step,
                           const Stmt *Body) {
  Value Bound = eval(Cond->getRHS());
  bool VarOnLeft = false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts()))
    VarOnLeft = DR->getDecl() == Var;
  auto InitC = numberOf(Init.Idx);
  auto StepC = numberOf(Step.Idx);
  std::optional<int64_t> BoundC =
      Bound.K == Value::Index ? numberOf(Bound.Idx) : std::nullopt;

  // A loop that spreads a tile's elements over the block's threads:
  // for (k = threadIdx.x; k < TILE + 2*R; k += blockDim.x). Unrolled round
  // by round, each round's body run by the threads for which the loop's
  // condition still holds, so that the tile's stores are decided thread by
  // thread as if written out.
  if (VarOnLeft && Bound.K == Value::Index &&
      Init.Idx.mentionsPrefix("tid.")) {
    std::string Loop = "the loop over '" + Var->getName().str() + "' (" +
                       text(Cond) + ")";
    ThreadPos Extent{1, 1, 1};
    for (int D = 0; D < 3; ++D) {
      std::string Ax(1, "xyz"[D]);
      if (!Init.Idx.mentions("tid." + Ax) && !Step.Idx.mentions("bdim." + Ax) &&
          !Bound.Idx.mentions("bdim." + Ax))
        continue;
      auto It = BlockSizes.find(D);
      if (It == BlockSizes.end()) {
        BlockSizeWanted.insert(D);
        partial("the analysis does not follow " + Loop + ", which spreads "
                "elements over the block's threads: the block size along " +
                Ax + " is not fixed in the kernel (blockIdx*B + threadIdx)");
        return;
      }
      Extent[D] = It->second;
    }
    BinaryOperatorKind Op = Cond->getOpcode();
    auto StepN = atThread(resolved(Step.Idx), {0, 0, 0}, BlockSizes, ThreadFns)
                     .constantValue();
    auto BoundN = atThread(resolved(Bound.Idx), {0, 0, 0}, BlockSizes, ThreadFns)
                      .constantValue();
    if (!inBlock(Init.Idx) || !StepN || *StepN <= 0 || !BoundN ||
        (Op != BO_LT && Op != BO_LE) ||
        Extent[0] * Extent[1] * Extent[2] > 4096) {
      partial("the analysis does not follow " + Loop + ", which starts at "
              "the thread's place in the block but does not step by a "
              "fixed amount up to a fixed bound");
      return;
    }
    int64_t Rounds = 0;
    ThreadPos T;
    for (T[2] = 0; T[2] < Extent[2]; ++T[2])
      for (T[1] = 0; T[1] < Extent[1]; ++T[1])
        for (T[0] = 0; T[0] < Extent[0]; ++T[0]) {
          auto V = atThread(resolved(Init.Idx), T, BlockSizes, ThreadFns)
                       .constantValue();
          if (!V)
            continue;
          int64_t Last = Op == BO_LT ? *BoundN - 1 : *BoundN;
          if (*V <= Last)
            Rounds = std::max(Rounds, (Last - *V) / *StepN + 1);
        }
    if (Rounds > 64) {
      partial("the analysis does not follow " + Loop + ", which runs more "
              "than 64 rounds in a thread");
      return;
    }
    size_t WritesBefore = Writes.size(), ReadsBefore = Reads.size();
    for (int64_t J = 0; J < Rounds; ++J) {
      Poly K = Init.Idx + Poly::constant(J) * Step.Idx;
      Env[Var] = Value::index(K);
      ThreadCond TC;
      TC.K = ThreadCond::Cmp;
      TC.Op = Op;
      TC.D = K - Bound.Idx;
      TC.Text = text(Cond) + " (round " + std::to_string(J) + ")";
      ActiveConds.push_back(TC);
      exec(Body);
      ActiveConds.pop_back();
    }
    // What the loop loads counts where its tile is read, in the reader's
    // frame.
    Reads.resize(ReadsBefore);
    if (Writes.size() != WritesBefore)
      partial("the analysis does not follow " + Loop + ", which spreads "
              "elements over the block's threads and stores to global memory");
    return;
  }

  // A loop with a small constant trip count (a radius sum): unroll it.
  if (VarOnLeft && InitC && StepC && *StepC != 0 && BoundC) {
    BinaryOperatorKind Op = Cond->getOpcode();
    const int64_t Last = *BoundC;
    auto Holds = [Op, Last](int64_t V) {
      switch (Op) {
      case BO_LT: return V < Last;
      case BO_LE: return V <= Last;
      case BO_GT: return V > Last;
      case BO_GE: return V >= Last;
      case BO_NE: return V != Last;
      default: return false;
      }
    };
    unsigned Trips = 0;
    for (int64_t V = *InitC; Holds(V); V += *StepC) {
      if (++Trips > 64) {
        notStencil("a loop of more than 64 constant iterations inside the "
                   "kernel (not a stencil radius)");
        return;
      }
      Env[Var] = Value::index(Poly::constant(V));
      exec(Body);
    }
    return;
  }

  // A grid-stride loop: v = global id; v < n; v += blockDim*gridDim.
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    Poly Stride = Poly::symbol("bdim." + Ax) * Poly::symbol("gdim." + Ax);
    if (Step.Idx == Stride && Init.Idx.mentions(GlobalThread[D])) {
      GridStrideSyms.insert(GlobalThread[D]);
      Env[Var] = Init;
      std::vector<Constraint> Cs;
      if (VarOnLeft && comparison(Cond, false, Cs))
        Guards.insert(Guards.end(), Cs.begin(), Cs.end());
      size_t Saved = Guards.size() - Cs.size();
      exec(Body);
      Guards.resize(Saved);
      return;
    }
  }

  // A loop over an axis (for k = 1; k < nz-1; ++k) with unit step.
  if (VarOnLeft && StepC && *StepC == 1 && Bound.K == Value::Index &&
      !Init.Idx.mentionsPrefix("@") && !Init.Idx.mentionsPrefix("tid.")) {
    AxisSym A;
    A.Symbol = "@loop:" + Var->getName().str();
    A.Source = ir::AxisSource::Loop;
    A.LoopVar = Var->getName().str();
    A.LoopLower = Init.Idx;
    A.LoopUpper = Cond->getOpcode() == BO_LE ? Bound.Idx + Poly::constant(1)
                                            : Bound.Idx;
    A.HasLoopRange = Cond->getOpcode() == BO_LT || Cond->getOpcode() == BO_LE;
    if (!A.HasLoopRange) {
      partial("a loop over an axis with condition '" + text(Cond) + "'");
      return;
    }
    LoopAxes.push_back(A);
    Env[Var] = Value::index(Poly::symbol(A.Symbol));
    if (!carryValues(Body, Var, A))
      Env[Var] = Value::index(Poly::symbol(A.Symbol));
    exec(Body);
    return;
  }
  notStencil("a loop over '" + Var->getName().str() + "' (" + text(Cond) +
             ") that is neither a constant radius nor an axis of the grid "
             "(e.g. a reduction tree or a matrix product)");
}

void Interpreter::exec(const Stmt *S) {
  if (!S || Returned)
    return;
  if (++Steps > 200000) {
    partial("the kernel is too large to interpret");
    Returned = true;
    return;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *C : CS->body())
      exec(C);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue;
      QualType T = VD->getType();
      std::string Name = VD->getName().str();
      if (T->isArrayType())
        noteArraySizeMacros(VD);
      if (VD->hasAttr<CUDASharedAttr>()) {
        ArrayInfo &A = Arrays[Name];
        A.Kind = ArrayKind::Shared;
        A.ElemType = scalarType(T, Ctx);
        Env[VD] = Value::pointer(Name, Poly());
        continue;
      }
      if (T->isArrayType()) {
        Arrays[Name].Kind = ArrayKind::Local;
        Env[VD] = Value::pointer(Name, Poly());
        continue;
      }
      Env[VD] = VD->hasInit() ? eval(VD->getInit())
                              : Value::unknown("'" + Name +
                                               "' is used before it is set");
    }
    return;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    execIf(If);
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    execFor(F);
    return;
  }
  if (const auto *AS = dyn_cast<AttributedStmt>(S)) {
    // #pragma unroll and [[likely]] do not change what is computed.
    exec(AS->getSubStmt());
    return;
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    execWhile(W->getCond(), W->getBody(), false);
    return;
  }
  if (const auto *D = dyn_cast<DoStmt>(S)) {
    execWhile(D->getCond(), D->getBody(), true);
    return;
  }
  if (isa<ReturnStmt>(S)) {
    Returned = true;
    return;
  }
  if (isa<SwitchStmt>(S) || isa<GotoStmt>(S)) {
    partial("control flow the analysis does not follow (switch/goto)");
    return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return;
  }
}

// ---------------------------------------------------------------------------
// Finalisation
// ---------------------------------------------------------------------------

/// P / D when D's single monomial divides every monomial of P.
std::optional<Poly> exactQuotient(const Poly &P, const Poly &D) {
  if (D.terms().size() != 1 || D.terms().begin()->second != 1)
    return std::nullopt;
  const Monomial &DM = D.terms().begin()->first;
  Poly R;
  for (const auto &[M, C] : P.terms()) {
    Monomial Rest = M;
    for (const std::string &S : DM) {
      auto It = std::find(Rest.begin(), Rest.end(), S);
      if (It == Rest.end())
        return std::nullopt;
      Rest.erase(It);
    }
    Poly Term = Poly::constant(C);
    for (const std::string &S : Rest)
      Term = Term * Poly::symbol(S);
    R = R + Term;
  }
  return R;
}

void Interpreter::applySplits() {
  // X = mod[X|A] + A*div[X|A] for every split whose two halves were used.
  auto Subst = [&](Poly P) {
    for (int Round = 0; Round < 4; ++Round) {
      bool Changed = false;
      for (const auto &[Key, S] : Splits) {
        if (!S.HaveMod || !S.HaveDiv)
          continue;
        if (S.X.terms().size() != 1 || S.X.terms().begin()->first.size() != 1)
          continue;
        std::string XSym = S.X.terms().begin()->first[0];
        if (!P.mentions(XSym))
          continue;
        P = P.substitute(XSym, Poly::symbol(S.ModName) +
                                   S.A * Poly::symbol(S.DivName));
        Changed = true;
      }
      if (!Changed)
        break;
    }
    return P;
  };
  // div[div[X|a]|b] was canonicalised to div[X|a*b]; the inner quotient
  // q = div[X|a] also equals mod[q|b] + b*div[X|a*b].
  for (auto &[Key, S] : Splits) {
    if (S.X.terms().size() == 1 && S.X.terms().begin()->first.size() == 1 &&
        S.X.terms().begin()->first[0].rfind("div[", 0) == 0) {
      std::string Inner = S.X.terms().begin()->first[0];
      for (auto &[K2, S2] : Splits)
        if (S2.DivName == Inner && S.HaveMod) {
          std::string Outer = "div[" + S2.X.str() + "|" + (S2.A * S.A).str() + "]";
          if (Splits.count(S2.X.str() + "|" + (S2.A * S.A).str())) {
            S.DivName = Outer;
            S.HaveDiv = true;
          }
        }
    }
  }
  for (Write &W : Writes)
    W.Index = Subst(W.Index);
  for (ReadRecord &R : Reads)
    R.Index = Subst(R.Index);
  std::function<void(DPtr &)> Walk = [&](DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read) {
      N->Index = Subst(N->Index);
      for (PosGuard &G : N->InBounds)
        G.D = Subst(G.D);
    }
    for (DPtr &A : N->Args)
      Walk(A);
  };
  for (Write &W : Writes)
    Walk(W.Value);
  for (Write &W : Writes)
    for (Constraint &C : W.Guards) {
      Poly Sym = Subst(Poly::symbol(C.Symbol));
      if (Sym == Poly::symbol(C.Symbol))
        continue;
      // A bound on the 1-D id itself. id >= 0 says nothing; id < A*B with
      // id = mod[id|A] + A*div[id|A] bounds the slowest coordinate:
      // div[id|A] < B. The widest split that divides the bound is the
      // slowest axis.
      if (!C.Upper && !C.NotEqual && C.Bound == Poly()) {
        C.Symbol = "";
        continue;
      }
      const Split *Best = nullptr;
      for (const auto &[Key, S] : Splits) {
        if (!C.Upper || C.NotEqual || !S.HaveDiv ||
            S.X != Poly::symbol(C.Symbol))
          continue;
        auto Deg = [](const Poly &P) {
          size_t D = 0;
          for (const auto &[M, K] : P.terms())
            D = std::max(D, M.size());
          return D;
        };
        if (!exactQuotient(C.Bound, S.A))
          continue;
        if (!Best || Deg(S.A) > Deg(Best->A))
          Best = &S;
      }
      if (!Best) {
        C.Symbol = "?";
        continue;
      }
      C.Bound = *exactQuotient(C.Bound, Best->A);
      C.Symbol = Best->DivName;
    }
}

bool isAxisSymbol(const std::string &S) {
  return S[0] == '@' || S.rfind("mod[", 0) == 0 || S.rfind("div[", 0) == 0;
}

/// Element offsets Rel = sum_a Off[a]*Stride[a], slowest axis first.
std::optional<ir::Offset> solveOffset(Poly Rel, const std::vector<Poly> &Strides) {
  ir::Offset O{0, 0, 0};
  for (int A = static_cast<int>(Strides.size()) - 1; A >= 0; --A) {
    const Poly &S = Strides[A];
    if (S.terms().empty())
      return std::nullopt;
    // The stride's leading monomial decides the offset along this axis.
    const auto &Lead = *std::max_element(
        S.terms().begin(), S.terms().end(),
        [](const auto &X, const auto &Y) { return X.first.size() < Y.first.size(); });
    int64_t C = Rel.coefficient(Lead.first);
    int64_t Off;
    if (Lead.first.empty()) {
      // A numeric stride (a row of float u[][512]): the nearest whole
      // number of rows; the rest is the offset along faster axes.
      Off = static_cast<int64_t>(
          std::llround(static_cast<double>(C) / static_cast<double>(Lead.second)));
    } else {
      if (C % Lead.second != 0)
        return std::nullopt;
      Off = C / Lead.second;
    }
    O[A] = static_cast<int>(Off);
    Rel = Rel - Poly::constant(Off) * S;
  }
  if (!Rel.terms().empty())
    return std::nullopt;
  return O;
}

std::optional<ir::Offset>
Interpreter::offsetAlong(const Poly &Rel, const std::vector<Poly> &Strides) {
  if (auto O = solveOffset(Rel, Strides))
    return O;
  // in[i + R] with R a macro: the offset is a number of this build.
  auto InStrides = [&](const std::string &S) {
    return std::any_of(Strides.begin(), Strides.end(),
                       [&](const Poly &P) { return P.mentions(S); });
  };
  std::set<std::string> Before = NamedAssumed;
  if (auto O = solveOffset(
          resolved(Rel, [&](const std::string &S) { return !InStrides(S); }),
          Strides))
    return O;
  std::vector<Poly> Numeric;
  for (const Poly &S : Strides)
    Numeric.push_back(resolved(S));
  if (auto O = solveOffset(resolved(Rel), Numeric))
    return O;
  NamedAssumed = std::move(Before); // nothing was concluded from them
  return std::nullopt;
}

std::string typeName(QualType T, ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  PrintingPolicy PP(Ctx.getLangOpts());
  return T.getAsString(PP);
}

/// Whether the C expression Text names Name as a whole identifier.
static bool namesIdentifier(const std::string &Text, const std::string &Name) {
  auto Ident = [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == ':';
  };
  for (size_t P = Text.find(Name); P != std::string::npos;
       P = Text.find(Name, P + 1)) {
    size_t E = P + Name.size();
    if ((P == 0 || !Ident(Text[P - 1])) && (E == Text.size() || !Ident(Text[E])))
      return true;
  }
  return false;
}

void Interpreter::recordBuildFacts(ir::StencilIR &IR) {
  // Named constants the IR's expressions spell.
  std::vector<const std::string *> Texts;
  for (const std::string &S : IR.Strides)
    Texts.push_back(&S);
  for (const ir::Axis &A : IR.Axes)
    for (const std::string *S : {&A.Lower, &A.Upper, &A.Extent, &A.ThreadOffset,
                                 &A.LinearStep, &A.LinearModulus, &A.ClampLower,
                                 &A.ClampUpper})
      Texts.push_back(S);
  std::set<std::string> InExprs;
  std::function<void(const ir::Expr &)> Walk = [&](const ir::Expr &E) {
    if (E.Kind == ir::Expr::ParamRef)
      InExprs.insert(E.Name);
    for (const ir::Expr &A : E.Args)
      Walk(A);
  };
  for (const ir::Update &U : IR.Updates)
    Walk(U.Value);
  for (const auto &[Name, NV] : Named) {
    bool Used = InExprs.count(Name) > 0;
    for (const std::string *T : Texts)
      Used = Used || namesIdentifier(*T, Name);
    if (Used)
      IR.Constants.push_back(NV.Info);
  }
  // Values the analysis needed the numbers of.
  auto Assume = [&](const ir::NamedConstant &C, const std::string &Why) {
    for (const ir::Assumption &A : IR.Assumptions)
      if (A.Kind == ir::Assumption::CompileTime && A.Expr == C.Name)
        return;
    ir::Assumption A;
    A.Kind = ir::Assumption::CompileTime;
    A.Expr = C.Name;
    A.Value = C.Value;
    A.Why = Why + (C.DefinedAt.empty() ? "" : " (" + C.DefinedAt + ")");
    IR.Assumptions.push_back(std::move(A));
  };
  for (const std::string &Name : NamedAssumed)
    if (auto It = Named.find(Name); It != Named.end())
      Assume(It->second.Info, "the analysis used the value of '" + Name + "'");
  for (const auto &[Name, NV] : TypeMacros)
    Assume(NV.Info, "an array type the kernel indexes has '" + Name +
                        "' in its size");
  // The element type as the kernel spells it (a typedef a macro may switch).
  for (const ParmVarDecl *P : Kernel.parameters()) {
    if (IR.Outputs.empty() || P->getName() != IR.Outputs.front().Param)
      continue;
    QualType T = P->getType();
    while (!T.isNull() && (T->isPointerType() || T->isArrayType()))
      T = T->isPointerType() ? T->getPointeeType()
                             : QualType(T->getPointeeOrArrayElementType(), 0);
    if (T.isNull() || T->isDependentType())
      break;
    PrintingPolicy PPol(Ctx.getLangOpts());
    std::string Spelled = T.getUnqualifiedType().getAsString(PPol);
    std::string Canonical =
        T.getCanonicalType().getUnqualifiedType().getAsString(PPol);
    if (Spelled != Canonical && !T->isIncompleteType()) {
      ir::Assumption A;
      A.Kind = ir::Assumption::CompileTime;
      A.Expr = "sizeof(" + Spelled + ")";
      A.Value =
          std::to_string(Ctx.getTypeSizeInChars(T).getQuantity());
      A.Why = "the element type '" + Spelled + "' is '" + Canonical +
              "' in this build";
      IR.Assumptions.push_back(std::move(A));
    }
  }
  // Block sizes the kernel indexes by.
  for (const auto &[D, B] : BlockSizes) {
    ir::Assumption A;
    A.Kind = ir::Assumption::BlockDim;
    A.Expr = std::string(1, "xyz"[D]);
    A.Value = std::to_string(B);
    A.Why = "the kernel indexes blocks by " + std::to_string(B);
    IR.Assumptions.push_back(std::move(A));
  }
  // What the preprocessor chose inside the kernel and its helpers.
  if (PP) {
    std::set<std::pair<std::string, bool>> Seen;
    for (const SourceRange &R : BodiesRun)
      for (const ConditionalDirective *D : PP->within(R, SM)) {
        if (!Seen.insert({D->Condition, D->Taken}).second)
          continue;
        ir::Assumption A;
        A.Kind = ir::Assumption::Preprocessor;
        A.Expr = D->Condition;
        A.Value = D->Taken ? "1" : "0";
        A.Why = "a conditional directive at " + whereSpelled(D->Loc, SM);
        IR.Assumptions.push_back(std::move(A));
      }
  }
}

/// Atomics and warp shuffles make a kernel a reduction or a scatter
/// wherever they are, also in code the interpreter does not reach.
void Interpreter::scanForNonStencilCalls(const Stmt *S) {
  if (!S)
    return;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = C->getDirectCallee()) {
      StringRef N = FD->getName();
      if (isAtomicName(N))
        notStencil("atomic update (" + N.str() +
                   "): a scatter or reduction, not a stencil");
      if (N.starts_with("__shfl"))
        notStencil("warp shuffles (" + N.str() + "): a reduction or "
                   "exchange between threads");
    }
  for (const Stmt *Child : S->children())
    scanForNonStencilCalls(Child);
}

KernelAnalysis Interpreter::run() {
  BodiesRun.push_back(Kernel.getSourceRange());
  for (const ParmVarDecl *P : Kernel.parameters()) {
    noteArraySizeMacros(P);
    QualType T = P->getType();
    if (T->isPointerType() || T->isArrayType()) {
      ArrayInfo &A = Arrays[P->getName().str()];
      A.Kind = ArrayKind::Global;
      A.ElemType = scalarType(T, Ctx);
      A.Restrict = T.isRestrictQualified();
      if (const auto *PT = T->getAs<PointerType>())
        A.Const = PT->getPointeeType().isConstQualified();
    }
  }
  scanForNonStencilCalls(Kernel.getBody());
  exec(Kernel.getBody());
  return finish();
}

std::string Interpreter::clampedBounds(
    ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
    const std::vector<Poly> &Strides, const ir::Offset &Shift,
    const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi,
    const std::function<std::optional<ir::Offset>(const Poly &, std::string &)>
        &OffsetOf) {
  const size_t N = AxisSyms.size();
  auto AxisName = [&](size_t A) { return IR.Axes[A].Name; };
  // The axis a clamp acts on and KRaw, the clamped position's offset from
  // the axis symbol (the thread's coordinate, before the store's shift).
  struct Act {
    size_t Axis;
    int64_t KRaw;
  };
  std::string Why;
  auto AxisOf = [&](const ClampInfo &CI) -> std::optional<Act> {
    for (size_t A = 0; A < N; ++A) {
      auto C = CI.Arg.coefficientOf(AxisSyms[A]);
      if (!C || *C != Poly::constant(1))
        continue;
      if (auto K = numberOf(CI.Arg - Poly::symbol(AxisSyms[A])))
        return Act{A, *K};
      break;
    }
    Why = "the clamp " + CI.Text + " bounds " + CI.Arg.str() +
          ", which is not a coordinate of the stored point plus a constant";
    return std::nullopt;
  };
  auto ThreadAxis = [&](size_t A) {
    return IR.Axes[A].Source == ir::AxisSource::Thread ||
           IR.Axes[A].Source == ir::AxisSource::GridStride;
  };
  // A clamp that never moves the position of a point of the domain.
  auto NoOp = [&](const ClampInfo &CI, const Act &X, const ClampSet &S) {
    const size_t A = X.Axis;
    if (CI.Upper)
      return THi[A] && nonNegative(CI.Bound - *THi[A] + Poly::constant(1 - X.KRaw));
    if (TLo[A] && nonNegative(*TLo[A] + Poly::constant(X.KRaw) - CI.Bound))
      return true;
    // The thread at threadIdx t of its block stands at blockIdx*B + t >= t.
    auto B = numberOf(CI.Bound);
    return S.InBlock && ThreadAxis(A) && B &&
           S.Reader[IR.Axes[A].ThreadDim - 'x'] + X.KRaw >= *B;
  };

  struct Use {
    std::string Array;
    ir::Offset O;
    const ClampSet *S;
    std::vector<std::pair<Act, const ClampInfo *>> Active;
  };
  std::vector<Use> Uses;
  std::map<size_t, std::map<std::string, Poly>> UpperB, LowerB;
  const ClampSet Unclamped;
  std::function<bool(const DPtr &)> Walk = [&](const DPtr &D) {
    if (!D)
      return true;
    if (D->K == DNode::Read && !D->Shared) {
      std::string Ignored;
      auto O = OffsetOf(D->Index, Ignored);
      if (O) {
        std::vector<const ClampSet *> Sets;
        for (const ClampSet &S : D->Clamps)
          Sets.push_back(&S);
        if (Sets.empty())
          Sets.push_back(&Unclamped);
        for (const ClampSet *S : Sets) {
          Use U{D->Name, *O, S, {}};
          for (const auto &[Id, Coef] : S->Ids) {
            const ClampInfo &CI = ClampInfos[Id];
            auto X = AxisOf(CI);
            if (!X)
              return false;
            if (Coef != Strides[X->Axis]) {
              Why = "the clamp " + CI.Text + " bounds the position along '" +
                    AxisName(X->Axis) + "' but indexes '" + D->Name +
                    "' with the stride " + Coef.str();
              return false;
            }
            if (NoOp(CI, *X, *S))
              continue;
            int64_t K = X->KRaw - Shift[X->Axis];
            if (K != (*O)[X->Axis]) {
              Why = "the clamp " + CI.Text + " bounds the position " +
                    std::to_string(K) + " along '" + AxisName(X->Axis) +
                    "', but '" + D->Name + "' is read at " +
                    std::to_string((*O)[X->Axis]) + " after it";
              return false;
            }
            if (CI.Equality && K != (CI.Upper ? 1 : -1)) {
              Why = "the condition " + CI.Text + " replaces only the "
                    "position one point beyond its bound, but '" + D->Name +
                    "' is read at " + std::to_string(K) + " along '" +
                    AxisName(X->Axis) + "' through it";
              return false;
            }
            (CI.Upper ? UpperB : LowerB)[X->Axis].emplace(CI.Bound.str(),
                                                           CI.Bound);
            U.Active.push_back({*X, &CI});
          }
          Uses.push_back(std::move(U));
        }
      }
    }
    for (const DPtr &A : D->Args)
      if (!Walk(A))
        return false;
    return true;
  };
  for (const Write &W : Writes)
    if (!Walk(W.Value))
      return Why;

  for (size_t A = 0; A < N; ++A) {
    auto &Up = UpperB[A], &Lo = LowerB[A];
    if (Up.empty() && Lo.empty())
      continue;
    for (auto *Bs : {&Up, &Lo})
      if (Bs->size() > 1) {
        std::string List;
        for (const auto &[T, P] : *Bs)
          List += (List.empty() ? "" : ", ") + T;
        return "reads along '" + AxisName(A) + "' are clamped to different " +
               (Bs == &Up ? "upper" : "lower") + " bounds (" + List + ")";
      }
    const int Dim = IR.Axes[A].ThreadDim - 'x';
    int MinO = 0, MaxO = 0;
    for (const Use &U : Uses) {
      const int O = U.O[A];
      MinO = std::min(MinO, O);
      MaxO = std::max(MaxO, O);
      if (O == 0)
        continue;
      bool Clamped = false;
      for (const auto &[X, CI] : U.Active)
        Clamped = Clamped || (X.Axis == A && CI->Upper == (O > 0));
      if (Clamped || (O > 0 ? Up.empty() : Lo.empty()))
        continue;
      // Below: a reader at threadIdx t of its block is at least t along A.
      auto LoC = numberOf(Lo.begin()->second);
      if (O < 0 && U.S->InBlock && ThreadAxis(A) && LoC &&
          U.S->Reader[Dim] + Shift[A] + O >= *LoC)
        continue;
      return "'" + U.Array + "' is read at " + std::to_string(O) +
             " along '" + AxisName(A) + "' without the clamp other reads " +
             "there have" +
             (U.S->InBlock ? " (through the __shared__ tile, by the thread " +
                                 std::to_string(U.S->Reader[Dim]) +
                                 " of the block)"
                           : std::string());
    }
    if (!TLo[A] || !THi[A])
      return "the domain along '" + AxisName(A) + "' is not one interval";
    const Poly Sh = Poly::constant(Shift[A]);
    const Poly DLo = *TLo[A] + Sh, DLast = *THi[A] + Sh - Poly::constant(1);
    // Without a bound on one side, one no read reaches.
    Poly L = Lo.empty() ? DLo + Poly::constant(MinO) : Lo.begin()->second;
    Poly H = Up.empty() ? DLast + Poly::constant(MaxO) : Up.begin()->second;
    if (!nonNegative(DLo - L) || !nonNegative(H - DLast))
      return "the domain along '" + AxisName(A) + "' [" + DLo.str() + ", " +
             DLast.str() + "] is not within the clamp's bounds [" + L.str() +
             ", " + H.str() + "]";
    IR.Axes[A].ClampLower = L.str();
    IR.Axes[A].ClampUpper = H.str();
  }
  return "";
}

KernelAnalysis Interpreter::finish() {
  KernelAnalysis KA;
  KA.Kernel = Kernel.getQualifiedNameAsString();
  if (const TemplateArgumentList *TA = Kernel.getTemplateSpecializationArgs()) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    PrintingPolicy PP(Ctx.getLangOpts());
    bool First = true;
    for (const TemplateArgument &A : TA->asArray()) {
      OS << (First ? "" : ", ");
      A.print(PP, OS, false);
      First = false;
    }
    KA.Kernel += "<" + S + ">";
  }
  // A kernel partly understood that reads no neighbourhood at all is not a
  // stencil, whatever else was not understood about it.
  bool ReadsNothing = false, ReadsSinglePoints = false;
  auto Verdict = [&]() {
    if (HardReasons.empty() && !PartialReasons.empty()) {
      if (ReadsNothing)
        notStencil("the kernel reads no array: it only stores values (a "
                   "boundary condition or an initialisation), not a stencil");
      else if (ReadsSinglePoints)
        notStencil("each array is read at a single point per thread (a "
                   "pointwise update, copy or injection), not a stencil");
    }
    for (const std::string &R : HardReasons)
      KA.Reasons.push_back(R);
    if (!HardReasons.empty()) {
      KA.Result = KernelAnalysis::NotStencil;
      KA.IR.reset();
      return KA;
    }
    for (const std::string &R : PartialReasons)
      KA.Reasons.push_back(R);
    KA.Result = PartialReasons.empty() ? KernelAnalysis::Stencil
                                       : KernelAnalysis::Partial;
    return KA;
  };

  if (Writes.empty() && PartialReasons.empty() && HardReasons.empty()) {
    notStencil("the kernel stores nothing to global memory the analysis can "
               "see");
    return Verdict();
  }
  if (Writes.empty())
    return Verdict();
  for (Write &W : Writes)
    resolveSharedReads(W.Value);
  for (const auto &[D, B] : BlockSizes)
    Assumptions.insert(std::string("blockDim.") + "xyz"[D] + " == " +
                       std::to_string(B) + " (the kernel indexes blocks by " +
                       std::to_string(B) + ")");
  applySplits();

  // Kernels that read no neighbourhood at all are not stencils, whatever
  // else was not understood about them (as long as no load was lost).
  bool LostLoads =
      TileReadsLost ||
      std::any_of(PartialReasons.begin(), PartialReasons.end(),
                  [](const std::string &R) {
                    return R.find("does not follow") != std::string::npos ||
                           R.find("untracked") != std::string::npos;
                  });
  // Decided in Verdict: only when nothing more specific is found.
  if (!LostLoads) {
    std::map<std::string, std::set<std::string>> Points;
    for (const ReadRecord &R : Reads)
      Points[R.Array].insert(R.Index.str());
    bool Single = std::all_of(Points.begin(), Points.end(),
                              [](const auto &P) { return P.second.size() == 1; });
    bool LoopRead = std::any_of(Reads.begin(), Reads.end(), [](auto &R) {
      return R.Index.mentionsPrefix("@loop:");
    });
    bool Moves = Writes.front().Index.mentionsPrefix("@") ||
                 Writes.front().Index.mentionsPrefix("mod[") ||
                 Writes.front().Index.mentionsPrefix("div[");
    ReadsNothing = Reads.empty();
    ReadsSinglePoints = !Reads.empty() && Single && Moves && !LoopRead;
  }

  // Axes: the symbols in the main write's index.
  const Write &Main = Writes.front();
  std::vector<std::string> Syms;
  for (const auto &[M, C] : Main.Index.terms())
    for (const std::string &S : M)
      if (isAxisSymbol(S) && std::find(Syms.begin(), Syms.end(), S) == Syms.end())
        Syms.push_back(S);
  // Threads that store several points, blockDim apart (thread coarsening:
  // blockIdx.x * blockDim.x * 4 + c * blockDim.x + threadIdx.x), or other
  // uses of the thread and block indices do not form a position variable;
  // the store still moves with the thread.
  if (Main.Index.mentionsPrefix("tid.") || Main.Index.mentionsPrefix("bid.")) {
    bool Coarsened = false;
    for (const char *D : {"x", "y", "z"}) {
      const std::string Tid = std::string("tid.") + D;
      Monomial Block = {std::string("bdim.") + D, std::string("bid.") + D};
      std::sort(Block.begin(), Block.end());
      Coarsened |= Main.Index.coefficient({Tid}) == 1 &&
                   Main.Index.coefficient(Block) > 1;
    }
    partial("the store index " + Main.Index.str() +
            " uses threadIdx/blockIdx other than as blockIdx*blockDim+"
            "threadIdx" +
            (Coarsened ? std::string(": several points per thread, blockDim "
                                     "apart (thread coarsening), are not "
                                     "followed")
                       : std::string()));
    return Verdict();
  }
  if (Syms.empty()) {
    notStencil("the store index does not depend on the thread's position "
               "(every thread writes the same element)");
    return Verdict();
  }
  // A loop whose variable indexes reads but not the store sums along a
  // direction the output does not have: a reduction or a matrix product.
  for (const AxisSym &L : LoopAxes) {
    if (Main.Index.mentions(L.Symbol))
      continue;
    bool ReadAlong = std::any_of(Reads.begin(), Reads.end(), [&](auto &R) {
      return R.Index.mentions(L.Symbol);
    });
    if (ReadAlong)
      notStencil("the loop over '" + L.LoopVar + "' (up to " +
                 L.LoopUpper.str() + ") reads along a direction the store "
                 "does not move in: a reduction or a matrix product");
  }
  if (!HardReasons.empty())
    return Verdict();
  if (Syms.size() > 3) {
    partial("more than three position variables in the store index");
    return Verdict();
  }
  for (const std::string &S : Syms)
    if (S.rfind("@g", 0) != 0 && S.rfind("@loop:", 0) != 0 &&
        S.rfind("mod[", 0) != 0 && S.rfind("div[", 0) != 0) {
      partial("unrecognised position variable " + S);
      return Verdict();
    }

  struct AxisFact {
    std::string Sym;
    Poly Stride;
  };
  std::vector<AxisFact> Axes;
  for (const std::string &S : Syms) {
    auto Str = Main.Index.coefficientOf(S);
    if (!Str || Str->mentionsPrefix("@") || Str->mentionsPrefix("mod[") ||
        Str->mentionsPrefix("div[")) {
      partial("the store index is not affine in the position (" +
              Main.Index.str() + ")");
      return Verdict();
    }
    Axes.push_back({S, *Str});
  }
  // Fastest axis first: stride 1, then by degree, then by spelling.
  std::sort(Axes.begin(), Axes.end(), [](const AxisFact &A, const AxisFact &B) {
    auto Deg = [](const Poly &P) {
      size_t D = 0;
      for (const auto &[M, C] : P.terms())
        D = std::max(D, M.size());
      return D;
    };
    if (Deg(A.Stride) != Deg(B.Stride))
      return Deg(A.Stride) < Deg(B.Stride);
    return A.Stride.str() < B.Stride.str();
  });
  for (size_t I = 1; I < Axes.size(); ++I)
    if (Axes[I].Stride == Axes[I - 1].Stride) {
      partial("two position variables share the stride " + Axes[I].Stride.str());
      return Verdict();
    }
  std::vector<std::string> AxisSyms;
  std::vector<Poly> Strides;
  for (const AxisFact &A : Axes) {
    AxisSyms.push_back(A.Sym);
    Strides.push_back(A.Stride);
  }
  // No position variable moves along the contiguous axis: the stores lie
  // on a face (u[j*nx] = u[j*nx + 1]), the work of a boundary kernel.
  if (Strides.front() != Poly::constant(1)) {
    std::string Where = "the store index " + Main.Index.str() +
                        " has no position variable of stride 1";
    if (Reads.empty())
      notStencil("a boundary kernel that stores values on a face of the "
                 "array and reads no neighbourhood (" + Where + ")");
    else
      partial("a boundary kernel: the stores lie on a face of the array (" +
              Where + "); the IR describes stencils over the volume only");
    return Verdict();
  }

  // The thread-to-array offset of each axis, from the main write.
  Poly MainRest = Main.Index.without(AxisSyms);
  auto Shift = offsetAlong(MainRest, Strides);
  if (!Shift) {
    partial("the store index " + Main.Index.str() +
            " has a constant part that is not a whole number of rows");
    return Verdict();
  }
  Poly Base = MainRest; // element index of the written point minus axes

  auto OffsetOf = [&](const Poly &Index, std::string &Why) -> std::optional<ir::Offset> {
    std::vector<Poly> Seen;
    for (const std::string &Sym : AxisSyms)
      if (auto S = Index.coefficientOf(Sym))
        Seen.push_back(*S);
    auto UnitAxis = std::find(Seen.begin(), Seen.end(), Poly::constant(1));
    if (Seen.size() == Strides.size() && UnitAxis != Seen.end() &&
        UnitAxis != Seen.begin())
      notStencil("an access (" + Index.str() + ") with the axes of the store (" +
                 Main.Index.str() + ") swapped: a transpose, not a stencil");
    for (size_t A = 0; A < AxisSyms.size(); ++A) {
      auto S = Index.coefficientOf(AxisSyms[A]);
      if (!S || *S != Strides[A]) {
        Why = "an access (" + Index.str() + ") with a different layout than "
              "the store (" + Main.Index.str() + ")";
        return std::nullopt;
      }
    }
    for (const auto &[M, C] : Index.terms())
      for (const std::string &Sy : M)
        if (isAxisSymbol(Sy) &&
            std::find(AxisSyms.begin(), AxisSyms.end(), Sy) == AxisSyms.end()) {
          Why = "an access (" + Index.str() + ") uses a position variable the "
                "store does not";
          return std::nullopt;
        }
    auto O = offsetAlong(Index.without(AxisSyms) - Base, Strides);
    if (!O)
      Why = "an access (" + Index.str() + ") at an offset that is not a "
            "whole number of elements along each axis";
    return O;
  };

  ir::StencilIR IR;
  IR.Kernel = KA.Kernel;
  IR.Dims = static_cast<unsigned>(AxisSyms.size());
  IR.ElementType = typeName(Arrays[Main.Array].ElemType, Ctx);
  for (const Poly &S : Strides)
    IR.Strides.push_back(S.str());

  // Axes with their domains; the position's range along each, when it is one
  // half-open interval [TLo, THi) of the axis symbol (for clamps).
  std::vector<std::optional<Poly>> TLo(AxisSyms.size()), THi(AxisSyms.size());
  for (size_t A = 0; A < AxisSyms.size(); ++A) {
    const std::string &S = AxisSyms[A];
    ir::Axis X;
    X.Name = S;
    X.ThreadOffset = std::to_string((*Shift)[A]);
    auto Display = [&](Poly P) {
      return (P + Poly::constant((*Shift)[A])).str();
    };
    if (S.rfind("@g", 0) == 0) {
      X.ThreadDim = S[2];
      X.Source = GridStrideSyms.count(S) ? ir::AxisSource::GridStride
                                         : ir::AxisSource::Thread;
      X.Name = std::string("thread.") + S[2];
    } else if (S.rfind("@loop:", 0) == 0) {
      X.Source = ir::AxisSource::Loop;
      X.Name = S.substr(6);
      for (const AxisSym &L : LoopAxes)
        if (L.Symbol == S) {
          X.Lower = Display(L.LoopLower);
          X.Upper = Display(L.LoopUpper);
        }
    } else {
      X.Source = ir::AxisSource::Linear;
      X.ThreadDim = 'x';
      X.Name = S;
      // The coordinate's weight in the 1-D id and its split's modulus, when
      // the id is blockIdx.x * blockDim.x + threadIdx.x: with them a
      // generated launcher knows which points the original's threads cover.
      const Poly Id = Poly::symbol(GlobalThread[0]);
      for (const auto &[Key, Sp] : Splits) {
        if (Sp.DivName == S && Sp.X == Id) {
          X.LinearStep = Sp.A.str();
        } else if (Sp.ModName == S && Sp.X == Id) {
          X.LinearStep = "1";
          X.LinearModulus = Sp.A.str();
        } else if (Sp.ModName == S) {
          // mod[div[id|a]|b]: weight a, modulus b.
          for (const auto &[K2, Inner] : Splits)
            if (Inner.X == Id && Sp.X == Poly::symbol(Inner.DivName)) {
              X.LinearStep = Inner.A.str();
              X.LinearModulus = Sp.A.str();
            }
        }
      }
    }
    // Guards on this axis: the tightest of each kind must be unique.
    std::vector<Poly> Lowers, Uppers, Excluded;
    for (const Constraint &C : Main.Guards) {
      if (C.Symbol != S)
        continue;
      if (C.NotEqual)
        Excluded.push_back(C.Bound);
      else
        (C.Upper ? Uppers : Lowers).push_back(C.Bound);
    }
    // "i != 0" next to i >= 0 (implicit for a thread or split coordinate)
    // moves the lower bound; "i != nx-1" next to i < nx the upper one.
    std::optional<Poly> ImplicitUpper;
    for (const auto &[Key, Sp] : Splits)
      if (Sp.ModName == S)
        ImplicitUpper = Sp.A;
    bool Counted = X.Source == ir::AxisSource::Thread ||
                   X.Source == ir::AxisSource::Linear;
    for (const Poly &V : Excluded) {
      Poly Lo = Lowers.size() == 1 ? Lowers[0] : Poly();
      bool HasLo = Lowers.size() == 1 || (Lowers.empty() && Counted);
      std::optional<Poly> Up = Uppers.size() == 1 ? std::optional<Poly>(Uppers[0])
                               : Uppers.empty()   ? ImplicitUpper
                                                  : std::nullopt;
      if (HasLo && V == Lo) {
        Lowers = {V + Poly::constant(1)};
      } else if (Up && V == *Up - Poly::constant(1)) {
        Uppers = {V};
      } else {
        partial("a guard excludes one point (" + S + " != " + V.str() +
                ") that is not at an edge of the domain");
      }
    }
    // A coordinate split with % is below its modulus even without a guard.
    if (Uppers.empty() && ImplicitUpper &&
        (!Excluded.empty() || X.Source == ir::AxisSource::Linear))
      Uppers = {*ImplicitUpper};
    auto Join = [&](const std::vector<Poly> &Bs, const char *Fn) {
      std::string Out;
      for (const Poly &B : Bs)
        Out = Out.empty() ? Display(B)
                          : std::string(Fn) + "(" + Out + ", " + Display(B) + ")";
      return Out;
    };
    if (!Lowers.empty()) {
      std::string L = Join(Lowers, "max");
      X.Lower = X.Source == ir::AxisSource::Loop && X.Lower != "0"
                    ? "max(" + X.Lower + ", " + L + ")"
                    : L;
    } else if (X.Source != ir::AxisSource::Loop) {
      X.Lower = X.ThreadOffset;
    }
    if (!Uppers.empty()) {
      std::string U = Join(Uppers, "min");
      X.Upper = X.Source == ir::AxisSource::Loop && !X.Upper.empty()
                    ? "min(" + X.Upper + ", " + U + ")"
                    : U;
    }
    if (X.Upper.empty() && X.Source == ir::AxisSource::Linear)
      partial("no upper bound on the 1-D thread id along " + S);
    if (X.Source == ir::AxisSource::Loop) {
      // The loop's own range, unless guards narrow it further.
      for (const AxisSym &L : LoopAxes)
        if (L.Symbol == S && L.HasLoopRange && Lowers.empty() &&
            Uppers.empty()) {
          TLo[A] = L.LoopLower;
          THi[A] = L.LoopUpper;
        }
    } else {
      if (Lowers.size() == 1)
        TLo[A] = Lowers[0];
      else if (Lowers.empty() && Counted)
        TLo[A] = Poly();
      if (Uppers.size() == 1)
        THi[A] = Uppers[0];
    }
    IR.Axes.push_back(std::move(X));
  }
  for (const Constraint &C : Main.Guards)
    if (C.Symbol == "?")
      partial("a guard on the 1-D thread id itself (e.g. idx < n) that is "
              "not a bound on the slowest coordinate");
  if (std::string Why = guardedReadsHold(AxisSyms, TLo, THi); !Why.empty())
    partial(Why);
  if (!Clamps.empty()) {
    std::string Why = clampedBounds(IR, AxisSyms, Strides, *Shift, TLo, THi,
                                    OffsetOf);
    if (!Why.empty()) {
      std::string List;
      for (const std::string &C : Clamps)
        List += (List.empty() ? "" : ", ") + C;
      partial("indices are clamped to the array's edge (" + List +
              "), but not as a replicated boundary the IR states: " + Why);
    }
  }
  // Array extents from strides: stride[a+1] / stride[a].
  for (size_t A = 0; A + 1 < Strides.size(); ++A) {
    const Poly &Lo = Strides[A], &Hi = Strides[A + 1];
    std::string Ext;
    for (const auto &[M, C] : Hi.terms()) {
      (void)C;
      Monomial Rest = M;
      bool Ok = true;
      for (const auto &[LM, LC] : Lo.terms()) {
        (void)LC;
        for (const std::string &Sy : LM) {
          auto It = std::find(Rest.begin(), Rest.end(), Sy);
          if (It == Rest.end())
            Ok = false;
          else
            Rest.erase(It);
        }
      }
      auto HiC = Hi.constantValue(), LoC = Lo.constantValue();
      if (HiC && LoC && *LoC != 0 && *HiC % *LoC == 0) {
        Ext = std::to_string(*HiC / *LoC);
        break;
      }
      if (Ok && Hi.terms().size() == 1 && Lo.terms().size() == 1) {
        for (const std::string &Sy : Rest)
          Ext += (Ext.empty() ? "" : "*") + Sy;
        if (Ext.empty())
          Ext = "1";
      }
    }
    IR.Axes[A].Extent = Ext;
  }

  // Writes must all have the same guards; each output once.
  std::map<std::string, size_t> OutputIndex;
  for (const Write &W : Writes) {
    if (W.Guards.size() != Main.Guards.size())
      partial("stores under different guards (" + W.Array + ")");
    std::string Why;
    auto O = OffsetOf(W.Index, Why);
    if (!O) {
      partial(Why);
      continue;
    }
    if (OutputIndex.count(W.Array)) {
      partial("the array '" + W.Array + "' is stored twice per point");
      continue;
    }
    ir::OutputArray Out;
    Out.Param = W.Array;
    Out.WriteOffset = *O;
    Out.Accumulate = W.Accumulate;
    OutputIndex[W.Array] = IR.Outputs.size();
    IR.Outputs.push_back(Out);
  }

  // Reads, grouped by array.
  std::map<std::string, std::set<ir::Offset>> ReadOffsets;
  std::map<std::string, bool> ReadLdg;
  for (const ReadRecord &R : Reads) {
    std::string Why;
    auto O = OffsetOf(R.Index, Why);
    if (!O) {
      partial(Why);
      continue;
    }
    ReadOffsets[R.Array].insert(*O);
    ReadLdg[R.Array] = ReadLdg[R.Array] || R.Ldg;
  }
  for (const auto &[Name, Offs] : ReadOffsets) {
    ir::InputArray In;
    In.Param = Name;
    In.Offsets.assign(Offs.begin(), Offs.end());
    const ArrayInfo &AI = Arrays[Name];
    In.Restrict = AI.Restrict;
    In.Ldg = ReadLdg[Name];
    In.PerPointCoefficient = Offs.size() == 1 && *Offs.begin() == ir::Offset{0, 0, 0} &&
                             !OutputIndex.count(Name);
    IR.Inputs.push_back(In);
    if (auto It = OutputIndex.find(Name); It != OutputIndex.end()) {
      ir::OutputArray &Out = IR.Outputs[It->second];
      if (!(Offs.size() == 1 && *Offs.begin() == Out.WriteOffset))
        Out.InPlace = true;
    }
  }
  for (const ir::OutputArray &Out : IR.Outputs)
    if (Out.InPlace)
      partial("the array '" + Out.Param + "' is updated in place while "
              "neighbours read it (the result depends on thread order)");

  // Updates.
  std::function<ir::Expr(const DPtr &)> Convert = [&](const DPtr &N) {
    ir::Expr E;
    switch (N->K) {
    case DNode::Read: {
      E.Kind = ir::Expr::Read;
      E.Name = N->Name;
      std::string Why;
      if (auto O = OffsetOf(N->Index, Why))
        E.Off = *O;
      break;
    }
    case DNode::Coef:
      E.Kind = ir::Expr::Coef;
      E.Name = N->Name;
      E.Index = static_cast<int>(numberOf(N->Index).value_or(-1));
      break;
    case DNode::ParamRef:
      E.Kind = ir::Expr::ParamRef;
      E.Name = N->Name;
      break;
    case DNode::Literal:
      E.Kind = ir::Expr::Literal;
      E.Value = N->Value;
      break;
    case DNode::Unary:
      E.Kind = ir::Expr::Unary;
      E.Op = N->Op;
      break;
    case DNode::Binary:
      E.Kind = ir::Expr::Binary;
      E.Op = N->Op;
      break;
    case DNode::Call:
      E.Kind = ir::Expr::Call;
      E.Op = N->Op;
      break;
    }
    for (const DPtr &A : N->Args)
      E.Args.push_back(Convert(A));
    return E;
  };
  for (const Write &W : Writes) {
    ir::Update U;
    U.Target = W.Array;
    U.Accumulate = W.Accumulate;
    U.Value = Convert(W.Value);
    IR.Updates.push_back(std::move(U));
  }

  // Coefficients.
  std::set<std::string> SeenCoef;
  std::function<void(const ir::Expr &)> Coefs = [&](const ir::Expr &E) {
    if (E.Kind == ir::Expr::Coef && SeenCoef.insert(E.Name).second) {
      ir::Coefficient C;
      C.Name = E.Name;
      const ArrayInfo *AI = arrayOf(E.Name);
      C.Kind = AI ? ir::Coefficient::ConstantArray
                  : ir::Coefficient::ConstantScalar;
      C.Type = AI ? typeName(AI->ElemType, Ctx) : IR.ElementType;
      C.Size = AI ? AI->ConstSize : 1;
      if (AI)
        C.Shape = AI->ConstShape;
      IR.Coefficients.push_back(C);
    }
    if (E.Kind == ir::Expr::ParamRef && ScalarParams.count(E.Name) &&
        SeenCoef.insert(E.Name).second) {
      ir::Coefficient C;
      C.Name = E.Name;
      C.Kind = ir::Coefficient::ScalarParam;
      C.Type = IR.ElementType;
      IR.Coefficients.push_back(C);
    }
    for (const ir::Expr &A : E.Args)
      Coefs(A);
  };
  for (const ir::Update &U : IR.Updates)
    Coefs(U.Value);

  // Parameters and their roles.
  for (const ParmVarDecl *P : Kernel.parameters()) {
    ir::Param X;
    X.Name = P->getName().str();
    X.Type = P->getType().getAsString(PrintingPolicy(Ctx.getLangOpts()));
    bool Read = ReadOffsets.count(X.Name), Written = OutputIndex.count(X.Name);
    QualType T = P->getType();
    if (T->isPointerType() || T->isArrayType())
      X.Role = Read && Written ? ir::Param::InOut
               : Written       ? ir::Param::Output
               : Read          ? ir::Param::Input
                               : ir::Param::Other;
    else if (T->isRealFloatingType())
      X.Role = ir::Param::Scalar;
    else if (T->isIntegerType())
      X.Role = ir::Param::Size;
    IR.Params.push_back(std::move(X));
  }
  for (const ir::InputArray &In : IR.Inputs)
    if (Arrays[In.Param].Kind != ArrayKind::Global)
      partial("the array '" + In.Param + "' is not a kernel parameter");

  IR.Notes.assign(Assumptions.begin(), Assumptions.end());
  recordBuildFacts(IR);
  IR.computeDerived();
  bool Understood = HardReasons.empty() && PartialReasons.empty();
  if (!Understood) {
    // The reasons found so far say more than a footprint that lacks the
    // accesses the analysis could not place.
  } else if (IR.Points == 0 && !IR.Outputs.empty()) {
    notStencil("the kernel reads no neighbourhood (a pointwise update, not a "
               "stencil)");
  } else if (IR.Points == 1 && IR.Radius == 0) {
    notStencil("the kernel reads each input at the written point only (a "
               "pointwise update, not a stencil)");
  }
  KA.IR = std::move(IR);
  return Verdict();
}

} // namespace

KernelAnalysis analyzeKernel(const FunctionDecl &Kernel, ASTContext &Ctx,
                             const PreprocessorFacts *PP) {
  // Named constants stay symbols unless the analysis needs their numbers;
  // a constant needed somewhere is a number from the start of the next run,
  // so that every value derived from it agrees. Where that still leaves the
  // kernel less understood than with every constant a number, the numbers
  // win (each one an assumption the launcher checks).
  auto RunWith = [&](const Interpreter::NumericConstants &Numbers,
                     std::set<std::string> &Assumed) {
    Interpreter I(Ctx, Kernel, PP, Numbers);
    KernelAnalysis R = I.run();
    Assumed = I.assumedConstants();
    if (std::map<int, int64_t> Late = I.lateBlockSizes(); !Late.empty()) {
      Interpreter Again(Ctx, Kernel, PP, Numbers, std::move(Late));
      R = Again.run();
      Assumed = Again.assumedConstants();
    }
    return R;
  };
  Interpreter::NumericConstants Numbers;
  std::set<std::string> Assumed;
  KernelAnalysis KA = RunWith(Numbers, Assumed);
  for (int Round = 0; Round < 4; ++Round) {
    if (std::includes(Numbers.Names.begin(), Numbers.Names.end(),
                      Assumed.begin(), Assumed.end()))
      break;
    Numbers.Names.insert(Assumed.begin(), Assumed.end());
    KA = RunWith(Numbers, Assumed);
  }
  if (KA.Result != KernelAnalysis::Stencil && KA.IR &&
      !KA.IR->Constants.empty()) {
    Interpreter::NumericConstants All;
    All.AllNumeric = true;
    KernelAnalysis Numeric = RunWith(All, Assumed);
    if (Numeric.Result == KernelAnalysis::Stencil)
      KA = std::move(Numeric);
  }
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getFileLoc(Kernel.getLocation());
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Loc))) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(FE->getName(), Real))
      Real = FE->getName();
    KA.Pos.File = std::string(Real);
    KA.Pos.Line = SM.getSpellingLineNumber(Loc);
    KA.Pos.Column = SM.getSpellingColumnNumber(Loc);
    KA.Pos.Offset = SM.getFileOffset(Loc);
  }
  if (KA.IR) {
    KA.IR->SourceLine = KA.Pos.Line;
  }
  return KA;
}

} // namespace analysis
} // namespace forgestencil
