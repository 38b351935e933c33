//===- StencilIR.cpp - The description of one stencil kernel --------------===//

#include "forgestencil/IR/StencilIR.h"

#include <algorithm>
#include <cstdlib>
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
                                     "constant-array", "constant-scalar"};
const char *const ConstantOriginNames[] = {"macro", "variable", "enumerator"};
const char *const AssumptionKindNames[] = {"compile-time", "preprocessor",
                                           "block-dim"};
const char *const ExprKindNames[] = {"read", "coef",  "param", "literal",
                                     "unary", "binary", "call", "select"};

template <size_t N>
int indexOf(const char *const (&Names)[N], const std::string &S) {
  for (size_t I = 0; I < N; ++I)
    if (S == Names[I])
      return static_cast<int>(I);
  return -1;
}

/// Reads a required member, recording a message naming the path.
struct Reader {
  std::string &Error;
  bool ok() const { return Error.empty(); }
  void fail(const std::string &Msg) {
    if (Error.empty())
      Error = Msg;
  }
  template <typename T>
  T get(const json &J, const char *Key, const std::string &Path) {
    if (!J.is_object() || !J.contains(Key)) {
      fail(Path + ": missing \"" + Key + "\"");
      return T{};
    }
    try {
      return J.at(Key).get<T>();
    } catch (const json::exception &) {
      fail(Path + "." + Key + ": wrong type");
      return T{};
    }
  }
  template <typename T>
  T opt(const json &J, const char *Key, T Default, const std::string &Path) {
    if (!J.is_object() || !J.contains(Key))
      return Default;
    return get<T>(J, Key, Path);
  }
};

json offsetJson(const Offset &O) { return json::array({O[0], O[1], O[2]}); }

Offset offsetFrom(const json &J, Reader &R, const std::string &Path) {
  Offset O{0, 0, 0};
  if (!J.is_array() || J.size() != 3) {
    R.fail(Path + ": an offset is an array of 3 integers");
    return O;
  }
  for (int I = 0; I < 3; ++I) {
    if (!J[I].is_number_integer()) {
      R.fail(Path + ": an offset is an array of 3 integers");
      return O;
    }
    O[I] = J[I].get<int>();
  }
  return O;
}

