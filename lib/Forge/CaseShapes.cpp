//===- CaseShapes.cpp - Case sizes the original kernel handles in bounds ---===//

#include "forgestencil/Forge/CaseShapes.h"

#include "forgestencil/Forge/Bench.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <numeric>

namespace forgestencil {
namespace forge {

namespace {

/// A recursive-descent evaluator of the integer C expressions the IR
/// holds: + - * / % and unary minus, parentheses, casts to integer types,
/// min/max calls, integer literals (with u/l suffixes) and names.
class Evaluator {
public:
  Evaluator(const std::string &Text, const std::map<std::string, long long> &Vars)
      : S(Text), Vars(Vars) {}

  std::optional<long long> run() {
    auto V = sum();
    skipSpace();
    if (!V || Pos != S.size())
      return std::nullopt;
    return V;
  }

private:
  void skipSpace() {
    while (Pos < S.size() && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
  }
  bool eat(char C) {
    skipSpace();
    if (Pos < S.size() && S[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  std::string word() {
    skipSpace();
    size_t Start = Pos;
    while (Pos < S.size() && (std::isalnum(static_cast<unsigned char>(S[Pos])) ||
                              S[Pos] == '_' || S[Pos] == ':'))
      ++Pos;
    return S.substr(Start, Pos - Start);
  }
  static bool isIntegerType(const std::string &W) {
    static const char *const Types[] = {
        "int",      "long",     "unsigned", "signed",   "short",
        "char",     "size_t",   "ptrdiff_t", "int64_t", "uint64_t",
        "int32_t",  "uint32_t", "std::size_t", "std::ptrdiff_t", "Idx",
        "const"};
    for (const char *T : Types)
      if (W == T)
        return true;
    return false;
  }
  std::optional<long long> sum() {
    auto L = product();
    while (L) {
      if (eat('+')) {
        auto R = product();
        if (!R)
          return std::nullopt;
        L = *L + *R;
      } else if (eat('-')) {
        auto R = product();
        if (!R)
          return std::nullopt;
        L = *L - *R;
      } else {
        break;
      }
    }
    return L;
  }
  std::optional<long long> product() {
    auto L = unary();
    while (L) {
      char Op = 0;
      if (eat('*'))
        Op = '*';
      else if (eat('/'))
        Op = '/';
      else if (eat('%'))
        Op = '%';
      else
        break;
      auto R = unary();
      if (!R || ((Op == '/' || Op == '%') && *R == 0))
        return std::nullopt;
      L = Op == '*' ? *L * *R : Op == '/' ? *L / *R : *L % *R;
    }
    return L;
  }
  std::optional<long long> unary() {
    if (eat('-')) {
      auto V = unary();
      return V ? std::optional<long long>(-*V) : std::nullopt;
    }
    if (eat('+'))
      return unary();
    return primary();
  }
  std::optional<long long> primary() {
    skipSpace();
    if (Pos >= S.size())
      return std::nullopt;
    if (S[Pos] == '(') {
      // A cast to an integer type, or a parenthesised expression.
      size_t Save = ++Pos;
      std::string W = word();
      if (isIntegerType(W)) {
        while (Pos < S.size() && S[Pos] != ')')
          ++Pos;
        if (!eat(')'))
          return std::nullopt;
        return unary();
      }
      Pos = Save;
      auto V = sum();
      if (!V || !eat(')'))
        return std::nullopt;
      return V;
    }
    if (std::isdigit(static_cast<unsigned char>(S[Pos]))) {
      size_t Start = Pos;
      while (Pos < S.size() && std::isdigit(static_cast<unsigned char>(S[Pos])))
        ++Pos;
      long long V = std::stoll(S.substr(Start, std::min<size_t>(Pos - Start, 18)));
      while (Pos < S.size() && (S[Pos] == 'u' || S[Pos] == 'U' || S[Pos] == 'l' ||
                                S[Pos] == 'L'))
        ++Pos;
      return V;
    }
    std::string W = word();
    if (W.empty())
      return std::nullopt;
    if (W == "min" || W == "max" || W == "std::min" || W == "std::max" ||
        W == "fs_min" || W == "fs_max") {
      if (!eat('('))
        return std::nullopt;
      auto A = sum();
      if (!A || !eat(','))
        return std::nullopt;
      auto B = sum();
      if (!B || !eat(')'))
        return std::nullopt;
      return W.find("min") != std::string::npos ? std::min(*A, *B)
                                                : std::max(*A, *B);
    }
    auto It = Vars.find(W);
    if (It == Vars.end())
      return std::nullopt;
    return It->second;
  }

  const std::string &S;
  const std::map<std::string, long long> &Vars;
  size_t Pos = 0;
};

bool isLiteral(const std::string &S) {
  return !S.empty() &&
         std::all_of(S.begin(), S.end(),
                     [](char C) { return std::isdigit(static_cast<unsigned char>(C)); });
}

const char *axisLetter(size_t A) { return A == 0 ? "x" : A == 1 ? "y" : "z"; }

} // namespace

std::optional<long long>
evaluateExpression(const std::string &Expr,
                   const std::map<std::string, long long> &Vars) {
  if (Expr.empty())
    return std::nullopt;
  try {
    return Evaluator(Expr, Vars).run();
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

std::map<std::string, long long> constantValues(const ir::StencilIR &IR) {
  std::map<std::string, long long> Values;
  for (const ir::NamedConstant &C : IR.Constants) {
    if (C.Type == "float" || C.Type == "double")
      continue;
    const std::map<std::string, long long> None;
    if (auto V = evaluateExpression(C.Value, None))
      Values[C.Name] = *V;
  }
  return Values;
}

namespace {

/// The extent axis A's IR expression fixes: a literal, or an expression of
/// the named constants alone (`N`, `N + 2`); 0 where it is free.
long long fixedExtent(const ir::StencilIR &IR, size_t A,
                      const std::map<std::string, long long> &Constants) {
  const std::string &E = IR.Axes[A].Extent;
  if (E.empty())
    return 0;
  if (isLiteral(E))
    return E.size() < 10 ? std::stoll(E) : 0;
  auto V = evaluateExpression(E, Constants);
  return V && *V > 0 && *V < 2000000000LL ? *V : 0;
}

} // namespace

Extents fixedExtents(const ir::StencilIR &IR) {
  Extents F{0, 0, 0};
  const std::map<std::string, long long> Constants = constantValues(IR);
  for (size_t A = 0; A < IR.Axes.size() && A < 3; ++A)
    F[A] = fixedExtent(IR, A, Constants);
  return F;
}

std::string fixedExtentWhy(const ir::StencilIR &IR, size_t A) {
  if (A >= IR.Axes.size())
    return "";
  const std::string &E = IR.Axes[A].Extent;
  const Extents F = fixedExtents(IR);
  if (!F[A])
    return "";
  if (isLiteral(E))
    return E + " in the IR";
  std::string Why = E;
  if (const ir::NamedConstant *C = IR.constant(E))
    Why += " = " + C->Value + " (a named constant" +
           (C->DefinedAt.empty() ? std::string() : " defined at " + C->DefinedAt) +
           "; the app's build fixes it)";
  else
    Why += " = " + std::to_string(F[A]) + " (named constants; the app's build fixes them)";
  return Why;
}

std::string formatExtents(const Extents &E, unsigned Dims) {
  std::string S;
  for (unsigned A = 0; A < std::max(1u, std::min(Dims, 3u)); ++A)
    S += (A ? "x" : "") + std::to_string(E[A]);
  return S;
}

BoundsCheck checkBounds(const ir::StencilIR &IR, const Extents &Ext,
                        const std::array<unsigned, 3> &Block) {
  BoundsCheck R;
  const size_t Dims = std::min<size_t>(IR.Axes.size(), 3);
  if (Dims == 0 || IR.Strides.size() < Dims)
    return R;
  // The named constants have the values the app is built with; a free
  // extent's name (a size parameter) takes the case's extent.
  std::map<std::string, long long> Vars = constantValues(IR);
  const Extents Fixed = fixedExtents(IR);
  for (size_t A = 0; A < Dims; ++A)
    if (!Fixed[A] && !IR.Axes[A].Extent.empty())
      Vars[IR.Axes[A].Extent] = Ext[A];
  // A fixed extent that the case does not have: the original's arrays are
  // as large as its build says, whatever the driver allocates.
  for (size_t A = 0; A < Dims; ++A)
    if (Fixed[A] && Fixed[A] != Ext[A]) {
      R.Known = true;
      R.InBounds = false;
      R.Why = "axis " + std::string(axisLetter(A)) + "'s extent is " +
              fixedExtentWhy(IR, A) + ", not " + std::to_string(Ext[A]);
      return R;
    }
  auto Eval = [&](const std::string &E, long long &Out) {
    auto V = evaluateExpression(E, Vars);
    if (V)
      Out = *V;
    return V.has_value();
  };
  const std::array<int, 3> ThreadDim = axisThreadDims(IR);
  long long Lo[3] = {0, 0, 0}, Hi[3] = {1, 1, 1}, St[3] = {0, 0, 0};
  // The box of a boundary frame, whose points outside the domain the
  // original writes too.
  const bool Framed = IR.Frame.present() && IR.Frame.Lower.size() >= Dims &&
                      IR.Frame.Upper.size() >= Dims;
  long long FLo[3] = {0, 0, 0}, FHi[3] = {1, 1, 1};
  // Reads along an axis with a boundary (clamped or wrapped) stay within
  // its bounds.
  long long ClampLo[3], ClampHi[3];
  for (size_t A = 0; A < Dims; ++A) {
    const ir::Axis &X = IR.Axes[A];
    long long Offset = 0;
    if (!Eval(X.Lower.empty() ? "0" : X.Lower, Lo[A]) || !Eval(X.Upper, Hi[A]) ||
        !Eval(IR.Strides[A], St[A]) ||
        !Eval(X.ThreadOffset.empty() ? "0" : X.ThreadOffset, Offset))
      return R;
    if (Framed && (!Eval(IR.Frame.Lower[A], FLo[A]) ||
                   !Eval(IR.Frame.Upper[A], FHi[A])))
      return R;
    // What the original's threads cover, of the domain and of the box.
    auto Cover = [&](long long &L, long long &H) {
      if (X.Source == ir::AxisSource::Thread && ThreadDim[A] >= 0) {
        // What the driver's grid covers: whole blocks over the extent.
        // A block with halo threads covers its points, not its threads.
        // A thread that computes several points (thread coarsening)
        // covers them all.
        const long long B =
            (X.BlockPoints > 0 ? X.BlockPoints
                               : std::max(1u, Block[ThreadDim[A]])) *
            X.ThreadPoints;
        L = std::max(L, Offset);
        H = std::min(H, Offset + (Ext[A] + B - 1) / B * B);
      } else if (X.Source == ir::AxisSource::Linear) {
        L = std::max(L, Offset);
        long long Mod;
        if (!X.LinearModulus.empty()) {
          if (!Eval(X.LinearModulus, Mod))
            return false;
          H = std::min(H, Offset + Mod);
        }
      }
      return true;
    };
    if (!Cover(Lo[A], Hi[A]) || (Framed && !Cover(FLo[A], FHi[A])))
      return R;
    ClampLo[A] = LLONG_MIN;
    ClampHi[A] = LLONG_MAX;
    if (X.hasBoundary() && (!Eval(X.boundaryLower(), ClampLo[A]) ||
                            !Eval(X.boundaryUpper(), ClampHi[A])))
      return R;
  }
  R.Known = true;
  R.InBounds = true;
  bool Domain = true, Box = Framed;
  for (size_t A = 0; A < Dims; ++A) {
    Domain = Domain && Hi[A] > Lo[A];
    Box = Box && FHi[A] > FLo[A];
  }
  if (!Domain && !Box)
    return R; // an empty domain touches nothing
  // The box's points outside the domain are written, and read at the
  // point: the accesses span both.
  long long ALo[3], AHi[3];
  for (size_t A = 0; A < Dims; ++A) {
    ALo[A] = !Box ? Lo[A] : !Domain ? FLo[A] : std::min(Lo[A], FLo[A]);
    AHi[A] = !Box ? Hi[A] : !Domain ? FHi[A] : std::max(Hi[A], FHi[A]);
  }
  // The offsets every access makes, per axis.
  long long RMin[3] = {0, 0, 0}, RMax[3] = {0, 0, 0};
  long long WMin[3] = {LLONG_MAX, LLONG_MAX, LLONG_MAX},
            WMax[3] = {LLONG_MIN, LLONG_MIN, LLONG_MIN};
  bool AnyRead = false;
  for (const ir::InputArray &In : IR.Inputs)
    for (const ir::Offset &O : In.Offsets)
      for (size_t A = 0; A < Dims; ++A) {
        RMin[A] = AnyRead ? std::min(RMin[A], (long long)O[A]) : O[A];
        RMax[A] = AnyRead ? std::max(RMax[A], (long long)O[A]) : O[A];
        if (A + 1 == Dims)
          AnyRead = true;
      }
  for (const ir::OutputArray &Out : IR.Outputs)
    for (size_t A = 0; A < Dims; ++A) {
      WMin[A] = std::min(WMin[A], (long long)Out.WriteOffset[A]);
      WMax[A] = std::max(WMax[A], (long long)Out.WriteOffset[A]);
    }
  long long Elements = 1;
  for (size_t A = 0; A < Dims; ++A)
    Elements += (Ext[A] - 1) * St[A];
  // Distinct points at distinct elements: along increasing strides, each
  // axis's rows hold its whole extent.
  std::vector<size_t> Order(Dims);
  std::iota(Order.begin(), Order.end(), 0);
  std::sort(Order.begin(), Order.end(),
            [&](size_t A, size_t B) { return St[A] < St[B]; });
  for (size_t K = 0; K < Dims; ++K) {
    const size_t A = Order[K];
    if (St[A] <= 0) {
      R.InBounds = false;
      R.Why = "the stride of axis " + std::string(axisLetter(A)) + " is " +
              std::to_string(St[A]);
      return R;
    }
    if (K + 1 < Dims && St[Order[K + 1]] < St[A] * Ext[A]) {
      const size_t B = Order[K + 1];
      R.InBounds = false;
      R.Why = "axis " + std::string(axisLetter(B)) + "'s stride " +
              std::to_string(St[B]) + " is less than the " +
              std::to_string(Ext[A]) + " points along " + axisLetter(A) +
              " (stride " + std::to_string(St[A]) +
              "), so different points share elements";
      return R;
    }
  }
  // Writes inside the array along every axis.
  if (!IR.Outputs.empty())
    for (size_t A = 0; A < Dims; ++A) {
      const long long First = ALo[A] + WMin[A], Last = AHi[A] - 1 + WMax[A];
      if (First < 0 || Last > Ext[A] - 1) {
        R.InBounds = false;
        R.Why = "the original writes " + std::string(axisLetter(A)) + " = " +
                std::to_string(First < 0 ? First : Last) + ", outside [0, " +
                std::to_string(Ext[A]) + ")";
        return R;
      }
    }
  // Reads inside the allocation: the domain's at their offsets, the
  // frame's at the box's points.
  if (AnyRead) {
    long long MinE = 0, MaxE = 0;
    for (size_t A = 0; A < Dims; ++A) {
      long long CLo = std::clamp(Lo[A] + RMin[A], ClampLo[A], ClampHi[A]);
      long long CHi = std::clamp(Hi[A] - 1 + RMax[A], ClampLo[A], ClampHi[A]);
      if (!Domain) {
        CLo = FLo[A];
        CHi = FHi[A] - 1;
      } else if (Box) {
        CLo = std::min(CLo, FLo[A]);
        CHi = std::max(CHi, FHi[A] - 1);
      }
      MinE += std::min(CLo * St[A], CHi * St[A]);
      MaxE += std::max(CLo * St[A], CHi * St[A]);
    }
    if (MinE < 0 || MaxE > Elements - 1) {
      R.InBounds = false;
      R.Why = "the original reads element " +
              std::to_string(MinE < 0 ? MinE : MaxE) + " of arrays of " +
              std::to_string(Elements);
      return R;
    }
  }
  return R;
}

DerivedExtents deriveExtents(const ir::StencilIR &IR, const Extents &Wanted,
                             const std::array<unsigned, 3> &Block, bool Odd) {
  const unsigned Dims = std::min<unsigned>(IR.Dims, 3);
  const Extents Fixed = fixedExtents(IR);
  DerivedExtents D;
  D.Ext = Wanted;
  std::string FixedNote;
  for (unsigned A = 0; A < Dims; ++A)
    if (Fixed[A] && Fixed[A] != Wanted[A]) {
      D.Ext[A] = Fixed[A];
      FixedNote += std::string(FixedNote.empty() ? "" : ", ") + "axis " +
                   axisLetter(A) + "'s extent is " + fixedExtentWhy(IR, A);
    }
  D.Check = checkBounds(IR, D.Ext, Block);
  auto Finish = [&](const std::string &Why) {
    D.Changed = D.Ext != Wanted;
    if (D.Changed)
      D.Note = formatExtents(Wanted, Dims) + " became " +
               formatExtents(D.Ext, Dims) + ": " + Why;
    return D;
  };
  if (!D.Check.Known || D.Check.InBounds)
    return Finish(FixedNote);
  // Shrink the free extents by one factor until everything fits.
  const long long Min = std::max(3u, 2 * IR.Radius + 3);
  auto Scaled = [&](double F) {
    Extents E = D.Ext;
    for (unsigned A = 0; A < Dims; ++A) {
      if (Fixed[A])
        continue;
      long long V = std::max(Min, static_cast<long long>(Wanted[A] * F));
      if (Odd && V % 2 == 0)
        V = V - 1 >= Min ? V - 1 : V + 1;
      E[A] = V;
    }
    return E;
  };
  const std::string Before = D.Check.Why;
  if (!checkBounds(IR, Scaled(0), Block).InBounds)
    return Finish(FixedNote);
  double Good = 0, Bad = 1;
  for (int I = 0; I < 40; ++I) {
    double Mid = (Good + Bad) / 2;
    (checkBounds(IR, Scaled(Mid), Block).InBounds ? Good : Bad) = Mid;
  }
  D.Ext = Scaled(Good);
  D.Check = checkBounds(IR, D.Ext, Block);
  return Finish((FixedNote.empty() ? "" : FixedNote + "; ") + "at " +
                formatExtents(Scaled(1), Dims) + " " + Before);
}

/// A kernel with no guard on a thread axis computes exactly the points its
/// grid covers, and its variants run only where the grid covers the axis's
/// extent exactly (the launcher checks gridDim * blockDim against it; see
/// the grid-extent assumption): along such an axis every case's extent is a
/// whole number of blocks and no case launches a partial grid, on which the
/// original and a variant would rightly differ.
static std::vector<CaseShape> exactGrids(const ir::StencilIR &IR,
                                  const std::array<unsigned, 3> &Block,
                                  const Extents &Fixed,
                                  std::vector<CaseShape> Cases) {
  std::string Dims;
  for (const ir::Assumption &A : IR.Assumptions)
    if (A.Kind == ir::Assumption::GridExtent && A.Expr.size() == 1)
      Dims += A.Expr;
  if (Dims.empty())
    return Cases;
  std::vector<CaseShape> Kept;
  for (CaseShape &C : Cases) {
    if (C.Name.find("partial-grid") != std::string::npos)
      continue;
    for (size_t A = 0; A < IR.Axes.size() && A < 3; ++A) {
      const ir::Axis &X = IR.Axes[A];
      if (X.Source != ir::AxisSource::Thread || Fixed[A] ||
          Dims.find(X.ThreadDim) == std::string::npos)
        continue;
      long long B = Block[X.ThreadDim - 'x'];
      if (B > 1)
        C.Ext[A] = (C.Ext[A] + B - 1) / B * B;
    }
    C.Derivation.Ext = C.Ext;
    C.Derivation.Check = checkBounds(IR, C.Ext, Block);
    Kept.push_back(std::move(C));
  }
  return Kept;
}

std::optional<Extents> withAtLeast(const ir::StencilIR &IR, const Extents &Ext,
                                   std::string &Note) {
  const size_t Dims = std::min<size_t>(IR.Axes.size(), 3);
  const unsigned D = static_cast<unsigned>(Dims);
  const Extents Fixed = fixedExtents(IR);
  Extents Grown = Ext;
  for (const ir::Assumption &As : IR.Assumptions) {
    if (As.Kind != ir::Assumption::AtLeast)
      continue;
    const std::map<std::string, long long> None;
    const std::optional<long long> Want = evaluateExpression(As.Value, None);
    auto Value = [&](const Extents &E) {
      std::map<std::string, long long> Vars = constantValues(IR);
      for (size_t A = 0; A < Dims; ++A)
        if (!Fixed[A] && !IR.Axes[A].Extent.empty())
          Vars[IR.Axes[A].Extent] = E[A];
      return evaluateExpression(As.Expr, Vars);
    };
    std::optional<long long> Now = Value(Grown);
    if (!Want || !Now || *Now >= *Want)
      continue; // unknown: the model cannot tell, the launcher can
    // The free axes the expression rises with.
    std::vector<size_t> Rising;
    for (size_t A = 0; A < Dims; ++A) {
      Extents More = Grown;
      More[A] += 4;
      std::optional<long long> Then = Value(More);
      if (!Fixed[A] && Then && *Then > *Now)
        Rising.push_back(A);
    }
    const Extents From = Grown;
    for (int Step = 0; Step < 64 && !Rising.empty() && Now && *Now < *Want;
         ++Step) {
      const long long By = (*Want - *Now + 3) / 4 * 4;
      for (size_t A : Rising)
        Grown[A] += By;
      Now = Value(Grown);
    }
    const std::string What =
        "the variants assume " + As.Expr + " >= " + As.Value + " (at-least)";
    if (!Now || *Now < *Want) {
      Note = What + ", which is " +
             (Now ? std::to_string(*Now) : std::string("unknown")) + " at " +
             formatExtents(From, D) + ", and no free extent raises it";
      return std::nullopt;
    }
    Note += (Note.empty() ? "" : "; ") + formatExtents(From, D) + " became " +
            formatExtents(Grown, D) + ": " + What;
  }
  return Grown;
}

/// The cases with every at-least assumption of the IR holding (see
/// withAtLeast): grown, their note saying so, or skipped with the reason.
static std::vector<CaseShape> atLeastHolds(const ir::StencilIR &IR,
                                           const std::array<unsigned, 3> &Block,
                                           std::vector<CaseShape> Cases) {
  for (CaseShape &C : Cases) {
    std::string Note;
    std::optional<Extents> Grown = withAtLeast(IR, C.Ext, Note);
    if (!Grown) {
      C.Skip = Note;
      continue;
    }
    if (*Grown == C.Ext)
      continue;
    C.Derivation.Note += (C.Derivation.Note.empty() ? "" : "; then ") + Note;
    C.Derivation.Changed = true;
    C.Ext = C.Derivation.Ext = *Grown;
    C.Derivation.Check = checkBounds(IR, C.Ext, Block);
  }
  return Cases;
}

CaseSpans caseSpans(unsigned Dims) {
  if (Dims == 2)
    return {201, 300, 1500, 1000};
  if (Dims == 1)
    return {1001, 5000, 500001, 500000};
  return {41, 40, 120, 100};
}

std::vector<CaseShape> makeCases(const ir::StencilIR &IR,
                                 const Extents &TimeShape,
                                 const std::array<unsigned, 3> &Block,
                                 std::mt19937 &Rng, bool Derive) {
  const unsigned Dims = std::min<unsigned>(IR.Dims, 3);
  const CaseSpans Spans = caseSpans(IR.Dims);
  const Extents Fixed = fixedExtents(IR);
  auto Draw = [&](int Lo, int Span) {
    Extents E{1, 1, 1};
    for (unsigned A = 0; A < Dims; ++A)
      E[A] = (Lo + static_cast<long long>(Rng() % static_cast<unsigned>(Span))) | 1;
    return E;
  };
  auto Shape = [&](const std::string &Name, const Extents &Wanted, bool Odd) {
    CaseShape C;
    C.Name = Name;
    if (Derive) {
      C.Derivation = deriveExtents(IR, Wanted, Block, Odd);
      C.Ext = C.Derivation.Ext;
    } else {
      // Drawn as they are, but an extent the app's build fixes is never
      // the driver's to choose.
      C.Ext = Wanted;
      for (unsigned A = 0; A < Dims; ++A)
        if (Fixed[A])
          C.Ext[A] = Fixed[A];
      C.Derivation.Ext = C.Ext;
      C.Derivation.Check = checkBounds(IR, C.Ext, Block);
    }
    return C;
  };
  // Rows a multiple of 4 long: rounded up, or down where up does not fit.
  auto Aligned = [&](const std::string &Name, const CaseShape &From) {
    CaseShape C = From;
    C.Name = Name;
    if (Fixed[0])
      return C;
    Extents Up = From.Ext, Down = From.Ext;
    Up[0] = (Up[0] + 3) / 4 * 4;
    Down[0] = std::max(4LL, Down[0] / 4 * 4);
    C.Ext = Up;
    if (Derive && !checkBounds(IR, Up, Block).InBounds &&
        checkBounds(IR, Down, Block).InBounds)
      C.Ext = Down;
    C.Derivation.Check = checkBounds(IR, C.Ext, Block);
    return C;
  };
  std::vector<CaseShape> Cases;
  const CaseShape Small = Shape("small", Draw(Spans.SmallLo, Spans.SmallSpan), true);
  const CaseShape Medium =
      Shape("medium", Draw(Spans.MediumLo, Spans.MediumSpan), true);
  Cases.push_back(Small);
  CaseShape Partial = Small;
  Partial.Name = "small-partial-grid";
  Cases.push_back(Partial);
  Cases.push_back(Medium);
  const CaseShape SmallAligned = Aligned("small-aligned", Small);
  Cases.push_back(SmallAligned);
  CaseShape AlignedPartial = SmallAligned;
  AlignedPartial.Name = "small-aligned-partial-grid";
  Cases.push_back(AlignedPartial);
  Cases.push_back(Aligned("medium-aligned", Medium));
  Cases.push_back(Shape("timed-size", TimeShape, false));
  return exactGrids(IR, Block, Fixed,
                    atLeastHolds(IR, Block, std::move(Cases)));
}

} // namespace forge
} // namespace forgestencil
