//===- IRBuilder.cpp - Axes, strides, offsets and the Stencil IR ------------===//

#include "AtomicReductions.h"
#include "KernelInterpreter.h"

#include "clang/AST/DeclTemplate.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace forgestencil {
namespace analysis {
namespace detail {

// Finalisation.
bool isAxisSymbol(const std::string &S) {
  return S[0] == '@' || S.rfind("mod[", 0) == 0 || S.rfind("div[", 0) == 0;
}

/// Element offsets Rel = sum_a Off[a]*Stride[a], slowest axis first.
std::string typeName(QualType T, ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  PrintingPolicy PP(Ctx.getLangOpts());
  return T.getAsString(PP);
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
    // As long as no load was lost, also where the IR's building lost it
    // (a read through a clamp it cannot state).
    if (ReadsLost ||
        std::any_of(PartialReasons.begin(), PartialReasons.end(),
                    [](const Reason &R) { return losesLoads(R.Kind); }))
      ReadsNothing = ReadsSinglePoints = false;
    if (HardReasons.empty() && !PartialReasons.empty()) {
      if (ReadsNothing)
        notStencil(ReasonKind::Pointwise, "the kernel reads no array: it only stores values (a "
                   "boundary condition or an initialisation), not a stencil" + modesNote());
      else if (ReadsSinglePoints)
        notStencil(ReasonKind::Pointwise, "each array is read at a single point per thread (a "
                   "pointwise update, copy or injection), not a stencil" + modesNote());
    }
    // Integers loaded from memory are data only in a kernel read whole as
    // a stencil; in one the analysis lost track of (a partial kernel, a
    // loop it did not follow) they may be indices. A kernel partial only
    // for how it computes or stores its values (a conversion to a whole
    // number) followed every value and every load's index, and an integer
    // used as an index would have been seen there (indirectIndex).
    const bool Lost = std::all_of(HardReasons.begin(), HardReasons.end(), [](const Reason &R) {
      return R.Kind == ReasonKind::Loop || R.Kind == ReasonKind::LoopNotFollowed;
    });
    const bool ValuesFollowed =
        HardReasons.empty() && !ReadsLost &&
        std::all_of(PartialReasons.begin(), PartialReasons.end(), [](const Reason &R) {
          return R.Kind == ReasonKind::Update || R.Kind == ReasonKind::Store;
        });
    if (!IntegerLoads.empty() && Lost && !ValuesFollowed)
      loadedIndex(*IntegerLoads.begin());
    KA.Reasons.assign(HardReasons.begin(), HardReasons.end());
    if (!HardReasons.empty()) {
      KA.Result = KernelAnalysis::NotStencil;
      KA.IR.reset();
      return KA;
    }
    KA.Reasons.insert(KA.Reasons.end(), PartialReasons.begin(),
                      PartialReasons.end());
    KA.Result = PartialReasons.empty() ? KernelAnalysis::Stencil
                                       : KernelAnalysis::Partial;
    return KA;
  };

