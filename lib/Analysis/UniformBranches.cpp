//===- UniformBranches.cpp - Branches every thread of a launch takes alike -===//
//
// A kernel that does one of two updates depending on a mode parameter
// (if (swp_nmbr == 1) ... else ...; a sweep direction, a coefficient kind)
// computes, at every point, cond ? A : B with cond the same for all
// threads. The IR states that as a select whose condition is written over
// the kernel's integer parameters, so generated code decides it at run
// time exactly as the original does, for every launch.
//
// Where one side of such a branch makes the block's threads work together
// (a barrier) and the other does not (a preconditioner's block solve in
// shared memory beside its diagonal and plain modes), the IR describes the
// kernel in the modes of the other side only, and says so with a `holds`
// assumption: the condition that selects it, which the generated launcher
// checks before each launch, running the original in the other modes.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "forgestencil/Analysis/CudaBuiltins.h"

#include <algorithm>
#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

const char *comparisonSpelling(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT: return "<";
  case BO_LE: return "<=";
  case BO_GT: return ">";
  case BO_GE: return ">=";
  case BO_EQ: return "==";
  case BO_NE: return "!=";
  default: return nullptr;
  }
}

std::optional<DPtr>
logicalNode(const Expr *E, const std::function<DPtr(const Expr *)> &Operand) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_LNot) {
    DPtr A = Operand(U->getSubExpr());
    if (!A)
      return DPtr();
    DPtr N = node(DNode::Unary);
    N->Op = "!";
    N->Args = {A};
    return N;
  }
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B || !B->isLogicalOp())
    return std::nullopt;
  DPtr L = Operand(B->getLHS());
  DPtr R = L ? Operand(B->getRHS()) : nullptr;
  if (!R)
    return DPtr();
  DPtr N = node(DNode::Binary);
  N->Op = B->getOpcode() == BO_LAnd ? "&&" : "||";
  N->Args = {L, R};
  return N;
}

namespace {

DPtr literal(int64_t C) {
  DPtr N = node(DNode::Literal);
  N->Value = std::to_string(C < 0 ? -C : C);
  if (C >= 0)
    return N;
  DPtr Neg = node(DNode::Unary);
  Neg->Op = "neg";
  Neg->Args = {N};
  return Neg;
}

DPtr binary(const std::string &Op, DPtr L, DPtr R) {
  DPtr N = node(DNode::Binary);
  N->Op = Op;
  N->Args = {std::move(L), std::move(R)};
  return N;
}

} // namespace

DPtr polyNode(const Poly &P, bool PositiveFirst) {
  if (std::optional<int64_t> C = P.constantValue())
    return literal(*C);
  std::vector<std::pair<std::vector<std::string>, int64_t>> Terms;
  for (const auto &[M, C] : P.terms())
    Terms.push_back({std::vector<std::string>(M.begin(), M.end()), C});
  if (PositiveFirst)
    std::stable_partition(Terms.begin(), Terms.end(),
                          [](const auto &T) { return T.second > 0; });
  DPtr Sum;
  for (const auto &[M, C] : Terms) {
    DPtr Term;
    for (const std::string &S : M) {
      DPtr Ref = node(DNode::ParamRef);
      Ref->Name = S;
      Term = Term ? binary("*", Term, Ref) : Ref;
    }
    const int64_t Mag = C < 0 ? -C : C;
    if (!Term)
      Term = literal(Mag);
    else if (Mag != 1)
      Term = binary("*", literal(Mag), Term);
    if (!Sum)
      Sum = C < 0 ? binary("-", literal(0), Term) : Term;
    else
      Sum = binary(C < 0 ? "-" : "+", Sum, Term);
  }
  return Sum;
}

bool Interpreter::uniformPoly(const Poly &P) const {
  // A symbol every thread sees alike: an integer kernel parameter, a field
  // of a struct parameter passed by value, a named constant or an integer
  // __constant__ variable.
  auto UniformSymbol = [&](const std::string &S) {
    if (Named.count(S) || ConstantSymbols.count(S))
      return true;
    for (const ParmVarDecl *Param : Kernel.parameters()) {
      const std::string N = Param->getName().str();
      QualType T = Param->getType().getNonReferenceType();
      if (S == N && T->isIntegerType())
        return true;
      if (S.size() > N.size() && S.compare(0, N.size() + 1, N + ".") == 0 &&
          T->isRecordType() && !Param->getType()->isReferenceType())
        return true;
    }
    return false;
  };
  for (const auto &[M, C] : P.terms())
    for (const std::string &S : M)
      if (!UniformSymbol(S))
        return false;
  return true;
}

