//===- ValidateTest.cpp - What a Stencil IR document may contain ----------===//
//
// Every field that reaches generated code is refused, with its JSON path and
// the reason, when it does not follow its grammar; the derived facts are
// recomputed whatever the document states; every IR the project itself
// makes (the named stencils) passes.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/IR/StencilIR.h"

#include "gtest/gtest.h"

using namespace forgestencil;
using nlohmann::json;

namespace {

/// The 2-D 5-point star as fs-bench --dump-ir writes it.
json star() {
  std::string Error;
  auto IR = forge::namedStencil("star2d_r1", "float", Error);
  EXPECT_TRUE(IR.has_value()) << Error;
  return ir::toJson(*IR);
}

/// The refusal for \p Doc; empty when it is accepted.
std::string refusal(const json &Doc) {
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  EXPECT_EQ(IR.has_value(), Error.empty()) << Error;
  return Error;
}

/// The first update's value: c0 * in[0] + c1 * (...).
json &value(json &Doc) { return Doc["updates"][0]["value"]; }

TEST(IRValidate, EveryNamedStencilPasses) {
  for (const std::string &Name : forge::namedStencilNames())
    for (const char *Type : {"float", "double"}) {
      std::string Error;
      auto IR = forge::namedStencil(Name, Type, Error);
      ASSERT_TRUE(IR.has_value()) << Name << ": " << Error;
      EXPECT_EQ(ir::validate(*IR), "") << Name;
      EXPECT_EQ(refusal(ir::toJson(*IR)), "") << Name;
    }
}

TEST(IRValidate, LiteralsAreNumbers) {
  for (const char *Good : {"0.25f", "2", "-1", "1e-3", "1.5E+2f", ".5", "5.",
                           "0x1Fu", "0x1p-3f", "1'000", "7ull", "0b101"}) {
    json Doc = star();
    value(Doc)["args"][0]["args"][0] = {{"kind", "literal"}, {"value", Good}};
    EXPECT_EQ(refusal(Doc), "") << Good;
  }
  for (const char *Bad :
       {"0.25f); system(\"rm -rf /\"); (1", "", "abc", "1e", "0x", "1.5.5",
        "1f", "0x1.8", "--1", "1 + 1", "1;", "nan", "1//x"}) {
    json Doc = star();
    value(Doc)["args"][0]["args"][0] = {{"kind", "literal"}, {"value", Bad}};
    std::string Error = refusal(Doc);
    EXPECT_EQ(Error.rfind("updates[0].value.args[0].args[0].value: ", 0), 0u)
        << Bad << " -> " << Error;
    EXPECT_NE(Error.find("is not a number"), std::string::npos) << Error;
  }
}

TEST(IRValidate, NamesThatReachCodeAreIdentifiers) {
  struct Case {
    const char *Pointer, *Value, *Path;
  } Cases[] = {
      {"/params/0/name", "in; int x", "params[0].name"},
      {"/params/0/type", "const float *) { system(0); } void f(float *",
       "params[0].type"},
      {"/params/0/type", "float /* */ *", "params[0].type"},
      {"/params/0/type", "#define X", "params[0].type"},
      {"/inputs/0/param", "in[0]", "inputs[0].param"},
      {"/outputs/0/param", "out\n", "outputs[0].param"},
      {"/coefficients/0/name", "c0 = 1", "coefficients[0].name"},
      {"/axes/0/name", "x\n#include <x>", "axes[0].name"},
      {"/axes/0/upper", "nx); exit(0", "axes[0].upper"},
      {"/axes/0/lower", "0 /* */", "axes[0].lower"},
      {"/axes/1/extent", "ny\"", "axes[1].extent"},
      {"/strides/1", "nx; x = 1", "strides[1]"},
      {"/strides/1", "nx = 3", "strides[1]"},
      {"/kernel", "k\nvoid f() {}", "kernel"},
      {"/element_type", "float; int", "element_type"},
      {"/element_type", "quad", "element_type"},
      {"/coefficients/0/type", "float)", "coefficients[0].type"},
      {"/notes/-", "a */ b", "notes[0]"},
  };
  for (const Case &C : Cases) {
    json Doc = star();
    Doc[json::json_pointer(C.Pointer)] = C.Value;
    std::string Error = refusal(Doc);
    EXPECT_EQ(Error.rfind(std::string(C.Path) + ": ", 0), 0u)
        << C.Pointer << " -> " << Error;
  }
}

TEST(IRValidate, CallsAreMathFunctions) {
  json Doc = star();
  value(Doc)["args"][0] = {{"kind", "call"},
                           {"op", "system"},
                           {"args", json::array({value(Doc)["args"][0]})}};
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.args[0].op: 'system' is not "
                               "a math function",
                               0),
            0u);
  value(Doc)["args"][0]["op"] = "fabsf";
  EXPECT_EQ(refusal(Doc), "");
  value(Doc)["op"] = "%";
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.op: unknown binary", 0), 0u);
}

