//===- Evaluator.cpp - Expressions: indices and data values ---------------===//

#include "KernelInterpreter.h"

#include "forgestencil/Analysis/CudaBuiltins.h"

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
#include <functional>

namespace forgestencil {
namespace analysis {
namespace detail {

std::string Interpreter::text(const Expr *E) const {
  if (Negations.count(E))
    return "!(" + text(cast<UnaryOperator>(E)->getSubExpr()) + ")";
  if (auto It = SwitchConds.find(E); It != SwitchConds.end())
    return It->second;
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

/// Whether a position P may go below 0: it has a negative constant part
/// (i - 1, blockIdx.x * T + lx - 1) or subtracts a symbol.
bool mayBeNegative(const Poly &P) {
  for (const auto &[M, C] : P.terms())
    if (C < 0)
      return true;
  return false;
}

/// Whether P is a constant at least 0.
bool atLeast0(const Poly &P) {
  auto C = P.constantValue();
  return C && *C >= 0;
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
  // One list for the analysis and the IR's validator.
  return ir::isMathFunctionName(N.str());
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// threadIdx.x, blockIdx.y, blockDim.z, gridDim.x as polynomial symbols.
Value Interpreter::builtinIndex(const Expr *E) {
  std::optional<CudaBuiltinRef> B = cudaBuiltinRef(E);
  if (!B)
    return Value::unknown("");
  static const char *const Prefix[] = {"tid.", "bid.", "bdim.", "gdim."};
  std::string Name = std::string(Prefix[int(B->Var)]) + char('x' + B->Axis);
  // Halo threads (HaloThreads.cpp): the computing threads numbered from 0;
  // the block's size is its threads', whatever its points.
  if (auto H = Halo.find(B->Axis); H != Halo.end()) {
    if (Name[0] == 't')
      return Value::index(Poly::symbol(Name) +
                          Poly::constant(H->second.First));
    if (Name.rfind("bdim.", 0) == 0)
      return Value::index(Poly::constant(H->second.Threads));
  }
  // A threadIdx or blockIdx that the store's index uses by itself, taken as
  // a position of its own (lonePositions).
  if (Lone.count(Name))
    return Value::index(Poly::symbol(Name[0] == 't'
                                         ? mixedPosition(B->Axis, -1)
                                         : mixedPosition(-1, B->Axis)));
  return Value::index(Poly::symbol(Name));
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

DPtr Interpreter::asData(const Value &V, const Expr *Where) {
  if (V.K == Value::Data)
    return V.D;
  if (V.K == Value::Index) {
    if (auto C = V.Idx.constantValue()) {
      DPtr N = node(DNode::Literal);
      N->Value = std::to_string(*C);
      return N;
    }
    if (choiceIn(V.Idx)) {
      partial(ReasonKind::DataBranch,
              "an offset that a test on the data chooses is used as a value (" +
                  text(Where) + ")");
      return nullptr;
    }
    // A value that depends on the position (x = i*dx) or on a size is not
    // part of a fixed stencil update; say so rather than guess.
    if (V.Idx.mentionsPrefix("@") || V.Idx.mentionsPrefix("tid.") ||
        V.Idx.mentionsPrefix("bid."))
      partial(ReasonKind::Update, "the update uses the grid position as a value (" +
              text(Where) + ")");
    else if (V.Idx.mentionsPrefix("mod[") || V.Idx.mentionsPrefix("div["))
      partial(ReasonKind::Update, "the update uses a quotient or remainder of "
              "whole numbers as a value (" + text(Where) + ")");
    // A size (nx * ny, n - 1): integer arithmetic on the parameters, as
    // the original computes it before the value meets the data; a lone
    // symbol is a parameter reference.
    else if (uniformPoly(V.Idx))
      return polyNode(V.Idx, /*PositiveFirst=*/true);
    DPtr N = node(DNode::ParamRef);
    N->Name = V.Idx.str();
    return N;
  }
  if (V.K == Value::Unknown && !V.Why.empty())
    partial(V.WhyKind, V.Why);
  else
    partial(ReasonKind::Untracked, "a value the analysis does not follow: " + text(Where));
  return nullptr;
}

void Interpreter::seedAssignedParameters() {
  std::set<const ParmVarDecl *> Assigned;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    const Expr *Target = assignedBy(S);
    if (const auto *DR =
            Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts())
                   : nullptr)
      if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl());
          P && P->getDeclContext() == &Kernel)
        Assigned.insert(P);
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(Kernel.getBody());
  for (const ParmVarDecl *P : Assigned)
    Env[P] = valueOf(P);
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
      ConstantScalarTypes[Name] = T.getUnqualifiedType();
      DPtr N = node(DNode::Coef);
      N->Name = Name;
      N->Index = Poly::constant(-1);
      return Value::data(N);
    }
    if (IsConst && T->isIntegerType()) {
      // d_slice_2 where the host only ever copies twice d_slice_1 there:
      // 2 * d_slice_1, so that reads a slice or two away are whole offsets.
      const HostMultipleMap &Multiples = hostMultiples();
      auto M = Multiples.find(cast<VarDecl>(VD->getCanonicalDecl()));
      if (M != Multiples.end()) {
        std::string Base = M->second.Of->getName().str();
        ConstantSymbols.insert(Base);
        Assumptions.insert("'" + Name + "' is read as " +
                           std::to_string(M->second.Factor) + " * '" + Base +
                           "': the host copies values in that ratio into both "
                           "and writes them nowhere else (" +
                           M->second.Where + ")");
        return Value::index(Poly::constant(M->second.Factor) *
                            Poly::symbol(Base));
      }
      ConstantSymbols.insert(Name);
      return Value::index(Poly::symbol(Name));
    }
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

/// The literal that spells V, a value of the floating type T, exactly.
static std::string floatLiteral(const llvm::APFloat &V, QualType T) {
  // The fewest digits that read back as the same value.
  std::string S;
  for (unsigned Digits = 1; Digits <= 40 && S.empty(); ++Digits) {
    SmallString<48> Buf;
    V.toString(Buf, Digits, 8);
    llvm::APFloat Back(V.getSemantics());
    auto St = Back.convertFromString(Buf, llvm::APFloat::rmNearestTiesToEven);
    if (St && Back.bitwiseIsEqual(V))
      S = std::string(Buf);
  }
  if (S.empty()) {
    SmallString<48> Buf;
    V.toString(Buf, 0, 8);
    S = std::string(Buf);
  }
  if (S.find_first_of(".eE") == std::string::npos)
    S += ".0";
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    S += "f";
  else if (T->isSpecificBuiltinType(BuiltinType::LongDouble))
    S += "L";
  return S;
}

Value Interpreter::convertedTo(const Value &V, QualType To, QualType From,
                               const Expr *Whole) {
  if (To.isNull() || From.isNull() || To->isDependentType() ||
      From->isDependentType())
    return V;
  To = To.getCanonicalType().getUnqualifiedType();
  From = From.getCanonicalType().getUnqualifiedType();
  if (V.K != Value::Data || !To->isRealFloatingType() || To == From ||
      !From->isRealFloatingType())
    return V;
  // A constant (const float c = 15.0 / 118): its value in To, exactly;
  // unless it names a constant the generated code must keep by name
  // (float c = W0 with -DW0=... in another build).
  std::function<bool(const DPtr &)> Named = [&](const DPtr &N) {
    if (!N)
      return false;
    if (N->K == DNode::ParamRef)
      return true;
    for (const DPtr &A : N->Args)
      if (Named(A))
        return true;
    return false;
  };
  Expr::EvalResult R;
  if (Whole && !Whole->isValueDependent() && !Named(V.D) &&
      Whole->EvaluateAsRValue(R, Ctx) && R.Val.isFloat() &&
      R.Val.getFloat().isFinite()) {
    DPtr N = node(DNode::Literal);
    N->Value = floatLiteral(R.Val.getFloat(), To);
    return Value::data(N);
  }
  bool IsFloat = To->isSpecificBuiltinType(BuiltinType::Float);
  if (V.D && V.D->K == DNode::Unary &&
      V.D->Op == (IsFloat ? "to_float" : "to_double"))
    return V; // converted already (an implicit conversion of a constant)
  if (!IsFloat && !To->isSpecificBuiltinType(BuiltinType::Double)) {
    partial(ReasonKind::Update, "a conversion to '" + To.getAsString() + "' in the update");
    return Value::unknown("");
  }
  DPtr N = node(DNode::Unary);
  N->Op = IsFloat ? "to_float" : "to_double";
  N->Args = {V.D};
  return Value::data(N);
}

std::optional<Value> Interpreter::toWholeNumber(const CastExpr *C,
                                                const Value &V) {
  if (V.K != Value::Data || (C->getCastKind() != CK_FloatingToIntegral &&
                             C->getCastKind() != CK_FloatingToBoolean))
    return std::nullopt;
  DPtr N = node(DNode::Unary);
  N->Op = WholeNumberOp;
  N->Name = text(C);
  N->Args = {V.D};
  return Value::data(N);
}

Value Interpreter::eval(const Expr *E) {
  if (++Steps > 200000)
    return Value::unknown("the kernel is too large to interpret");
  // A constant the kernel names (a macro, a constexpr): kept by its name.
  if (std::optional<Value> NC = namedConstant(E))
    return *NC;
  E = E->IgnoreParens();
  if (const auto *C = dyn_cast<ImplicitCastExpr>(E)) {
    // A test on loaded data converted to a floating number (double pos =
    // a > 0;): 1 where it holds, 0 elsewhere, a select of the two.
    if (std::optional<Value> V = comparisonAsNumber(C))
      return *V;
    Value V = castPointer(eval(C->getSubExpr()), C->getType());
    if (std::optional<Value> W = toWholeNumber(C, V))
      return *W;
    // A named floating constant converted (float w = WD): the conversion
    // is the original's arithmetic. Other implicit conversions follow from
    // the operand types in generated code as they do in the original.
    if (C->getCastKind() == CK_FloatingCast && V.K == Value::Data && V.D &&
        V.D->K == DNode::ParamRef)
      return convertedTo(V, C->getType(),
                         C->getSubExpr()->IgnoreParens()->getType(), nullptr);
    return V;
  }
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
    const Expr *Sub = C->getSubExpr();
    Value V = castPointer(eval(Sub), C->getType());
    if (std::optional<Value> W = toWholeNumber(C, V))
      return *W;
    // (double)a + b adds in double: the conversion is part of the update.
    if (V.K == Value::Data && C->getType()->isRealFloatingType())
      return convertedTo(V, C->getType(), Sub->IgnoreParenImpCasts()->getType(), C);
    return V;
  }
  if (const auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return eval(S->getReplacement());
  if (const auto *C = dyn_cast<ConstantExpr>(E))
    return eval(C->getSubExpr());
  // The temporaries of a full expression (std::max(i - 1, 0) binds them to
  // its const int & parameters) change nothing the analysis reads.
  if (const auto *C = dyn_cast<ExprWithCleanups>(E))
    return eval(C->getSubExpr());
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return eval(M->getSubExpr());

  Value B = builtinIndex(E);
  if (B.K == Value::Index)
    return B;
  if (std::optional<Value> R = recordValue(E))
    return *R;

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
        indirectIndex(Idx);
      }
      return Value::unknown("address of " + text(Sub));
    }
    case UO_Deref: {
      Value P = eval(U->getSubExpr());
      if (P.K != Value::Pointer)
        return Value::unknown("dereference of an untracked pointer",
                          ReasonKind::Untracked);
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
      // That of an assignment to a local (below = here = in[c]) is the
      // local's new value; of a store to memory it is not followed
      // (re-reading the element would record a read the kernel never does).
      if (const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
            VD && !VD->getType()->isReferenceType() && Env.count(VD))
          return Env[VD];
      return Value::unknown("the value of an assignment expression");
    }
    return evalBinary(BO);
  }

  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Value Base = evalSubscriptBase(AS->getBase());
    Value Idx = eval(AS->getIdx());
    if (Base.K != Value::Pointer)
      return Base;
    if (Idx.K == Value::Data) {
      indirectIndex(Idx);
      return Value::unknown("an index computed from loaded data (indirect "
                            "access " + text(AS) + ")");
    }
    // A load lost: the reads left (at the centre only, say) do not make
    // the kernel pointwise.
    if (Idx.K != Value::Index) {
      ReadsLost = true;
      return Idx.Why.empty()
                 ? Value::unknown("an index the analysis does not follow: " +
                                      text(AS->getIdx()),
                                  ReasonKind::Untracked)
                 : Value::unknown(Idx.Why, Idx.WhyKind);
    }
    QualType T = AS->getType();
    if (T->isArrayType()) {
      // u[k][j] of float u[NZ][NY][NX]: a row, in scalars, a number a
      // macro in the type may change in another build.
      auto N = scalarsIn(T, Ctx);
      if (!N)
        return Value::unknown("a variable-length array row");
      noteWrittenRowSizes(AS->getBase());
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
    if (std::optional<Value> V = readChoice(CO))
      return *V;
    if (std::optional<Value> V = guardedLoad(CO))
      return *V;
    if (std::optional<Value> V = selectedValue(CO))
      return *V;
    if (std::optional<Value> V = threadChosenValue(CO))
      return *V;
    return Value::unknown("a conditional expression (" + text(CO) +
                          ") in the update");
  }
  return Value::unknown("");
}

