//===- Validate.cpp - Is a Stencil IR safe to generate code from? ---------===//
///
/// \file
/// Everything a code generator pastes into CUDA comes from the IR: names,
/// types, literals, bounds, strides. An IR read from a file (fs-bench
/// --stencil-file, a tuning bundle) may have been edited by hand or written
/// by someone else, so before any of it reaches generated code each piece
/// is checked against the little grammar it must follow: an identifier is
/// an identifier, a literal a number, a bound an expression over names and
/// integers with no statement, string, comment or preprocessor text in it.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/IR/StencilIR.h"

#include "Spelling.h"

#include "forgestencil/Support/JsonReader.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace forgestencil {
namespace ir {

namespace {

using support::elementPath;
using support::memberPath;

using namespace spelling;

constexpr int MaxOffset = 1024;

/// The problems of one IR, collected until the first.
class Validator {
public:
  Validator(const StencilIR &IR, const std::string &Path)
      : IR(IR), Path(Path) {}

  std::string run() {
    checkHeader();
    if (ok())
      checkAxes();
    if (ok())
      checkParams();
    if (ok())
      checkArrays();
    if (ok())
      checkCoefficients();
    if (ok())
      checkUpdates();
    if (ok())
      checkConstants();
    if (ok())
      checkAssumptions();
    if (ok())
      checkReductions();
    if (ok())
      checkFrame();
    return Error;
  }

private:
  const StencilIR &IR;
  std::string Path;
  std::string Error;

  bool ok() const { return Error.empty(); }
  void fail(const std::string &Where, const std::string &Reason) {
    if (Error.empty())
      Error = Where + ": " + Reason;
  }
  std::string at(const std::string &Key) const { return memberPath(Path, Key); }
  std::string at(const std::string &Key, size_t I) const {
    return elementPath(memberPath(Path, Key), I);
  }

  void expression(const std::string &Where, const std::string &Text,
                  bool MayBeEmpty) {
    if (Text.empty() && MayBeEmpty)
      return;
    if (std::string Why = whyNotExpression(Text); !Why.empty())
      fail(Where, shown(Text) + " is not an expression over names and "
                                "integers (" + Why + ")");
  }

  void offset(const std::string &Where, const Offset &O) {
    for (int A = 0; A < 3 && ok(); ++A) {
      if (O[A] < -MaxOffset || O[A] > MaxOffset)
        fail(elementPath(Where, A),
             std::to_string(O[A]) + " is beyond +-" +
                 std::to_string(MaxOffset));
      else if (O[A] != 0 && static_cast<unsigned>(A) >= IR.Dims)
        fail(elementPath(Where, A),
             "offset " + std::to_string(O[A]) + " along axis " +
                 std::to_string(A) + " of a " + std::to_string(IR.Dims) +
                 "-D stencil (must be 0)");
    }
  }

  void checkHeader() {
    if (std::string Why = whyNotKernelName(IR.Kernel); !Why.empty())
      fail(at("kernel"), shown(IR.Kernel) + " is not a kernel name (" + Why +
                             ")");
    else if (std::string Why = whyNotOneLine(IR.SourceFile); !Why.empty())
      fail(memberPath(at("source"), "file"),
           shown(IR.SourceFile) + " has " + Why);
    else if (elementSize(IR.ElementType) == 0)
      fail(at("element_type"),
           "unknown element type " + shown(IR.ElementType) +
               " (known: float, double, __half, __nv_bfloat16, int, "
               "unsigned, ...)");
    else if (IR.Dims < 1 || IR.Dims > 3)
      fail(at("dims"), std::to_string(IR.Dims) + " is not 1, 2 or 3");
    for (size_t I = 0; I < IR.Notes.size() && ok(); ++I)
      if (std::string Why = whyNotOneLine(IR.Notes[I]); !Why.empty())
        fail(at("notes", I), "a note has " + Why);
  }

  void checkAxes() {
    if (IR.Axes.size() != IR.Dims) {
      fail(at("axes"), std::to_string(IR.Dims) + "-D stencil with " +
                           std::to_string(IR.Axes.size()) + " axes");
      return;
    }
    if (IR.Strides.size() != IR.Axes.size()) {
      fail(at("strides"), std::to_string(IR.Axes.size()) +
                              " axes need as many strides, found " +
                              std::to_string(IR.Strides.size()));
      return;
    }
    std::set<std::string> Names;
    for (size_t A = 0; A < IR.Axes.size() && ok(); ++A) {
      const Axis &X = IR.Axes[A];
      std::string P = at("axes", A);
      if (!isAxisName(X.Name))
        fail(memberPath(P, "name"),
             shown(X.Name) + " is not an axis name (a C identifier)");
      else if (!Names.insert(X.Name).second)
        fail(memberPath(P, "name"), "a second axis named " + shown(X.Name));
      else if (X.ThreadDim != 'x' && X.ThreadDim != 'y' && X.ThreadDim != 'z' &&
               !(X.ThreadDim == '-' && X.Source == AxisSource::Thread))
        fail(memberPath(P, "thread_dim"),
             X.Source == AxisSource::Thread ? "not x, y, z or none"
                                            : "not x, y or z");
      else if (X.BlockDim && X.Source != AxisSource::Thread)
        fail(memberPath(P, "block_dim"),
             "only a thread axis is formed with a blockIdx of another "
             "dimension");
      else if (X.BlockDim && X.BlockDim != 'x' && X.BlockDim != 'y' &&
               X.BlockDim != 'z' && X.BlockDim != '-')
        fail(memberPath(P, "block_dim"), "not x, y, z or none");
      else if ((X.BlockPoints > 0 || X.BlockFirst > 0) && !X.BlockLoop &&
               (X.Source != AxisSource::Thread || !X.usualThreadMapping()))
        fail(memberPath(P, "block_points"),
             "only a thread axis at blockIdx.D * B + threadIdx.D has halo "
             "threads");
      else if (X.ThreadPoints != 1 &&
               (X.ThreadPoints < 1 || X.ThreadPoints > 64 ||
                X.Source != AxisSource::Thread || !X.usualThreadMapping() ||
                X.BlockPoints > 0 || X.BlockLoop))
        fail(memberPath(P, "thread_points"),
             "only a thread axis at blockIdx.D * blockDim.D + threadIdx.D "
             "without halo threads or block loops has 1 to 64 points a "
             "thread");
      else if (X.BlockFirst > 0 && X.BlockPoints == 0)
        fail(memberPath(P, "block_first"), "given without block_points");
      else if (X.BlockLoop &&
               (X.Source != AxisSource::Thread || X.ThreadDim == '-' ||
                X.BlockPoints == 0 || X.BlockFirst != 0))
        fail(memberPath(P, "block_loop"),
             "a block loop covers block_points points of a thread axis "
             "along its threadIdx, from the block's first (block_first 0)");
      else if (X.BlockPoints > 0 && !X.BlockLoop &&
               IR.fixedBlockDim(X.ThreadDim - 'x') <
                   static_cast<unsigned>(X.BlockFirst + X.BlockPoints))
        fail(memberPath(P, "block_points"),
             "halo threads need a block-dim assumption along " +
                 std::string(1, X.ThreadDim) + " of at least block_first + "
                 "block_points threads");
      else if (X.ThreadDim == '-' && X.blockDim() == '-')
        fail(P, "axis " + shown(X.Name) +
                    " has neither a threadIdx nor a blockIdx term");
      expression(memberPath(P, "lower"), X.Lower, false);
      // The grid alone may bound a thread axis.
      expression(memberPath(P, "upper"), X.Upper,
                 X.Source == AxisSource::Thread);
      expression(memberPath(P, "extent"), X.Extent, true);
      expression(memberPath(P, "thread_offset"), X.ThreadOffset, false);
      expression(memberPath(P, "linear_step"), X.LinearStep, true);
      expression(memberPath(P, "linear_modulus"), X.LinearModulus, true);
      expression(memberPath(P, "clamp_lower"), X.ClampLower, true);
      expression(memberPath(P, "clamp_upper"), X.ClampUpper, true);
      if (ok() && X.ClampLower.empty() != X.ClampUpper.empty())
        fail(P, "axis " + shown(X.Name) + " has " +
                    (X.ClampUpper.empty() ? "clamp_lower but no clamp_upper"
                                          : "clamp_upper but no clamp_lower") +
                    ": a replicated boundary needs both bounds");
      expression(memberPath(P, "wrap_lower"), X.WrapLower, true);
      expression(memberPath(P, "wrap_upper"), X.WrapUpper, true);
      if (ok() && X.WrapLower.empty() != X.WrapUpper.empty())
        fail(P, "axis " + shown(X.Name) + " has " +
                    (X.WrapUpper.empty() ? "wrap_lower but no wrap_upper"
                                         : "wrap_upper but no wrap_lower") +
                    ": a periodic boundary needs both bounds");
      expression(memberPath(P, "wrap_period"), X.WrapPeriod, true);
      if (ok() && !X.WrapPeriod.empty() && !X.wrapped())
        fail(P, "axis " + shown(X.Name) +
                    " has wrap_period but no wrap_lower/wrap_upper: a "
                    "period belongs to a periodic boundary");
      expression(memberPath(P, "zero_lower"), X.ZeroLower, true);
      expression(memberPath(P, "zero_upper"), X.ZeroUpper, true);
      if (ok() && X.ZeroLower.empty() != X.ZeroUpper.empty())
        fail(P, "axis " + shown(X.Name) + " has " +
                    (X.ZeroUpper.empty() ? "zero_lower but no zero_upper"
                                         : "zero_upper but no zero_lower") +
                    ": a zero boundary needs both bounds");
      if (ok() && X.zeroed() && (X.clamped() || X.wrapped()))
        fail(P, "axis " + shown(X.Name) + " has zero_lower/zero_upper and " +
                    (X.clamped() ? "clamp_lower/clamp_upper"
                                 : "wrap_lower/wrap_upper") +
                    ": an axis's reads outside its bounds are clamped, "
                    "wrapped or zero, one of them");
      if (ok() && X.clamped() && X.wrapped())
        fail(P, "axis " + shown(X.Name) +
                    " has both clamp_lower/clamp_upper and "
                    "wrap_lower/wrap_upper: an axis's reads are clamped "
                    "(a replicated boundary) or wrapped (a periodic one), "
                    "not both");
      expression(at("strides", A), IR.Strides[A], false);
    }
  }

  void checkParams() {
    std::set<std::string> Names;
    for (size_t I = 0; I < IR.Params.size() && ok(); ++I) {
      const Param &P = IR.Params[I];
      std::string Where = at("params", I);
      if (!isIdentifier(P.Name))
        fail(memberPath(Where, "name"),
             shown(P.Name) + " is not a C identifier");
      else if (!Names.insert(P.Name).second)
        fail(memberPath(Where, "name"),
             "a second parameter named " + shown(P.Name));
      else if (std::string Why = whyNotType(P.Type); !Why.empty())
        fail(memberPath(Where, "type"),
             shown(P.Type) + " is not a C type (" + Why + ")");
    }
  }

  /// An array the stencil reads or writes: a parameter, a member of one
  /// (`g.u`) or a `__constant__` or `__device__` array of the app.
  void arrayName(const std::string &Where, const std::string &Name) {
    if (!isMemberAccess(Name))
      fail(Where, shown(Name) + " is not a C identifier");
  }

  void checkArrays() {
    if (IR.Inputs.empty()) {
      fail(at("inputs"), "no inputs: a stencil reads at least one array");
      return;
    }
    if (IR.Outputs.empty()) {
      fail(at("outputs"), "no outputs: a stencil writes at least one array");
      return;
    }
    // A parameter appears once per field of it (packed fields).
    std::set<std::pair<std::string, std::string>> Seen;
    auto Named = [](const std::string &Param, const std::string &Field) {
      return shown(Param) + (Field.empty() ? "" : " at field " + shown(Field));
    };
    for (size_t I = 0; I < IR.Inputs.size() && ok(); ++I) {
      const InputArray &In = IR.Inputs[I];
      std::string Where = at("inputs", I);
      arrayName(memberPath(Where, "param"), In.Param);
      if (ok())
        expression(memberPath(Where, "field"), In.Field, true);
      if (ok() && !Seen.insert({In.Param, In.Field}).second)
        fail(memberPath(Where, "param"),
             "a second input named " + Named(In.Param, In.Field));
      if (ok() && In.Offsets.empty())
        fail(memberPath(Where, "offsets"),
             "empty: an input is read at one offset at least");
      for (size_t O = 0; O < In.Offsets.size() && ok(); ++O) {
        std::string OW = elementPath(memberPath(Where, "offsets"), O);
        offset(OW, In.Offsets[O]);
        if (ok() && In.PerPointCoefficient && In.Offsets[O] != Offset{0, 0, 0})
          fail(OW, "a per-point coefficient is read at offset [0, 0, 0] "
                   "only");
      }
      ownLayout(Where, In.Strides);
    }
    Seen.clear();
    for (size_t I = 0; I < IR.Outputs.size() && ok(); ++I) {
      const OutputArray &Out = IR.Outputs[I];
      std::string Where = at("outputs", I);
      arrayName(memberPath(Where, "param"), Out.Param);
      if (ok())
        expression(memberPath(Where, "field"), Out.Field, true);
      if (ok() && !Seen.insert({Out.Param, Out.Field}).second)
        fail(memberPath(Where, "param"),
             "a second output named " + Named(Out.Param, Out.Field));
      offset(memberPath(Where, "write_offset"), Out.WriteOffset);
      ownLayout(Where, Out.Strides);
      if (ok() && (!Out.Lower.empty() || !Out.Upper.empty())) {
        if (Out.Lower.size() != IR.Dims || Out.Upper.size() != IR.Dims)
          fail(memberPath(Where, "lower"),
               "an output's own box has a lower and an upper bound per axis (" +
                   std::to_string(IR.Dims) + "), found " +
                   std::to_string(Out.Lower.size()) + " and " +
                   std::to_string(Out.Upper.size()));
        for (size_t A = 0; A < Out.Lower.size() && ok(); ++A)
          expression(elementPath(memberPath(Where, "lower"), A), Out.Lower[A],
                     false);
        for (size_t A = 0; A < Out.Upper.size() && ok(); ++A)
          expression(elementPath(memberPath(Where, "upper"), A), Out.Upper[A],
                     false);
      }
      // Every point stores its own element: an output moves along each axis.
      if (ok() && std::find(Out.Strides.begin(), Out.Strides.end(), "0") !=
                      Out.Strides.end())
        fail(memberPath(Where, "strides"),
             "a stride of 0: points of the domain would store one element");
    }
  }