void countFlops(const Expr &E, unsigned &Flops) {
  if (E.Kind == Expr::Binary)
    ++Flops;
  if (E.Kind == Expr::Unary && E.Op == "neg")
    ++Flops;
  if (E.Kind == Expr::Call)
    ++Flops; // A call counts as one operation; documented in the schema.
  for (const Expr &A : E.Args)
    countFlops(A, Flops);
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
    if (In.PerPointCoefficient)
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
  std::set<std::string> Read, Written;
  for (const InputArray &In : Inputs)
    Read.insert(In.Param);
  for (const OutputArray &Out : Outputs) {
    Written.insert(Out.Param);
    if (Out.Accumulate)
      Read.insert(Out.Param);
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
    break;
  case Expr::Coef:
    J["name"] = E.Name;
    if (E.Index >= 0)
      J["index"] = E.Index;
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
  case Expr::Select:
    J["op"] = E.Op;
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

static std::optional<Expr> exprFrom(const json &J, Reader &R,
                                    const std::string &Path, int Depth) {
  if (Depth > 256) {
    R.fail(Path + ": expression nested too deeply");
    return std::nullopt;
  }
  Expr E;
  int K = indexOf(ExprKindNames, R.get<std::string>(J, "kind", Path));
  if (!R.ok())
    return std::nullopt;
  if (K < 0) {
    R.fail(Path + ".kind: unknown expression kind");
    return std::nullopt;
  }
  E.Kind = static_cast<enum Expr::Kind>(K);
  switch (E.Kind) {
  case Expr::Read:
    E.Name = R.get<std::string>(J, "array", Path);
    if (J.contains("offset"))
      E.Off = offsetFrom(J["offset"], R, Path + ".offset");
    else
      R.fail(Path + ": missing \"offset\"");
    break;
  case Expr::Coef:
    E.Name = R.get<std::string>(J, "name", Path);
    E.Index = R.opt<int>(J, "index", -1, Path);
    break;
  case Expr::ParamRef:
    E.Name = R.get<std::string>(J, "name", Path);
    break;
  case Expr::Literal:
    E.Value = R.get<std::string>(J, "value", Path);
    break;
  default:
    E.Op = R.get<std::string>(J, "op", Path);
    break;
  }
  if (J.contains("args")) {
    if (!J["args"].is_array()) {
      R.fail(Path + ".args: expected an array");
      return std::nullopt;
    }
    for (size_t I = 0; I < J["args"].size(); ++I) {
      auto A = exprFrom(J["args"][I], R,
                        Path + ".args[" + std::to_string(I) + "]", Depth + 1);
      if (!A)
        return std::nullopt;
      E.Args.push_back(std::move(*A));
    }
  }
  if (!R.ok())
    return std::nullopt;
  return E;
}

std::optional<Expr> exprFromJson(const json &J, std::string &Error) {
  Reader R{Error};
  return exprFrom(J, R, "expr", 0);
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
              {"thread_dim", std::string(1, A.ThreadDim)},
              {"lower", A.Lower},
              {"upper", A.Upper},
              {"extent", A.Extent},
              {"thread_offset", A.ThreadOffset}};
    if (!A.LinearStep.empty())
      X["linear_step"] = A.LinearStep;
    if (!A.LinearModulus.empty())
      X["linear_modulus"] = A.LinearModulus;
    if (A.clamped()) {
      X["clamp_lower"] = A.ClampLower;
      X["clamp_upper"] = A.ClampUpper;
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
    Inputs.push_back({{"param", In.Param},
                      {"offsets", std::move(Offs)},
                      {"restrict", In.Restrict},
                      {"ldg", In.Ldg},
                      {"per_point_coefficient", In.PerPointCoefficient}});
  }
  J["inputs"] = std::move(Inputs);
  json Outputs = json::array();
  for (const OutputArray &Out : IR.Outputs)
    Outputs.push_back({{"param", Out.Param},
                       {"write_offset", offsetJson(Out.WriteOffset)},
                       {"accumulate", Out.Accumulate},
                       {"in_place", Out.InPlace}});
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
  for (const Update &U : IR.Updates)
    Updates.push_back({{"target", U.Target},
                       {"accumulate", U.Accumulate},
                       {"value", toJson(U.Value)}});
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
  return J;
}

std::optional<StencilIR> fromJson(const json &J, std::string &Error) {
  Reader R{Error};
  StencilIR IR;
  if (R.get<std::string>(J, "schema", "ir") != SchemaId) {
    R.fail("ir.schema: expected \"" + std::string(SchemaId) + "\"");
    return std::nullopt;
  }
  int Version = R.get<int>(J, "version", "ir");
  if (R.ok() && Version != SchemaVersion) {
    R.fail("ir.version: this tool reads version " +
           std::to_string(SchemaVersion) + ", the document is version " +
           std::to_string(Version));
    return std::nullopt;
  }
  IR.Kernel = R.get<std::string>(J, "kernel", "ir");
  if (J.contains("source")) {
    IR.SourceFile = R.get<std::string>(J["source"], "file", "ir.source");
    IR.SourceLine = R.get<unsigned>(J["source"], "line", "ir.source");
  }
  IR.ElementType = R.get<std::string>(J, "element_type", "ir");
  IR.Dims = R.get<unsigned>(J, "dims", "ir");
  if (R.ok() && (IR.Dims < 1 || IR.Dims > 3))
    R.fail("ir.dims: must be 1, 2 or 3");
  for (const json &A : R.opt<json>(J, "axes", json::array(), "ir")) {
    Axis X;
    X.Name = R.get<std::string>(A, "name", "ir.axes");
    auto Src = axisSourceFromName(R.get<std::string>(A, "source", "ir.axes"));
    if (!Src)
      R.fail("ir.axes.source: unknown axis source");
    else
      X.Source = *Src;
    std::string D = R.get<std::string>(A, "thread_dim", "ir.axes");
    X.ThreadDim = D.empty() ? 'x' : D[0];
    X.Lower = R.get<std::string>(A, "lower", "ir.axes");
    X.Upper = R.get<std::string>(A, "upper", "ir.axes");
    X.Extent = R.get<std::string>(A, "extent", "ir.axes");
    X.ThreadOffset = R.opt<std::string>(A, "thread_offset", "0", "ir.axes");
    X.LinearStep = R.opt<std::string>(A, "linear_step", "", "ir.axes");
    X.LinearModulus = R.opt<std::string>(A, "linear_modulus", "", "ir.axes");
    X.ClampLower = R.opt<std::string>(A, "clamp_lower", "", "ir.axes");
    X.ClampUpper = R.opt<std::string>(A, "clamp_upper", "", "ir.axes");
    if (X.ClampLower.empty() != X.ClampUpper.empty())
      R.fail("ir.axes: axis '" + X.Name + "' has " +
             (X.ClampUpper.empty() ? "clamp_lower but no clamp_upper"
                                   : "clamp_upper but no clamp_lower") +
             ": a replicated boundary needs both bounds");
    IR.Axes.push_back(std::move(X));
  }
  IR.Strides = R.opt<std::vector<std::string>>(J, "strides", {}, "ir");
  for (const json &P : R.opt<json>(J, "params", json::array(), "ir")) {
    Param X;
    X.Name = R.get<std::string>(P, "name", "ir.params");
    X.Type = R.get<std::string>(P, "type", "ir.params");
    int Role = indexOf(RoleNames, R.get<std::string>(P, "role", "ir.params"));
    if (Role < 0)
      R.fail("ir.params.role: unknown role");
    else
      X.Role = static_cast<enum Param::Role>(Role);
    IR.Params.push_back(std::move(X));
  }
  for (const json &I : R.opt<json>(J, "inputs", json::array(), "ir")) {
    InputArray X;
    X.Param = R.get<std::string>(I, "param", "ir.inputs");
    for (const json &O : R.opt<json>(I, "offsets", json::array(), "ir.inputs"))
      X.Offsets.push_back(offsetFrom(O, R, "ir.inputs.offsets"));
    X.Restrict = R.opt<bool>(I, "restrict", false, "ir.inputs");
    X.Ldg = R.opt<bool>(I, "ldg", false, "ir.inputs");
    X.PerPointCoefficient =
        R.opt<bool>(I, "per_point_coefficient", false, "ir.inputs");
    IR.Inputs.push_back(std::move(X));
  }
  for (const json &O : R.opt<json>(J, "outputs", json::array(), "ir")) {
    OutputArray X;
    X.Param = R.get<std::string>(O, "param", "ir.outputs");
    if (O.contains("write_offset"))
      X.WriteOffset = offsetFrom(O["write_offset"], R, "ir.outputs.write_offset");
    X.Accumulate = R.opt<bool>(O, "accumulate", false, "ir.outputs");
    X.InPlace = R.opt<bool>(O, "in_place", false, "ir.outputs");
    IR.Outputs.push_back(std::move(X));
  }
  for (const json &C : R.opt<json>(J, "coefficients", json::array(), "ir")) {
    Coefficient X;
    X.Name = R.get<std::string>(C, "name", "ir.coefficients");
    int K = indexOf(CoefKindNames, R.get<std::string>(C, "kind", "ir.coefficients"));
    if (K < 0)
      R.fail("ir.coefficients.kind: unknown coefficient kind");
    else
      X.Kind = static_cast<enum Coefficient::Kind>(K);
    X.Type = R.get<std::string>(C, "type", "ir.coefficients");
    X.Size = R.opt<unsigned>(C, "size", 1, "ir.coefficients");
    X.Shape = R.opt<std::vector<unsigned>>(C, "shape", {}, "ir.coefficients");
    IR.Coefficients.push_back(std::move(X));
  }
  for (const json &U : R.opt<json>(J, "updates", json::array(), "ir")) {
    Update X;
    X.Target = R.get<std::string>(U, "target", "ir.updates");
    X.Accumulate = R.opt<bool>(U, "accumulate", false, "ir.updates");
    if (!U.contains("value")) {
      R.fail("ir.updates: missing \"value\"");
      break;
    }
    auto V = exprFrom(U["value"], R, "ir.updates.value", 0);
    if (!V)
      break;
    X.Value = std::move(*V);
    IR.Updates.push_back(std::move(X));
  }
  IR.Shape = R.opt<std::string>(J, "shape", "", "ir");
  IR.Radius = R.opt<unsigned>(J, "radius", 0, "ir");
  IR.Points = R.opt<unsigned>(J, "points", 0, "ir");
  IR.FlopsPerPoint = R.opt<unsigned>(J, "flops_per_point", 0, "ir");
  IR.BytesPerPoint = R.opt<unsigned>(J, "bytes_per_point", 0, "ir");
  IR.Notes = R.opt<std::vector<std::string>>(J, "notes", {}, "ir");
  json Cs = R.opt<json>(J, "constants", json::array(), "ir");
  for (size_t I = 0; I < Cs.size() && Cs.is_array(); ++I) {
    const std::string Path = "ir.constants[" + std::to_string(I) + "]";
    NamedConstant C;
    C.Name = R.get<std::string>(Cs[I], "name", Path);
    C.Type = R.get<std::string>(Cs[I], "type", Path);
    C.Value = R.get<std::string>(Cs[I], "value", Path);
    int O = indexOf(ConstantOriginNames,
                    R.opt<std::string>(Cs[I], "origin", "macro", Path));
    if (O < 0)
      R.fail(Path + ".origin: unknown origin");
    else
      C.Origin = static_cast<enum NamedConstant::Origin>(O);
    C.DefinedAt = R.opt<std::string>(Cs[I], "defined_at", "", Path);
    IR.Constants.push_back(std::move(C));
  }
  json As = R.opt<json>(J, "assumptions", json::array(), "ir");
  for (size_t I = 0; I < As.size() && As.is_array(); ++I) {
    const std::string Path = "ir.assumptions[" + std::to_string(I) + "]";
    Assumption A;
    int K = indexOf(AssumptionKindNames, R.get<std::string>(As[I], "kind", Path));
    if (K < 0)
      R.fail(Path + ".kind: unknown assumption kind");
    else
      A.Kind = static_cast<enum Assumption::Kind>(K);
    A.Expr = R.get<std::string>(As[I], "expr", Path);
    A.Value = R.get<std::string>(As[I], "value", Path);
    A.Why = R.opt<std::string>(As[I], "why", "", Path);
    if (A.Kind == Assumption::BlockDim &&
        (A.Expr.size() != 1 || A.Expr[0] < 'x' || A.Expr[0] > 'z'))
      R.fail(Path + ".expr: a block-dim assumption names x, y or z");
    IR.Assumptions.push_back(std::move(A));
  }
  if (!R.ok())
    return std::nullopt;
  return IR;
}

} // namespace ir
} // namespace forgestencil
