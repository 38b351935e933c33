//===- KernelInterpreter.h - The analysis of one kernel, stage by stage ---===//
///
/// \file
/// Internal to lib/Analysis. The facts the analysis collects while it runs a
/// kernel's body on symbolic values (SymbolicValues.h): stores, reads, tile
/// stores, guards, clamps, loops, and the Interpreter that holds them. Its
/// work is split by stage, one file each:
///
///   InterpreterFacts.h  what the run records (stores, reads, loops)
///   Evaluator.cpp       expressions: indices and data values
///   Calls.cpp           calls (builtins, math, helpers, lambdas), members
///   Positions.cpp       grid positions formed from threadIdx and blockIdx
///   Memory.cpp          arrays, pointers and the loads through them
///   NamedConstants.cpp  macros, constexpr, enumerators kept by name
///   Statements.cpp      statements, stores and compound updates
///   Loops.cpp           loops in the kernel; LoopCarry.cpp carried values,
///                       LoopPrefetch.cpp a queue's front loaded for later
///   Guards.cpp          conditions: guards and the iteration domain
///   UniformBranches.cpp mode switches every thread decides alike;
///                       DataBranches.cpp values chosen by tests on data,
///                       DataChosenOffsets.cpp neighbours chosen so
///   Clamps.cpp          boundary clamps (min/max, ternaries) of indices
///   SharedTiles.cpp     __shared__ tiles traced back to their global reads
///   IRBuilder.cpp       axes, strides, offsets and the Stencil IR
///
/// Before it runs, the slicers (Slices.h) take out parts of the kernel that
/// another idiom accounts for (a block reduction, BlockReductions.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_KERNELINTERPRETER_H
#define FORGESTENCIL_LIB_ANALYSIS_KERNELINTERPRETER_H

#include "forgestencil/Analysis/Poly.h"
#include "clang/AST/TypeLoc.h"
#include "forgestencil/Analysis/PreprocessorFacts.h"
#include "forgestencil/Analysis/StencilAnalysis.h"
#include "BlockLoops.h"
#include "Coarsening.h"
#include "HostConstants.h"
#include "InterpreterFacts.h"
#include "PackedFields.h"
#include "Slices.h"
#include "StageHelpers.h"
#include "SymbolicValues.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