DPtr Interpreter::uniformCondition(const Expr *Cond) {
  if (!Cond)
    return nullptr;
  const Expr *E = namedCondition(Cond->IgnoreParenImpCasts());
  auto Uniform = [&](const Value &V) {
    return V.K == Value::Index && uniformPoly(V.Idx);
  };
  // Poly arithmetic is exact for signed integers; an unsigned side is taken
  // only as a lone symbol or constant, whose C meaning needs no wrap-around.
  auto Simple = [](const Value &V) {
    return V.Idx.isConstant() ||
           (V.Idx.terms().size() == 1 && V.Idx.terms().begin()->first.size() == 1 &&
            V.Idx.terms().begin()->second == 1);
  };
  auto Side = [&](const Expr *X) -> DPtr {
    QualType T = X->getType();
    if (!T->isIntegerType() && !T->isBooleanType())
      return nullptr;
    size_t ReadsBefore = Reads.size();
    Value V = eval(X);
    Reads.resize(ReadsBefore);
    if (!Uniform(V) || (T->isUnsignedIntegerType() && !Simple(V)))
      return nullptr;
    return polyNode(V.Idx);
  };
  if (std::optional<DPtr> N = logicalNode(
          E, [&](const Expr *X) { return uniformCondition(X); }))
    return *N;
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (const char *Op = comparisonSpelling(B->getOpcode())) {
      DPtr L = Side(B->getLHS());
      DPtr R = L ? Side(B->getRHS()) : nullptr;
      return R ? binary(Op, L, R) : nullptr;
    }
    return nullptr;
  }
  // if (flag): an integer tested against zero.
  if (DPtr V = Side(E))
    return binary("!=", V, literal(0));
  return nullptr;
}

namespace {

/// \p N (a uniform condition's tree) as C over the kernel's parameters and
/// named constants, or "" where a node is of another kind.
std::string conditionText(const DPtr &N) {
  if (!N)
    return "";
  auto Arg = [&](size_t I) {
    return I < N->Args.size() ? conditionText(N->Args[I]) : std::string();
  };
  switch (N->K) {
  case DNode::Literal:
    return N->Value;
  case DNode::ParamRef:
    return N->Name;
  case DNode::Unary: {
    std::string A = Arg(0);
    if (A.empty() || (N->Op != "!" && N->Op != "neg"))
      return "";
    return (N->Op == "!" ? "!(" : "-(") + A + ")";
  }
  case DNode::Binary: {
    std::string L = Arg(0), R = Arg(1);
    if (L.empty() || R.empty())
      return "";
    return "(" + L + " " + N->Op + " " + R + ")";
  }
  default:
    return "";
  }
}

/// Whether \p S has a __syncthreads() barrier outside any nested if (a
/// branch of its own decides that one), or in a function it calls (up to
/// \p Depth calls deep, anywhere in its body).
bool hasBarrier(const Stmt *S, int Depth, bool InCallee,
                std::set<const FunctionDecl *> &Seen) {
  if (!S || (!InCallee && isa<IfStmt>(S)))
    return false;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = C->getDirectCallee()) {
      if (isBlockBarrier(C))
        return true;
      const FunctionDecl *Def = nullptr;
      if (Depth > 0 && F->hasBody(Def) && Def && Seen.insert(Def).second &&
          hasBarrier(Def->getBody(), Depth - 1, true, Seen))
        return true;
    }
  for (const Stmt *Child : S->children())
    if (hasBarrier(Child, Depth, InCallee, Seen))
      return true;
  return false;
}

} // namespace

bool Interpreter::specialiseMode(const IfStmt *If, const DPtr &Cond) {
  // Which side makes the block's threads work together: a barrier in it
  // (a block solve, a tile another thread fills), not behind a nested if
  // (an else-if chain of modes decides at the mode that has it).
  std::set<const FunctionDecl *> Seen;
  const bool ThenTogether = hasBarrier(If->getThen(), 4, false, Seen);
  Seen.clear();
  const bool ElseTogether = hasBarrier(If->getElse(), 4, false, Seen);
  const std::string Text = conditionText(Cond);
  if (ThenTogether == ElseTogether || Text.empty())
    return false;
  const bool KeepThen = ElseTogether;
  ir::Assumption Mode;
  Mode.Kind = ir::Assumption::Holds;
  Mode.Expr = KeepThen ? Text : "!" + Text;
  Mode.Value = "1";
  Mode.Why = "where '" + text(If->getCond()) + "' " +
             (KeepThen ? "fails" : "holds") +
             ", the block's threads work together (a barrier: another "
             "computation than the stencil); the variant covers the other "
             "modes only";
  if (std::none_of(Modes.begin(), Modes.end(), [&](const ir::Assumption &A) {
        return A.Expr == Mode.Expr;
      }))
    Modes.push_back(std::move(Mode));
  exec(KeepThen ? If->getThen() : If->getElse());
  return true;
}

std::string Interpreter::modesNote() const {
  std::string Note;
  for (const ir::Assumption &M : Modes)
    Note += (Note.empty() ? " (in the modes where " : " && ") + M.Expr;
  return Note.empty() ? Note
                      : Note + " holds; in the others the block's threads "
                               "work together)";
}

void Interpreter::execUniformIf(const IfStmt *If, const DPtr &Cond,
                                bool Data) {
  if (!Data && specialiseMode(If, Cond))
    return;
  const auto EnvBefore = Env;
  const auto ElemsBefore = LocalElems;
  const std::vector<Write> WritesBefore = Writes;
  const size_t SharedBefore = SharedStores.size();
  // No enclosing condition is pushed: a store on one side is forwarded to
  // a load on the same side (pre = ...; post = pre - f;), and the sides'
  // stores are taken out of Writes while the other side runs. A side that
  // updates an element stored before the branch (out[i] *= s) takes that
  // store's value and drops it from Writes; the store is put back before
  // the other side runs, and the side's update becomes a select below.
  auto TakeSide = [&] {
    // The stores from before the branch keep their order; those a side
    // consumed are missing, and what follows them is the side's.
    size_t K = 0;
    for (const Write &P : WritesBefore)
      if (K < Writes.size() && Writes[K].Array == P.Array &&
          Writes[K].Index == P.Index && Writes[K].Value == P.Value &&
          Writes[K].Accumulate == P.Accumulate)
        ++K;
    std::vector<Write> Side(Writes.begin() + K, Writes.end());
    Writes = WritesBefore;
    return Side;
  };
  exec(If->getThen());
  std::vector<Write> Then = TakeSide();
  auto EnvThen = std::move(Env);
  auto ElemsThen = std::move(LocalElems);
  Env = EnvBefore;
  LocalElems = ElemsBefore;
  exec(If->getElse());
  std::vector<Write> Else = TakeSide();
  mergeBranches(If->getCond(), EnvBefore, EnvThen, ElemsThen, Cond);

  if (SharedStores.size() != SharedBefore && Data)
    partial(ReasonKind::DataBranch,
            "a __shared__ array stored under the condition '" +
                text(If->getCond()) + "' on loaded data");
  else if (SharedStores.size() != SharedBefore)
    partial(ReasonKind::Guard,
            "a __shared__ array stored under the condition '" +
                text(If->getCond()) + "', which every thread decides alike; "
                "tiles under a mode switch are not followed");
  // A store on one side only: on the other the element keeps what it
  // held, this thread's earlier store or memory (a read of the element it
  // writes, written back unchanged: the same numbers, as no other thread
  // touches the element).
  auto OneSide = [&](Write W, bool OnThen) {
    if (Data && (W.Accumulate || !sameGuards(W.Guards, Guards) ||
                 !forwardedStore(W.Array, W.Index))) {
      // Whether the point is written at all depends on the data.
      notStencil(ReasonKind::DataBranch, "a data-dependent branch decides the store");
      Writes.push_back(W);
      return;
    }
    // A data-dependent branch that changes an element this thread stored
    // before it (a floor: if (out[i] < lo) out[i] = lo;) leaves every
    // point written, with a value the data selects.
    if (W.Accumulate || !sameGuards(W.Guards, Guards)) {
      partial(ReasonKind::Guard, "the array '" + W.Array + "' is stored on one side of '" +
              text(If->getCond()) + "' only");
      Writes.push_back(W);
      return;
    }
    DPtr Old = priorValue(W.Array, W.Index, /*FromMemory=*/true);
    DPtr S = node(DNode::Select);
    S->Args = {Cond, OnThen ? W.Value : Old, OnThen ? Old : W.Value};
    W.Value = S;
    Writes.push_back(W);
  };
  for (Write &T : Then) {
    auto It = std::find_if(Else.begin(), Else.end(), [&](const Write &E) {
      return E.Array == T.Array && E.Index == T.Index &&
             E.Accumulate == T.Accumulate && sameGuards(E.Guards, T.Guards);
    });
    if (It == Else.end()) {
      OneSide(T, /*OnThen=*/true);
      continue;
    }
    DPtr S = node(DNode::Select);
    S->Args = {Cond, T.Value, It->Value};
    T.Value = S;
    // Both sides replace what this thread stored there before the branch
    // (a side that used it took its value already).
    priorValue(T.Array, T.Index, /*FromMemory=*/false);
    Writes.push_back(T);
    Else.erase(It);
  }
  for (const Write &E : Else)
    OneSide(E, /*OnThen=*/false);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