TEST(IRValidate, SelectConditions) {
  // nx == 64 ? c0 * in[0] : c1 * (...): a mode switch on a parameter.
  json Doc = star();
  json Then = value(Doc)["args"][0], Else = value(Doc)["args"][1];
  json Cond = {{"kind", "binary"},
               {"op", "=="},
               {"args", json::array({{{"kind", "param"}, {"name", "nx"}},
                                     {{"kind", "literal"}, {"value", "64"}}})}};
  value(Doc) = {{"kind", "select"}, {"args", json::array({Cond, Then, Else})}};
  EXPECT_EQ(refusal(Doc), "");
  // && and ! inside the condition.
  json Not = {{"kind", "unary"}, {"op", "!"}, {"args", json::array({Cond})}};
  value(Doc)["args"][0] = {{"kind", "binary"}, {"op", "&&"},
                           {"args", json::array({Cond, Not})}};
  EXPECT_EQ(refusal(Doc), "");
  // A comparison of loaded data (a limiter's test) is a condition too; a
  // read by itself is not.
  json Read = {{"kind", "read"}, {"array", "in"}, {"offset", json::array({0, 0, 0})}};
  value(Doc)["args"][0]["args"][0]["args"][0] = Read;
  EXPECT_EQ(refusal(Doc), "");
  value(Doc)["args"][0]["args"][0] = Read;
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.args[0].args[0].kind: "
                               "a select's condition is a comparison",
                               0),
            0u)
      << refusal(Doc);
  // The operands of a comparison are values: no comparison inside one.
  value(Doc)["args"][0] = {{"kind", "binary"}, {"op", "<"},
                           {"args", json::array({Cond, Read})}};
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.args[0].args[0].op: unknown binary operator '=='", 0),
            0u)
      << refusal(Doc);
  // Comparisons and ! only inside a condition.
  json Plain = star();
  value(Plain)["op"] = "<";
  EXPECT_EQ(refusal(Plain).rfind("updates[0].value.op: unknown binary operator '<'", 0),
            0u);
  value(Plain)["op"] = "+";
  value(Plain)["args"][0] = {{"kind", "unary"}, {"op", "!"},
                             {"args", json::array({value(Plain)["args"][0]})}};
  EXPECT_EQ(refusal(Plain).rfind("updates[0].value.args[0].op: unknown unary", 0), 0u);
}

TEST(IRValidate, DerivedFactsAreRecomputed) {
  json Doc = star();
  Doc["radius"] = 7;
  Doc["points"] = 1;
  Doc["shape"] = "box";
  Doc["flops_per_point"] = 0;
  Doc["bytes_per_point"] = 0;
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  EXPECT_EQ(IR->Radius, 1u);
  EXPECT_EQ(IR->Points, 5u);
  EXPECT_EQ(IR->Shape, "star");
  EXPECT_GT(IR->FlopsPerPoint, 0u);
  EXPECT_EQ(IR->BytesPerPoint, 8u);
  // A read far out makes the radius, not the stated one.
  Doc["inputs"][0]["offsets"].push_back({1000, 0, 0});
  value(Doc)["args"][0]["args"][1]["offset"] = {1000, 0, 0};
  IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  EXPECT_EQ(IR->Radius, 1000u);
  // A negative stated radius is not wrapped into 4294967295.
  Doc["radius"] = -1;
  EXPECT_EQ(refusal(Doc), "radius: -1 is out of range [0, 2147483647]");
}

TEST(IRValidate, ReadsMustBeInTheFootprint) {
  json Doc = star();
  value(Doc)["args"][0]["args"][1]["offset"] = {1000, 0, 0};
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.args[0].args[1].offset: "
                               "[1000, 0, 0] is not among the offsets",
                               0),
            0u);
  value(Doc)["args"][0]["args"][1]["array"] = "nosuch";
  EXPECT_EQ(refusal(Doc).rfind("updates[0].value.args[0].args[1].array: ", 0),
            0u);
}

TEST(IRValidate, OffsetsAreSane) {
  json Doc = star();
  Doc["inputs"][0]["offsets"][3][1] = 2000;
  EXPECT_EQ(refusal(Doc),
            "inputs[0].offsets[3][1]: 2000 is out of range [-1024, 1024]");
  Doc = star();
  Doc["inputs"][0]["offsets"][3][1] = 1.5;
  EXPECT_EQ(refusal(Doc).rfind("inputs[0].offsets[3][1]: expected an integer", 0),
            0u);
  Doc = star();
  Doc["inputs"][0]["offsets"][3][2] = 1;
  EXPECT_EQ(refusal(Doc).rfind("inputs[0].offsets[3][2]: offset 1 along axis 2 "
                               "of a 2-D stencil",
                               0),
            0u);
  Doc = star();
  Doc["outputs"][0]["write_offset"] = {4294967296LL, 0, 0};
  EXPECT_EQ(refusal(Doc).rfind("outputs[0].write_offset[0]: ", 0), 0u);
}