using namespace clang;
using llvm::StringRef;

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
              const KernelSlices &Slices, const PreprocessorFacts *PP,
              NumericConstants Numbers, std::map<int, int64_t> BlockSizes = {})
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Kernel(Kernel), Slices(Slices),
        PP(PP), Numbers(std::move(Numbers)), BlockSizes(BlockSizes),
        GivenBlockSizes(std::move(BlockSizes)) {}
  /// The named constants this run needed the numbers of.
  const std::set<std::string> &assumedConstants() const { return NamedAssumed; }

  KernelAnalysis run();
  /// Block sizes a tile loop lacked when it ran, but that the kernel fixes
  /// further on: run again with them. Empty when no second run would help.
  /// The thread dimensions whose block size the kernel needed and did not
  /// fix itself.
  std::set<int> blockSizesWanted() const;
  /// Block sizes given to this run that come from the kernel's launches
  /// (said so in the IR's assumptions).
  void blockSizesFromLaunch(std::set<int> Dims, std::string Where) {
    BlockFromLaunch = std::move(Dims);
    LaunchWhere = std::move(Where);
  }
  /// The threadIdx and blockIdx components the first store's index uses by
  /// themselves ("tid.x" with no blockIdx.x: one block spans the axis; "bid.z"
  /// alone: a block per plane). A run given them takes each as a position.
  std::set<std::string> lonePositionIndices() const;
  void lonePositions(std::set<std::string> Names) { Lone = std::move(Names); }
  /// Block sizes this run wanted for a __shared__ tile and no launch gave,
  /// guessed from the tile's declared extents: the extent along the tile
  /// dimension that threadIdx.D indexes, less the span of the constant
  /// offsets the tile is read at (s[ty + 4 + d][tx] for d in -4..4 in a
  /// tile of 72 rows: 64). A run given them (blockSizesFromTiles) states
  /// each as a block-dim assumption, which the launcher checks.
  std::map<int, int64_t> tileBlockGuesses(std::map<int, std::string> &Why);
  void blockSizesFromTiles(std::map<int, std::string> Why) { TileWhy = std::move(Why); }
  /// Block sizes the kernel indexes blocks by (blockIdx.D * B + threadIdx.D).
  const std::map<int, int64_t> &blockSizes() const { return BlockSizes; }
  /// A run whose blocks have halo threads along these dimensions.
  void haloThreads(std::map<int, HaloThreads> H) { Halo = std::move(H); }
  /// A run that reads these dimensions' block-stride loops with a block of
  /// their span (BlockLoops.h); BlockSizes holds that span.
  void blockLoops(std::map<int, BlockLoopDim> B) { BlockLoops = std::move(B); }
  /// A reading that runs these loops once as thread coarsening (Coarsening.h);
  /// the loops this run unrolled that could be.
  void coarseLoops(std::map<const Stmt *, CoarseLoop> L) { CoarseLoops = std::move(L); }
  const std::map<const Stmt *, CoarseLoop> &coarseLoopsSeen() const { return CoarseSeen; }
  /// Where the runs of one kernel keep what the host sets constant-memory
  /// integers to (a walk of the whole translation unit, done once).
  void hostMultiplesIn(
      std::optional<std::map<const VarDecl *, ConstantMultiple>> *Store) {
    SharedHostMultiples = Store;
  }
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
  /// value the analysis cannot express so; \p IndexRefused then says
  /// whether an index or pointer was among what it carries.
  bool carryValues(const Stmt *Body, const VarDecl *Var, const AxisSym &Loop,
                   bool &IndexRefused);
  /// The statements among the top level of a loop's \p Body that load a
  /// carried variable of \p Carried for a later iteration, the variable
  /// named by no statement after it (LoopPrefetch.cpp), added to
  /// Prefetches: a plain assignment, or an if whose guard on the loop's
  /// variable holds at every iteration but the last (run as unconditional).
  /// execPrefetch runs either without recording its reads.
  std::vector<const Stmt *> tailPrefetches(const Stmt *Body, const AxisSym &Loop,
                                           const std::set<const VarDecl *> &Carried);
  std::set<const Stmt *> Prefetches;
  const Stmt *InPrefetch = nullptr;
  bool execPrefetch(const Stmt *S);
  /// After a loop: the variables its taken prefetches load hold no value.
  void forgetPrefetched(const Stmt *Body);
  void execIf(const IfStmt *If);
  /// A for, while or do statement.
  void execLoopStmt(const Stmt *S);
  /// Runs a loop's body once (one iteration, or the iteration of the axis
  /// symbol): in its top-level block, if (c) continue; skips the rest of
  /// the body where c holds, a guard for what follows it. A break or
  /// continue anywhere else is not followed (partial).
  void execLoopBody(const Stmt *Body);
  /// The body execLoopBody runs now.
  const Stmt *LoopBody = nullptr;
  static const IfStmt *continuingIf(const Stmt *S);
  const IfStmt *returningIf(const Stmt *S);
  /// If's condition with its then-block less its return, and the
  /// statements [From, To) as its else.
  const IfStmt *withRestAsElse(const IfStmt *If,
                               CompoundStmt::const_body_iterator From,
                               CompoundStmt::const_body_iterator To);
  /// Whether the statement being run is the thread's last one: nothing
  /// runs after it (not in a loop, nor before another statement).
  bool Tail = false;
  /// The negations withRestAsElse made (no source text of their own).
  std::set<const Expr *> Negations;
  /// out[c] = inner ? <stencil> : u[c]; as if (inner) out[c] = <stencil>;
  /// else out[c] = u[c]; where the test bounds the position and neither
  /// side is a literal (Frames.cpp): a boundary frame; null for anything
  /// else.
  const IfStmt *ternaryStoreAsIf(const Stmt *S);
  std::map<const Stmt *, const IfStmt *> TernaryIfs;
  /// Conditions made for a switch's cases (Switches.cpp), with the text
  /// they stand for (`order == 4`), and each switch's chain (or why it has
  /// none), made once however often the switch runs.
  std::map<const Expr *, std::string> SwitchConds;
  std::map<const SwitchStmt *, std::pair<const Stmt *, std::string>>
      SwitchChains;
  /// switch (c) { case A: ...; break; ... default: ...; } as the chain
  /// if (c == A) { ... } else if ... else { ... }, or null (with Why) for
  /// a switch that falls through from one case into the next, breaks out
  /// from inside a case, or has ranges or declarations the chain would
  /// not keep.
  const Stmt *switchAsIfs(const SwitchStmt *S, std::string &Why);
  Value compound(const Value &L, const Value &R, BinaryOperatorKind Op,
                 const Expr *LHS, const Expr *RHS);
  /// Pre: the value of RHS, already evaluated (an if/else turned into one
  /// guarded store).
  void assign(const Expr *LHS, const Expr *RHS, BinaryOperatorKind Op,
              bool IsCompound, const Value *Pre = nullptr);
  /// The store to Array[Index] whose value a load of that element by this
  /// thread gets, without reading memory; null when memory decides.
  const Write *forwardedStore(const std::string &Array,
                              const Poly &Index) const;
  /// What Array[Index] holds before a store that replaces or combines with
  /// it: this thread's earlier store (taken out of Writes, the new store
  /// replaces it), else, with FromMemory, a read of the element (recorded);
  /// else null.
  DPtr priorValue(const std::string &Array, const Poly &Index, bool FromMemory);

  // Expressions.
  Value eval(const Expr *E);
  Value evalBinary(const BinaryOperator *B);
  Value evalCall(const CallExpr *C);
  Value mul24(const CallExpr *C);
  /// Grid dimensions whose blockIdx a __mul24 multiplies: the variant runs
  /// only where the grid has at most 2^23 blocks along them.
  std::set<int> GridDimMax24;
  Value valueOf(const VarDecl *VD);
  /// The parameters the kernel assigns (src += off), in Env from the start.
  void seedAssignedParameters();
  std::optional<Value> scalarParam(const std::string &Name, QualType T);
  Value evalSubscriptBase(const Expr *E);
  Value load(const Value &Ptr, QualType T, bool Ldg);
  DPtr asData(const Value &V, const Expr *Where);
  Value builtinIndex(const Expr *E);
  Value castPointer(Value V, QualType To);
  Value member(const MemberExpr *M);
  Value structMember(const ParmVarDecl *P, const MemberExpr *M);
  /// Member \p M of the file-scope `__constant__` struct \p V (`g.nx`,
  /// `g.dt`): parameters the app copied to the device.
  Value constantMember(const VarDecl *V, const MemberExpr *M);
  /// The kernel's struct parameter (passed by value) that Arg, an argument
  /// of a helper call, is or stands for; null for anything else.
  const ParmVarDecl *kernelStruct(const Expr *Arg) const;
  /// The arguments of the call \p C to the helper \p Def bound to its
  /// parameters: a struct the kernel takes stands for that parameter
  /// (\p Aliases), anything else is its value at the call (\p Bound).
  /// \p First is 1 for a lambda's call operator (argument 0: the closure).
  void bindHelperArgs(
      const CallExpr *C, const FunctionDecl *Def, unsigned First,
      std::vector<std::pair<const VarDecl *, Value>> &Bound,
      std::map<const ParmVarDecl *, const ParmVarDecl *> &Aliases);
  /// The helper a call runs inline: an inline __device__ (or constexpr)
  /// function with a body, or a lambda defined in the kernel, with its
  /// copies (LambdaCopies); First is 1 for a lambda's call operator
  /// (argument 0: the closure).
  struct InlineHelper {
    const FunctionDecl *Def = nullptr;
    unsigned First = 0;
    const std::map<const VarDecl *, Value> *Copies = nullptr;
  };
  /// The helper \p C runs inline, if any; where none, \p Why says why when
  /// there is more to say than that it is a call (a lambda not defined in
  /// the kernel).
  std::optional<InlineHelper> inlineHelper(const CallExpr *C,
                                           std::string &Why) const;
  /// While it lives, the body of the helper \p H is in scope: the call's
  /// arguments bound to its parameters (bindHelperArgs), a lambda's copies
  /// visible, the struct aliases in force; at its end the caller's
  /// environment and aliases are back.
  class HelperScope {
  public:
    HelperScope(Interpreter &I, const CallExpr *C, const InlineHelper &H);
    ~HelperScope();
    HelperScope(const HelperScope &) = delete;
    HelperScope &operator=(const HelperScope &) = delete;
    /// The caller's environment at the call.
    const std::map<const VarDecl *, Value> &callerEnv() const { return Saved; }
    /// The values the parameters were bound to.
    const std::vector<std::pair<const VarDecl *, Value>> &bound() const {
      return Bound;
    }

  private:
    Interpreter &I;
    std::map<const VarDecl *, Value> Saved;
    std::vector<std::pair<const VarDecl *, Value>> Bound;
    std::map<const ParmVarDecl *, const ParmVarDecl *> Aliases;
    const ParmVarDecl *SavedThisStruct = nullptr;
    std::optional<Value> SavedThisRecord;
  };
  /// The local struct variable \p E names (a variable whose value in
  /// \p In is a struct value), if any.
  const VarDecl *localStruct(const Expr *E,
                             const std::map<const VarDecl *, Value> &In) const;
  /// Member \p Field of the local struct \p VD (localStruct) set to \p V.
  void setMember(const VarDecl *VD, const std::string &Field, Value V);
  /// A struct value built in the kernel: empty (int3 t;), a copy, or an
  /// initializer list; none for any other expression (Evaluator.cpp).
  std::optional<Value> recordValue(const Expr *E);
  /// A helper's struct parameters bound to the kernel's (by value or by
  /// reference), while the helper runs.
  std::map<const ParmVarDecl *, const ParmVarDecl *> StructAliases;
  /// While a member function of a struct runs inline (a functor's
  /// operator(), op.eval(...)): the kernel's struct parameter it was called
  /// on, or the value of the local struct it was called on; `this->a` (or
  /// plain `a`) in its body is that struct's member.
  const ParmVarDecl *ThisStruct = nullptr;
  std::optional<Value> ThisRecord;
  unsigned elementBytes(const std::string &Array);

  // __shared__ tiles.
  ThreadCond threadCond(const Expr *Cond);
  std::optional<Poly> comparedDifference(const BinaryOperator *B);
  void resolveSharedReads(DPtr &N);
  void recordReads(const DPtr &N, bool Carried = false);
  /// Drops the reads of values a loop carried into an iteration that no
  /// store's value uses (ReadRecord::Carried).
  void dropUnusedCarriedReads();
  /// Only: the reading threads to trace for (all where empty); a null
  /// DPtr where none of them reads.
  using ThreadFilter = std::function<bool(const std::array<int64_t, 3> &)>;
  std::optional<DPtr> traceTileRead(const DNode &Read, std::string &Why,
                                    const ThreadFilter &Only = {});
  /// Values chosen by the thread's place in its block (ThreadChoices.cpp).
  std::vector<ThreadCond> ThreadChoices;
  std::optional<Value> threadChosenValue(const ConditionalOperator *CO);
  std::optional<DPtr> resolveThreadSelect(const DPtr &N, const ThreadFilter &Only,
                                          std::string &Why);
  /// What traceTileRead works out once a tile (its stores, resolved) and
  /// once a tile and a range of storing threads (which thread stores which
  /// element), for all the tile's reads: the stores are all made by then.
  struct TileStores;
  struct TileRuns;
  const TileStores &tileStores(const std::string &Tile);
  const TileRuns &tileRuns(const std::string &Tile, const TileStores &S,
                           const std::array<int64_t, 3> &WLo,
                           const std::array<int64_t, 3> &WHi);
  std::map<std::string, std::shared_ptr<TileStores>> TileStoresOf;
  std::map<std::pair<std::string, std::array<int64_t, 6>>,
           std::shared_ptr<TileRuns>>
      TileRunsOf;
  /// A tile read whose readers (their place in the block, what each sees)
  /// see one global read, but a period apart beyond the ends of an axis the
  /// block spans alone: that read wrapped (TileImages.cpp); nullopt where
  /// the readers differ otherwise.
  std::optional<DPtr> periodicTileImage(
      const std::string &Tile,
      const std::vector<std::pair<std::array<int64_t, 3>, DPtr>> &Seen,
      const std::array<int64_t, 3> &RLo, const std::array<int64_t, 3> &RHi);

  // Conditions.
  bool readsData(const Expr *Cond);
  /// After an if whose sides ran from the same state: each variable the
  /// sides leave with different values gets one that holds on both, or
  /// none (an unknown value with the reason).
  /// \p Uniform: the condition as a node when it holds alike for every
  /// thread (uniformCondition); the sides' values then merge into a select.
  void mergeBranches(
      const Expr *Cond, const std::map<const VarDecl *, Value> &EnvBefore,
      const std::map<const VarDecl *, Value> &EnvThen,
      const std::map<std::string, std::map<int64_t, Value>> &ElemsThen,
      const DPtr &Uniform = nullptr);

  // Uniform branches (UniformBranches.cpp).
  /// The condition as a node over integer parameters (or fields of a struct
  /// passed by value), named constants and literals: one every thread of a
  /// launch decides alike (if (swp_nmbr == 1)); null for anything else.
  DPtr uniformCondition(const Expr *Cond);
  /// Whether every symbol of P holds alike for every thread of a launch: an
  /// integer kernel parameter, a field of a struct parameter passed by value,
  /// a named constant or an integer __constant__ variable.
  bool uniformPoly(const Poly &P) const;
  /// if (uniform) A else B: both sides run from the same state and each
  /// element they store becomes a select of the two values (for a side
  /// that does not store it, the value it keeps). \p Data: the condition
  /// reads loaded data, so a store on one side only or to a tile is none.
  void execUniformIf(const IfStmt *If, const DPtr &Cond, bool Data = false);
  /// A mode switch one of whose sides has a barrier (the block's threads
  /// work together), the other none: runs the other side alone and records
  /// the mode it assumes (true), or nothing.
  bool specialiseMode(const IfStmt *If, const DPtr &Cond);
  /// " (in the modes where ...)" for a verdict on the modes kept, or "".
  std::string modesNote() const;

  // Data-dependent branches (DataBranches.cpp).
  /// The condition as a node comparing data values (loads and what is
  /// computed from them) with each other or with integer literals, under
  /// && || !: a limiter's test (if (diffuw * diffdw > 0.0)); null for
  /// anything else, e.g. a comparison with the thread's position.
  DPtr dataCondition(const Expr *Cond);
  /// double pos = a > 0; (a test on the data): cond ? 1.0 : 0.0, else nullopt.
  std::optional<Value> comparisonAsNumber(const ImplicitCastExpr *C);
  /// int k = u * 10;: still data (an index from it is a gather) in a node
  /// the IR cannot state (WholeNumberOp). nullopt for other conversions.
  std::optional<Value> toWholeNumber(const CastExpr *C, const Value &V);
  /// c ? a : b between two values (MAX(a, b) spelled as a ternary, a
  /// weight chosen by a mode parameter), c a test on loaded data or one
  /// every thread decides alike: a select; nullopt for anything else.
  std::optional<Value> selectedValue(const ConditionalOperator *CO);

  // Offsets chosen by the data (DataChosenOffsets.cpp).
  /// An offset a test on loaded data chooses (if (flux > 0) donor = -1;
  /// else donor = 0;): an index symbol "sel#N" standing for Cond ? Then :
  /// Else, where Then and Else are numbers or other such choices.
  struct Choice {
    DPtr Cond;
    Poly Then, Else;
  };
  std::vector<Choice> Choices;
  /// The choice after \p Cond between the integer values \p T and \p E,
  /// or nullopt when either is not a number or a choice.
  std::optional<Value> chosenOffset(const DPtr &Cond, const Value &T,
                                    const Value &E);
  /// The first choice symbol \p P mentions, or nullopt.
  std::optional<std::string> choiceIn(const Poly &P) const;
  /// A load at an index that mentions a choice: the select, under the
  /// choice's condition, of the loads at each of its values.
  Value loadChosen(const Value &Ptr, QualType T, bool Ldg,
                   const std::string &Symbol);
  /// Why a choice reached a store, a guard or a value of the update (which
  /// only reads may take); "" when none did.
  std::string whereChoiceLeaks() const;
  /// A condition named by a bool local (bool valid = i < n && j < m;
  /// if (!valid) return;): its initializer, the values the locals it reads
  /// had at the declaration and, for a flag cleared by ifs of its block
  /// (if (i >= n) valid = false;, ClearIfs), the tests run so far (Clears).
  struct NamedCondition {
    const Expr *Init = nullptr;
    std::vector<std::pair<const VarDecl *, Value>> Inputs;
    std::set<const IfStmt *> ClearIfs;
    std::vector<const Expr *> Clears;
  };
  std::map<const VarDecl *, NamedCondition> NamedConditions;
  /// Records VD (a bool local with an initializer, only read after it or
  /// cleared so) as a named condition; clearsFlag runs a clearing if.
  void noteNamedCondition(const VarDecl *VD);
  bool clearsFlag(const IfStmt *If);
  /// E, or, where E names a condition whose inputs still hold the values
  /// they had, its initializer (a flag cleared since stays E: conjunction).
  const Expr *namedCondition(const Expr *E) const;
  bool guardConstraints(const Expr *Cond, bool Negate,
                        std::vector<Constraint> &Out);
  bool conjunction(const Expr *Cond, bool Negate,
                   const std::function<bool(const BinaryOperator *, bool)> &Leaf);
  /// A call of a helper whose body is only `return <condition>;` (a bool
  /// function such as `inside(i, j, nx, ny)`): Fn of that condition, run
  /// with the call's arguments bound to the helper's parameters; none for
  /// any other expression (Guards.cpp).
  std::optional<bool>
  inHelperCondition(const Expr *E, const std::function<bool(const Expr *)> &Fn);
  bool comparison(const Expr *E, bool Negate, std::vector<Constraint> &Out);
  static bool mayWrapNegative(const Poly &P);
  bool orderConstraint(const Poly &D, BinaryOperatorKind Op,
                       std::vector<Constraint> &Out);

  // Finalisation.
  /// The IR's named constants and the assumptions its launcher must check.
  void recordBuildFacts(ir::StencilIR &IR);
  void scanForNonStencilCalls(const Stmt *S);
  void applySplits();
  /// mod[X|A] or div[X|A] (\p Div), the split recorded (IdSplits.cpp).
  Poly registerSplit(const Poly &X, const Poly &A, bool Div);
  /// \p P with every X - A*div[X|A] of a recorded split as mod[X|A].
  Poly foldSplitRemainders(const Poly &P);
  /// mod[X|a] split again by \p B, a divisor of a: mod[X|B] (remainder) or
  /// mod[div[X|B]|a/B] (quotient); none otherwise.
  std::optional<Poly> nestedSplit(const Poly &L, const Poly &B, bool Div);
  KernelAnalysis finish();
  /// The IR's coefficients, from its updates, and its parameters with their
  /// roles (IRSignature.cpp).
  void stateCoefficients(ir::StencilIR &IR);
  void stateParams(ir::StencilIR &IR,
                   const std::function<bool(const std::string &)> &IsRead,
                   const std::function<bool(const std::string &)> &IsWritten);
  std::string text(const Expr *E) const;
  void partial(ReasonKind K, const std::string &Why) {
    PartialReasons.insert({K, Why});
  }
  void notStencil(ReasonKind K, const std::string &Why) {
    HardReasons.insert({K, Why});
  }
  ArrayInfo *arrayOf(const std::string &Name);
  /// Why no generator may build \p IR: an array holds another element type
  /// than the stencil's (typedefs resolved); empty when all agree.
  std::string mixedElementTypes(const ir::StencilIR &IR);

  ASTContext &Ctx;
  SourceManager &SM;
  const FunctionDecl &Kernel;
  /// The parts of the kernel the slicers account for (Slices.h): not run.
  /// Found once per kernel (analyzeKernel), whatever the number of runs.
  const KernelSlices &Slices;
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
  unsigned LastScope = 0;              // the last ThreadCond::Scope given
  /// Enters a branch under C (a fresh Scope); leaveCond() leaves it.
  void enterCond(const ThreadCond &C) {
    ActiveConds.push_back(C);
    ActiveConds.back().Scope = ++LastScope;
  }
  void leaveCond() { ActiveConds.pop_back(); }
  /// The Scope of each enclosing if condition, outermost first.
  std::vector<unsigned> condScopes() const {
    std::vector<unsigned> S;
    for (const ThreadCond &C : ActiveConds)
      S.push_back(C.Scope);
    return S;
  }
  /// Whether \p Scopes (a condScopes() of earlier) are the enclosing if
  /// conditions now; no copy, as every load asks.
  bool underScopes(const std::vector<unsigned> &Scopes) const {
    return std::equal(Scopes.begin(), Scopes.end(), ActiveConds.begin(),
                      ActiveConds.end(), [](unsigned S, const ThreadCond &C) {
                        return S == C.Scope;
                      });
  }
  std::vector<SharedStore> SharedStores;
  /// Halo threads by dimension (HaloThreads.cpp), and how many of the
  /// enclosing conditions let only the computing threads through.
  std::map<int, HaloThreads> Halo;
  unsigned HaloComputing = 0;
  /// Whether the thread T of the block computes (not a halo thread).
  bool haloComputes(const std::array<int64_t, 3> &T) const;
  /// With halo threads: Cond holds exactly for the threads that compute
  /// (true), exactly for the others (false), or neither, or cannot be
  /// decided on threadIdx alone (nullopt).
  std::optional<bool> selectsComputingThreads(const ThreadCond &Cond);
  /// The range of each thread dimension of the block, [Lo, Hi): the
  /// computing threads only (Readers) or all of them.
  void blockRange(std::array<int64_t, 3> &Lo, std::array<int64_t, 3> &Hi,
                  bool Readers) const;
  std::map<int, int64_t> BlockSizes; // blockDim assumed from bid*B + tid
  std::set<std::string> Lone;         // tid.D / bid.D taken as positions
  std::map<int, int64_t> GivenBlockSizes; // BlockSizes at construction
  /// Dimensions read with a block of their loops' span, and how deep the
  /// run is in such loops (BlockLoops.h); blockLoopLeast: a block of at least
  /// that many threads along D does what the run's block does outside the
  /// loops; nullopt where that cannot be told (BlockLoops.cpp).
  std::map<int, BlockLoopDim> BlockLoops;
  unsigned InBlockLoop = 0;
  std::map<int, int64_t> BlockLoopLeast; // what blockLoopLeast found
  std::optional<int64_t> blockLoopLeast(int D, std::string &Why) const;
  // Thread coarsening (Coarsening.h): the loops to run once, those seen, the
  // one running, and the points per thread of the axes it made.
  std::map<const Stmt *, CoarseLoop> CoarseLoops, CoarseSeen;
  std::vector<const CoarseLoop *> ActiveCoarse;
  std::map<int, int64_t> Coarsened;
  /// The coarsening reading of a loop whose round s has the variable
  /// First + s * Step.
  void runCoarse(const VarDecl *Var, const Stmt *Body, const CoarseLoop &L,
                 int64_t First, int64_t Step);
  /// A block's chunk of an axis walked by each thread (ChunkedLoops.cpp):
  /// true where the loop was taken (read or refused with the reason).
  bool chunkLoop(const VarDecl *Var, const Value &Init, const BinaryOperator *Cond,
                 const Value &Bound, const Value &Step, const Stmt *Body,
                 const BinaryOperator *Also = nullptr);
  std::map<int, std::string> ChunkWhy; ///< Why blockDim is 1 there.
  /// A chunk loop whose body carries values: run as a loop over an axis
  /// from Start to End, its symbol then the position G plus Shift in what
  /// it stored, read and clamped (Writes from W0, ClampInfos from C0); the
  /// reason where not ("-" where carryValues gave it).
  std::string runCarried(const VarDecl *Var, const Stmt *Body, const Poly &Start,
                         const Poly &End, const std::optional<Poly> &Upper,
                         const std::string &G, const Poly &Shift, size_t W0, size_t C0);
  std::set<int> BlockSizeWanted;     // by a tile loop, before it was known
  std::set<int> BlockFromLaunch;     // block sizes a launch gave
  std::string LaunchWhere;           // which launches
  std::map<int, std::string> TileWhy; // block sizes guessed from a tile
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
  /// Pos kept at most (Upper) or at least Bound: Pos plus a clamp symbol.
  Value clampOf(bool Upper, const Value &Pos, const Value &Bound,
                const std::string &Text);
  /// c ? p : b (or c ? b : p) that chooses exactly as max(p, b), min(p, b)
  /// or a periodic wrap (choiceWrap) does; nullopt for any other choice.
  std::optional<Value> ternaryClamp(const ConditionalOperator *CO);
  /// c ? a[i] : a[j], a test on positions choosing between two elements of
  /// one array (x > 0 ? in[x - 1] : in[x]): the element a[c ? i : j], read
  /// through the clamp or wrap ternaryClamp makes of the index choice.
  std::optional<Value> readChoice(const ConditionalOperator *CO);
  /// What a variable holds after if (Cond) when one side left it the other
  /// side's value plus or minus a term (if (r >= 0 && r < h) sum += w *
  /// in[r * nx + c];): that sum with the term's global reads guarded by
  /// Cond, as a guarded load's are (the IR uses them only where the domain
  /// never fails the test; a zero boundary stays partial). Cond must bound
  /// positions only.
  std::optional<Value> guardedAccumulation(const Expr *Cond, const Value &Then,
                                           const Value &Else);
  /// The same choice with the comparison's operands \p L, \p R and the
  /// values \p T (where it holds) and \p F already evaluated: also an
  /// if (c) v = t; that leaves v as it was where c does not hold.
  std::optional<Value> choiceClamp(const BinaryOperator *Cmp, const Value &L,
                                   const Value &R, const Value &T,
                                   const Value &F, const std::string &Text);
  /// c ? a : b, a and b numbers, c comparing a position p with a bound: the
  /// offset (c ? p + a : p + b) - p where that is a clamp or a wrap.
  std::optional<Value> offsetChoice(const BinaryOperator *Cmp, const Value &L,
                                    const Value &R, const Value &T,
                                    const Value &F, const std::string &Text);
  /// c ? x : x + m*s, x a linear index: x moved by s, the stride of the
  /// compared p, times the equality clamp c ? p : p + m.
  std::optional<Value> linearChoice(const BinaryOperator *Cmp, const Value &L,
                                    const Value &R, const Value &T,
                                    const Value &F, const std::string &Text);
  /// choiceClamp, else choiceWrap, else linearChoice: the index a test on
  /// positions chooses between two evaluated indices (an if that moves a
  /// position local, a choice between two elements of one array).
  std::optional<Value> positionChoice(const BinaryOperator *Cmp, const Value &L,
                                      const Value &R, const Value &T,
                                      const Value &F, const std::string &Text);

  // Periodic boundaries (Wraps.cpp).
  std::set<std::string> Wraps; // wraps of an index, as written
  /// (p + o + k*n) % n, k >= 0 a number: p + o wrapped into [0, n - 1] on
  /// the upper side, and on the lower side too where k > 0; nullopt for any
  /// other remainder (a 1-D id split, whose offset is 0).
  std::optional<Value> remainderWrap(const Value &L, const Value &R,
                                     const std::string &Text);
  /// c ? p : w (or c ? w : p) where w is p moved by a period (i + 1 >= n ?
  /// i + 1 - n : i + 1) or the other end of the interval (i == 0 ? n - 1 :
  /// i - 1), chosen exactly where p leaves the interval, over evaluated
  /// values as choiceClamp; nullopt else.
  std::optional<Value> choiceWrap(const BinaryOperator *Cmp, const Value &L,
                                  const Value &R, const Value &T,
                                  const Value &F, const std::string &Text);
  /// Pos plus a fresh symbol for the wrap W (Arg taken from Pos).
  Value wrapOf(ClampInfo W, const Value &Pos, const std::string &Text);
  /// Along axis \p A, whose reads \p Uses went through the wraps in their
  /// sets: sets the IR axis' wrap bounds (and the assumption that the period
  /// covers the reach) or says why the reads are no periodic boundary.
  struct BoundaryUse {
    std::string Array;
    ir::Offset O;
    /// The wraps acting on this read along A, with the read's offset from
    /// the axis symbol before the store's shift.
    std::vector<std::pair<int64_t, const ClampInfo *>> Wraps;
    /// The reader's coordinate along A where the read is one thread's of a
    /// block that spans A alone (a tile's periodic image, TileImages.cpp).
    std::optional<int64_t> At = std::nullopt;
  };
  std::string wrappedAxis(ir::StencilIR &IR, size_t A,
                          const std::vector<BoundaryUse> &Uses,
                          const Poly &DLo, const Poly &DLast);
  /// c ? v : fill (or c ? fill : v) with fill a constant and c bounds on
  /// positions (a load kept inside the array): v, its reads guarded by c.
  std::optional<Value> guardedLoad(const ConditionalOperator *CO);
  std::optional<Value> guardedValue(const Expr *Cond, const Expr *TrueE,
                                    const Expr *FalseE);
  bool positionGuards(const Expr *Cond, bool Negate,
                      std::vector<PosGuard> &Out);
  /// Why some guarded read of the update would take its fill value at a
  /// point of the domain ([TLo, THi) along each axis symbol); "" if none.
  /// A guard that holds on the whole domain only under a condition over
  /// the kernel's parameters adds that condition to Checked (a `holds`
  /// assumption the launcher checks).
  std::string guardedReadsHold(const std::vector<std::string> &AxisSyms,
                               const std::vector<std::optional<Poly>> &TLo,
                               const std::vector<std::optional<Poly>> &THi,
                               std::vector<ir::Assumption> &Checked);
  /// Where guardedReadsHold finds a fill taken on the domain (\p FillWhy):
  /// the zero boundary the guards make of the reads, its bounds set on IR's
  /// axes (ZeroBoundaries.cpp); else a partial reason, about the boundary
  /// when every guard the domain can fail was a zero fill, else FillWhy.
  void zeroBoundaries(
      ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
      const ir::Offset &Shift, const std::vector<std::optional<Poly>> &TLo,
      const std::vector<std::optional<Poly>> &THi,
      const std::function<std::optional<ir::Offset>(const Poly &,
                                                    std::string &)> &OffsetOf,
      const std::string &FillWhy);
  /// A partial reason for each axis with a zero boundary that is also
  /// clamped or wrapped.
  void oneBoundaryKind(const ir::StencilIR &IR);
  /// L == R ? AtEq : Pos as a clamp of Pos (Clamps.cpp).
  std::optional<Value> equalityClamp(const Value &L, const Value &R,
                                     const Value &AtEq, const Value &Pos,
                                     const std::string &Text);
  /// Fills the clamp bounds of IR's axes from the clamps the update's reads
  /// went through; the reason when they are not a replicated boundary.
  /// OwnOffsetOf places a read of an array of its own layout and gives that
  /// layout's strides, against which its clamps are checked.
  std::string clampedBounds(
      ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
      const std::vector<Poly> &Strides, const ir::Offset &Shift,
      const std::vector<std::optional<Poly>> &TLo,
      const std::vector<std::optional<Poly>> &THi,
      const std::function<std::optional<ir::Offset>(const Poly &,
                                                    std::string &)> &OffsetOf,
      const std::function<std::optional<ir::Offset>(
          const Poly &, std::vector<Poly> &)> &OwnOffsetOf);
  // Boundary frames (Frames.cpp).
  /// The stores of the other side of an if whose one side bounds the
  /// domain (if (interior) <stencil>; else <boundary values>;), and the
  /// conditions they came from.
  std::vector<Write> FrameWrites;
  std::vector<std::string> FrameConds;
  /// Runs \p Frame, one side of such an if, and keeps its stores apart.
  void execFrameSide(const Stmt *Frame, const ThreadCond &C, const Expr *Cond);
  /// Fills IR.Frame from FrameWrites: the box their guards give around the
  /// domain [TLo, THi) and their values; the reason when they are no frame
  /// of boundary values.
  std::string frameOf(
      ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
      const std::vector<std::optional<Poly>> &TLo,
      const std::vector<std::optional<Poly>> &THi,
      const std::function<Poly(size_t)> &ShiftOf,
      const std::function<std::optional<ir::Offset>(const Poly &,
                                                    std::string &)> &OffsetOf,
      const std::function<ir::Expr(const DPtr &)> &Convert);
  std::map<std::string, Split> Splits;
  std::vector<AxisSym> LoopAxes;
  std::set<std::string> GridStrideSyms;
  std::set<std::string> ScalarParams;
  std::set<Reason> PartialReasons, HardReasons;
  /// What the analysis had to assume; becomes the IR's notes.
  std::set<std::string> Assumptions;

  // Named compile-time constants (macros, constexpr variables, enumerators).
  /// A named constant the kernel spells, by its Poly symbol (its C spelling).
  struct NamedValue {
    ir::NamedConstant Info;
    std::optional<int64_t> Int; ///< Integer constants' value.
  };
  std::map<std::string, NamedValue> Named;
  /// Integer __constant__ variables read as symbols (d_yline_1): set by
  /// the host, the same for every thread of a launch.
  std::set<std::string> ConstantSymbols;
  /// The declared type of each floating-point `__constant__` scalar (or
  /// member of a `__constant__` struct) the update reads, by name: a
  /// `double` symbol in a `float` kernel is set as a `double`.
  std::map<std::string, QualType> ConstantScalarTypes;
  /// Global arrays of integers the kernel loads (image pixels, flags):
  /// data where used as numbers, an indirect access where used as an index
  /// (indirectIndex), and the reason a kernel that is not a stencil
  /// otherwise is not one either way (finish()).
  std::set<std::string> IntegerLoads;
  /// Where \p V, used as an index, is an integer loaded from memory: the
  /// kernel is no stencil (an indirect access), said once; true then.
  bool indirectIndex(const Value &V);
  /// The kernel is no stencil: it indexes by integers loaded from \p Array.
  void loadedIndex(const std::string &Array);
  /// The integer __constant__ variables the host always sets to a multiple
  /// of another (HostConstants.h), found on first use: in the store the
  /// runs of one kernel share (hostMultiplesIn), else in this run's own.
  using HostMultipleMap = std::map<const VarDecl *, ConstantMultiple>;
  std::optional<HostMultipleMap> OwnHostMultiples;
  std::optional<HostMultipleMap> *SharedHostMultiples = nullptr;
  const HostMultipleMap &hostMultiples() {
    std::optional<HostMultipleMap> &M =
        SharedHostMultiples ? *SharedHostMultiples : OwnHostMultiples;
    if (!M)
      M = constantMultiples(Ctx);
    return *M;
  }
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
  /// V (a value of type From) as a value of type To: where both are
  /// floating types that differ, the conversion the original makes (an
  /// exact literal where clang folds Whole, a to_float/to_double node
  /// otherwise). Other values are returned as they are.
  Value convertedTo(const Value &V, QualType To, QualType From,
                    const Expr *Whole);
  /// A local array's elements from its initializer list, as variables.
  void initLocalArray(const VarDecl *VD);
  std::optional<std::string> wholeMacro(const Expr *E, std::string &DefinedAt);
  void noteArraySizeMacros(const DeclaratorDecl *D);
  void noteArraySizeMacros(TypeLoc TL);
  /// The named constants in the array types written for the base of a
  /// subscript that steps by a row (u[j][i] with u a float (*)[N], declared
  /// so, a parameter float u[][N], or cast so where it is declared or
  /// used): compile-time assumptions, as the rows' sizes are numbers.
  void noteWrittenRowSizes(const Expr *Base, unsigned Depth = 0);
  void noteSizeMacros(const Expr *E);
  /// P with every named constant replaced by its number, each one recorded
  /// as assumed; Only limits it to the constants Only accepts.
  Poly resolved(const Poly &P,
                const std::function<bool(const std::string &)> &Only = nullptr);
  /// C with the named constants of its comparisons resolved (resolved()),
  /// so that it can be decided thread by thread on numbers.
  ThreadCond resolvedCond(const ThreadCond &C) {
    ThreadCond R = C;
    R.D = resolved(C.D);
    for (ThreadCond &A : R.Args)
      A = resolvedCond(A);
    return R;
  }
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
  /// One frame per inline helper being run: where its return went.
  struct HelperFrame {
    bool Returned = false;
    Value Result;
    QualType ReturnType; ///< What a returned value converts to.
    /// Earlier returns under a test: where Cond holds (fails if Negated).
    struct Chosen {
      DPtr Cond;
      bool Negated = false;
      Value Result;
      size_t WritesBefore = 0, SharedBefore = 0;
    };
    std::vector<Chosen> Earlier;
  };
  std::vector<HelperFrame> Frames;
  /// An if with a return in an inline helper (HelperReturns.cpp): a test on
  /// the data or parameters is a choice, anything else an unknown value.
  void execHelperReturnIf(const IfStmt *If);
  bool helperReturnChosen(const IfStmt *If);
  /// The helper's last return with the earlier chosen ones around it.
  Value helperResult(const HelperFrame &F, const std::string &Name);
  /// The value Cond has whatever the thread, when it has one (a helper's
  /// if (dim == 0) for a constant argument, do { } while (0), #define'd
  /// switches): only the branch it takes is run.
  std::optional<bool> constantCondition(const Expr *Cond);
  /// Whether S contains a return statement.
  static bool containsReturn(const Stmt *S);
  unsigned Barriers = 0;       // __syncthreads() calls so far
  bool ReadsLost = false; // a tile read, or a load, could not be traced
  /// The modes the IR describes (UniformBranches.cpp): a branch every
  /// thread of a launch takes alike whose other side is not a stencil.
  std::vector<ir::Assumption> Modes;
  /// Other facts of the parameters the IR rests on, checked by the launcher.
  std::vector<ir::Assumption> Checked;
  /// A z loop with its first and last planes peeled, as one update
  /// (PeeledPlanes.cpp); unchanged where the planes are not the loop's.
  void mergePeeledPlanes();
  /// Packed fields (PackedFields.cpp): the upper bounds on the position
  /// \p Slow of the slowest axis (guards, a loop's bound, a split's
  /// modulus) that are over parameters; and the field of a relative index
  /// \p Rel (its rest a whole number of elements along each axis) that
  /// counts planes past those bounds, the coordinate moved by \p Shift
  /// along the slowest axis (none: the rest's own offset, for the main
  /// store), counting the constant planes too where the plain count is not
  /// past them and \p Whole (splitField); nullopt when it has none.
  std::vector<Poly> slowestUppers(const std::vector<Constraint> &Guards,
                                  const std::string &Slow);
  std::optional<FieldSplit> fieldOf(const Poly &Rel, const std::vector<Poly> &Strides,
                                    const std::vector<Poly> &Uppers,
                                    std::optional<int64_t> Shift, bool Whole);
  /// The offset of \p Rel in one of the fields (PackedFields.h): a known
  /// field first, then a new one (remembered when a store's); \p Field is
  /// set to it. nullopt when it lies in none.
  std::optional<ir::Offset> placeInField(const Poly &Rel, const std::vector<Poly> &Strides,
                                         FieldState &Fields, int64_t Shift, Poly &Field);
  /// Calls with an effect outside the arrays (printf, assert), by name,
  /// and the helpers already searched for them.
  std::vector<std::string> DeviceCalls;
  std::set<const FunctionDecl *> HelpersScanned;
  /// Everything interpreting a statement changes, to run it and take it
  /// back (a loop body's trial run, a mode's side that is not kept).
  auto snapshot() const {
    return std::make_tuple(
        Env, Arrays, LocalElems, Writes, FrameWrites, Reads, Guards,
        ActiveConds, SharedStores, BlockSizes, BlockSizeWanted, ThreadFns,
        ThreadFnIds, Clamps, Wraps, ClampInfos, Splits, LoopAxes,
        GridStrideSyms, PartialReasons, HardReasons, Assumptions, Returned,
        Barriers, ReadsLost, Modes, NamedAssumed, HaloComputing);
  }
  template <class Snapshot> void restore(const Snapshot &S) {
    std::tie(Env, Arrays, LocalElems, Writes, FrameWrites, Reads, Guards,
             ActiveConds, SharedStores, BlockSizes, BlockSizeWanted, ThreadFns,
             ThreadFnIds, Clamps, Wraps, ClampInfos, Splits, LoopAxes,
             GridStrideSyms, PartialReasons, HardReasons, Assumptions, Returned,
             Barriers, ReadsLost, Modes, NamedAssumed, HaloComputing) = S;
  }
  unsigned InlineDepth = 0;
  unsigned Steps = 0;
  /// Per lambda defined in the kernel: the values it captured by copy (and
  /// its init-captures) where it was defined.
  std::map<const CXXRecordDecl *, std::map<const VarDecl *, Value>>
      LambdaCopies;
};

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif
