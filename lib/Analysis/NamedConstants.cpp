//===- NamedConstants.cpp - Macros, constexpr and enumerators kept by name ---===//

#include "KernelInterpreter.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

// ---------------------------------------------------------------------------
// Named compile-time constants
// ---------------------------------------------------------------------------

/// "file:line" of a location (its spelling), or the buffer's name.
std::string whereSpelled(SourceLocation L, const SourceManager &SM) {
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
  // A floating constant converted to another floating type is the
  // constant in its own type, converted (float w = WD with WD a double).
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E->IgnoreParens()))
    if (IC->getCastKind() == CK_FloatingCast)
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
  if (const TypeSourceInfo *TSI = D ? D->getTypeSourceInfo() : nullptr)
    noteArraySizeMacros(TSI->getTypeLoc());
}

void Interpreter::noteArraySizeMacros(TypeLoc TL) {
  for (; !TL.isNull(); TL = TL.getNextTypeLoc())
    if (auto AL = TL.getAs<ArrayTypeLoc>())
      noteSizeMacros(AL.getSizeExpr());
}

void Interpreter::noteWrittenRowSizes(const Expr *E, unsigned Depth) {
  while (E) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
      if (const TypeSourceInfo *TSI = C->getTypeInfoAsWritten())
        noteArraySizeMacros(TSI->getTypeLoc());
      E = C->getSubExpr();
    } else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
      E = IC->getSubExpr();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else if (const auto *M = dyn_cast<MemberExpr>(E)) {
      noteArraySizeMacros(dyn_cast<DeclaratorDecl>(M->getMemberDecl()));
      return;
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      noteArraySizeMacros(dyn_cast<DeclaratorDecl>(DR->getDecl()));
      // auto u = (float (*)[N])p;: the cast where the pointer is made.
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
          VD && VD->getInit() && Depth < 4)
        noteWrittenRowSizes(VD->getInit(), Depth + 1);
      return;
    } else {
      return;
    }
  }
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

/// Whether the C expression Text names Name as a whole identifier.
bool namesIdentifier(const std::string &Text, const std::string &Name) {
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
                                 &A.ClampUpper, &A.ZeroLower, &A.ZeroUpper})
      Texts.push_back(S);
  for (const ir::Assumption &A : IR.Assumptions)
    if (A.Kind == ir::Assumption::Holds)
      Texts.push_back(&A.Expr);
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
  // Block sizes the kernel indexes by; along a dimension whose loops step
  // by the block's size, how many threads it needs at least.
  for (const auto &[D, K] : BlockLoopLeast) {
    const BlockLoopDim &L = BlockLoops.at(D);
    ir::Assumption A;
    // Stepping by a number: exact for a block of that many threads only.
    A.Kind = L.Step ? ir::Assumption::BlockDim : ir::Assumption::BlockDimAtLeast;
    A.Expr = std::string(1, "xyz"[D]);
    A.Value = std::to_string(L.Step ? L.Step : K);
    A.Why = blockLoopWhy(L, D, K);
    IR.Assumptions.push_back(std::move(A));
  }
  for (const auto &[D, B] : BlockSizes) {
    if (BlockLoops.count(D))
      continue;
    ir::Assumption A;
    A.Kind = ir::Assumption::BlockDim;
    A.Expr = std::string(1, "xyz"[D]);
    A.Value = std::to_string(B);
    if (auto H = Halo.find(D); H != Halo.end()) {
      A.Value = std::to_string(H->second.Threads);
      A.Why = "the kernel's launches use " + A.Value + " (" + LaunchWhere +
              "): " + std::to_string(B) + " points a block, the other " +
              std::to_string(H->second.Threads - B) +
              " threads only load its tile";
      IR.Assumptions.push_back(std::move(A));
      continue;
    }
    A.Why = ChunkWhy.count(D) ? ChunkWhy.at(D)
            : BlockFromLaunch.count(D)
                ? "the kernel's launches use " + std::to_string(B) + " (" +
                      LaunchWhere + ")"
            : TileWhy.count(D)
                ? "the launches in view give no one block size; " + TileWhy.at(D)
                : "the kernel indexes blocks by " + std::to_string(B);
    IR.Assumptions.push_back(std::move(A));
  }
  for (int D : GridDimMax24) {
    ir::Assumption A;
    A.Kind = ir::Assumption::GridDimMax;
    A.Expr = std::string(1, "xyz"[D]);
    A.Value = std::to_string(int64_t(1) << 23);
    A.Why = std::string("__mul24(blockIdx.") + "xyz"[D] +
            ", ...) is a product only while blockIdx fits in 24 bits";
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

} // namespace detail
} // namespace analysis
} // namespace forgestencil