  // Stores on the boundary side of an if only: no stencil beside them.
  if (Writes.empty() && !FrameWrites.empty()) {
    Writes = std::move(FrameWrites);
    FrameWrites.clear();
    for (const std::string &C : FrameConds)
      partial(ReasonKind::Boundary, "different updates on the two sides of '" + C +
              "' (boundary and interior regions)");
  }
  if (Writes.empty() && PartialReasons.empty() && HardReasons.empty()) {
    if (std::string Why = onlyAccumulates(Slices); !Why.empty())
      notStencil(ReasonKind::Reduction, Why);
    else
      notStencil(ReasonKind::NoStore, "the kernel stores nothing to global "
                 "memory the analysis can see");
    return Verdict();
  }
  if (Writes.empty())
    return Verdict();
  if (std::string Why = whereChoiceLeaks(); !Why.empty())
    partial(ReasonKind::DataBranch, Why);
  for (Write &W : Writes)
    resolveSharedReads(W.Value);
  // Block-stride loops read with a block of their span: any block with
  // enough threads along D does the same.
  for (const auto &[D, L] : BlockLoops) {
    std::string Why;
    std::optional<int64_t> Least = blockLoopLeast(D, Why);
    if (!Least) {
      partial(ReasonKind::LoopNotFollowed,
              "the loops over '" + L.Var + "' step by blockDim." +
                  "xyz"[D] + ", but " + Why);
      continue;
    }
    if (L.Step && *Least > L.Step) {
      partial(ReasonKind::LoopNotFollowed,
              "the loops over '" + L.Var + "' step by " + std::to_string(L.Step) +
                  ", the launches' block along " + "xyz"[D] + ", but the kernel needs " +
                  std::to_string(*Least) + " threads there to fill a tile");
      continue;
    }
    BlockLoopLeast[D] = *Least;
    Assumptions.insert(std::string("blockDim.") + "xyz"[D] +
                       (L.Step ? " == " + std::to_string(L.Step)
                               : " >= " + std::to_string(*Least)) +
                       " (" + blockLoopWhy(L, D, *Least) + ")");
  }
  for (const auto &[D, B] : BlockSizes) {
    if (BlockLoops.count(D))
      continue;
    Assumptions.insert(std::string("blockDim.") + "xyz"[D] + " == " +
                         std::to_string(Halo.count(D) ? Halo.at(D).Threads : B) +
                         (Halo.count(D)
                              ? " (the kernel's launches use " +
                                    std::to_string(Halo.at(D).Threads) + ": " +
                                    LaunchWhere + "; " + std::to_string(B) +
                                    " points a block, the other threads only "
                                    "load its tile)"
                          : ChunkWhy.count(D) ? " (" + ChunkWhy.at(D) + ")"
                          : BlockFromLaunch.count(D)
                              ? " (the kernel's launches use " +
                                    std::to_string(B) + ": " + LaunchWhere + ")"
                          : TileWhy.count(D)
                              ? " (the launches in view give no one block size; " + TileWhy.at(D) + ")"
                              : " (the kernel indexes blocks by " +
                                    std::to_string(B) + ")"));
  }
  applySplits();
  mergePeeledPlanes();
  dropUnusedCarriedReads();

  // Kernels that read no neighbourhood at all are not stencils, whatever
  // else was not understood about them (as long as no load was lost).
  // Decided in Verdict: only when nothing more specific is found.
  {
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
    partial(ReasonKind::StoreIndex, "the store index " + Main.Index.str() +
            " uses threadIdx/blockIdx other than as blockIdx*blockDim+"
            "threadIdx" +
            (Coarsened ? std::string(": several points per thread, blockDim "
                                     "apart (thread coarsening), are not "
                                     "followed")
                       : std::string()));
    return Verdict();
  }
  if (Syms.empty()) {
    notStencil(ReasonKind::NoStore, "the store index does not depend on the thread's position "
               "(every thread writes the same element)");
    return Verdict();
  }
  // A loop whose variable indexes reads but not the store sums along a
  // direction the output does not have: a reduction or a matrix product.
  for (const AxisSym &L : LoopAxes) {
    // A loop whose carried index was not followed leaves the store where it
    // was before the loop: that says nothing of a reduction (the refusal of
    // the carry is the reason); nor does a store outside a loop that stores.
    if (L.CarryRefused || std::any_of(Writes.begin(), Writes.end(), [&](auto &W) {
          return W.Index.mentions(L.Symbol); }))
      continue;
    bool ReadAlong = std::any_of(Reads.begin(), Reads.end(), [&](auto &R) {
      return R.Index.mentions(L.Symbol);
    });
    if (ReadAlong)
      notStencil(ReasonKind::Reduction, "the loop over '" + L.LoopVar + "' (up to " +
                 L.LoopUpper.str() + ") reads along a direction the store "
                 "does not move in: a reduction or a matrix product");
  }
  if (!HardReasons.empty())
    return Verdict();
  if (Syms.size() > 3) {
    partial(ReasonKind::StoreIndex, "more than three position variables in the store index");
    return Verdict();
  }
  for (const std::string &S : Syms)
    if (S.rfind("@g", 0) != 0 && S.rfind("@loop:", 0) != 0 &&
        S.rfind("mod[", 0) != 0 && S.rfind("div[", 0) != 0) {
      partial(ReasonKind::StoreIndex, "unrecognised position variable " + S);
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
      partial(ReasonKind::StoreIndex, "the store index is not affine in the position (" +
              Main.Index.str() + ")");
      return Verdict();
    }
    Axes.push_back({S, *Str});
  }
  // Fastest axis first: stride 1, then by degree, then by spelling.
  std::sort(Axes.begin(), Axes.end(), [](const AxisFact &A, const AxisFact &B) {
    return fasterStride(A.Stride, B.Stride);
  });
  for (size_t I = 1; I < Axes.size(); ++I)
    if (Axes[I].Stride == Axes[I - 1].Stride) {
      partial(ReasonKind::StoreIndex, "two position variables share the stride " + Axes[I].Stride.str());
      return Verdict();
    }
  {
    std::vector<std::string> Syms;
    for (const AxisFact &A : Axes)
      Syms.push_back(A.Sym);
    if (std::string Why = positionsSharingAComponent(Syms); !Why.empty()) {
      partial(ReasonKind::StoreIndex, Why);
      return Verdict();
    }
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
      notStencil(ReasonKind::BoundaryOnly, "a boundary kernel that stores values on a face of the "
                 "array and reads no neighbourhood (" + Where + ")");
    else
      partial(ReasonKind::Boundary, "a boundary kernel: the stores lie on a face of the array (" +
              Where + "); the IR describes stencils over the volume only");
    return Verdict();
  }

  // Packed fields (PackedFields.h): an index' planes past the domain of
  // the slowest axis, bounded by these, are the field of its array.
  FieldState Fields{slowestUppers(Main.Guards, AxisSyms.back()), {}, false};

  // The thread-to-array offset of each axis, from the main write: a number,
  // or an expression over the kernel's parameters when the grid's origin
  // is one (column = get_global_id(0) + info.x_offset): ShiftSym holds that
  // part, Shift the number. The main write's field is not part of it.
  Poly MainRest = Main.Index.without(AxisSyms), MainField;
  if (auto F = fieldOf(MainRest, Strides, Fields.Uppers, std::nullopt, false)) {
    MainField = F->Field;
    MainRest = MainRest - MainField;
    Fields.Known.push_back(MainField);
  }
  auto Shift = offsetAlong(MainRest, Strides);
  std::vector<Poly> ShiftSym(AxisSyms.size());
  if (!Shift) {
    auto Sym = symbolicOffset(MainRest, Strides);
    if (Sym && std::all_of(Sym->begin(), Sym->end(),
                           [&](const Poly &P) { return uniformPoly(P); })) {
      Shift = ir::Offset{0, 0, 0};
      for (size_t A = 0; A < Sym->size(); ++A) {
        const int64_t C = (*Sym)[A].coefficient({});
        if (C < -(1 << 20) || C > (1 << 20)) {
          Shift.reset();
          break;
        }
        (*Shift)[A] = static_cast<int>(C);
        ShiftSym[A] = (*Sym)[A] - Poly::constant(C);
      }
    }
  }
  if (!Shift) {
    partial(ReasonKind::StoreIndex, "the store index " + Main.Index.str() +
            " has a constant part that is not a whole number of rows");
    return Verdict();
  }
  const bool SymbolicOrigin = std::any_of(
      ShiftSym.begin(), ShiftSym.end(), [](const Poly &P) { return !P.terms().empty(); });
  // Fields past a grid whose origin is a parameter are not told apart.
  if (SymbolicOrigin)
    Fields.Uppers.clear();
  auto ShiftOf = [&](size_t A) {
    return Poly::constant((*Shift)[A]) + ShiftSym[A];
  };
  Poly Base = MainRest; // element index of the written point minus axes