TEST(IRValidate, EmptyPartsAreRefused) {
  struct Case {
    const char *Key;
    const char *Expected;
  } Cases[] = {{"updates", "updates: no updates"},
               {"inputs", "inputs: no inputs"},
               {"outputs", "outputs: no outputs"},
               {"axes", "axes: 2-D stencil with 0 axes"}};
  for (const Case &C : Cases) {
    json Doc = star();
    Doc[C.Key] = json::array();
    EXPECT_EQ(refusal(Doc).rfind(C.Expected, 0), 0u) << C.Key;
  }
  json Doc = star();
  Doc.erase("updates");
  EXPECT_EQ(refusal(Doc), "updates: missing");
  Doc = star();
  Doc["strides"] = {"1"};
  EXPECT_EQ(refusal(Doc).rfind("strides: 2 axes need as many strides", 0), 0u);
  Doc = star();
  Doc["dims"] = 4;
  EXPECT_EQ(refusal(Doc), "dims: 4 is out of range [1, 3]");
}

TEST(IRValidate, CoefficientIndicesAreInRange) {
  std::string Error;
  auto IR = forge::namedStencil("rtm", "float", Error);
  ASSERT_TRUE(IR) << Error;
  json Doc = ir::toJson(*IR);
  ASSERT_EQ(refusal(Doc), "");
  // Find a coefficient array element and point past its end.
  std::function<json *(json &)> FindCoef = [&](json &E) -> json * {
    if (E.value("kind", "") == "coef" && E.contains("index"))
      return &E;
    if (E.contains("args"))
      for (json &A : E["args"])
        if (json *F = FindCoef(A))
          return F;
    return nullptr;
  };
  json *C = FindCoef(value(Doc));
  ASSERT_NE(C, nullptr);
  (*C)["index"] = 99;
  std::string Error2 = refusal(Doc);
  EXPECT_NE(Error2.find(".index: element 99 of 'c', which has 5"),
            std::string::npos)
      << Error2;
}

TEST(IRValidate, DeepOrHugeExpressionsAreRefused) {
  json Doc = star();
  json E = {{"kind", "param"}, {"name", "c0"}};
  for (int I = 0; I < 300; ++I)
    E = {{"kind", "unary"}, {"op", "neg"}, {"args", json::array({E})}};
  value(Doc) = E;
  EXPECT_NE(refusal(Doc).find("nested deeper than 256 levels"),
            std::string::npos);
}

} // namespace

namespace {
TEST(IRValidate, AnInputsOwnLayout) {
  // A second input read through a table along x only (dx[i]): its strides
  // travel with it, it is left out of the footprint, and a layout that
  // is not one stride per axis, does not move, or is not an expression is
  // refused with its path.
  json Doc = star();
  Doc["inputs"].push_back({{"param", "dx"},
                           {"offsets", json::array({{-1, 0, 0}, {0, 0, 0}})},
                           {"restrict", false},
                           {"ldg", false},
                           {"per_point_coefficient", false},
                           {"strides", {"1", "0"}}});
  Doc["params"].push_back({{"name", "dx"}, {"role", "input"}, {"type", "const float *"}});
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  ASSERT_EQ(IR->Inputs.back().Strides, (std::vector<std::string>{"1", "0"}));
  EXPECT_TRUE(IR->Inputs.back().perAxisTable());
  EXPECT_EQ(IR->Points, 5u) << "a per-axis table is no neighbourhood";
  EXPECT_EQ(ir::toJson(*IR)["inputs"].back()["strides"], json({"1", "0"}));
  EXPECT_FALSE(ir::toJson(*IR)["inputs"][0].contains("strides"));
  EXPECT_NE(ir::whyMixedLayouts(*IR).find("the input 'dx' has a layout of its own (strides 1, 0)"),
            std::string::npos);
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain) << Error;
  EXPECT_EQ(ir::whyMixedLayouts(*Plain), "");

  json Bad = Doc;
  Bad["inputs"].back()["strides"] = {"1"};
  EXPECT_EQ(refusal(Bad).rfind("inputs[1].strides: an array's own layout has one stride per axis (2), found 1", 0), 0u)
      << refusal(Bad);
  Bad["inputs"].back()["strides"] = {"0", "0"};
  EXPECT_EQ(refusal(Bad).rfind("inputs[1].strides: every stride is 0", 0), 0u) << refusal(Bad);
  Bad["inputs"].back()["strides"] = {"1", "nx; exit(0)"};
  EXPECT_EQ(refusal(Bad).rfind("inputs[1].strides[1]: ", 0), 0u) << refusal(Bad);
}

TEST(IRValidate, AnOutputsOwnLayout) {
  // A second output stored with longer rows (a staggered face array beside
  // a cell array): its strides round-trip, make every generator refuse the
  // IR, and a stride of 0 (points storing one element) is refused.
  json Doc = star();
  Doc["outputs"].push_back({{"param", "face"},
                            {"write_offset", {0, 0, 0}},
                            {"accumulate", false},
                            {"in_place", false},
                            {"strides", {"1", "nx + 1"}}});
  Doc["updates"].push_back({{"target", "face"}, {"accumulate", false},
                            {"value", Doc["updates"][0]["value"]}});
  Doc["params"].push_back({{"name", "face"}, {"role", "output"}, {"type", "float *"}});
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  ASSERT_EQ(IR->Outputs.back().Strides, (std::vector<std::string>{"1", "nx + 1"}));
  EXPECT_EQ(ir::toJson(*IR)["outputs"].back()["strides"], json({"1", "nx + 1"}));
  EXPECT_FALSE(ir::toJson(*IR)["outputs"][0].contains("strides"));
  EXPECT_NE(ir::whyMixedLayouts(*IR).find("the output 'face' has a layout of its own (strides 1, nx + 1)"),
            std::string::npos);
  EXPECT_NE(ir::whyNoGenerator(*IR), "");

  json Bad = Doc;
  Bad["outputs"].back()["strides"] = {"1", "0"};
  EXPECT_EQ(refusal(Bad).rfind("outputs[1].strides: a stride of 0", 0), 0u) << refusal(Bad);
  Bad["outputs"].back()["strides"] = {"1"};
  EXPECT_EQ(refusal(Bad).rfind("outputs[1].strides: an array's own layout has one stride per axis (2), found 1", 0), 0u)
      << refusal(Bad);
}

