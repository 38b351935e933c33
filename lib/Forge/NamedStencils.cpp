//===- NamedStencils.cpp - The stencils fs-bench knows by name -------------===//

#include "forgestencil/Forge/NamedStencils.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

namespace forgestencil {
namespace forge {

namespace {

using ir::Expr;
using ir::Offset;
using ir::StencilIR;

Expr read(const std::string &Array, Offset O) {
  Expr E;
  E.Kind = Expr::Read;
  E.Name = Array;
  E.Off = O;
  return E;
}

Expr binary(const char *Op, Expr A, Expr B) {
  Expr E;
  E.Kind = Expr::Binary;
  E.Op = Op;
  E.Args.push_back(std::move(A));
  E.Args.push_back(std::move(B));
  return E;
}

Expr coef(const std::string &Name, int Index = -1) {
  Expr E;
  E.Kind = Expr::Coef;
  E.Name = Name;
  E.Index = Index;
  return E;
}

Expr literal(const std::string &Value) {
  Expr E;
  E.Kind = Expr::Literal;
  E.Value = Value;
  return E;
}

/// Builds one plain kernel: axes i, j(, k) mapped to threads x, y(, z), each
/// guarded by [Lower, extent - UpperMargin), arrays in row-major order.
class Builder {
public:
  Builder(std::string Name, unsigned Dims, std::string Elem)
      : Elem(std::move(Elem)) {
    IR.Kernel = std::move(Name);
    IR.SourceFile = "fs-bench/named";
    IR.ElementType = this->Elem;
    IR.Dims = Dims;
    static const char *const Names[] = {"i", "j", "k"};
    static const char *const Sizes[] = {"nx", "ny", "nz"};
    static const char Threads[] = {'x', 'y', 'z'};
    static const char *const Strides[] = {"1", "nx", "nx * ny"};
    for (unsigned A = 0; A < Dims; ++A) {
      ir::Axis X;
      X.Name = Names[A];
      X.Source = ir::AxisSource::Thread;
      X.ThreadDim = Threads[A];
      X.Extent = Sizes[A];
      IR.Axes.push_back(X);
      IR.Strides.push_back(Strides[A]);
    }
  }

  /// Names axis A's variable, extent and stride (by default i, j, k; nx,
  /// ny, nz; 1, nx, nx * ny).
  void axis(unsigned A, const std::string &Name, const std::string &Extent,
            const std::string &Stride) {
    IR.Axes[A].Name = Name;
    IR.Axes[A].Extent = Extent;
    IR.Strides[A] = Stride;
  }
  /// A replicated boundary on every axis: reads clamped into
  /// [0, extent - 1].
  void clampAll() {
    for (ir::Axis &X : IR.Axes) {
      X.ClampLower = "0";
      X.ClampUpper = X.Extent + " - 1";
    }
  }
  void range(int Lower, int UpperMargin) {
    for (ir::Axis &X : IR.Axes) {
      X.Lower = std::to_string(Lower);
      X.Upper = UpperMargin ? X.Extent + " - " + std::to_string(UpperMargin)
                            : X.Extent;
    }
  }
  void input(const std::string &Name, bool PerPoint = false) {
    Arrays.push_back({Name, false, PerPoint});
  }
  void output(const std::string &Name) { Arrays.push_back({Name, true, false}); }
  void scalar(const std::string &Name) {
    Scalars.push_back(Name);
    ir::Coefficient C;
    C.Name = Name;
    C.Kind = ir::Coefficient::ScalarParam;
    C.Type = Elem;
    IR.Coefficients.push_back(C);
  }
  void constantArray(const std::string &Name, unsigned Size) {
    ir::Coefficient C;
    C.Name = Name;
    C.Kind = ir::Coefficient::ConstantArray;
    C.Type = Elem;
    C.Size = Size;
    IR.Coefficients.push_back(C);
  }
  void update(const std::string &Target, Expr Value) {
    ir::Update U;
    U.Target = Target;
    U.Value = std::move(Value);
    IR.Updates.push_back(std::move(U));
  }
  /// A literal of the element type, e.g. "2.0f" or "2.0".
  Expr lit(const std::string &Digits) const {
    return literal(Elem == "float" ? Digits + "f" : Digits);
  }

  StencilIR finish() {
    std::map<std::string, std::set<Offset>> Reads;
    for (const ir::Update &U : IR.Updates)
      collect(U.Value, Reads);
    std::set<std::string> Written;
    for (const ir::Update &U : IR.Updates)
      Written.insert(U.Target);
    for (const ArrayInfo &A : Arrays) {
      ir::Param P;
      P.Name = A.Name;
      bool IsRead = Reads.count(A.Name) != 0;
      bool IsWritten = Written.count(A.Name) != 0;
      P.Type = (IsWritten ? "" : "const ") + Elem + " *__restrict__";
      P.Role = IsWritten ? (IsRead ? ir::Param::InOut : ir::Param::Output)
                         : ir::Param::Input;
      IR.Params.push_back(P);
      if (IsRead) {
        ir::InputArray In;
        In.Param = A.Name;
        In.Offsets.assign(Reads[A.Name].begin(), Reads[A.Name].end());
        In.Restrict = true;
        In.PerPointCoefficient = A.PerPoint;
        IR.Inputs.push_back(In);
      }
      if (IsWritten) {
        ir::OutputArray Out;
        Out.Param = A.Name;
        IR.Outputs.push_back(Out);
      }
    }
    for (const ir::Axis &X : IR.Axes)
      IR.Params.push_back({X.Extent, "int", ir::Param::Size});
    for (const std::string &S : Scalars)
      IR.Params.push_back({S, Elem, ir::Param::Scalar});
    IR.computeDerived();
    return IR;
  }

private:
  struct ArrayInfo {
    std::string Name;
    bool Written, PerPoint;
  };
  StencilIR IR;
  std::string Elem;
  std::vector<ArrayInfo> Arrays;
  std::vector<std::string> Scalars;

  static void collect(const Expr &E,
                      std::map<std::string, std::set<Offset>> &Reads) {
    if (E.Kind == Expr::Read)
      Reads[E.Name].insert(E.Off);
    for (const Expr &A : E.Args)
      collect(A, Reads);
  }
};

Offset along(unsigned Axis, int D) {
  Offset O{0, 0, 0};
  O[Axis] = D;
  return O;
}

/// c0*u + c1*(neighbours at distance 1) + ... with the sum over axes in
/// axis order, minus before plus.
Expr starSum(const std::string &U, unsigned Dims, unsigned Radius,
             const std::function<Expr(unsigned)> &Coef) {
  Expr Sum = binary("*", Coef(0), read(U, {0, 0, 0}));
  for (unsigned Q = 1; Q <= Radius; ++Q) {
    Expr Ring = binary("+", read(U, along(0, -int(Q))), read(U, along(0, Q)));
    for (unsigned A = 1; A < Dims; ++A) {
      Ring = binary("+", std::move(Ring), read(U, along(A, -int(Q))));
      Ring = binary("+", std::move(Ring), read(U, along(A, Q)));
    }
    Sum = binary("+", std::move(Sum), binary("*", Coef(Q), std::move(Ring)));
  }
  return Sum;
}

StencilIR star(unsigned Dims, unsigned Radius, const std::string &Elem) {
  Builder B("star" + std::to_string(Dims) + "d_r" + std::to_string(Radius),
            Dims, Elem);
  B.range(Radius, Radius);
  B.input("in");
  B.output("out");
  std::function<Expr(unsigned)> Coef;
  if (Radius == 1) {
    B.scalar("c0");
    B.scalar("c1");
    Coef = [](unsigned Q) { return coef(Q == 0 ? "c0" : "c1"); };
  } else {
    B.constantArray("c", Radius + 1);
    Coef = [](unsigned Q) { return coef("c", static_cast<int>(Q)); };
  }
  B.update("out", starSum("in", Dims, Radius, Coef));
  return B.finish();
}

StencilIR box(unsigned Dims, unsigned Radius, const std::string &Elem) {
  Builder B("box" + std::to_string(Dims) + "d_r" + std::to_string(Radius),
            Dims, Elem);
  B.range(Radius, Radius);
  B.input("in");
  B.output("out");
  unsigned Side = 2 * Radius + 1;
  unsigned Count = Dims == 3 ? Side * Side * Side : Side * Side;
  B.constantArray("w", Count);
  int R = static_cast<int>(Radius);
  int ZR = Dims == 3 ? R : 0;
  // A sum per row, then the rows in order: what a kernel with an unrolled
  // inner loop over x writes, and a tree shallow enough for any radius.
  Expr Sum;
  int W = 0;
  bool FirstRow = true;
  for (int Z = -ZR; Z <= ZR; ++Z)
    for (int Y = -R; Y <= R; ++Y) {
      Expr Row;
      for (int X = -R; X <= R; ++X) {
        Expr Term = binary("*", coef("w", W++), read("in", {X, Y, Z}));
        Row = X == -R ? std::move(Term)
                      : binary("+", std::move(Row), std::move(Term));
      }
      Sum = FirstRow ? std::move(Row) : binary("+", std::move(Sum), std::move(Row));
      FirstRow = false;
    }
  B.update("out", std::move(Sum));
  return B.finish();
}

StencilIR rtm(const std::string &Elem) {
  Builder B("rtm", 3, Elem);
  B.range(4, 4);
  B.input("u");
  B.input("u_prev");
  B.input("vel", /*PerPoint=*/true);
  B.output("u_next");
  B.constantArray("c", 5);
  Expr Lap = starSum("u", 3, 4, [](unsigned Q) {
    return coef("c", static_cast<int>(Q));
  });
  // u_next = 2 u - u_prev + vel * lap(u)
  Expr Value = binary(
      "+",
      binary("-", binary("*", B.lit("2.0"), read("u", {0, 0, 0})),
             read("u_prev", {0, 0, 0})),
      binary("*", read("vel", {0, 0, 0}), std::move(Lap)));
  B.update("u_next", std::move(Value));
  return B.finish();
}

/// Yee updates: E from the curl of H (backward differences) or H from the
/// curl of E (forward differences), with per-point coefficients.
StencilIR fdtd(bool Electric, const std::string &Elem) {
  Builder B(Electric ? "fdtd_e" : "fdtd_h", 3, Elem);
  const char *Own[] = {"Ex", "Ey", "Ez"};
  const char *Other[] = {"Hx", "Hy", "Hz"};
  if (!Electric)
    std::swap(Own, Other);
  // E: [1, n) reading index - 1; H: [0, n - 1) reading index + 1.
  if (Electric)
    B.range(1, 0);
  else
    B.range(0, 1);
  int D = Electric ? -1 : 1;
  for (const char *F : Own)
    B.output(F);
  for (const char *F : Other)
    B.input(F);
  std::string Ca = Electric ? "ca" : "da", Cb = Electric ? "cb" : "db";
  B.input(Ca, true);
  B.input(Cb, true);
  for (int C = 0; C < 3; ++C) {
    int A1 = (C + 1) % 3, A2 = (C + 2) % 3;
    // curl_c = d(F_{c+2})/d(axis c+1) - d(F_{c+1})/d(axis c+2)
    auto Diff = [&](int Field, int Axis) {
      return Electric ? binary("-", read(Other[Field], {0, 0, 0}),
                               read(Other[Field], along(Axis, D)))
                      : binary("-", read(Other[Field], along(Axis, D)),
                               read(Other[Field], {0, 0, 0}));
    };
    Expr Curl = binary("-", Diff(A2, A1), Diff(A1, A2));
    Expr Value = binary(
        Electric ? "+" : "-",
        binary("*", read(Ca, {0, 0, 0}), read(Own[C], {0, 0, 0})),
        binary("*", read(Cb, {0, 0, 0}), std::move(Curl)));
    B.update(Own[C], std::move(Value));
  }
  return B.finish();
}

/// A star or box on a replicated boundary (`star3d_r1_clamp`): the whole
/// array is the domain, reads past its faces take the face's value.
StencilIR clampedVariant(StencilIR IR) {
  IR.Kernel += "_clamp";
  for (ir::Axis &X : IR.Axes) {
    X.Lower = "0";
    X.Upper = X.Extent;
    X.ClampLower = "0";
    X.ClampUpper = X.Extent + " - 1";
  }
  return IR;
}

/// A stencil on a periodic boundary along the IR axes in \p Axes (a bit
/// each, x first: `star2d_r1_wrap` on both axes, `star3d_r2_wrap` on x):
/// the whole extent is the domain along them, and a read past one end
/// comes from the other. An axis read at |offset| R >= 2 is wrapped by one
/// shift only where its period is at least R, which the IR assumes
/// (at-least) and the launcher checks.
StencilIR wrappedVariant(StencilIR IR, unsigned Axes) {
  IR.Kernel += "_wrap";
  for (unsigned A = 0; A < IR.Axes.size(); ++A) {
    if (!(Axes & (1u << A)))
      continue;
    ir::Axis &X = IR.Axes[A];
    X.Lower = "0";
    X.Upper = X.Extent;
    X.WrapLower = "0";
    X.WrapUpper = X.Extent + " - 1";
    int Reach = 0;
    for (const ir::InputArray &In : IR.Inputs)
      for (const Offset &O : In.Offsets)
        Reach = std::max(Reach, std::abs(O[A]));
    if (Reach < 2)
      continue;
    ir::Assumption As;
    As.Kind = ir::Assumption::AtLeast;
    As.Expr = "(" + X.WrapUpper + ") - (" + X.WrapLower + ") + 1";
    As.Value = std::to_string(Reach);
    As.Why = "reads along '" + X.Name + "' reach " + std::to_string(Reach) +
             " past its periodic boundary: one period's shift wraps them "
             "only for a period of at least that";
    IR.Assumptions.push_back(std::move(As));
  }
  return IR;
}

/// A stencil whose kernel writes a Dirichlet boundary itself: the domain
/// stays what the stencil's guards give, and the rest of the whole array,
/// the frame's box [0, extent) along every axis, gets \p Value at each
/// output (`star2d_r1_dirichlet` copies the input there,
/// `star3d_r1_dirichlet0` writes zeros). \p Suffix names it.
StencilIR dirichletVariant(StencilIR IR, const std::string &Suffix,
                           const Expr &Value) {
  IR.Kernel += "_dirichlet" + Suffix;
  for (const ir::Axis &X : IR.Axes) {
    IR.Frame.Lower.push_back("0");
    IR.Frame.Upper.push_back(X.Extent);
  }
  for (const ir::OutputArray &Out : IR.Outputs) {
    ir::Update U;
    U.Target = Out.Param;
    U.Value = Value;
    IR.Frame.Updates.push_back(std::move(U));
  }
  return IR;
}

/// The thermal update of a Rodinia-style chip simulation as the analysis of
/// apps/hotspot2d reads it: a 5-point star of the temperature plus the
/// power, adiabatic edges (reads clamped into the chip).
StencilIR hotspot2d(const std::string &Elem) {
  Builder B("hotspot2d", 2, Elem);
  B.axis(0, "c", "cols", "1");
  B.axis(1, "r", "rows", "cols");
  B.range(0, 0);
  B.clampAll();
  B.output("t_out");
  B.input("t_in");
  B.input("power", /*PerPoint=*/true);
  for (const char *S : {"cx", "cy", "cz", "cp"})
    B.scalar(S);
  auto T = [](int X, int Y) { return read("t_in", {X, Y, 0}); };
  // t + cp * power + cx * (te + tw - 2 t) + cy * (tn + ts - 2 t) - cz * t
  Expr Value = binary("+", T(0, 0),
                      binary("*", coef("cp"), read("power", {0, 0, 0})));
  Value = binary(
      "+", std::move(Value),
      binary("*", coef("cx"),
             binary("-", binary("+", T(1, 0), T(-1, 0)),
                    binary("*", B.lit("2.0"), T(0, 0)))));
  Value = binary(
      "+", std::move(Value),
      binary("*", coef("cy"),
             binary("-", binary("+", T(0, -1), T(0, 1)),
                    binary("*", B.lit("2.0"), T(0, 0)))));
  Value = binary("-", std::move(Value), binary("*", coef("cz"), T(0, 0)));
  B.update("t_out", std::move(Value));
  StencilIR IR = B.finish();
  // The kernel's order: (t_out, t_in, power, rows, cols, cx, cy, cz, cp).
  std::swap(IR.Params[3], IR.Params[4]);
  return IR;
}

} // namespace

std::vector<std::string> namedStencilNames() {
  std::vector<std::string> Names;
  for (const char *Shape : {"star", "box"})
    for (int D = 2; D <= 3; ++D)
      for (int R = 1; R <= 4; ++R)
        Names.push_back(std::string(Shape) + std::to_string(D) + "d_r" +
                        std::to_string(R));
  Names.push_back("rtm");
  Names.push_back("fdtd_e");
  Names.push_back("fdtd_h");
  Names.push_back("hotspot2d");
  Names.push_back("star3d_r1_clamp");
  Names.push_back("box3d_r1_clamp");
  Names.push_back("star2d_r1_wrap");
  Names.push_back("star3d_r2_wrap");
  Names.push_back("star2d_r1_dirichlet");
  Names.push_back("star3d_r1_dirichlet0");
  return Names;
}

std::optional<StencilIR> namedStencil(const std::string &Name,
                                      const std::string &ElementType,
                                      std::string &Error) {
  if (ElementType != "float" && ElementType != "double") {
    Error = "element type must be float or double, not '" + ElementType + "'";
    return std::nullopt;
  }
  if (Name == "rtm")
    return rtm(ElementType);
  if (Name == "fdtd_e" || Name == "fdtd_h")
    return fdtd(Name == "fdtd_e", ElementType);
  if (Name == "hotspot2d")
    return hotspot2d(ElementType);
  if (Name == "star3d_r1_clamp")
    return clampedVariant(star(3, 1, ElementType));
  if (Name == "box3d_r1_clamp")
    return clampedVariant(box(3, 1, ElementType));
  if (Name == "star2d_r1_wrap")
    return wrappedVariant(star(2, 1, ElementType), 0b11);
  if (Name == "star3d_r2_wrap")
    return wrappedVariant(star(3, 2, ElementType), 0b1);
  if (Name == "star2d_r1_dirichlet")
    return dirichletVariant(star(2, 1, ElementType), "",
                            read("in", {0, 0, 0}));
  if (Name == "star3d_r1_dirichlet0")
    return dirichletVariant(star(3, 1, ElementType), "0",
                            literal(ElementType == "float" ? "0.0f" : "0.0"));
  for (const char *Shape : {"star", "box"})
    for (unsigned D = 2; D <= 3; ++D)
      for (unsigned R = 1; R <= 4; ++R) {
        if (Name != std::string(Shape) + std::to_string(D) + "d_r" +
                        std::to_string(R))
          continue;
        return Shape[0] == 's' ? star(D, R, ElementType)
                               : box(D, R, ElementType);
      }
  Error = "unknown stencil '" + Name + "'";
  return std::nullopt;
}

} // namespace forge
} // namespace forgestencil
