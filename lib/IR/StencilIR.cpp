//===- StencilIR.cpp - The description of one stencil kernel --------------===//

#include "forgestencil/IR/StencilIR.h"

#include "forgestencil/Support/JsonReader.h"

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

using nlohmann::json;

namespace forgestencil {
namespace ir {

namespace {

const char *axisSourceName(AxisSource S) {
  switch (S) {
  case AxisSource::Thread:
    return "thread";
  case AxisSource::Linear:
    return "linear";
  case AxisSource::Loop:
    return "loop";
  case AxisSource::GridStride:
    return "grid-stride";
  }
  return "thread";
}

std::optional<AxisSource> axisSourceFromName(const std::string &S) {
  if (S == "thread")
    return AxisSource::Thread;
  if (S == "linear")
    return AxisSource::Linear;
  if (S == "loop")
    return AxisSource::Loop;
  if (S == "grid-stride")
    return AxisSource::GridStride;
  return std::nullopt;
}

const char *const RoleNames[] = {"input", "output", "inout",
                                 "scalar", "size", "other"};
const char *const CoefKindNames[] = {"literal", "scalar-param",
                                     "constant-array", "constant-scalar",
                                     "param-array"};
const char *const ConstantOriginNames[] = {"macro", "variable", "enumerator"};
const char *const AssumptionKindNames[] = {"compile-time", "preprocessor",
                                           "block-dim", "grid-extent",
                                           "grid-dim-max",
                                           "block-dim-at-least", "at-least",
                                           "holds"};
const char *const ExprKindNames[] = {"read", "coef",  "param", "literal",
                                     "unary", "binary", "call", "select"};

template <size_t N>
int indexOf(const char *const (&Names)[N], const std::string &S) {
  for (size_t I = 0; I < N; ++I)
    if (S == Names[I])
      return static_cast<int>(I);
  return -1;
}

json offsetJson(const Offset &O) { return json::array({O[0], O[1], O[2]}); }

void countFlops(const Expr &E, unsigned &Flops) {
  if (E.Kind == Expr::Binary)
    ++Flops;
  if (E.Kind == Expr::Unary && E.Op == "neg")
    ++Flops;
  if (E.Kind == Expr::Call)
    ++Flops; // A call counts as one operation; documented in the schema.
  // A select's condition is not counted: integer work on parameters for a
  // mode switch, comparisons for a test on data (docs/stencil-ir.md).
  for (size_t I = E.Kind == Expr::Select ? 1 : 0; I < E.Args.size(); ++I)
    countFlops(E.Args[I], Flops);
}

std::string typeTag(const std::string &T) {
  if (T == "float")
    return "f32";
  if (T == "double")
    return "f64";
  if (T == "__half" || T == "half")
    return "f16";
  if (T == "int")
    return "i32";
  return T;
}

} // namespace

unsigned elementSize(const std::string &Type) {
  if (Type == "double" || Type == "long" || Type == "long long" ||
      Type == "int64_t" || Type == "size_t")
    return 8;
  if (Type == "float" || Type == "int" || Type == "unsigned" ||
      Type == "int32_t" || Type == "uint32_t")
    return 4;
  if (Type == "__half" || Type == "half" || Type == "short" ||
      Type == "__nv_bfloat16")
    return 2;
  if (Type == "char" || Type == "unsigned char" || Type == "uint8_t")
    return 1;
  return 0;
}

unsigned StencilIR::fixedBlockDim(int D) const {
  for (const Assumption &A : Assumptions)
    if (A.Kind == Assumption::BlockDim && A.Expr.size() == 1 &&
        A.Expr[0] == "xyz"[D])
      return static_cast<unsigned>(std::strtoul(A.Value.c_str(), nullptr, 10));
  return 0;
}

const NamedConstant *StencilIR::constant(const std::string &Name) const {
  for (const NamedConstant &C : Constants)
    if (C.Name == Name)
      return &C;
  return nullptr;
}

void StencilIR::computeDerived() {
  // Footprint: the union of offsets of arrays that are not per-point
  // coefficients (those are read at 0 only and are not part of the shape).
  std::set<Offset> Footprint;
  int R = 0;
  for (const InputArray &In : Inputs) {
    // A per-axis table (dx[i]) is no neighbourhood of the grid either.
    if (In.PerPointCoefficient || In.perAxisTable())
      continue;
    for (const Offset &O : In.Offsets) {
      Footprint.insert(O);
      for (int A = 0; A < 3; ++A)
        R = std::max(R, std::abs(O[A]));
    }
  }
  Radius = static_cast<unsigned>(R);
  Points = static_cast<unsigned>(Footprint.size());
  bool Star = true;
  for (const Offset &O : Footprint) {
    int NonZero = (O[0] != 0) + (O[1] != 0) + (O[2] != 0);
    if (NonZero > 1)
      Star = false;
  }
  // A full box has (2r+1)^dims points.
  unsigned BoxPoints = 1;
  for (unsigned D = 0; D < Dims; ++D)
    BoxPoints *= 2 * Radius + 1;
  if (Footprint.empty())
    Shape = "other";
  else if (Star && Points == 2 * Radius * Dims + 1)
    Shape = "star";
  else if (Points == BoxPoints)
    Shape = "box";
  else
    Shape = "other";

  unsigned Flops = 0;
  for (const Update &U : Updates) {
    countFlops(U.Value, Flops);
    if (U.Accumulate)
      ++Flops;
  }
  FlopsPerPoint = Flops;

  // Compulsory bytes: each distinct array read once and written once.
  unsigned Elem = elementSize(ElementType);
  // (a field of a packed allocation is an array of its own).
  std::set<std::pair<std::string, std::string>> Read, Written;
  for (const InputArray &In : Inputs)
    Read.insert({In.Param, In.Field});
  for (const OutputArray &Out : Outputs) {
    Written.insert({Out.Param, Out.Field});
    if (Out.Accumulate)
      Read.insert({Out.Param, Out.Field});
  }
  BytesPerPoint = static_cast<unsigned>((Read.size() + Written.size()) * Elem);
}

std::string StencilIR::summary() const {
  std::ostringstream OS;
  OS << Dims << "D " << Shape << " r=" << Radius << " " << Points << "pt "
     << typeTag(ElementType) << ", " << Outputs.size() << " out, "
     << Inputs.size() << " in";
  return OS.str();
}

json toJson(const Expr &E) {
  json J;
  J["kind"] = ExprKindNames[E.Kind];
  switch (E.Kind) {
  case Expr::Read:
    J["array"] = E.Name;
    J["offset"] = offsetJson(E.Off);
    if (!E.Field.empty())
      J["field"] = E.Field;
    break;
  case Expr::Coef:
    J["name"] = E.Name;
    if (E.Index >= 0)
      J["index"] = E.Index;
    if (!E.IndexExpr.empty())
      J["index_expr"] = E.IndexExpr;
    break;
  case Expr::ParamRef:
    J["name"] = E.Name;
    break;
  case Expr::Literal:
    J["value"] = E.Value;
    break;
  case Expr::Unary:
  case Expr::Binary:
  case Expr::Call:
    J["op"] = E.Op;
    break;
  case Expr::Select: // its condition, then and else are its args
    break;
  }
  if (!E.Args.empty()) {
    json Args = json::array();
    for (const Expr &A : E.Args)
      Args.push_back(toJson(A));
    J["args"] = std::move(Args);
  }
  return J;
}

const char *coefficientKindName(enum Coefficient::Kind K) {
  const size_t I = static_cast<size_t>(K);
  return I < std::size(CoefKindNames) ? CoefKindNames[I] : "literal";
}

std::string threadPosition(const Axis &X) {
  auto Dim = [](char D) { return (D == 'y' || D == 'z') ? D : 'x'; };
  const char T = X.ThreadDim, B = X.blockDim();
  if (T == '-')
    return std::string("(long long)blockIdx.") + Dim(B);
  if (B == '-')
    return std::string("(long long)threadIdx.") + Dim(T);
  if (X.BlockPoints > 0)
    return std::string("((long long)blockIdx.") + Dim(B) + " * " +
           std::to_string(X.BlockPoints) + " + (long long)threadIdx." +
           Dim(T) + " - " + std::to_string(X.BlockFirst) + ")";
  return std::string("(long long)blockIdx.") + Dim(B) + " * blockDim." +
         Dim(T) + " + threadIdx." + Dim(T);
}

json toJson(const StencilIR &IR) {
  json J;
  J["schema"] = SchemaId;
  J["version"] = SchemaVersion;
  J["kernel"] = IR.Kernel;
  J["source"] = {{"file", IR.SourceFile}, {"line", IR.SourceLine}};
  J["element_type"] = IR.ElementType;
  J["dims"] = IR.Dims;
  json Axes = json::array();
  for (const Axis &A : IR.Axes) {
    json X = {{"name", A.Name},
              {"source", axisSourceName(A.Source)},
              {"thread_dim", A.ThreadDim == '-' ? std::string("none")
                                                : std::string(1, A.ThreadDim)},
              {"lower", A.Lower},
              {"upper", A.Upper},
              {"extent", A.Extent},
              {"thread_offset", A.ThreadOffset}};
    if (A.blockDim() != A.ThreadDim)
      X["block_dim"] = A.BlockDim == '-' ? std::string("none")
                                         : std::string(1, A.BlockDim);
    if (A.BlockPoints > 0) {
      X["block_points"] = A.BlockPoints;
      X["block_first"] = A.BlockFirst;
    }
    if (A.BlockLoop)
      X["block_loop"] = true;
    if (A.ThreadPoints != 1)
      X["thread_points"] = A.ThreadPoints;
    if (!A.LinearStep.empty())
      X["linear_step"] = A.LinearStep;
    if (!A.LinearModulus.empty())
      X["linear_modulus"] = A.LinearModulus;
    if (A.clamped()) {
      X["clamp_lower"] = A.ClampLower;
      X["clamp_upper"] = A.ClampUpper;
    }
    if (A.zeroed()) {
      X["zero_lower"] = A.ZeroLower;
      X["zero_upper"] = A.ZeroUpper;
    }
    if (A.wrapped()) {
      X["wrap_lower"] = A.WrapLower;
      X["wrap_upper"] = A.WrapUpper;
      if (!A.WrapPeriod.empty())
        X["wrap_period"] = A.WrapPeriod;
    }
    Axes.push_back(std::move(X));
  }
  J["axes"] = std::move(Axes);
  J["strides"] = IR.Strides;
  json Params = json::array();
  for (const Param &P : IR.Params)
    Params.push_back(
        {{"name", P.Name}, {"type", P.Type}, {"role", RoleNames[P.Role]}});
  J["params"] = std::move(Params);
  json Inputs = json::array();
  for (const InputArray &In : IR.Inputs) {
    json Offs = json::array();
    for (const Offset &O : In.Offsets)
      Offs.push_back(offsetJson(O));
    json X = {{"param", In.Param},
              {"offsets", std::move(Offs)},
              {"restrict", In.Restrict},
              {"ldg", In.Ldg},
              {"per_point_coefficient", In.PerPointCoefficient}};
    if (!In.Strides.empty())
      X["strides"] = In.Strides;
    if (!In.Field.empty())
      X["field"] = In.Field;
    Inputs.push_back(std::move(X));
  }
  J["inputs"] = std::move(Inputs);
  json Outputs = json::array();
  for (const OutputArray &Out : IR.Outputs) {
    json X = {{"param", Out.Param},
              {"write_offset", offsetJson(Out.WriteOffset)},
              {"accumulate", Out.Accumulate},
              {"in_place", Out.InPlace}};
    if (!Out.Strides.empty())
      X["strides"] = Out.Strides;
    if (!Out.Lower.empty()) {
      X["lower"] = Out.Lower;
      X["upper"] = Out.Upper;
    }
    if (!Out.Field.empty())
      X["field"] = Out.Field;
    Outputs.push_back(std::move(X));
  }
  J["outputs"] = std::move(Outputs);
  json Coefs = json::array();
  for (const Coefficient &C : IR.Coefficients) {
    json X = {{"name", C.Name},
              {"kind", CoefKindNames[C.Kind]},
              {"type", C.Type},
              {"size", C.Size}};
    if (!C.Shape.empty())
      X["shape"] = C.Shape;
    Coefs.push_back(std::move(X));
  }
  J["coefficients"] = std::move(Coefs);
  json Updates = json::array();
  for (const Update &U : IR.Updates) {
    Updates.push_back({{"target", U.Target},
                       {"accumulate", U.Accumulate},
                       {"value", toJson(U.Value)}});
    if (!U.TargetField.empty())
      Updates.back()["target_field"] = U.TargetField;
  }
  J["updates"] = std::move(Updates);
  J["shape"] = IR.Shape;
  J["radius"] = IR.Radius;
  J["points"] = IR.Points;
  J["flops_per_point"] = IR.FlopsPerPoint;
  J["bytes_per_point"] = IR.BytesPerPoint;
  J["notes"] = IR.Notes;
  // Optional members (absent means none): older documents stay valid.
  if (!IR.Constants.empty()) {
    json Cs = json::array();
    for (const NamedConstant &C : IR.Constants)
      Cs.push_back({{"name", C.Name},
                    {"type", C.Type},
                    {"value", C.Value},
                    {"origin", ConstantOriginNames[C.Origin]},
                    {"defined_at", C.DefinedAt}});
    J["constants"] = std::move(Cs);
  }
  if (!IR.Assumptions.empty()) {
    json As = json::array();
    for (const Assumption &A : IR.Assumptions)
      As.push_back({{"kind", AssumptionKindNames[A.Kind]},
                    {"expr", A.Expr},
                    {"value", A.Value},
                    {"why", A.Why}});
    J["assumptions"] = std::move(As);
  }
  if (!IR.Reductions.empty()) {
    json Rs = json::array();
    for (const BlockReduction &R : IR.Reductions)
      Rs.push_back(
          {{"shared", R.Shared}, {"outputs", R.Outputs}, {"call", R.Call}});
    J["block_reductions"] = std::move(Rs);
  }
  if (!IR.DeviceCalls.empty())
    J["device_calls"] = IR.DeviceCalls;
  if (IR.Frame.present()) {
    json Fs = json::array();
    for (const Update &U : IR.Frame.Updates)
      Fs.push_back({{"target", U.Target}, {"value", toJson(U.Value)}});
    J["frame"] = {{"lower", IR.Frame.Lower},
                  {"upper", IR.Frame.Upper},
                  {"updates", std::move(Fs)}};
  }
  return J;
}

namespace {

using support::elementPath;
using support::JsonReader;
using support::memberPath;

/// The largest |offset| a document may state along an axis: far beyond any
/// stencil's radius, small enough that offsets times strides stay exact.
constexpr long long MaxOffset = 1024;
/// Enough for the deepest sum a macro expands to, bounded so that reading
/// a hostile document cannot exhaust the stack.
constexpr int MaxExprDepth = 256;
constexpr size_t MaxExprNodes = 100000;

Offset offsetFrom(const json &J, JsonReader &R, const std::string &Path) {
  Offset O{0, 0, 0};
  if (!J.is_array() || J.size() != 3) {
    R.fail(Path, std::string("an offset is an array of 3 integers, found ") +
                     (J.is_array() ? "an array of " + std::to_string(J.size())
                                   : std::string(support::describeJsonType(J))));
    return O;
  }
  for (int I = 0; I < 3; ++I)
    O[I] = static_cast<int>(
        R.asInteger(J[I], elementPath(Path, I), -MaxOffset, MaxOffset));
  return O;
}

std::optional<Expr> exprFrom(const json &J, JsonReader &R,
                             const std::string &Path, int Depth,
                             size_t &Nodes) {
  if (Depth > MaxExprDepth) {
    R.fail(Path, "expression nested deeper than " +
                     std::to_string(MaxExprDepth) + " levels");
    return std::nullopt;
  }
  if (++Nodes > MaxExprNodes) {
    R.fail(Path, "expression has more than " + std::to_string(MaxExprNodes) +
                     " nodes");
    return std::nullopt;
  }
  if (!R.expectObject(J, Path))
    return std::nullopt;
  Expr E;
  std::string KindName = R.string(J, "kind", Path);
  if (!R.ok())
    return std::nullopt;
  int K = indexOf(ExprKindNames, KindName);
  if (K < 0) {
    R.fail(memberPath(Path, "kind"),
           "unknown expression kind '" + KindName +
               "' (known: read, coef, param, literal, unary, binary, call, "
               "select)");
    return std::nullopt;
  }
  E.Kind = static_cast<enum Expr::Kind>(K);
  switch (E.Kind) {
  case Expr::Read:
    E.Name = R.string(J, "array", Path);
    if (const json *O = R.member(J, "offset", Path, true))
      E.Off = offsetFrom(*O, R, memberPath(Path, "offset"));
    E.Field = R.string(J, "field", Path, "");
    break;
  case Expr::Coef:
    E.Name = R.string(J, "name", Path);
    E.Index = static_cast<int>(R.integer(J, "index", Path, -1, 1 << 20, -1));
    E.IndexExpr = R.string(J, "index_expr", Path, "");
    break;
  case Expr::ParamRef:
    E.Name = R.string(J, "name", Path);
    break;
  case Expr::Literal:
    E.Value = R.string(J, "value", Path);
    break;
  case Expr::Select:
    E.Op = R.string(J, "op", Path, "");
    break;
  default:
    E.Op = R.string(J, "op", Path);
    break;
  }
  const json &Args = R.array(J, "args", Path, false);
  for (size_t I = 0; I < Args.size() && R.ok(); ++I) {
    auto A = exprFrom(Args[I], R, elementPath(memberPath(Path, "args"), I),
                      Depth + 1, Nodes);
    if (!A)
      return std::nullopt;
    E.Args.push_back(std::move(*A));
  }
  if (!R.ok())
    return std::nullopt;
  return E;
}

/// Reads the members of a document into IR, checking each one's type and
/// range; what the members mean together is validate()'s job.
/// An update object ({target, accumulate, value}) at Path.
std::optional<Update> updateFrom(const json &J, JsonReader &R,
                                 const std::string &Path, size_t &Nodes) {
  Update X;
  X.Target = R.string(J, "target", Path);
  X.TargetField = R.string(J, "target_field", Path, "");
  X.Accumulate = R.boolean(J, "accumulate", Path, false);
  const json *V = R.member(J, "value", Path, true);
  if (!V)
    return std::nullopt;
  auto E = exprFrom(*V, R, memberPath(Path, "value"), 0, Nodes);
  if (!E)
    return std::nullopt;
  X.Value = std::move(*E);
  return X;
}

void readMembers(const json &J, JsonReader &R, const std::string &P,
                 StencilIR &IR) {
  IR.Kernel = R.string(J, "kernel", P);
  if (const json *S = R.member(J, "source", P, false)) {
    std::string SP = memberPath(P, "source");
    if (R.expectObject(*S, SP)) {
      IR.SourceFile = R.string(*S, "file", SP, "");
      IR.SourceLine =
          static_cast<unsigned>(R.integer(*S, "line", SP, 0, 1LL << 31, 0));
    }
  }
  IR.ElementType = R.string(J, "element_type", P);
  IR.Dims = static_cast<unsigned>(R.integer(J, "dims", P, 1, 3));
  if (!R.ok())
    return;

  const json &Axes = R.array(J, "axes", P, true);
  for (size_t I = 0; I < Axes.size() && R.ok(); ++I) {
    const json &A = Axes[I];
    std::string AP = elementPath(memberPath(P, "axes"), I);
    if (!R.expectObject(A, AP))
      return;
    Axis X;
    X.Name = R.string(A, "name", AP);
    std::string Source = R.string(A, "source", AP);
    if (auto Src = axisSourceFromName(Source))
      X.Source = *Src;
    else if (R.ok())
      R.fail(memberPath(AP, "source"),
             "unknown axis source '" + Source +
                 "' (known: thread, linear, loop, grid-stride)");
    auto DimChar = [&](const std::string &Member, const std::string &D) {
      if (D == "none")
        return '-';
      if (D != "x" && D != "y" && D != "z") {
        R.fail(memberPath(AP, Member), "'" + D + "' is not x, y, z or none");
        return 'x';
      }
      return D[0];
    };
    X.ThreadDim = DimChar("thread_dim", R.string(A, "thread_dim", AP, "x"));
    if (A.contains("block_dim"))
      X.BlockDim = DimChar("block_dim", R.string(A, "block_dim", AP, "x"));
    X.Lower = R.string(A, "lower", AP);
    X.Upper = R.string(A, "upper", AP);
    X.Extent = R.string(A, "extent", AP, "");
    X.ThreadOffset = R.string(A, "thread_offset", AP, "0");
    X.BlockPoints = R.integer(A, "block_points", AP, 0, 1024, 0);
    X.BlockFirst = R.integer(A, "block_first", AP, 0, 1024, 0);
    X.BlockLoop = R.boolean(A, "block_loop", AP, false);
    X.ThreadPoints = R.integer(A, "thread_points", AP, 1, 64, 1);
    X.LinearStep = R.string(A, "linear_step", AP, "");
    X.LinearModulus = R.string(A, "linear_modulus", AP, "");
    X.ClampLower = R.string(A, "clamp_lower", AP, "");
    X.ClampUpper = R.string(A, "clamp_upper", AP, "");
    X.WrapLower = R.string(A, "wrap_lower", AP, "");
    X.WrapUpper = R.string(A, "wrap_upper", AP, "");
    X.WrapPeriod = R.string(A, "wrap_period", AP, "");
    X.ZeroLower = R.string(A, "zero_lower", AP, "");
    X.ZeroUpper = R.string(A, "zero_upper", AP, "");
    IR.Axes.push_back(std::move(X));
  }
  IR.Strides = R.strings(J, "strides", P, true);

  const json &Params = R.array(J, "params", P, false);
  for (size_t I = 0; I < Params.size() && R.ok(); ++I) {
    std::string PP = elementPath(memberPath(P, "params"), I);
    if (!R.expectObject(Params[I], PP))
      return;
    Param X;
    X.Name = R.string(Params[I], "name", PP);
    X.Type = R.string(Params[I], "type", PP);
    std::string Role = R.string(Params[I], "role", PP);
    int K = indexOf(RoleNames, Role);
    if (K < 0 && R.ok())
      R.fail(memberPath(PP, "role"),
             "unknown role '" + Role +
                 "' (known: input, output, inout, scalar, size, other)");
    else
      X.Role = static_cast<enum Param::Role>(K < 0 ? 0 : K);
    IR.Params.push_back(std::move(X));
  }

  const json &Inputs = R.array(J, "inputs", P, true);
  for (size_t I = 0; I < Inputs.size() && R.ok(); ++I) {
    std::string IP = elementPath(memberPath(P, "inputs"), I);
    if (!R.expectObject(Inputs[I], IP))
      return;
    InputArray X;
    X.Param = R.string(Inputs[I], "param", IP);
    const json &Offs = R.array(Inputs[I], "offsets", IP, true);
    for (size_t O = 0; O < Offs.size() && R.ok(); ++O)
      X.Offsets.push_back(
          offsetFrom(Offs[O], R, elementPath(memberPath(IP, "offsets"), O)));
    X.Restrict = R.boolean(Inputs[I], "restrict", IP, false);
    X.Ldg = R.boolean(Inputs[I], "ldg", IP, false);
    X.PerPointCoefficient =
        R.boolean(Inputs[I], "per_point_coefficient", IP, false);
    X.Strides = R.strings(Inputs[I], "strides", IP, false);
    X.Field = R.string(Inputs[I], "field", IP, "");
    IR.Inputs.push_back(std::move(X));
  }

  const json &Outputs = R.array(J, "outputs", P, true);
  for (size_t I = 0; I < Outputs.size() && R.ok(); ++I) {
    std::string OP = elementPath(memberPath(P, "outputs"), I);
    if (!R.expectObject(Outputs[I], OP))
      return;
    OutputArray X;
    X.Param = R.string(Outputs[I], "param", OP);
    if (const json *W = R.member(Outputs[I], "write_offset", OP, false))
      X.WriteOffset = offsetFrom(*W, R, memberPath(OP, "write_offset"));
    X.Accumulate = R.boolean(Outputs[I], "accumulate", OP, false);
    X.InPlace = R.boolean(Outputs[I], "in_place", OP, false);
    X.Strides = R.strings(Outputs[I], "strides", OP, false);
    X.Lower = R.strings(Outputs[I], "lower", OP, false);
    X.Upper = R.strings(Outputs[I], "upper", OP, false);
    X.Field = R.string(Outputs[I], "field", OP, "");
    IR.Outputs.push_back(std::move(X));
  }

  const json &Coefs = R.array(J, "coefficients", P, false);
  for (size_t I = 0; I < Coefs.size() && R.ok(); ++I) {
    std::string CP = elementPath(memberPath(P, "coefficients"), I);
    if (!R.expectObject(Coefs[I], CP))
      return;
    Coefficient X;
    X.Name = R.string(Coefs[I], "name", CP);
    std::string Kind = R.string(Coefs[I], "kind", CP);
    int K = indexOf(CoefKindNames, Kind);
    if (K < 0 && R.ok())
      R.fail(memberPath(CP, "kind"),
             "unknown coefficient kind '" + Kind +
                 "' (known: literal, scalar-param, constant-array, "
                 "constant-scalar, param-array)");
    else
      X.Kind = static_cast<enum Coefficient::Kind>(K < 0 ? 0 : K);
    X.Type = R.string(Coefs[I], "type", CP);
    X.Size = static_cast<unsigned>(
        R.integer(Coefs[I], "size", CP, 1, MaxCoefficientElements, 1));
    const json &Shape = R.array(Coefs[I], "shape", CP, false);
    for (size_t S = 0; S < Shape.size() && R.ok(); ++S)
      X.Shape.push_back(static_cast<unsigned>(
          R.asInteger(Shape[S], elementPath(memberPath(CP, "shape"), S), 1,
                      MaxCoefficientElements)));
    IR.Coefficients.push_back(std::move(X));
  }

  const json &Updates = R.array(J, "updates", P, true);
  size_t Nodes = 0;
  for (size_t I = 0; I < Updates.size() && R.ok(); ++I) {
    std::string UP = elementPath(memberPath(P, "updates"), I);
    if (!R.expectObject(Updates[I], UP))
      return;
    std::optional<Update> X = updateFrom(Updates[I], R, UP, Nodes);
    if (!X)
      return;
    IR.Updates.push_back(std::move(*X));
  }

  // Derived facts are recomputed below; a document may state them (every
  // document this tool writes does), but only well-formed ones.
  std::string Shape = R.string(J, "shape", P, "other");
  if (Shape != "star" && Shape != "box" && Shape != "other" && R.ok())
    R.fail(memberPath(P, "shape"),
           "'" + Shape + "' is not star, box or other");
  for (const char *Key :
       {"radius", "points", "flops_per_point", "bytes_per_point"})
    R.integer(J, Key, P, 0, std::numeric_limits<int>::max(), 0);
  IR.Notes = R.strings(J, "notes", P, false);

  const json &Consts = R.array(J, "constants", P, false);
  for (size_t I = 0; I < Consts.size() && R.ok(); ++I) {
    std::string CP = elementPath(memberPath(P, "constants"), I);
    if (!R.expectObject(Consts[I], CP))
      return;
    NamedConstant C;
    C.Name = R.string(Consts[I], "name", CP);
    C.Type = R.string(Consts[I], "type", CP);
    C.Value = R.string(Consts[I], "value", CP);
    std::string Origin = R.string(Consts[I], "origin", CP, "macro");
    int O = indexOf(ConstantOriginNames, Origin);
    if (O < 0 && R.ok())
      R.fail(memberPath(CP, "origin"),
             "unknown origin '" + Origin + "' (known: macro, variable, enumerator)");
    else
      C.Origin = static_cast<enum NamedConstant::Origin>(O < 0 ? 0 : O);
    C.DefinedAt = R.string(Consts[I], "defined_at", CP, "");
    IR.Constants.push_back(std::move(C));
  }

  const json &Assumed = R.array(J, "assumptions", P, false);
  for (size_t I = 0; I < Assumed.size() && R.ok(); ++I) {
    std::string AP = elementPath(memberPath(P, "assumptions"), I);
    if (!R.expectObject(Assumed[I], AP))
      return;
    Assumption A;
    std::string Kind = R.string(Assumed[I], "kind", AP);
    int K = indexOf(AssumptionKindNames, Kind);
    if (K < 0 && R.ok())
      R.fail(memberPath(AP, "kind"),
             "unknown assumption kind '" + Kind +
                 "' (known: compile-time, preprocessor, block-dim, grid-extent, "
                 "grid-dim-max, block-dim-at-least, at-least, holds)");
    else
      A.Kind = static_cast<enum Assumption::Kind>(K < 0 ? 0 : K);
    A.Expr = R.string(Assumed[I], "expr", AP);
    A.Value = R.string(Assumed[I], "value", AP);
    A.Why = R.string(Assumed[I], "why", AP, "");
    IR.Assumptions.push_back(std::move(A));
  }

  const json &Reduced = R.array(J, "block_reductions", P, false);
  for (size_t I = 0; I < Reduced.size() && R.ok(); ++I) {
    std::string RP = elementPath(memberPath(P, "block_reductions"), I);
    if (!R.expectObject(Reduced[I], RP))
      return;
    BlockReduction B;
    B.Shared = R.string(Reduced[I], "shared", RP);
    B.Outputs = R.strings(Reduced[I], "outputs", RP, true);
    B.Call = R.string(Reduced[I], "call", RP, "");
    IR.Reductions.push_back(std::move(B));
  }

  IR.DeviceCalls = R.strings(J, "device_calls", P, false);

  if (const json *F = R.member(J, "frame", P, false)) {
    std::string FP = memberPath(P, "frame");
    if (!R.expectObject(*F, FP))
      return;
    IR.Frame.Lower = R.strings(*F, "lower", FP, true);
    IR.Frame.Upper = R.strings(*F, "upper", FP, true);
    const json &Us = R.array(*F, "updates", FP, true);
    for (size_t I = 0; I < Us.size() && R.ok(); ++I) {
      std::string UP = elementPath(memberPath(FP, "updates"), I);
      if (!R.expectObject(Us[I], UP))
        return;
      std::optional<Update> X = updateFrom(Us[I], R, UP, Nodes);
      if (!X)
        return;
      IR.Frame.Updates.push_back(std::move(*X));
    }
    if (R.ok() && IR.Frame.Updates.empty())
      R.fail(memberPath(FP, "updates"), "a frame needs at least one update");
  }
}

} // namespace

std::optional<Expr> exprFromJson(const json &J, std::string &Error) {
  JsonReader R(Error);
  size_t Nodes = 0;
  return exprFrom(J, R, "expr", 0, Nodes);
}

std::optional<StencilIR> fromJson(const json &J, std::string &Error,
                                  const std::string &Path) {
  JsonReader R(Error);
  if (!R.expectObject(J, Path))
    return std::nullopt;
  std::string Schema = R.string(J, "schema", Path);
  if (R.ok() && Schema != SchemaId)
    R.fail(memberPath(Path, "schema"), "expected \"" + std::string(SchemaId) +
                                           "\", found \"" + Schema + "\"");
  if (!R.ok())
    return std::nullopt;
  long long Version = R.integer(J, "version", Path, 0,
                                std::numeric_limits<int>::max());
  if (R.ok() && Version != SchemaVersion)
    R.fail(memberPath(Path, "version"),
           "this tool reads version " + std::to_string(SchemaVersion) +
               ", the document is version " + std::to_string(Version));
  if (!R.ok())
    return std::nullopt;
  StencilIR IR;
  readMembers(J, R, Path, IR);
  if (!R.ok())
    return std::nullopt;
  std::string Problem = validate(IR, Path);
  if (!Problem.empty()) {
    Error = Problem;
    return std::nullopt;
  }
  // The radius, points, shape, flops and bytes a document states are never
  // trusted: a generator sizes halos and bounds from them.
  IR.computeDerived();
  return IR;
}

std::optional<StencilIR> fromJson(const json &J, std::string &Error) {
  return fromJson(J, Error, "");
}

} // namespace ir
} // namespace forgestencil