TEST(IRValidate, AnOutputsOwnBox) {
  // A second output stored over a box of its own (y faces one row further
  // than the cells): the box round-trips, makes every generator refuse the
  // IR, and needs a lower and an upper bound per axis.
  json Doc = star();
  Doc["outputs"].push_back({{"param", "fy"},
                            {"write_offset", {0, 0, 0}},
                            {"accumulate", false},
                            {"in_place", false},
                            {"lower", {"1", "1"}},
                            {"upper", {"nx - 1", "ny"}}});
  Doc["updates"].push_back({{"target", "fy"}, {"accumulate", false},
                            {"value", Doc["updates"][0]["value"]}});
  Doc["params"].push_back({{"name", "fy"}, {"role", "output"}, {"type", "float *"}});
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  EXPECT_EQ(IR->Outputs.back().Upper, (std::vector<std::string>{"nx - 1", "ny"}));
  EXPECT_EQ(ir::toJson(*IR)["outputs"].back()["lower"], json({"1", "1"}));
  EXPECT_FALSE(ir::toJson(*IR)["outputs"][0].contains("lower"));
  EXPECT_EQ(ir::whyNoGenerator(*IR),
            "the output 'fy' is stored over a box of its own [1, nx - 1) x [1, ny): "
            "no generator stores outputs over different boxes yet");

  json Bad = Doc;
  Bad["outputs"].back()["upper"] = {"ny"};
  EXPECT_EQ(refusal(Bad).rfind("outputs[1].lower: an output's own box has a lower and an upper bound per axis (2), found 2 and 1", 0), 0u)
      << refusal(Bad);
  Bad["outputs"].back()["upper"] = {"nx - 1", "ny; exit(0)"};
  EXPECT_EQ(refusal(Bad).rfind("outputs[1].upper[1]: ", 0), 0u) << refusal(Bad);
}

TEST(IRValidate, ABlockReduction) {
  // A block reduction fused into the stencil (an error norm into a
  // parameter the stencil never touches) round-trips, makes every
  // generator refuse the IR, and is refused when it names something else.
  json Doc = star();
  Doc["params"].push_back({{"name", "norm"}, {"role", "other"}, {"type", "float *"}});
  Doc["block_reductions"] = json::array(
      {{{"shared", "part"}, {"outputs", {"norm"}}, {"call", "Sum<64>::run(part, norm)"}}});
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  ASSERT_EQ(IR->Reductions.size(), 1u);
  EXPECT_EQ(IR->Reductions[0].Shared, "part");
  EXPECT_EQ(IR->Reductions[0].Outputs, (std::vector<std::string>{"norm"}));
  EXPECT_EQ(ir::toJson(*IR)["block_reductions"], Doc["block_reductions"]);
  EXPECT_EQ(ir::whyNoGenerator(*IR),
            "the kernel also reduces the __shared__ array 'part' over its block into 'norm', "
            "which no generator reproduces");
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain) << Error;
  EXPECT_EQ(ir::whyNoGenerator(*Plain), "");
  EXPECT_FALSE(ir::toJson(*Plain).contains("block_reductions"));

  json Bad = Doc;
  Bad["block_reductions"][0]["outputs"] = {"out"};
  EXPECT_EQ(refusal(Bad), "block_reductions[0].outputs[0]: 'out' is also an array of the stencil");
  Bad["block_reductions"][0]["outputs"] = {"nothere"};
  EXPECT_EQ(refusal(Bad), "block_reductions[0].outputs[0]: 'nothere' is not one of the parameters");
  Bad["block_reductions"][0]["outputs"] = json::array();
  EXPECT_EQ(refusal(Bad).rfind("block_reductions[0].outputs: ", 0), 0u) << refusal(Bad);
  Bad = Doc;
  Bad["block_reductions"][0]["shared"] = "a[0]";
  EXPECT_EQ(refusal(Bad), "block_reductions[0].shared: 'a[0]' is not a C identifier");
}
} // namespace

TEST(IRValidate, AssumptionsFollowTheirKind) {
  auto With = [](json A) {
    json Doc = star();
    Doc["assumptions"] = json::array({A});
    return refusal(Doc);
  };
  auto Assume = [](const char *Kind, const char *Expr, const char *Value) {
    return json{{"kind", Kind}, {"expr", Expr}, {"value", Value}};
  };
  EXPECT_EQ(With(Assume("block-dim", "x", "16")), "");
  EXPECT_EQ(With(Assume("grid-dim-max", "y", "8388608")), "");
  EXPECT_EQ(With(Assume("grid-extent", "x", "nx")), "");
  EXPECT_NE(With(Assume("block-dim", "x", "2048")).find("not a block size"),
            std::string::npos);
  // gridDim.<expr> <= value reaches the launcher as code: an axis and a
  // plain number only.
  EXPECT_NE(With(Assume("grid-dim-max", "w", "8")).find("names x, y or z"),
            std::string::npos);
  for (const char *Bad : {"", "0", "-1", "8u", "1 || 1", "99999999999"})
    EXPECT_NE(With(Assume("grid-dim-max", "x", Bad))
                  .find("is not a number of blocks"),
              std::string::npos)
        << Bad;
  EXPECT_NE(With(Assume("grid-size", "x", "8")).find("unknown assumption kind"),
            std::string::npos);
}

TEST(IRValidate, AtLeastIsAnExpressionAndAWholeNumber) {
  auto With = [](const char *Expr, const char *Value) {
    json Doc = star();
    Doc["assumptions"] = json::array(
        {{{"kind", "at-least"}, {"expr", Expr}, {"value", Value}}});
    return refusal(Doc);
  };
  EXPECT_EQ(With("(nx - 1) - (0) + 1", "2"), "");
  // (long long)(expr) >= value reaches the launcher as code.
  EXPECT_NE(With("nx; abort()", "2").find("assumptions[0].expr: "),
            std::string::npos);
  for (const char *Bad : {"", "-1", "2.5", "2u", "nx", "1 || 1"})
    EXPECT_NE(With("nx", Bad).find("is not a whole number"), std::string::npos)
        << Bad;
}

TEST(IRValidate, HoldsIsAConditionThatHolds) {
  auto With = [](const char *Expr, const char *Value) {
    json Doc = star();
    Doc["assumptions"] = json::array(
        {{{"kind", "holds"}, {"expr", Expr}, {"value", Value}}});
    return refusal(Doc);
  };
  EXPECT_EQ(With("!(mode == 3)", "1"), "");
  EXPECT_EQ(With("(o.kind == 1) && (nx > 2)", "1"), "");
  // (expr) reaches the launcher as code.
  EXPECT_NE(With("mode; abort()", "1").find("assumptions[0].expr: "),
            std::string::npos);
  EXPECT_NE(With("", "1").find("assumptions[0].expr: "), std::string::npos);
  for (const char *Bad : {"", "0", "true", "2"})
    EXPECT_NE(With("mode == 1", Bad).find("a mode condition holds (1)"),
              std::string::npos)
        << Bad;
}

/// The 5-point star wrapped along x over its whole rows.
json wrappedStar() {
  json Doc = star();
  Doc["axes"][0]["lower"] = "0";
  Doc["axes"][0]["upper"] = "nx";
  Doc["axes"][0]["wrap_lower"] = "0";
  Doc["axes"][0]["wrap_upper"] = "nx - 1";
  return Doc;
}

TEST(IRValidate, WrappedAxesRoundTrip) {
  json Doc = wrappedStar();
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_TRUE(IR->Axes[0].wrapped());
  EXPECT_FALSE(IR->Axes[0].clamped());
  EXPECT_TRUE(IR->Axes[0].hasBoundary());
  EXPECT_EQ(IR->Axes[0].boundaryUpper(), "nx - 1");
  EXPECT_FALSE(IR->Axes[1].hasBoundary());
  EXPECT_EQ(ir::toJson(*IR), Doc);
  // Without a wrap the members are not written at all.
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_FALSE(ir::toJson(*Plain)["axes"][0].contains("wrap_lower"));
}

TEST(IRValidate, AWrapNeedsBothBoundsAndNoClamp) {
  json One = wrappedStar();
  One["axes"][0].erase("wrap_upper");
  EXPECT_EQ(refusal(One), "axes[0]: axis 'i' has wrap_lower but no "
                          "wrap_upper: a periodic boundary needs both bounds");
  json Both = wrappedStar();
  Both["axes"][0]["clamp_lower"] = "0";
  Both["axes"][0]["clamp_upper"] = "nx - 1";
  EXPECT_NE(refusal(Both).find("axes[0]: axis 'i' has both clamp_lower/"
                               "clamp_upper and wrap_lower/wrap_upper"),
            std::string::npos);
  json Bad = wrappedStar();
  Bad["axes"][0]["wrap_upper"] = "nx - 1; }";
  EXPECT_EQ(refusal(Bad).rfind("axes[0].wrap_upper: ", 0), 0u) << refusal(Bad);
}