  // Set by OffsetOf when the access moves along the axes with strides other
  // than the store's (an array of another layout, or a transpose), and to
  // the field of the array it places the access in (Fields).
  bool LayoutDiffers = false;
  Poly LastField;
  auto OffsetOf = [&](const Poly &Index, std::string &Why) -> std::optional<ir::Offset> {
    LayoutDiffers = false;
    LastField = Poly();
    // A unit stride along an axis while a faster axis moves too: the axes
    // are swapped. (An access that does not move along the faster axes at
    // all, dy[j], is an array of its own layout.) Faster means known to be:
    // a stride that is a number, or of a lower degree (nx before nx*ny); of
    // two strides that are parameters (d_slice_1, d_yline_1) the axes'
    // order says nothing, and such an access is a table of its own layout.
    auto Degree = [](const Poly &P) {
      size_t D = 0;
      for (const auto &[M, C] : P.terms())
        D = std::max(D, M.size());
      return D;
    };
    for (size_t A = 1; A < AxisSyms.size(); ++A) {
      auto S = Index.coefficientOf(AxisSyms[A]);
      if (!S || *S != Poly::constant(1))
        continue;
      bool FasterMoves = false;
      for (size_t B = 0; B < A; ++B)
        if (auto F = Index.coefficientOf(AxisSyms[B]);
            (!F || !F->terms().empty()) &&
            (Strides[B].isConstant() || Degree(Strides[B]) < Degree(Strides[A])))
          FasterMoves = true;
      if (FasterMoves)
        notStencil(ReasonKind::Transpose, "an access (" + Index.str() + ") with the axes of the store (" +
                   Main.Index.str() + ") swapped: a transpose, not a stencil");
    }
    for (size_t A = 0; A < AxisSyms.size(); ++A) {
      auto S = Index.coefficientOf(AxisSyms[A]);
      if (!S || *S != Strides[A]) {
        Why = "an access (" + Index.str() + ") with a different layout than "
              "the store (" + Main.Index.str() + ")";
        LayoutDiffers = true;
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
    const Poly Rel = Index.without(AxisSyms) - Base;
    auto O = offsetAlong(Rel, Strides);
    if (!O)
      O = placeInField(Rel, Strides, Fields, (*Shift)[AxisSyms.size() - 1], LastField);
    if (!O)
      Why = "an access (" + Index.str() + ") at an offset that is not a "
            "whole number of elements along each axis";
    return O;
  };

  // An input of its own layout: a staggered array with longer rows
  // (row * (nx + 1) + col beside a store at row * nx + col) or a table along
  // some axes only (dx[col]). Its strides are the coefficients of the axis
  // symbols; it must be contiguous along the fastest axis it moves along,
  // and its element for the point p at offset o is sum_a stride[a] *
  // (p[a] + o[a]), p the store's coordinates (thread position plus shift).
  auto OwnLayoutOffset = [&](const Poly &Index, std::vector<Poly> &Layout,
                             std::string &Why) -> std::optional<ir::Offset> {
    auto Refuse = [&](const std::string &What) {
      Why = "an access (" + Index.str() + ") with a different layout than "
            "the store (" + Main.Index.str() + "): " + What;
      return std::nullopt;
    };
    Layout.assign(AxisSyms.size(), Poly());
    std::vector<Poly> Moving;
    std::vector<size_t> MovingAxis;
    for (size_t A = 0; A < AxisSyms.size(); ++A) {
      auto S = Index.coefficientOf(AxisSyms[A]);
      if (!S)
        return Refuse("not affine in the position");
      for (const auto &[M, C] : S->terms())
        for (const std::string &Sy : M)
          if (isAxisSymbol(Sy))
            return Refuse("not affine in the position");
      Layout[A] = *S;
      if (!S->terms().empty()) {
        Moving.push_back(*S);
        MovingAxis.push_back(A);
      }
    }
    for (const auto &[M, C] : Index.terms())
      for (const std::string &Sy : M)
        if (isAxisSymbol(Sy) &&
            std::find(AxisSyms.begin(), AxisSyms.end(), Sy) == AxisSyms.end())
          return Refuse("it uses a position variable the store does not");
    if (Moving.empty())
      return Refuse("it does not move with the point");
    if (Moving.front() != Poly::constant(1))
      return Refuse("it is not contiguous along the fastest axis it moves along");
    for (size_t I = 1; I < Moving.size(); ++I)
      if (Moving[I] == Moving[I - 1] || Moving[I].constantValue() == 1)
        return Refuse("two axes share a stride");
    Poly Rest = Index.without(AxisSyms);
    for (size_t I = 0; I < Moving.size(); ++I)
      Rest = Rest - Moving[I] * ShiftOf(MovingAxis[I]);
    auto Along = offsetAlong(Rest, Moving);
    if (!Along)
      return Refuse("at an offset that is not a whole number of its elements "
                    "along each axis");
    ir::Offset O{0, 0, 0};
    for (size_t I = 0; I < Moving.size(); ++I)
      O[MovingAxis[I]] = (*Along)[I];
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
    X.ThreadOffset = ShiftOf(A).str();
    auto Display = [&](Poly P) { return (P + ShiftOf(A)).str(); };
    if (S.rfind("@g", 0) == 0 && S.size() == 4) {
      // blockIdx.B * blockDim.T + threadIdx.T, or either term alone.
      X.Source = ir::AxisSource::Thread;
      X.ThreadDim = S[2];
      X.BlockDim = S[3];
      X.Name = S[2] != '-' ? std::string("thread.") + S[2]
                           : std::string("block.") + S[3];
    } else if (S.rfind("@g", 0) == 0) {
      X.ThreadDim = S[2];
      X.Source = GridStrideSyms.count(S) ? ir::AxisSource::GridStride
                                         : ir::AxisSource::Thread;
      X.Name = std::string("thread.") + S[2];
      if (auto H = Halo.find(S[2] - 'x');
          H != Halo.end() && X.Source == ir::AxisSource::Thread) {
        X.BlockPoints = H->second.Points;
        X.BlockFirst = H->second.First;
      }
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
    boundsOn(Main.Guards, S, Lowers, Uppers, Excluded);
    // "i != 0" next to i >= 0 (implicit for a thread or split coordinate)
    // moves the lower bound; "i != nx-1" next to i < nx the upper one.
    std::optional<Poly> ImplicitUpper;
    for (const auto &[Key, Sp] : Splits)
      if (Sp.ModName == S)
        ImplicitUpper = Sp.A;
    // A thread's coordinate is at least its offset: so is every point a
    // grid-stride loop visits from it.
    bool Counted = X.Source == ir::AxisSource::Thread ||
                   X.Source == ir::AxisSource::Linear ||
                   X.Source == ir::AxisSource::GridStride;
    // A loop axis' own range, which "k != 0" (if (k == 0) continue;) may
    // narrow at either end.
    std::optional<Poly> LoopLo, LoopHi;
    for (const AxisSym &L : LoopAxes)
      if (X.Source == ir::AxisSource::Loop && L.Symbol == S && L.HasLoopRange) {
        LoopLo = L.LoopLower;
        LoopHi = L.LoopUpper;
      }
    for (const Poly &V : Excluded) {
      if (LoopLo && Lowers.empty() && Uppers.empty()) {
        if (V == *LoopLo) {
          LoopLo = V + Poly::constant(1);
          X.Lower = Display(*LoopLo);
          continue;
        }
        if (V == *LoopHi - Poly::constant(1)) {
          LoopHi = V;
          X.Upper = Display(*LoopHi);
          continue;
        }
      }
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
        partial(ReasonKind::Guard, "a guard excludes one point (" + S + " != " + V.str() +
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
      partial(ReasonKind::Guard, "no upper bound on the 1-D thread id along " + S);
    if (X.Source == ir::AxisSource::Loop) {
      // The loop's own range, unless guards narrow it further.
      if (LoopLo && Lowers.empty() && Uppers.empty()) {
        TLo[A] = LoopLo;
        THi[A] = LoopHi;
      }
    } else {
      if (Lowers.size() == 1)
        TLo[A] = Lowers[0];
      else if (Lowers.empty() && Counted)
        TLo[A] = Poly();
      if (Uppers.size() == 1)
        THi[A] = Uppers[0];
      // threadIdx.D alone: the block's size along D, which BlockSizes
      // holds as a block-dim assumption, bounds the position.
      if (Uppers.empty() && X.Source == ir::AxisSource::Thread &&
          X.BlockDim == '-' && X.ThreadDim != '-')
        if (auto B = BlockSizes.find(X.ThreadDim - 'x');
            B != BlockSizes.end() && !Halo.count(B->first))
          THi[A] = Poly::constant(B->second);
    }
    // A block covers its points along a block-stride loop's dimension by
    // the loop, whatever its size (BlockLoops.h).
    if (X.Source == ir::AxisSource::Thread && X.ThreadDim != '-')
      if (auto L = BlockLoops.find(X.ThreadDim - 'x');
          L != BlockLoops.end() && BlockLoopLeast.count(L->first)) {
        X.BlockLoop = true;
        X.BlockPoints = L->second.span();
        X.BlockFirst = 0;
      }
    IR.Axes.push_back(std::move(X));
  }
  if (std::string Why = setThreadPoints(Coarsened, IR); !Why.empty())
    partial(ReasonKind::LoopNotFollowed, Why);
  for (const Constraint &C : Main.Guards)
    if (C.Symbol == "?")
      partial(ReasonKind::Guard, "a guard on the 1-D thread id itself (e.g. idx < n) that is "
              "not a bound on the slowest coordinate");
  std::vector<ir::Assumption> GuardsChecked;
  if (std::string Why = guardedReadsHold(AxisSyms, TLo, THi, GuardsChecked);
      !Why.empty()) {
    // Fills the domain takes: a zero boundary where they are reads
    // replaced by 0 outside bounds of their coordinates.
    if (SymbolicOrigin)
      partial(ReasonKind::Guard, Why);
    else
      zeroBoundaries(IR, AxisSyms, *Shift, TLo, THi, OffsetOf, Why);
  }
  // Clamped indices (replicated boundaries) and wrapped ones (periodic).
  const std::string Moved =
      Wraps.empty()    ? "indices are clamped to the array's edge"
      : Clamps.empty() ? "indices wrap around by a period"
                       : "indices are clamped and wrapped";
  if ((!Clamps.empty() || !Wraps.empty()) && SymbolicOrigin) {
    partial(ReasonKind::Boundary, Moved + " on a grid whose "
            "origin is a parameter (" + IR.Axes.front().ThreadOffset + ", ...); clamps and "
            "wraps are followed for a numeric origin only");
  } else if (!Clamps.empty() || !Wraps.empty()) {
    std::string Why = clampedBounds(
        IR, AxisSyms, Strides, *Shift, TLo, THi, OffsetOf,
        [&](const Poly &Index, std::vector<Poly> &Layout) {
          std::string Ignored;
          return OwnLayoutOffset(Index, Layout, Ignored);
        });
    if (!Why.empty()) {
      std::string List;
      for (const auto *Set : {&Clamps, &Wraps})
        for (const std::string &C : *Set)
          List += (List.empty() ? "" : ", ") + C;
      partial(ReasonKind::Boundary, Moved + " (" + List + "), but not as " +
              (Wraps.empty() ? "a replicated" : Clamps.empty() ? "a periodic"
                                                              : "a") +
              " boundary the IR states: " + Why);
    }
  }
  oneBoundaryKind(IR);
  // Array extents from strides: stride[a+1] / stride[a].
  for (size_t A = 0; A + 1 < Strides.size(); ++A)
    IR.Axes[A].Extent = extentBetween(Strides[A], Strides[A + 1]);

  // A layout that is the store's once named constants have their numbers
  // (u[j][i] of float (*u)[N] beside out[j * N + i]) is the same layout.
  auto SameNumbers = [&](const std::vector<Poly> &Own) {
    for (size_t A = 0; A < Own.size(); ++A) {
      std::set<std::string> Before = NamedAssumed;
      bool Same = resolved(Own[A]) == resolved(Strides[A]);
      NamedAssumed = std::move(Before);
      if (!Same)
        return false;
    }
    return true;
  };
  // Writes must all have the same guards; each output (each field) once. A
  // store other than the main one may have a layout of its own (staggered).
  std::set<std::pair<std::string, std::string>> OutputFields;
  std::vector<std::string> WriteFields; // each write's field, in order
  auto IsOutput = [&](const std::string &A) { // in some field
    auto It = OutputFields.lower_bound({A, std::string()});
    return It != OutputFields.end() && It->first == A;
  };
  // The guards as a set: the same domain whatever the order they were met.
  auto GuardSet = [](const std::vector<Constraint> &Gs) {
    std::set<std::tuple<std::string, bool, std::string, bool>> S;
    for (const Constraint &G : Gs)
      S.insert({G.Symbol, G.Upper, G.Bound.str(), G.NotEqual});
    return S;
  };
  const auto MainGuards = GuardSet(Main.Guards);
  // The box another store's guards give it, [lower, upper) per axis: only
  // where each axis has one lower and one upper bound on the position and
  // no clamp or wrap is involved (whose no-op test is made on the main
  // domain); nullopt otherwise.
  using Box = std::pair<std::vector<std::string>, std::vector<std::string>>;
  auto OwnBox = [&](const Write &W) -> std::optional<Box> {
    if (!Clamps.empty() || !Wraps.empty())
      return std::nullopt;
    for (const Constraint &C : W.Guards)
      if (C.NotEqual || std::find(AxisSyms.begin(), AxisSyms.end(),
                                  C.Symbol) == AxisSyms.end())
        return std::nullopt;
    Box B;
    for (size_t A = 0; A < AxisSyms.size(); ++A) {
      if (IR.Axes[A].Source == ir::AxisSource::Loop)
        return std::nullopt;
      std::vector<Poly> Lowers, Uppers, Excluded;
      boundsOn(W.Guards, AxisSyms[A], Lowers, Uppers, Excluded);
      if (Lowers.size() != 1 || Uppers.size() != 1)
        return std::nullopt;
      B.first.push_back((Lowers[0] + ShiftOf(A)).str());
      B.second.push_back((Uppers[0] + ShiftOf(A)).str());
    }
    return B;
  };
  Fields.Stores = true;
  for (const Write &W : Writes) {
    std::optional<Box> WBox;
    if (GuardSet(W.Guards) != MainGuards && !(WBox = OwnBox(W)))
      partial(ReasonKind::Guard, "stores under different guards (" + W.Array + ")");
    std::string Why;
    auto O = OffsetOf(W.Index, Why);
    const std::string Field = fieldText(LastField);
    WriteFields.push_back(Field);
    std::vector<Poly> OwnLayout;
    if (!O && LayoutDiffers) {
      std::string OwnWhy;
      auto OwnO = OwnLayoutOffset(W.Index, OwnLayout, OwnWhy);
      if (!OwnO || !SameNumbers(OwnLayout)) {
        O = OwnO;
        Why = OwnWhy;
      } else {
        OwnLayout.clear();
      }
    }
    if (!O) {
      partial(ReasonKind::StoreIndex, Why);
      continue;
    }
    if (!OutputFields.insert({W.Array, Field}).second) {
      partial(ReasonKind::Store, "the array '" + W.Array + "' is stored twice per point");
      continue;
    }
    ir::OutputArray Out;
    Out.Param = W.Array;
    Out.Field = Field;
    Out.WriteOffset = *O;
    Out.Accumulate = W.Accumulate;
    if (!OwnLayout.empty())
      Out.Strides = layoutText(OwnLayout);
    if (WBox) {
      Out.Lower = WBox->first;
      Out.Upper = WBox->second;
    }
    IR.Outputs.push_back(Out);
  }
  Fields.Stores = false;

  // Reads, grouped by array; an input that is not an output may have a
  // layout of its own, one for all its reads.
  // Keyed by the array and its field.
  using FieldKey = std::pair<std::string, std::string>;
  std::map<FieldKey, std::set<ir::Offset>> ReadOffsets;
  std::map<FieldKey, bool> ReadLdg;
  std::map<std::string, std::optional<std::vector<Poly>>> ReadLayout;
  auto ReadOffset = [&](const std::string &Array, const Poly &Index,
                        std::string &Why,
                        std::string &Field) -> std::optional<ir::Offset> {
    auto O = OffsetOf(Index, Why);
    Field = fieldText(LastField);
    std::optional<std::vector<Poly>> Layout;
    if (!O && LayoutDiffers && !IsOutput(Array)) {
      // A layout that is the store's once named constants have their
      // numbers is the same layout: the analysis retries with the numbers.
      std::vector<Poly> Own;
      std::string OwnWhy;
      auto OwnO = OwnLayoutOffset(Index, Own, OwnWhy);
      if (!OwnO || !SameNumbers(Own)) {
        O = OwnO;
        Why = OwnWhy;
        Layout = std::move(Own);
      }
    }
    if (!O)
      return std::nullopt;
    auto [It, New] = ReadLayout.try_emplace(Array, Layout);
    if (!New && It->second != Layout) {
      Why = "the array '" + Array + "' is read with two layouts (" + Index.str() + ")";
      return std::nullopt;
    }
    return O;
  };
  // Arrays read only at elements every thread of the launch computes alike
  // and never written (alpha[step], a Runge-Kutta stage's rk_a[stage]):
  // coefficients read at an index expression, not inputs.
  std::set<std::string> UniformArrays;
  {
    std::map<std::string, bool> AllUniform;
    for (const ReadRecord &R : Reads) {
      const ArrayInfo *AI = arrayOf(R.Array);
      const bool Uniform = AI && AI->Kind == ArrayKind::Global &&
                           AI->ElemType->isRealFloatingType() &&
                           !IsOutput(R.Array) && uniformPoly(R.Index);
      auto [It, New] = AllUniform.emplace(R.Array, Uniform);
      It->second = It->second && Uniform;
    }
    for (const auto &[Name, Uniform] : AllUniform)
      if (Uniform)
        UniformArrays.insert(Name);
  }
  for (const ReadRecord &R : Reads) {
    if (UniformArrays.count(R.Array))
      continue;
    std::string Why, Field;
    auto O = ReadOffset(R.Array, R.Index, Why, Field);
    if (!O) {
      partial(ReasonKind::ReadIndex, Why);
      continue;
    }
    ReadOffsets[{R.Array, Field}].insert(*O);
    ReadLdg[{R.Array, Field}] = ReadLdg[{R.Array, Field}] || R.Ldg;
  }
  for (const auto &[Key, Offs] : ReadOffsets) {
    const auto &[Name, Field] = Key;
    ir::InputArray In;
    In.Param = Name;
    In.Field = Field;
    In.Offsets.assign(Offs.begin(), Offs.end());
    const ArrayInfo &AI = Arrays[Name];
    In.Restrict = AI.Restrict;
    In.Ldg = ReadLdg[Key];
    In.PerPointCoefficient = Offs.size() == 1 && *Offs.begin() == ir::Offset{0, 0, 0} &&
                             !IsOutput(Name);
    if (const auto &L = ReadLayout[Name])
      In.Strides = layoutText(*L);
    IR.Inputs.push_back(In);
    // Read where it is written, or in another field of the same array
    // (whose elements another thread's write may reach).
    for (ir::OutputArray &Out : IR.Outputs)
      if (Out.Param == Name &&
          (Out.Field != Field ||
           !(Offs.size() == 1 && *Offs.begin() == Out.WriteOffset)))
        Out.InPlace = true;
  }
  for (const ir::OutputArray &Out : IR.Outputs)
    if (Out.InPlace)
      partial(ReasonKind::Store, "the array '" + Out.Param + "' is updated in place while " +
              (ir::whyPackedFields(IR).empty() ? "neighbours" : "neighbours or its other fields") +
              " read it (the result depends on thread order)");

  // Updates.
  std::function<ir::Expr(const DPtr &)> Convert = [&](const DPtr &N) {
    ir::Expr E;
    switch (N->K) {
    case DNode::Read: {
      if (UniformArrays.count(N->Name)) {
        E.Kind = ir::Expr::Coef;
        E.Name = N->Name;
        E.IndexExpr = N->Index.str();
        break;
      }
      E.Kind = ir::Expr::Read;
      E.Name = N->Name;
      std::string Why;
      if (auto O = ReadOffset(N->Name, N->Index, Why, E.Field))
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
      if (N->Op == WholeNumberOp)
        partial(ReasonKind::Update, "a floating value converted to a whole number "
                "(" + N->Name + "), which the IR cannot state");
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
    case DNode::Select:
      E.Kind = ir::Expr::Select;
      break;
    case DNode::ThreadSelect: // left unresolved: the kernel is partial
      return Convert(N->Args[1]);
    }
    for (const DPtr &A : N->Args)
      E.Args.push_back(Convert(A));
    return E;
  };
  for (size_t I = 0; I < Writes.size(); ++I) {
    const Write &W = Writes[I];
    ir::Update U;
    U.Target = W.Array;
    U.TargetField = WriteFields[I];
    U.Accumulate = W.Accumulate;
    U.Value = Convert(W.Value);
    IR.Updates.push_back(std::move(U));
  }
  if (std::string Why = frameOf(IR, AxisSyms, TLo, THi, ShiftOf, OffsetOf, Convert);
      !Why.empty()) {
    std::string Conds;
    for (const std::string &C : FrameConds)
      Conds += (Conds.empty() ? "'" : "', '") + C;
    partial(ReasonKind::Boundary, "different updates on the two sides of " + Conds +
            "' (boundary and interior regions): " + Why);
    IR.Frame = ir::BoundaryFrame();
  }
  if (!ir::whyPackedFields(IR).empty() &&
      (!Clamps.empty() || !Wraps.empty() || IR.Frame.present()))
    partial(ReasonKind::Boundary, "packed fields beside clamped or wrapped indices or a "
            "boundary frame are not followed");
  // A frame is stated over the main domain; an output of another box is
  // not followed with one.
  if (IR.Frame.present())
    for (const ir::OutputArray &Out : IR.Outputs)
      if (!Out.Lower.empty())
        partial(ReasonKind::Guard, "stores under different guards (" +
                                       Out.Param + ") beside a boundary frame");

  stateCoefficients(IR);
  stateParams(IR, [&](const std::string &P) { // read in some field
    auto It = ReadOffsets.lower_bound({P, std::string()});
    return It != ReadOffsets.end() && It->first.first == P;
  }, IsOutput);
  for (const ir::InputArray &In : IR.Inputs)
    if (Arrays[In.Param].Kind != ArrayKind::Global)
      partial(ReasonKind::Parameter, "the array '" + In.Param + "' is not a kernel parameter");

  IR.Notes.assign(Assumptions.begin(), Assumptions.end());
  for (const auto *More : {&Modes, &GuardsChecked, &Checked})
    IR.Assumptions.insert(IR.Assumptions.end(), More->begin(), More->end());
  recordBuildFacts(IR);
  IR.computeDerived();
  bool Understood = HardReasons.empty() && PartialReasons.empty();
  if (!Understood) {
    // The reasons found so far say more than a footprint that lacks the
    // accesses the analysis could not place.
  } else if (IR.Points == 0 && !IR.Outputs.empty()) {
    notStencil(ReasonKind::Pointwise, "the kernel reads no neighbourhood (a pointwise update, not a "
               "stencil)" + modesNote());
  } else if (IR.Points == 1 && IR.Radius == 0) {
    notStencil(ReasonKind::Pointwise, "the kernel reads each input at the written point only (a "
               "pointwise update, not a stencil)" + modesNote());
  }
  IR.Reductions = Slices.Reductions;
  IR.DeviceCalls = DeviceCalls;
  for (std::string Why : {mixedElementTypes(IR), ir::whyNoGenerator(IR),
                          deviceValuesOnHost(IR, ConstantSymbols)})
    if (KA.NotRewritten.empty())
      KA.NotRewritten = std::move(Why);
  KA.IR = std::move(IR);
  return Verdict();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil
