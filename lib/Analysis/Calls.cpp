//===- Calls.cpp - Calls, helpers and the members of structs --------------===//
//
// Calls in a kernel: CUDA's builtins that matter to a stencil (barriers,
// __ldg, __mul24, min/max clamps of positions), math functions kept as
// calls in the update, and inline __device__ helpers and lambdas defined in
// the kernel, run with their arguments bound to their parameters (what they
// store through reference parameters goes back to the caller). Members of
// structs: a struct the kernel takes by value (its integer fields sizes,
// its floating fields coefficients) and struct values the kernel makes
// (make_int3, a struct listed member by member), held member by member.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/Attr.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace forgestencil {
namespace analysis {
namespace detail {

std::optional<Value> Interpreter::recordValue(const Expr *E) {
  const auto *RD = E->getType()->getAsRecordDecl();
  if (!RD || E->getType()->isPointerType())
    return std::nullopt;
  // A struct made empty (int3 t;), copied (int3 q = p;) or listed member by
  // member (int3 p = {i, j, k};). Only plain structs: a constructor of its
  // own does more than the analysis sees.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor->isTrivial())
      return std::nullopt;
    if (CE->getNumArgs() == 0)
      return Value::record({});
    if (CE->getNumArgs() == 1 &&
        (Ctor->isCopyConstructor() || Ctor->isMoveConstructor())) {
      Value V = eval(CE->getArg(0));
      return V.K == Value::Record ? V : Value::unknown("");
    }
    return std::nullopt;
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    RecordFields F;
    unsigned I = 0;
    for (const FieldDecl *FD : RD->fields()) {
      if (I >= IL->getNumInits())
        break;
      F[FD->getName().str()] = eval(IL->getInit(I++));
    }
    return Value::record(std::move(F));
  }
  return std::nullopt;
}

/// g.nx of a struct passed by value: integer fields are size symbols,
/// floating-point fields scalar coefficients.
const ParmVarDecl *Interpreter::kernelStruct(const Expr *Arg) const {
  const Expr *E = Arg->IgnoreParenImpCasts();
  // Passed by value: the copy of the argument.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyConstructor())
    E = CE->getArg(0)->IgnoreParenImpCasts();
  const auto *DR = dyn_cast<DeclRefExpr>(E);
  const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
  if (!P)
    return nullptr;
  if (auto It = StructAliases.find(P); It != StructAliases.end())
    return It->second;
  return P->getDeclContext() == &Kernel && P->getType()->isRecordType() ? P
                                                                         : nullptr;
}

Value Interpreter::member(const MemberExpr *M) {
  const auto *Base = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
  // A member of a struct value the kernel made (int3 p = make_int3(...);
  // p.x, make_int3(...).y, a helper's int3 parameter): the value stored
  // there.
  const Expr *BaseE = M->getBase()->IgnoreParenImpCasts();
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(BaseE))
    BaseE = MT->getSubExpr()->IgnoreParenImpCasts();
  if (!M->isArrow() && !kernelStruct(M->getBase()) &&
      (localStruct(BaseE, Env) || isa<CallExpr>(BaseE))) {
    Value B = eval(BaseE);
    if (B.K == Value::Record) {
      const std::string Field = M->getMemberDecl()->getName().str();
      auto It = B.Fields->find(Field);
      if (It != B.Fields->end())
        return It->second;
      return Value::unset("the member '" + text(M) + "' is used before it is set");
    }
  }
  // A member of the struct a member function runs on (this->a, or a).
  if (M->isArrow() && isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts())) {
    if (ThisRecord && ThisRecord->K == Value::Record) {
      auto It = ThisRecord->Fields->find(M->getMemberDecl()->getName().str());
      if (It != ThisRecord->Fields->end())
        return It->second;
    }
    if (ThisStruct)
      return structMember(ThisStruct, M);
    return Value::unknown("the member '" + text(M) + "' is not followed");
  }
  if (const auto *V = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
      V && !M->isArrow() && V->hasAttr<CUDAConstantAttr>() &&
      V->getType()->isRecordType())
    return constantMember(V, M);
  const auto *P = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
  // A helper's parameter that stands for a struct the kernel takes by
  // value (passed on by value or by reference): the kernel's parameter.
  if (auto It = P ? StructAliases.find(P) : StructAliases.end();
      It != StructAliases.end())
    P = It->second;
  if (!P || M->isArrow() || !P->getType()->isRecordType())
    return Value::unknown("the member '" + text(M) + "' is not followed");
  return structMember(P, M);
}

/// Member \p M of the kernel's struct parameter \p P: an integer is a size
/// symbol, a floating-point value a scalar coefficient, a pointer an array
/// ("g.nx", "g.u").
Value Interpreter::structMember(const ParmVarDecl *P, const MemberExpr *M) {
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

/// A texture fetch (tex1Dfetch, tex2D<T>, tex3DLod, texCubemap, ...).
static bool isTextureFetch(StringRef N) {
  for (StringRef P : {"tex1D", "tex2D", "tex3D", "texCubemap"})
    if (N.starts_with(P))
      return true;
  return false;
}

/// CUDA's cache-hinted loads: calls that read and store nothing (their
/// value, where used, is what the analysis refuses). Texture fetches, which
/// read only too, are refused before as reads through a texture.
static bool isReadOnlyIntrinsic(StringRef N) {
  return N == "__ldca" || N == "__ldcg" || N == "__ldcs" || N == "__ldlu" ||
         N == "__ldcv";
}

/// A `__constant__` struct of run parameters (`__constant__ Grid g;` set
/// with cudaMemcpyToSymbol): an integer member is a size symbol, as an
/// integer `__constant__` is (valueOf), a floating-point member a
/// coefficient read from constant memory, named by its member path
/// ("g.nx", "g.dt"). Both are device values: a launcher that would read an
/// integer one on the host keeps the original launch (deviceValuesOnHost,
/// which looks for the struct's name), and no generated driver can set a
/// member yet (ir::whyNoGenerator). Arrays and structs inside it stay
/// unknown.
Value Interpreter::constantMember(const VarDecl *V, const MemberExpr *M) {
  const std::string Name =
      V->getName().str() + "." + M->getMemberDecl()->getName().str();
  QualType T = M->getType();
  if (T->isIntegerType() || T->isEnumeralType()) {
    ConstantSymbols.insert(Name);
    ConstantSymbols.insert(V->getName().str());
    return Value::index(Poly::symbol(Name));
  }
  if (T->isRealFloatingType()) {
    ConstantScalarTypes[Name] = T.getUnqualifiedType();
    DPtr N = node(DNode::Coef);
    N->Name = Name;
    N->Index = Poly::constant(-1);
    return Value::data(N);
  }
  return Value::unknown("the member '" + text(M) + "' of the __constant__ struct '" +
                        V->getName().str() +
                        "' is not followed (only its integer and floating-point "
                        "scalars are)");
}

/// __mul24(a, b) (__umul24) multiplies the low 24 bits of a and b: it is
/// a * b while both fit in 24 bits. That holds for threadIdx, blockDim and
/// numbers below 2^23, and for blockIdx where the grid has at most 2^23
/// blocks along its axis, which the launcher checks (grid-dim-max).
Value Interpreter::mul24(const CallExpr *C) {
  constexpr int64_t Limit = int64_t(1) << 23;
  Value A = eval(C->getArg(0)), B = eval(C->getArg(1));
  std::set<int> Grid;
  auto Fits = [&](const Value &V) {
    if (V.K != Value::Index)
      return false;
    if (!V.Idx.mentionsPrefix("tid.") && !V.Idx.mentionsPrefix("bid.") &&
        !V.Idx.mentionsPrefix("bdim."))
      if (auto N = numberOf(V.Idx)) // a macro's or constexpr's number
        return *N >= 0 && *N < Limit;
    if (V.Idx.terms().size() != 1)
      return false;
    const auto &[M, K] = *V.Idx.terms().begin();
    if (K != 1 || M.size() != 1)
      return false;
    const std::string &S = M[0];
    for (int D = 0; D < 3; ++D) {
      const std::string Ax(1, "xyz"[D]);
      if (S == "tid." + Ax || S == "bdim." + Ax)
        return true;
      if (S == "bid." + Ax) {
        Grid.insert(D);
        return true;
      }
    }
    return false;
  };
  if (!Fits(A) || !Fits(B))
    return Value::unknown("a 24-bit product of values that may not fit in 24 bits (" +
                          text(C) + ")");
  GridDimMax24.insert(Grid.begin(), Grid.end());
  return Value::index(A.Idx * B.Idx);
}

void Interpreter::bindHelperArgs(
    const CallExpr *C, const FunctionDecl *Def, unsigned First,
    std::vector<std::pair<const VarDecl *, Value>> &Bound,
    std::map<const ParmVarDecl *, const ParmVarDecl *> &Aliases) {
  for (unsigned I = 0;
       I < Def->getNumParams() && I + First < C->getNumArgs(); ++I) {
    const ParmVarDecl *PD = Def->getParamDecl(I);
    if (PD->getType().getNonReferenceType()->isRecordType())
      if (const ParmVarDecl *K = kernelStruct(C->getArg(I + First))) {
        Aliases[PD] = K;
        continue;
      }
    // A floating argument converts to the parameter's type (a double
    // expression passed to a float parameter is rounded there).
    const Expr *Arg = C->getArg(I + First);
    Bound.push_back(
        {PD, convertedTo(eval(Arg), PD->getType().getNonReferenceType(),
                         Arg->IgnoreParenImpCasts()->getType(), nullptr)});
  }
}

std::optional<Interpreter::InlineHelper>
Interpreter::inlineHelper(const CallExpr *C, std::string &Why) const {
  const FunctionDecl *FD = C->getDirectCallee();
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Def);
  const bool Lambda = MD && MD->getParent()->isLambda();
  auto Copies =
      Lambda ? LambdaCopies.find(MD->getParent()) : LambdaCopies.end();
  if (Lambda && Copies == LambdaCopies.end()) {
    Why = "a lambda not defined in the kernel: " + text(C);
    return std::nullopt;
  }
  if (Def && Def->hasBody() && InlineDepth >= 8) {
    Why = "a helper called through more than 8 nested helpers (" + text(C) +
          "), deeper than the analysis follows";
    return std::nullopt;
  }
  if (!Def || !Def->hasBody() ||
      !(Def->hasAttr<CUDADeviceAttr>() || Def->isConstexpr() || Lambda))
    return std::nullopt;
  InlineHelper H;
  H.Def = Def;
  H.First = isa<CXXOperatorCallExpr>(C) && MD ? 1 : 0;
  H.Copies = Lambda ? &Copies->second : nullptr;
  return H;
}

const VarDecl *
Interpreter::localStruct(const Expr *E,
                         const std::map<const VarDecl *, Value> &In) const {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  auto It = VD ? In.find(VD) : In.end();
  return It != In.end() && It->second.K == Value::Record ? VD : nullptr;
}

void Interpreter::setMember(const VarDecl *VD, const std::string &Field,
                            Value V) {
  auto It = Env.find(VD);
  if (It == Env.end() || It->second.K != Value::Record)
    return;
  RecordFields F = *It->second.Fields;
  F[Field] = std::move(V);
  It->second = Value::record(std::move(F));
}

Interpreter::HelperScope::HelperScope(Interpreter &I, const CallExpr *C,
                                      const InlineHelper &H)
    : I(I), Aliases(I.StructAliases), SavedThisStruct(I.ThisStruct),
      SavedThisRecord(I.ThisRecord) {
  // A member function: the struct it is called on is `this` in its body.
  // (A lambda's call operator reads its copies, not a struct.)
  if (const auto *MD = dyn_cast<CXXMethodDecl>(H.Def);
      MD && !MD->isStatic() && !MD->getParent()->isLambda()) {
    const Expr *Object = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(C))
      Object = MC->getImplicitObjectArgument();
    else if (isa<CXXOperatorCallExpr>(C) && C->getNumArgs() > 0)
      Object = C->getArg(0);
    I.ThisStruct = nullptr;
    I.ThisRecord.reset();
    if (Object) {
      if (const ParmVarDecl *K = I.kernelStruct(Object))
        I.ThisStruct = K;
      else if (const VarDecl *VD = I.localStruct(Object, I.Env))
        I.ThisRecord = I.Env[VD];
    }
  }
  I.bindHelperArgs(C, H.Def, H.First, Bound, Aliases);
  ++I.InlineDepth;
  I.BodiesRun.push_back(H.Def->getSourceRange());
  Saved = I.Env;
  if (H.Copies)
    for (const auto &[Var, V] : *H.Copies)
      I.Env[Var] = V;
  for (const auto &[P, V] : Bound)
    I.Env[P] = V;
  std::swap(I.StructAliases, Aliases);
}

Interpreter::HelperScope::~HelperScope() {
  I.ThisStruct = SavedThisStruct;
  I.ThisRecord = std::move(SavedThisRecord);
  std::swap(I.StructAliases, Aliases);
  I.Env = std::move(Saved);
  --I.InlineDepth;
}

Value Interpreter::evalCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD)
    return Value::unknown("an indirect call");
  std::string Name = FD->getQualifiedNameAsString();
  // A struct assigned whole (w = c;): a local struct takes the value; any
  // other target, or an assignment operator of the struct's own, is a store
  // the analysis does not follow.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
      Op->getArg(0)->getType()->isRecordType()) {
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    const bool Plain = MD && MD->isTrivial() &&
                       (MD->isCopyAssignmentOperator() ||
                        MD->isMoveAssignmentOperator());
    if (const VarDecl *VD = Plain ? localStruct(Op->getArg(0), Env) : nullptr) {
      Value V = eval(Op->getArg(1));
      return Env[VD] = V.K == Value::Record
                           ? V
                           : Value::unknown("'" + VD->getName().str() +
                                            "' is assigned a struct the "
                                            "analysis does not follow");
    }
    partial(ReasonKind::Untracked,
            "a store the analysis does not follow: " + text(C));
    return Value::unknown("");
  }
  if (isAtomicName(FD->getName())) {
    notStencil(ReasonKind::Reduction, "atomic update (" + FD->getName().str() +
               "): a scatter or reduction, not a stencil");
    return Value::unknown("");
  }
  if (isBlockBarrier(C)) {
    ++Barriers;
    return Value::unknown("");
  }
  if (FD->getName() == "__syncwarp")
    return Value::unknown("");
  if (FD->getName().starts_with("__shfl")) {
    notStencil(ReasonKind::Reduction, "warp shuffles (" + FD->getName().str() + "): a reduction or "
               "exchange between threads");
    return Value::unknown("");
  }
  if (FD->getName() == "__ldg" && C->getNumArgs() == 1) {
    Value P = eval(C->getArg(0));
    if (P.K != Value::Pointer)
      return Value::unknown("__ldg of an untracked pointer",
                          ReasonKind::Untracked);
    return load(P, C->getType(), true);
  }
  if ((FD->getName() == "__mul24" || FD->getName() == "__umul24") &&
      C->getNumArgs() == 2)
    return mul24(C);
  if ((FD->getName() == "min" || FD->getName() == "max") &&
      C->getNumArgs() == 2 && C->getType()->isIntegerType()) {
    // min(i + 1, n - 1): the position, clamped to an edge. The value is the
    // position; the clamp is reported (a replicated boundary).
    Value A = eval(C->getArg(0)), B = eval(C->getArg(1));
    // Compared as unsigned (blockIdx.x * T + lx - 1 is unsigned, and CUDA's
    // max(unsigned, int) converts to unsigned), a position below 0 is a
    // large number that max(p, 0) keeps and min(p, n - 1) turns into n - 1:
    // no clamp.
    if (A.K == Value::Index && B.K == Value::Index && moves(A) != moves(B) &&
        C->getType()->isUnsignedIntegerType() &&
        mayBeNegative(moves(A) ? A.Idx : B.Idx)) {
      partial(ReasonKind::Boundary, "a min/max of a position compared as unsigned (" + text(C) +
              "): below 0 the position wraps to a large value, which the clamp does "
              "not catch");
      return Value::unknown("");
    }
    if (A.K == Value::Index && B.K == Value::Index && moves(A) != moves(B))
      return clampOf(FD->getName() == "min", moves(A) ? A : B,
                     moves(A) ? B : A, text(C));
    if (A.K == Value::Index && B.K == Value::Index && !moves(A))
      return Value::unknown("min/max of sizes: " + text(C));
    if (A.K == Value::Index && B.K == Value::Index)
      return Value::unknown("an index computed with min/max of positions (" +
                            text(C) + ")");
  }
  // std::max / std::min of floating values, as <algorithm> defines them:
  // (a < b) ? b : a and (b < a) ? b : a. Not the device max()/fmaxf(),
  // which return the other operand where one is a NaN.
  if ((Name == "std::max" || Name == "std::min") && C->getNumArgs() == 2 &&
      C->getType()->isRealFloatingType()) {
    DPtr A = asData(eval(C->getArg(0)), C->getArg(0));
    DPtr B = A ? asData(eval(C->getArg(1)), C->getArg(1)) : nullptr;
    if (!A || !B)
      return Value::unknown("");
    DPtr Less = node(DNode::Binary);
    Less->Op = "<";
    Less->Args = Name == "std::max" ? std::vector<DPtr>{A, B}
                                    : std::vector<DPtr>{B, A};
    DPtr S = node(DNode::Select);
    S->Args = {Less, B, A};
    return Value::data(S);
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
  // A read through a texture object (tex2D<float>(t, x - 1, y)): which
  // array it reads, and how it addresses and filters, is set on the host
  // (cudaCreateTextureObject); the header's body is no index to follow.
  if (isTextureFetch(FD->getName())) {
    const std::string Tex =
        C->getNumArgs() ? "the texture '" + text(C->getArg(0)) + "'"
                        : std::string("a texture");
    partial(ReasonKind::Untracked,
            "a read through " + Tex + " (" + FD->getName().str() +
                "): the array it reads and its addressing and filtering "
                "modes are set on the host, which the analysis does not "
                "follow");
    return Value::unknown("a value read through " + Tex);
  }
  // An inline __device__ helper, or a lambda defined in the kernel
  // (auto idx = [=](int x, int y) { return y * nx + x; }): interpret its
  // body with the arguments bound to the parameters; its single return
  // value is the result. The body of a lambda names the kernel's variables
  // it captures: by reference, they are read as they are at the call; by
  // copy, as they were at the lambda's definition (LambdaCopies).
  std::string Why;
  if (std::optional<InlineHelper> H = inlineHelper(C, Why)) {
    const FunctionDecl *Def = H->Def;
    const unsigned First = H->First;
    const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
    if (!Body)
      return Value::unknown("helper " + Name);
    Value Result;
    std::vector<std::pair<const VarDecl *, Value>> OutParams;
    // (a member of a local struct: the struct, the member, the value)
    std::vector<std::tuple<const VarDecl *, std::string, Value>> OutMembers;
    {
      HelperScope Scope(*this, C, *H);
      Frames.push_back({});
      Frames.back().ReturnType = Def->getReturnType();
      exec(Body);
      Result = helperResult(Frames.back(), Name);
      Frames.pop_back();
      // What the helper stored through its non-const reference parameters
      // (compute3DIndices(id, nx, ny, xid, yid, zid)) goes to the caller's
      // variables, or members of its local structs, they name; anything
      // else they refer to is not followed.
      const auto &SavedEnv = Scope.callerEnv();
      const auto &Bound = Scope.bound();
      for (unsigned I = 0;
           I < Def->getNumParams() && I + First < C->getNumArgs(); ++I) {
        const ParmVarDecl *PD = Def->getParamDecl(I);
        const auto *RT = PD->getType()->getAs<LValueReferenceType>();
        if (!RT || RT->getPointeeType().isConstQualified())
          continue;
        auto After = Env.find(PD);
        if (After == Env.end())
          continue;
        auto BoundTo =
            std::find_if(Bound.begin(), Bound.end(),
                         [&](const auto &B) { return B.first == PD; });
        if (BoundTo != Bound.end() && sameValue(BoundTo->second, After->second))
          continue; // Not stored to.
        const Expr *Arg = C->getArg(I + First)->IgnoreParenImpCasts();
        const auto *DR = dyn_cast<DeclRefExpr>(Arg);
        const auto *Var = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
        const auto *ME = dyn_cast<MemberExpr>(Arg);
        const VarDecl *Rec = ME && !ME->isArrow()
                                 ? localStruct(ME->getBase(), SavedEnv)
                                 : nullptr;
        if (Var && !Var->getType()->isReferenceType() && SavedEnv.count(Var))
          OutParams.push_back({Var, After->second});
        else if (Rec)
          OutMembers.push_back({Rec, ME->getMemberDecl()->getName().str(),
                                After->second});
        else
          partial(ReasonKind::Untracked,
                  "the helper '" + Name + "' stores through its reference "
                  "parameter '" + PD->getName().str() + "' to " +
                  text(C->getArg(I + First)) +
                  ", which the analysis does not follow");
      }
    }
    for (auto &[Var, V] : OutParams)
      Env[Var] = std::move(V);
    for (auto &[Rec, Field, V] : OutMembers)
      setMember(Rec, Field, std::move(V));
    return Result;
  }
  // A call the analysis does not follow (a __device__ function defined in
  // another unit, a lambda the kernel takes as a parameter, helpers nested
  // too deep) may store anywhere: through its pointer or reference
  // arguments, a lambda's captures, __device__ variables. A variant built
  // from the stores the analysis saw would leave those out, so the kernel
  // is no stencil a generator may rebuild, even where its own stores are
  // clear. (printf and assert are DeviceCalls: recorded, not rewritten.)
  std::string What = Why.empty() ? "a call to '" + Name + "'" : Why;
  if (!hasOutsideEffect(FD->getName()) && !isReadOnlyIntrinsic(FD->getName()))
    partial(ReasonKind::Untracked,
            "a call the analysis does not follow, whose stores it would not "
            "see: " + What);
  return Value::unknown(What);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
