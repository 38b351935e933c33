//===- Switches.cpp - A switch as the chain of ifs it stands for ----------===//
//
// Kernels choose among updates with a switch on a mode (the order of a
// derivative, a boundary kind):
//
//   switch (order) {
//   case 2: d = in[i + 1] - in[i - 1]; break;
//   case 4: d = ...; break;
//   default: d = 0;
//   }
//
// Where every case ends with its break (or the switch's last statement),
// nothing breaks out of the switch from inside a case, and no case falls
// into the next, the switch is the chain if (order == 2) { ... } else if
// (order == 4) { ... } else { ... }, which the interpreter runs as any if
// (a condition every thread decides alike is a select over the kernel's
// parameters; one on the position a guard). Case labels grouped over one
// body (case 1: case 3: ...) join their tests with ||.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// Whether S holds a break that leaves the switch S is the body of (not
/// one of a loop or a switch inside it).
bool breaksOut(const Stmt *S) {
  if (!S)
    return false;
  if (isa<BreakStmt>(S))
    return true;
  if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
      isa<CXXForRangeStmt>(S) || isa<SwitchStmt>(S))
    return false;
  for (const Stmt *C : S->children())
    if (breaksOut(C))
      return true;
  return false;
}

/// One case body: its labels' values (none for default) and statements.
struct CaseGroup {
  std::vector<const Expr *> Values;
  bool Default = false;
  std::vector<Stmt *> Body;
  bool Ended = false; // by its break
};

} // namespace

const Stmt *Interpreter::switchAsIfs(const SwitchStmt *S, std::string &Why) {
  if (S->getInit() || S->getConditionVariable()) {
    Why = "an initialiser or a declaration in its condition";
    return nullptr;
  }
  const auto *Body = dyn_cast_or_null<CompoundStmt>(S->getBody());
  if (!Body) {
    Why = "its body is not a block of cases";
    return nullptr;
  }
  std::vector<CaseGroup> Groups;
  for (Stmt *St : Body->body()) {
    // A statement under labels: unwrap them (case 1: case 2: stmt).
    bool Labelled = false;
    std::vector<const Expr *> Values;
    bool Default = false;
    while (true) {
      if (auto *C = dyn_cast<CaseStmt>(St)) {
        if (C->caseStmtIsGNURange()) {
          Why = "a case range";
          return nullptr;
        }
        Values.push_back(C->getLHS());
        St = C->getSubStmt();
        Labelled = true;
      } else if (auto *D = dyn_cast<DefaultStmt>(St)) {
        Default = true;
        St = D->getSubStmt();
        Labelled = true;
      } else {
        break;
      }
    }
    if (Labelled) {
      // Labels after statements that did not end with a break: the case
      // before falls into this one.
      if (!Groups.empty() && !Groups.back().Ended &&
          !Groups.back().Body.empty()) {
        Why = "a case falls through into the next";
        return nullptr;
      }
      if (Groups.empty() || Groups.back().Ended ||
          !Groups.back().Body.empty()) {
        Groups.emplace_back();
      }
      CaseGroup &G = Groups.back();
      G.Values.insert(G.Values.end(), Values.begin(), Values.end());
      G.Default = G.Default || Default;
    } else if (Groups.empty()) {
      Why = "statements before its first case";
      return nullptr;
    }
    CaseGroup &G = Groups.back();
    if (isa<BreakStmt>(St)) {
      G.Ended = true;
      continue;
    }
    if (G.Ended) {
      Why = "statements after a case's break that no label reaches";
      return nullptr;
    }
    if (isa<DeclStmt>(St)) {
      Why = "a declaration in a case (its scope is the whole switch)";
      return nullptr;
    }
    if (breaksOut(St)) {
      Why = "a break out of the switch from inside a case";
      return nullptr;
    }
    G.Body.push_back(St);
  }
  if (Groups.empty()) {
    Why = "no case";
    return nullptr;
  }
  // The chain, from the default (or nothing) up.
  Expr *Cond = const_cast<Expr *>(S->getCond());
  const std::string CondText = text(Cond);
  const SourceLocation L = S->getBeginLoc();
  auto Block = [&](const std::vector<Stmt *> &Stmts) {
    return CompoundStmt::Create(Ctx, Stmts, FPOptionsOverride(), L, L);
  };
  // The default's body ends the chain wherever it stands among the cases
  // (the cases' values differ, so the order of their tests does not
  // matter); a default that shares a body with cases keeps their tests too.
  Stmt *Else = nullptr;
  for (const CaseGroup &G : Groups)
    if (G.Default)
      Else = Block(G.Body);
  for (size_t I = Groups.size(); I-- > 0;) {
    const CaseGroup &G = Groups[I];
    if (G.Values.empty())
      continue;
    Expr *Test = nullptr;
    std::string Text;
    for (const Expr *V : G.Values) {
      Expr *Eq = BinaryOperator::Create(
          Ctx, Cond, const_cast<Expr *>(V), BO_EQ, Ctx.BoolTy, VK_PRValue,
          OK_Ordinary, L, FPOptionsOverride());
      const std::string EqText = CondText + " == " + text(V);
      SwitchConds[Eq] = EqText;
      if (!Test) {
        Test = Eq;
        Text = EqText;
        continue;
      }
      Test = BinaryOperator::Create(Ctx, Test, Eq, BO_LOr, Ctx.BoolTy,
                                    VK_PRValue, OK_Ordinary, L,
                                    FPOptionsOverride());
      Text += " || " + EqText;
      SwitchConds[Test] = Text;
    }
    Else = IfStmt::Create(Ctx, L, IfStatementKind::Ordinary, nullptr, nullptr,
                          Test, L, L, Block(G.Body), L, Else);
  }
  return Else ? Else : Block({});
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