  /// An array's own layout (empty: the IR's): one stride per axis, C
  /// expressions, not all 0.
  void ownLayout(const std::string &Where,
                 const std::vector<std::string> &Strides) {
    if (!ok() || Strides.empty())
      return;
    std::string SW = memberPath(Where, "strides");
    if (Strides.size() != IR.Dims)
      fail(SW, "an array's own layout has one stride per axis (" +
                   std::to_string(IR.Dims) + "), found " +
                   std::to_string(Strides.size()));
    else if (std::all_of(Strides.begin(), Strides.end(),
                         [](const std::string &S) { return S == "0"; }))
      fail(SW, "every stride is 0: the array does not move with the point");
    for (size_t A = 0; A < Strides.size() && ok(); ++A)
      expression(elementPath(SW, A), Strides[A], false);
  }

  void checkCoefficients() {
    std::set<std::string> Names;
    for (size_t I = 0; I < IR.Coefficients.size() && ok(); ++I) {
      const Coefficient &C = IR.Coefficients[I];
      std::string Where = at("coefficients", I);
      if (!isMemberAccess(C.Name))
        fail(memberPath(Where, "name"),
             shown(C.Name) + " is not a C identifier");
      else if (!Names.insert(C.Name).second)
        fail(memberPath(Where, "name"),
             "a second coefficient named " + shown(C.Name));
      else if (!C.Type.empty() && elementSize(C.Type) == 0)
        fail(memberPath(Where, "type"), "unknown element type " +
                                            shown(C.Type));
      else if (C.Size < 1 || C.Size > MaxCoefficientElements)
        fail(memberPath(Where, "size"),
             std::to_string(C.Size) + " is not between 1 and " +
                 std::to_string(MaxCoefficientElements));
      else if (C.Kind != Coefficient::ConstantArray && C.Size != 1)
        fail(memberPath(Where, "size"),
             "a scalar coefficient has size 1, not " + std::to_string(C.Size));
      else if (C.Kind == Coefficient::ParamArray && !isMemberAccess(C.Name))
        fail(memberPath(Where, "name"),
             "a parameter array is named by a parameter or a field of one, "
             "not " + shown(C.Name));
      else if (C.Kind == Coefficient::ConstantArray && !isIdentifier(C.Name))
        fail(memberPath(Where, "name"),
             "a __constant__ array is named by a C identifier, not " +
                 shown(C.Name));
      else if (C.Kind == Coefficient::ConstantScalar &&
               !isIdentifier(C.Name) &&
               !(isMemberAccess(C.Name) &&
                 C.Name.find("->") == std::string::npos))
        fail(memberPath(Where, "name"),
             "a __constant__ scalar is named by a C identifier or a member of "
             "a __constant__ struct (g.dt), not " + shown(C.Name));
      if (ok() && !C.Shape.empty()) {
        unsigned long long Product = 1;
        for (unsigned E : C.Shape) {
          Product *= E;
          if (Product > static_cast<unsigned long long>(MaxCoefficientElements))
            break;
        }
        if (Product != C.Size)
          fail(memberPath(Where, "shape"),
               "the extents multiply to " + std::to_string(Product) +
                   ", not the size " + std::to_string(C.Size));
      }
    }
  }