TEST(IRValidate, AWrapPeriodBelongsToAWrap) {
  // A grid whose last point repeats its first: the period nx - 1.
  json Doc = wrappedStar();
  Doc["axes"][0]["wrap_period"] = "nx - 1";
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(IR->Axes[0].wrapPeriod(), "nx - 1");
  EXPECT_EQ(ir::toJson(*IR), Doc);
  // Without one, the period is the interval's length and none is written.
  auto Plain = ir::fromJson(wrappedStar(), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_EQ(Plain->Axes[0].wrapPeriod(), "(nx - 1) - (0) + 1");
  EXPECT_FALSE(ir::toJson(*Plain)["axes"][0].contains("wrap_period"));
  json Lone = star();
  Lone["axes"][0]["wrap_period"] = "nx - 1";
  EXPECT_EQ(refusal(Lone), "axes[0]: axis 'i' has wrap_period but no "
                           "wrap_lower/wrap_upper: a period belongs to a "
                           "periodic boundary");
  json Bad = wrappedStar();
  Bad["axes"][0]["wrap_period"] = "nx - 1)";
  EXPECT_EQ(refusal(Bad).rfind("axes[0].wrap_period: ", 0), 0u) << refusal(Bad);
}

/// The star with a block per row (j = blockIdx.x) and the block spanning x
/// (i = threadIdx.x).
json rowPerBlockStar() {
  json Doc = star();
  Doc["axes"][0]["block_dim"] = "none";
  Doc["axes"][1]["name"] = "block.x";
  Doc["axes"][1]["thread_dim"] = "none";
  Doc["axes"][1]["block_dim"] = "x";
  return Doc;
}

TEST(IRValidate, LonePositionsRoundTrip) {
  json Doc = rowPerBlockStar();
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(IR->Axes[0].ThreadDim, 'x');
  EXPECT_EQ(IR->Axes[0].blockDim(), '-');
  EXPECT_FALSE(IR->Axes[0].usualThreadMapping());
  EXPECT_EQ(ir::threadPosition(IR->Axes[0]), "(long long)threadIdx.x");
  EXPECT_EQ(IR->Axes[1].ThreadDim, '-');
  EXPECT_EQ(ir::threadPosition(IR->Axes[1]), "(long long)blockIdx.x");
  EXPECT_EQ(ir::toJson(*IR), Doc);
  // The usual mapping writes no block_dim, and reads as before.
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_TRUE(Plain->Axes[1].usualThreadMapping());
  EXPECT_FALSE(ir::toJson(*Plain)["axes"][1].contains("block_dim"));
  EXPECT_EQ(ir::threadPosition(Plain->Axes[1]),
            "(long long)blockIdx.y * blockDim.y + threadIdx.y");
  // blockIdx.x * blockDim.y + threadIdx.y.
  json Mixed = star();
  Mixed["axes"][1]["block_dim"] = "x";
  auto M = ir::fromJson(Mixed, Error);
  ASSERT_TRUE(M.has_value()) << Error;
  EXPECT_EQ(ir::threadPosition(M->Axes[1]),
            "(long long)blockIdx.x * blockDim.y + threadIdx.y");
}

TEST(IRValidate, LonePositionsNeedATermAndAThreadAxis) {
  json Neither = rowPerBlockStar();
  Neither["axes"][1]["block_dim"] = "none";
  EXPECT_EQ(refusal(Neither), "axes[1]: axis 'block.x' has neither a "
                              "threadIdx nor a blockIdx term");
  json Bad = star();
  Bad["axes"][0]["block_dim"] = "w";
  EXPECT_EQ(refusal(Bad), "axes[0].block_dim: 'w' is not x, y, z or none");
  json Loop = star();
  Loop["axes"][1]["source"] = "loop";
  Loop["axes"][1]["thread_dim"] = "none";
  EXPECT_EQ(refusal(Loop), "axes[1].thread_dim: not x, y or z");
  json LoopBlock = star();
  LoopBlock["axes"][1]["source"] = "loop";
  LoopBlock["axes"][1]["block_dim"] = "y";
  EXPECT_NE(refusal(LoopBlock).find("axes[1].block_dim: only a thread axis"),
            std::string::npos)
      << refusal(LoopBlock);
}

/// The star whose centre weight is a parameter array read at a stage
/// number: w[stage] * in[0] + ...
json stageWeightedStar() {
  json Doc = star();
  Doc["coefficients"].push_back(
      {{"name", "w"}, {"kind", "param-array"}, {"type", "float"}, {"size", 1}});
  Doc["params"].push_back(
      {{"name", "w"}, {"role", "other"}, {"type", "const float *"}});
  Doc["params"].push_back({{"name", "stage"}, {"role", "size"}, {"type", "int"}});
  Doc["flops_per_point"] = Doc["flops_per_point"].get<int>() + 1;
  json &V = value(Doc);
  V = {{"kind", "binary"},
       {"op", "*"},
       {"args",
        json::array({{{"kind", "coef"}, {"name", "w"}, {"index_expr", "stage"}},
                     V})}};
  return Doc;
}

TEST(IRValidate, ConstantScalarsAreVariablesOrMembersOfAConstantStruct) {
  // c0 read from a __constant__ struct of run parameters: `g.c0`.
  json Doc = star();
  Doc["coefficients"][0] = {{"kind", "constant-scalar"}, {"name", "g.c0"},
                            {"size", 1}, {"type", "float"}};
  value(Doc)["args"][0]["args"][0]["name"] = "g.c0";
  EXPECT_EQ(refusal(Doc), "");
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  // No generated driver sets a member of the app's struct.
  EXPECT_NE(ir::whyNoGenerator(*IR).find("the update reads 'g.c0', a member of "
                                         "the __constant__ struct 'g'"),
            std::string::npos)
      << ir::whyNoGenerator(*IR);
  // Not through a pointer, and not a __constant__ array.
  json Arrow = Doc;
  Arrow["coefficients"][0]["name"] = "g->c0";
  value(Arrow)["args"][0]["args"][0]["name"] = "g->c0";
  EXPECT_NE(refusal(Arrow).find("a __constant__ scalar is named by a C "
                                "identifier or a member of a __constant__ "
                                "struct (g.dt), not 'g->c0'"),
            std::string::npos)
      << refusal(Arrow);
  json Array = Doc;
  Array["coefficients"][0]["kind"] = "constant-array";
  EXPECT_NE(refusal(Array).find("a __constant__ array is named by a C "
                                "identifier, not 'g.c0'"),
            std::string::npos)
      << refusal(Array);
}

TEST(IRValidate, ParamArraysAreReadAtAnIndexExpression) {
  json Doc = stageWeightedStar();
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(IR->Coefficients.back().Kind, ir::Coefficient::ParamArray);
  EXPECT_EQ(IR->Updates[0].Value.Args[0].IndexExpr, "stage");
  EXPECT_EQ(ir::toJson(*IR), Doc);

  json NoIndex = stageWeightedStar();
  value(NoIndex)["args"][0].erase("index_expr");
  EXPECT_EQ(refusal(NoIndex), "updates[0].value.args[0].index_expr: a "
                              "parameter array needs the element it is read "
                              "at");
  json Fixed = stageWeightedStar();
  value(Fixed)["args"][0]["index"] = 2;
  EXPECT_NE(refusal(Fixed).find("is read at index_expr, not a fixed element"),
            std::string::npos);
  // The index reaches generated code as an expression.
  json Bad = stageWeightedStar();
  value(Bad)["args"][0]["index_expr"] = "stage]; abort(); w[0";
  EXPECT_EQ(refusal(Bad).rfind("updates[0].value.args[0].index_expr: ", 0), 0u)
      << refusal(Bad);
  // Only a parameter array is read at an expression.
  json Scalar = star();
  value(Scalar)["args"][0]["args"][0]["index_expr"] = "stage";
  EXPECT_NE(refusal(Scalar).find("is not a parameter array"),
            std::string::npos)
      << refusal(Scalar);
}

namespace {
/// The star with halo threads along x: blocks of 16 threads, 14 points a
/// block from thread 1.
json haloStar() {
  json Doc = star();
  Doc["axes"][0]["block_points"] = 14;
  Doc["axes"][0]["block_first"] = 1;
  Doc["assumptions"] = json::array(
      {{{"kind", "block-dim"}, {"expr", "x"}, {"value", "16"}, {"why", ""}}});
  return Doc;
}
} // namespace

TEST(IRValidate, HaloThreadsRoundTrip) {
  json Doc = haloStar();
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(IR->Axes[0].BlockPoints, 14);
  EXPECT_EQ(IR->Axes[0].BlockFirst, 1);
  EXPECT_EQ(ir::toJson(*IR), Doc);
  // The position the original's threads have, for the generated original.
  EXPECT_EQ(ir::threadPosition(IR->Axes[0]),
            "((long long)blockIdx.x * 14 + (long long)threadIdx.x - 1)");
  // Without halo threads the members are not written at all.
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_FALSE(ir::toJson(*Plain)["axes"][0].contains("block_points"));
}

TEST(IRValidate, HaloThreadsNeedTheirBlock) {
  // The block must hold the first computing thread and all the others.
  json Small = haloStar();
  Small["assumptions"][0]["value"] = "14";
  EXPECT_NE(refusal(Small).find("axes[0].block_points: halo threads need a "
                                "block-dim assumption along x of at least "
                                "block_first + block_points threads"),
            std::string::npos)
      << refusal(Small);
  json None = haloStar();
  None["assumptions"] = json::array();
  EXPECT_NE(refusal(None).find("halo threads need a block-dim assumption"),
            std::string::npos);
  json NoPoints = haloStar();
  NoPoints["axes"][0].erase("block_points");
  EXPECT_NE(refusal(NoPoints).find("axes[0].block_first: given without "
                                   "block_points"),
            std::string::npos)
      << refusal(NoPoints);
  json Negative = haloStar();
  Negative["axes"][0]["block_points"] = -3;
  EXPECT_NE(refusal(Negative), "");
  // Only a thread axis at blockIdx.D * B + threadIdx.D.
  json Mixed = haloStar();
  Mixed["axes"][0]["block_dim"] = "y";
  EXPECT_NE(refusal(Mixed).find("has halo threads"), std::string::npos)
      << refusal(Mixed);
}


TEST(IRValidate, ABlockLoopCoversItsPointsWhateverTheBlock) {
  // Rows covered by loops stepping by blockDim.y: 32 rows a block, at
  // least 4 threads along y.
  json Doc = star();
  Doc["axes"][1]["block_dim"] = "x";
  Doc["axes"][1]["block_points"] = 32;
  Doc["axes"][1]["block_first"] = 0;
  Doc["axes"][1]["block_loop"] = true;
  Doc["assumptions"] = json::array(
      {{{"kind", "block-dim-at-least"}, {"expr", "y"}, {"value", "4"},
        {"why", "the loops over 'j' step by blockDim.y"}}});
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_TRUE(IR->Axes[1].BlockLoop);
  EXPECT_EQ(IR->Axes[1].BlockPoints, 32);
  EXPECT_EQ(IR->Assumptions[0].Kind, ir::Assumption::BlockDimAtLeast);
  // An at-least fixes no block size.
  EXPECT_EQ(IR->fixedBlockDim(1), 0u);
  EXPECT_EQ(ir::toJson(*IR), Doc);
  // No generator reproduces the mapping: the IR says so.
  EXPECT_NE(ir::whyNoGenerator(*IR).find("covered by loops over the block's "
                                         "threads (32 points a block"),
            std::string::npos)
      << ir::whyNoGenerator(*IR);

  json NoPoints = Doc;
  NoPoints["axes"][1].erase("block_points");
  NoPoints["axes"][1].erase("block_first");
  EXPECT_NE(refusal(NoPoints).find("axes[1].block_loop: a block loop covers "
                                   "block_points points"),
            std::string::npos)
      << refusal(NoPoints);
  json BlockOnly = Doc;
  BlockOnly["axes"][1]["thread_dim"] = "none";
  EXPECT_NE(refusal(BlockOnly), "");
  json Big = Doc;
  Big["assumptions"][0]["value"] = "2048";
  EXPECT_NE(refusal(Big).find("assumptions[0].value: '2048' is not a block "
                              "size from 1 to 1024"),
            std::string::npos)
      << refusal(Big);
  json Axis = Doc;
  Axis["assumptions"][0]["expr"] = "w";
  EXPECT_NE(refusal(Axis).find("a block-dim-at-least assumption names x, y "
                               "or z"),
            std::string::npos)
      << refusal(Axis);
}

TEST(IRValidate, PackedFields) {
  // A second field of the input and of the output, nx*ny elements on:
  // each field is an array of its own, named by its parameter and field;
  // reads and update targets name the field; no generator takes it yet.
  json Doc = star();
  const std::string In = Doc["inputs"][0]["param"], Out = Doc["outputs"][0]["param"];
  json Second = Doc["inputs"][0];
  Second["field"] = "nx*ny";
  Doc["inputs"].push_back(Second);
  json SecondOut = Doc["outputs"][0];
  SecondOut["field"] = "nx*ny";
  Doc["outputs"].push_back(SecondOut);
  json Update = Doc["updates"][0];
  Update["target_field"] = "nx*ny";
  Update["value"] = {{"kind", "read"}, {"array", In}, {"field", "nx*ny"},
                     {"offset", {1, 0, 0}}};
  Doc["updates"].push_back(Update);
  std::string Error;
  auto IR = ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR) << Error;
  EXPECT_EQ(IR->Inputs.back().Field, "nx*ny");
  EXPECT_EQ(IR->Outputs.back().Field, "nx*ny");
  EXPECT_EQ(IR->Updates.back().TargetField, "nx*ny");
  EXPECT_EQ(IR->Updates.back().Value.Field, "nx*ny");
  EXPECT_FALSE(ir::toJson(*IR)["inputs"][0].contains("field"));
  EXPECT_EQ(ir::toJson(*IR)["updates"].back()["target_field"], "nx*ny");
  auto Plain = ir::fromJson(star(), Error);
  ASSERT_TRUE(Plain) << Error;
  EXPECT_EQ(ir::whyPackedFields(*Plain), "");
  EXPECT_NE(ir::whyNoGenerator(*IR).find("the input '" + In +
                                         "' is one of several fields of one "
                                         "allocation (the field at element nx*ny)"),
            std::string::npos)
      << ir::whyNoGenerator(*IR);

  json Bad = Doc;
  Bad["inputs"].back()["field"] = "";
  EXPECT_EQ(refusal(Bad).rfind("inputs[1].param: a second input named '" + In + "'", 0), 0u)
      << refusal(Bad);
  Bad = Doc;
  Bad["outputs"].back().erase("field");
  EXPECT_EQ(refusal(Bad).rfind("outputs[1].param: a second output named '" + Out + "'", 0), 0u)
      << refusal(Bad);
  Bad = Doc;
  Bad["updates"].back()["value"]["field"] = "2*nx*ny";
  EXPECT_NE(refusal(Bad).find("at field '2*nx*ny' is not one of the inputs"), std::string::npos)
      << refusal(Bad);
  Bad = Doc;
  Bad["updates"].back()["target_field"] = "2*nx*ny";
  EXPECT_NE(refusal(Bad).find("updates[1].target: '" + Out + "' is not one of the outputs"),
            std::string::npos)
      << refusal(Bad);
  Bad = Doc;
  Bad["inputs"].back()["field"] = "nx; exit(0)";
  EXPECT_EQ(refusal(Bad).rfind("inputs[1].field: ", 0), 0u) << refusal(Bad);
}