Value Interpreter::evalBinary(const BinaryOperator *B) {
  BinaryOperatorKind Op = B->getOpcode();
  if (B->isComparisonOp() || B->isLogicalOp())
    return Value::unknown("a comparison used as a value");
  Value L = eval(B->getLHS());
  Value R = eval(B->getRHS());
  // In a coarsening loop's round, an index of the point it computes is the
  // point's position (Coarsening.h).
  auto Coarse = [&](const Poly &P) {
    return ActiveCoarse.empty() ? P : coarseNormal(P, ActiveCoarse);
  };
  // Pointer arithmetic.
  if (L.K == Value::Pointer && R.K == Value::Index &&
      (Op == BO_Add || Op == BO_Sub))
    return L.movedTo(Coarse(Op == BO_Add ? L.Idx + R.Idx : L.Idx - R.Idx));
  if (R.K == Value::Pointer && L.K == Value::Index && Op == BO_Add)
    return R.movedTo(Coarse(R.Idx + L.Idx));

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
      Q = Coarse(foldGlobalThread(Q, &BlockSizes, &BlockLoops));
      return Value::index(Splits.empty() ? Q : foldSplitRemainders(Q));
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
      // A position plus an offset, wrapped by the period: (i + 1) % n.
      if (Op == BO_Rem)
        if (std::optional<Value> W = remainderWrap(L, R, text(B)))
          return *W;
      // A 1-D id split into axes: mod[X|A], div[X|A]; div of div
      // canonicalises to one division by the product.
      if (std::optional<Poly> N = nestedSplit(L.Idx, R.Idx, Op == BO_Div))
        return Value::index(*N);
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
      return Value::index(registerSplit(X, A, Op == BO_Div));
    }
    case BO_Shl:
      // A shift by a number of bits (j << LOG_NX, a compile-time constant
      // whose value is then assumed): the multiplication by its power of 2.
      if (auto RC = numberOf(R.Idx); RC && *RC >= 0 && *RC < 62)
        return Fold(L.Idx * Poly::constant(int64_t(1) << *RC));
      [[fallthrough]];
    default:
      return Value::unknown("integer operator " +
                            BinaryOperator::getOpcodeStr(Op).str());
    }
  }
  if (L.K == Value::Unknown)
    return L;
  if (R.K == Value::Unknown)
    return R;
  if (L.K == Value::Pointer || R.K == Value::Pointer) {
    indirectIndex(L.K == Value::Pointer ? R : L);
    return Value::unknown("pointer arithmetic the analysis does not follow",
                          ReasonKind::Untracked);
  }
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

} // namespace detail
} // namespace analysis
} // namespace forgestencil