  const InputArray *input(const std::string &Name,
                          const std::string &Field) const {
    for (const InputArray &In : IR.Inputs)
      if (In.Param == Name && In.Field == Field)
        return &In;
    return nullptr;
  }

  /// \p Cond: E is (part of) a select's condition: && || ! over
  /// comparisons, parameters and literals (a mode switch, nx == 64), where
  /// the operands of a comparison are any values (a test on loaded data,
  /// u(0,0,0) > 0.0). A read, coefficient, call or select is no condition
  /// by itself.
  void expr(const Expr &E, const std::string &Where, bool Cond = false) {
    if (Cond && E.Kind != Expr::ParamRef && E.Kind != Expr::Literal &&
        E.Kind != Expr::Unary && E.Kind != Expr::Binary) {
      fail(memberPath(Where, "kind"),
           "a select's condition is a comparison, && || ! of comparisons, or "
           "written over parameters, constants and literals, not a " +
               std::string(E.Kind == Expr::Read    ? "read"
                           : E.Kind == Expr::Coef  ? "coefficient"
                           : E.Kind == Expr::Call  ? "call"
                                                   : "select"));
      return;
    }
    auto Arity = [&](size_t Want, const char *What) {
      if (E.Args.size() != Want)
        fail(memberPath(Where, "args"),
             std::string(What) + " takes " + std::to_string(Want) +
                 " argument" + (Want == 1 ? "" : "s") + ", found " +
                 std::to_string(E.Args.size()));
    };
    switch (E.Kind) {
    case Expr::Read: {
      Arity(0, "a read");
      const InputArray *In = input(E.Name, E.Field);
      if (!ok())
        return;
      if (!In) {
        fail(memberPath(Where, "array"),
             shown(E.Name) +
                 (E.Field.empty() ? "" : " at field " + shown(E.Field)) +
                 " is not one of the inputs");
        return;
      }
      offset(memberPath(Where, "offset"), E.Off);
      if (ok() && InFrame && E.Off != Offset{0, 0, 0})
        fail(memberPath(Where, "offset"),
             "a frame value reads its inputs at the point itself (offset "
             "[0, 0, 0]) only");
      else if (ok() && !InFrame &&
               std::find(In->Offsets.begin(), In->Offsets.end(), E.Off) ==
                   In->Offsets.end())
        fail(memberPath(Where, "offset"),
             "[" + std::to_string(E.Off[0]) + ", " + std::to_string(E.Off[1]) +
                 ", " + std::to_string(E.Off[2]) +
                 "] is not among the offsets of input " + shown(E.Name) +
                 ": the footprint must list every read");
      return;
    }
    case Expr::Coef: {
      Arity(0, "a coefficient");
      const Coefficient *C = nullptr;
      for (const Coefficient &K : IR.Coefficients)
        if (K.Name == E.Name)
          C = &K;
      if (!ok())
        return;
      if (!C) {
        fail(memberPath(Where, "name"),
             shown(E.Name) + " is not one of the coefficients");
      } else if (C->Kind == Coefficient::ParamArray) {
        if (E.Index >= 0)
          fail(memberPath(Where, "index"),
               shown(E.Name) + " is read at index_expr, not a fixed element");
        else if (E.IndexExpr.empty())
          fail(memberPath(Where, "index_expr"),
               "a parameter array needs the element it is read at");
        else
          expression(memberPath(Where, "index_expr"), E.IndexExpr, false);
      } else if (!E.IndexExpr.empty()) {
        fail(memberPath(Where, "index_expr"),
             shown(E.Name) + " is not a parameter array");
      } else if (C->Kind == Coefficient::ConstantArray) {
        if (E.Index < 0 || static_cast<unsigned>(E.Index) >= C->Size)
          fail(memberPath(Where, "index"),
               "element " + std::to_string(E.Index) + " of " + shown(E.Name) +
                   ", which has " + std::to_string(C->Size));
      } else if (E.Index >= 0) {
        fail(memberPath(Where, "index"),
             shown(E.Name) + " is a scalar, not an array");
      }
      return;
    }
    case Expr::ParamRef: {
      Arity(0, "a parameter");
      if (!ok())
        return;
      if (!isMemberAccess(E.Name) && !IR.constant(E.Name))
        fail(memberPath(Where, "name"),
             shown(E.Name) + " is not a C identifier nor one of the "
                             "constants");
      return;
    }
    case Expr::Literal:
      Arity(0, "a literal");
      if (ok() && !isNumericLiteral(E.Value))
        fail(memberPath(Where, "value"),
             shown(E.Value) + " is not a number (a literal is a C integer or "
                              "floating literal such as 0.25f)");
      return;
    case Expr::Unary:
      if (Cond ? E.Op != "neg" && E.Op != "!"
               : E.Op != "neg" && E.Op != "-" && E.Op != "+" &&
                     E.Op != "to_float" && E.Op != "to_double")
        fail(memberPath(Where, "op"),
             "unknown unary operator " + shown(E.Op) +
                 " (known: neg, to_float, to_double)");
      Arity(1, "a unary operator");
      break;
    case Expr::Binary:
      if (E.Op != "+" && E.Op != "-" && E.Op != "*" && E.Op != "/" &&
          !(Cond && (E.Op == "==" || E.Op == "!=" || E.Op == "<" ||
                     E.Op == "<=" || E.Op == ">" || E.Op == ">=" ||
                     E.Op == "&&" || E.Op == "||")))
        fail(memberPath(Where, "op"),
             "unknown binary operator " + shown(E.Op) +
                 (Cond ? " (known in a select's condition: + - * / == != < "
                         "<= > >= && ||)"
                       : " (known: + - * /)"));
      Arity(2, "a binary operator");
      break;
    case Expr::Call:
      if (!isQualifiedName(E.Op) || !isMathFunctionName(E.Op))
        fail(memberPath(Where, "op"),
             shown(E.Op) + " is not a math function a stencil update calls "
                           "(sqrtf, fmaf, fmaxf, ...)");
      else if (E.Args.empty() || E.Args.size() > 3)
        fail(memberPath(Where, "args"),
             "a math function takes 1 to 3 arguments, found " +
                 std::to_string(E.Args.size()));
      break;
    case Expr::Select:
      Arity(3, "a select");
      break;
    }
    // A comparison's operands are values; && || ! and arithmetic inside a
    // condition keep to its grammar.
    const bool Compares = Cond && E.Kind == Expr::Binary &&
                          (E.Op == "==" || E.Op == "!=" || E.Op == "<" ||
                           E.Op == "<=" || E.Op == ">" || E.Op == ">=");
    for (size_t I = 0; I < E.Args.size() && ok(); ++I)
      expr(E.Args[I], elementPath(memberPath(Where, "args"), I),
           (Cond && !Compares) || (E.Kind == Expr::Select && I == 0));
  }

