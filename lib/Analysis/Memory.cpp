//===- Memory.cpp - Arrays, pointers and the loads through them -----------===//
//
// The memory model of the interpretation: the arrays a kernel reaches
// (parameters, __shared__, __constant__ and local arrays), pointers as an
// array and an element offset (rescaled by casts to other element sizes),
// and what a load through one gives: a read of global memory at an index, a
// __shared__ read resolved against the tile's stores later, a local array's
// element, a __constant__ coefficient, or why not.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <functional>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

ArrayInfo *Interpreter::arrayOf(const std::string &Name) {
  auto It = Arrays.find(Name);
  return It == Arrays.end() ? nullptr : &It->second;
}

std::string Interpreter::mixedElementTypes(const ir::StencilIR &IR) {
  auto Canonical = [](QualType T) {
    return T.isNull() ? T : T.getCanonicalType().getUnqualifiedType();
  };
  // Integer data (pixels, counts): generators write floating-point
  // arithmetic only.
  auto Integers = [&](const std::string &Name, const char *Role) -> std::string {
    ArrayInfo *A = arrayOf(Name);
    if (!A || A->ElemType.isNull() || !A->ElemType->isIntegerType())
      return "";
    return std::string("the ") + Role + " '" + Name + "' holds integers ('" +
           A->ElemType.getAsString() + "'): no generator follows integer "
           "arithmetic yet";
  };
  for (const ir::InputArray &In : IR.Inputs)
    if (std::string Why = Integers(In.Param, "input"); !Why.empty())
      return Why;
  for (const ir::OutputArray &O : IR.Outputs)
    if (std::string Why = Integers(O.Param, "output"); !Why.empty())
      return Why;
  QualType Elem;
  for (const ir::OutputArray &O : IR.Outputs)
    if (ArrayInfo *A = arrayOf(O.Param); A && !A->ElemType.isNull()) {
      Elem = Canonical(A->ElemType);
      break;
    }
  if (Elem.isNull())
    return "";
  auto Differs = [&](const std::string &Name, const char *Role) -> std::string {
    ArrayInfo *A = arrayOf(Name);
    if (!A || A->ElemType.isNull() || Canonical(A->ElemType) == Elem)
      return "";
    return std::string("the ") + Role + " '" + Name + "' holds '" +
           A->ElemType.getAsString() + "' elements beside '" +
           Elem.getAsString() +
           "': no generator mixes element types yet (a generated kernel "
           "declares every array of one type)";
  };
  for (const ir::InputArray &In : IR.Inputs)
    if (std::string Why = Differs(In.Param, "input"); !Why.empty())
      return Why;
  for (const ir::OutputArray &O : IR.Outputs)
    if (std::string Why = Differs(O.Param, "output"); !Why.empty())
      return Why;
  return "";
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

Value Interpreter::load(const Value &At, QualType T, bool Ldg) {
  Value Ptr = At;
  if (!ActiveCoarse.empty())
    Ptr.Idx = coarseNormal(Ptr.Idx, ActiveCoarse);
  if (std::optional<std::string> S = choiceIn(Ptr.Idx))
    return loadChosen(Ptr, T, Ldg, *S); // an upwind donor (DataChosenOffsets)
  ArrayInfo *A = arrayOf(Ptr.Array);
  if (!A)
    return Value::unknown("a load through an untracked pointer",
                          ReasonKind::Untracked);
  if (!T->isRealFloatingType() && !T->isIntegerType())
    return Value::unknown("a load of a non-scalar type");
  Poly Index;
  std::vector<std::pair<int, Poly>> ClampIds;
  if (!splitClamps(Ptr.Idx, Index, ClampIds))
    return Value::unknown("an index that multiplies clamped positions");
  if (!ClampIds.empty() && A->Kind != ArrayKind::Global) {
    partial(ReasonKind::Boundary, "a clamped index into the " +
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
    N->Phase = Barriers;
    N->StoresBefore = SharedStores.size();
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
  const bool Integer = T->isIntegerType() && A->Kind == ArrayKind::Global;
  if (Integer)
    IntegerLoads.insert(Ptr.Array);
  if (A->Kind == ArrayKind::Constant) {
    std::optional<int64_t> Element = numberOf(Ptr.Idx);
    if (!Element) {
      partial(ReasonKind::Update, "a __constant__ array indexed by a non-constant");
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
  if (ClampIds.empty())
    if (const Write *W = forwardedStore(Ptr.Array, Index))
      return Value::data(W->Value);
  DPtr N = node(DNode::Read);
  N->Name = Ptr.Array;
  N->Index = Index;
  N->Ldg = Ldg;
  N->Integer = Integer;
  N->Clamps.push_back(ClampSet());
  N->Clamps.back().Ids = ClampIds;
  Reads.push_back({Ptr.Array, Index, Ldg});
  return Value::data(N);
}

Value Interpreter::evalSubscriptBase(const Expr *E) {
  Value B = eval(E);
  if (B.K != Value::Pointer)
    return Value::unknown("subscript of an untracked base: " + text(E),
                          ReasonKind::Untracked);
  return B;
}

bool Interpreter::indirectIndex(const Value &V) {
  if (V.K != Value::Data || !V.D)
    return false;
  std::string Array;
  std::function<void(const DNode &)> Find = [&](const DNode &N) {
    if (N.K == DNode::Read && N.Integer && Array.empty())
      Array = N.Name;
    for (const DPtr &A : N.Args)
      if (A)
        Find(*A);
  };
  Find(*V.D);
  if (Array.empty())
    return false;
  loadedIndex(Array);
  return true;
}

void Interpreter::loadedIndex(const std::string &Array) {
  notStencil(ReasonKind::Indirect, "an index loaded from memory ('" + Array +
             "'): an indirect access whose footprint depends on data");
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