  /// A named constant's name reaches generated code (and #ifndef lines):
  /// an identifier, or a name qualified from the global scope (::ns::k).
  void checkConstants() {
    static const std::set<std::string> Types = {
        "int",       "unsigned int", "long",  "unsigned long", "long long",
        "unsigned long long", "short", "unsigned short", "char",
        "signed char", "unsigned char", "float", "double", "bool"};
    for (size_t I = 0; I < IR.Constants.size() && ok(); ++I) {
      const NamedConstant &C = IR.Constants[I];
      std::string Where = at("constants", I);
      bool Global = C.Name.rfind("::", 0) == 0 &&
                    isQualifiedName(C.Name.substr(2));
      if (!isIdentifier(C.Name) && !Global)
        fail(memberPath(Where, "name"),
             shown(C.Name) + " is not an identifier or a ::qualified name");
      else if (C.Origin == NamedConstant::Macro && !isIdentifier(C.Name))
        fail(memberPath(Where, "name"),
             shown(C.Name) + ": a macro's name is an identifier");
      else if (!Types.count(C.Type))
        fail(memberPath(Where, "type"),
             shown(C.Type) + " is not an integer or floating type");
      else if (!isNumericLiteral(C.Value))
        fail(memberPath(Where, "value"), shown(C.Value) + " is not a number");
      else if (std::string Why = whyNotOneLine(C.DefinedAt); !Why.empty())
        fail(memberPath(Where, "defined_at"), shown(C.DefinedAt) + " has " + Why);
    }
  }

  static bool isDimName(const std::string &S) {
    return S == "x" || S == "y" || S == "z";
  }
  /// S is a plain decimal number in [Lo, Hi] (no sign, suffix or spaces).
  static bool isCountIn(const std::string &S, long long Lo, long long Hi) {
    if (S.empty() || S.size() > 12 ||
        !std::all_of(S.begin(), S.end(),
                     [](char C) { return C >= '0' && C <= '9'; }))
      return false;
    const long long V = std::stoll(S);
    return V >= Lo && V <= Hi;
  }

  /// Assumptions become #if conditions and if conditions of the launcher.
  void checkAssumptions() {
    for (size_t I = 0; I < IR.Assumptions.size() && ok(); ++I) {
      const Assumption &A = IR.Assumptions[I];
      std::string Where = at("assumptions", I);
      switch (A.Kind) {
      case Assumption::BlockDim:
        if (!isDimName(A.Expr))
          fail(memberPath(Where, "expr"),
               shown(A.Expr) + ": a block-dim assumption names x, y or z");
        else if (!isCountIn(A.Value, 1, 1024))
          fail(memberPath(Where, "value"),
               shown(A.Value) + " is not a block size from 1 to 1024");
        break;
      case Assumption::BlockDimAtLeast:
        if (!isDimName(A.Expr))
          fail(memberPath(Where, "expr"),
               shown(A.Expr) +
                   ": a block-dim-at-least assumption names x, y or z");
        else if (!isCountIn(A.Value, 1, 1024))
          fail(memberPath(Where, "value"),
               shown(A.Value) + " is not a block size from 1 to 1024");
        break;
      case Assumption::GridDimMax:
        if (!isDimName(A.Expr))
          fail(memberPath(Where, "expr"),
               shown(A.Expr) + ": a grid-dim-max assumption names x, y or z");
        else if (!isCountIn(A.Value, 1, 4294967295LL))
          fail(memberPath(Where, "value"),
               shown(A.Value) + " is not a number of blocks (1 or more)");
        break;
      case Assumption::GridExtent:
        if (!isDimName(A.Expr))
          fail(memberPath(Where, "expr"),
               shown(A.Expr) + ": a grid-extent assumption names x, y or z");
        else
          expression(memberPath(Where, "value"), A.Value, false);
        break;
      case Assumption::Holds:
        expression(memberPath(Where, "expr"), A.Expr, false);
        if (ok() && A.Value != "1")
          fail(memberPath(Where, "value"),
               shown(A.Value) + ": a mode condition holds (1)");
        break;
      case Assumption::AtLeast:
        expression(memberPath(Where, "expr"), A.Expr, false);
        if (ok() && !isCountIn(A.Value, 0, 4294967295LL))
          fail(memberPath(Where, "value"),
               shown(A.Value) + " is not a whole number (0 or more)");
        break;
      case Assumption::CompileTime:
      case Assumption::Preprocessor:
        if (A.Kind == Assumption::Preprocessor && A.Value != "0" &&
            A.Value != "1")
          fail(memberPath(Where, "value"),
               shown(A.Value) + ": a directive was taken (1) or not (0)");
        else if (A.Kind == Assumption::CompileTime &&
                 !isNumericLiteral(A.Value))
          fail(memberPath(Where, "value"), shown(A.Value) + " is not a number");
        else
          expression(memberPath(Where, "expr"), A.Expr, false);
        break;
      }
      if (ok())
        if (std::string Why = whyNotOneLine(A.Why); !Why.empty())
          fail(memberPath(Where, "why"), shown(A.Why) + " has " + Why);
    }
  }

  /// A block reduction names a __shared__ array (an identifier; none for
  /// an accumulation by an atomic call) and at least one of the pointer
  /// parameters, none an array of the stencil.
  void checkReductions() {
    for (size_t I = 0; I < IR.Reductions.size() && ok(); ++I) {
      const BlockReduction &R = IR.Reductions[I];
      std::string Where = at("block_reductions", I);
      if (!R.Shared.empty() && !isIdentifier(R.Shared)) {
        fail(memberPath(Where, "shared"),
             shown(R.Shared) + " is not a C identifier");
        break;
      }
      if (R.Outputs.empty())
        fail(memberPath(Where, "outputs"),
             "no outputs: a block reduction writes its result somewhere");
      for (size_t J = 0; J < R.Outputs.size() && ok(); ++J) {
        const std::string &Name = R.Outputs[J];
        std::string OP = elementPath(memberPath(Where, "outputs"), J);
        const Param *P = nullptr;
        for (const Param &X : IR.Params)
          if (X.Name == Name)
            P = &X;
        bool Stencilled = false;
        for (const InputArray &In : IR.Inputs)
          Stencilled |= In.Param == Name;
        for (const OutputArray &Out : IR.Outputs)
          Stencilled |= Out.Param == Name;
        if (!P)
          fail(OP, shown(Name) + " is not one of the parameters");
        else if (Stencilled)
          fail(OP, shown(Name) + " is also an array of the stencil");
      }
      if (ok())
        if (std::string Why = whyNotOneLine(R.Call); !Why.empty())
          fail(memberPath(Where, "call"), shown(R.Call) + " has " + Why);
    }
  }

  void checkUpdates() {
    if (IR.Updates.empty()) {
      fail(at("updates"), "no updates: a stencil stores at least one value");
      return;
    }
    for (size_t I = 0; I < IR.Updates.size() && ok(); ++I) {
      const Update &U = IR.Updates[I];
      std::string Where = at("updates", I);
      bool Known = false;
      for (const OutputArray &Out : IR.Outputs)
        Known |= Out.Param == U.Target && Out.Field == U.TargetField;
      if (!Known)
        fail(memberPath(Where, "target"),
             shown(U.Target) + " is not one of the outputs");
      else
        expr(U.Value, memberPath(Where, "value"));
    }
  }

  /// A frame's box has one bound of each side per axis; its values are
  /// plain stores of the outputs that read inputs at the point only.
  bool InFrame = false;
  void checkFrame() {
    const BoundaryFrame &F = IR.Frame;
    if (F.Lower.empty() && F.Upper.empty() && F.Updates.empty())
      return;
    std::string Where = at("frame");
    if (F.Lower.size() != IR.Dims || F.Upper.size() != IR.Dims) {
      fail(Where, "the frame needs one lower and one upper bound per axis (" +
                      std::to_string(IR.Dims) + "), found " +
                      std::to_string(F.Lower.size()) + " and " +
                      std::to_string(F.Upper.size()));
      return;
    }
    for (size_t A = 0; A < IR.Dims && ok(); ++A) {
      expression(elementPath(memberPath(Where, "lower"), A), F.Lower[A], false);
      if (ok())
        expression(elementPath(memberPath(Where, "upper"), A), F.Upper[A],
                   false);
    }
    if (ok() && F.Updates.empty())
      fail(memberPath(Where, "updates"), "a frame needs at least one update");
    std::set<std::string> Seen;
    for (size_t I = 0; I < F.Updates.size() && ok(); ++I) {
      const Update &U = F.Updates[I];
      std::string UW = elementPath(memberPath(Where, "updates"), I);
      bool Known = false;
      for (const OutputArray &Out : IR.Outputs)
        Known |= Out.Param == U.Target && Out.Field == U.TargetField;
      if (!Known)
        fail(memberPath(UW, "target"),
             shown(U.Target) + " is not one of the outputs");
      else if (!Seen.insert(U.Target).second)
        fail(memberPath(UW, "target"),
             shown(U.Target) + " has two frame values");
      else if (U.Accumulate)
        fail(memberPath(UW, "accumulate"),
             "a frame value is a plain store, not an accumulation");
      if (!ok())
        return;
      InFrame = true;
      expr(U.Value, memberPath(UW, "value"));
      InFrame = false;
    }
  }
};

} // namespace

std::string validate(const StencilIR &IR, const std::string &Path) {
  return Validator(IR, Path).run();
}

} // namespace ir
} // namespace forgestencil
