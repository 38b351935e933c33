//===- Strategy.cpp - Strategy parameters ----------------------------------===//

#include "forgestencil/Forge/Strategy.h"

#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/ParamNames.h"
#include "forgestencil/Support/JsonReader.h"

namespace forgestencil {
namespace forge {

using nlohmann::json;

std::string StrategyParams::id() const {
  std::string S = Strategy + "." + std::to_string(BlockX) + "x" +
                  std::to_string(BlockY);
  if (BlockZ != 1)
    S += "x" + std::to_string(BlockZ);
  S += ".v" + std::to_string(VectorWidth) + ".y" + std::to_string(PointsY) +
       ".z" + std::to_string(ZChunk);
  if (RegisterQueue)
    S += PlaneQueue ? ".qp" : ".q";
  if (SharedTile)
    S += ".s";
  if (Unroll != 1)
    S += ".u" + std::to_string(Unroll);
  if (Stages)
    S += ".a" + std::to_string(Stages);
  if (ReverseLoads)
    S += ".r";
  if (StreamingHints)
    S += ".cs";
  if (MaskedEdges)
    S += ".w";
  if (MinBlocksPerSM)
    S += ".m" + std::to_string(MinBlocksPerSM);
  return S;
}

json StrategyParams::toJson() const {
  json J = {{"strategy", Strategy},        {"block", {BlockX, BlockY, BlockZ}},
            {"vector_width", VectorWidth}, {"points_y", PointsY},
            {"z_chunk", ZChunk},           {"register_queue", RegisterQueue},
            {"plane_queue", PlaneQueue},
            {"shared_tile", SharedTile},   {"min_blocks_per_sm", MinBlocksPerSM},
            {"unroll", Unroll}};
  // Written only when used, so records of unstaged variants stay as they were.
  if (Stages)
    J["stages"] = Stages;
  if (ReverseLoads)
    J["reverse_loads"] = true;
  if (StreamingHints)
    J["streaming_hints"] = true;
  if (MaskedEdges)
    J["masked_edges"] = true;
  return J;
}

std::optional<StrategyParams> StrategyParams::fromJson(const json &J,
                                                       std::string &Error) {
  return fromJson(J, Error, "strategy");
}

std::optional<StrategyParams> StrategyParams::fromJson(const json &J,
                                                       std::string &Error,
                                                       const std::string &Path) {
  support::JsonReader R(Error);
  if (!R.expectObject(J, Path))
    return std::nullopt;
  StrategyParams P;
  P.Strategy = R.string(J, "strategy", Path);
  const json &B = R.array(J, "block", Path, false);
  if (R.ok() && J.contains("block")) {
    if (B.size() != 3) {
      R.fail(support::memberPath(Path, "block"),
             "expected 3 integers, found " + std::to_string(B.size()) +
                 " values");
    } else {
      unsigned *Dims[] = {&P.BlockX, &P.BlockY, &P.BlockZ};
      for (size_t I = 0; I < 3; ++I)
        *Dims[I] = static_cast<unsigned>(R.asInteger(
            B[I], support::elementPath(support::memberPath(Path, "block"), I),
            1, 1024));
    }
  }
  auto Count = [&](const char *Key, unsigned Default, long long Max) {
    return static_cast<unsigned>(R.integer(J, Key, Path, 0, Max, Default));
  };
  P.VectorWidth = Count("vector_width", 1, 16);
  P.PointsY = Count("points_y", 1, 1024);
  P.ZChunk = Count("z_chunk", 1, 1 << 20);
  P.RegisterQueue = R.boolean(J, "register_queue", Path, false);
  P.PlaneQueue = R.boolean(J, "plane_queue", Path, false);
  P.SharedTile = R.boolean(J, "shared_tile", Path, false);
  P.MinBlocksPerSM = Count("min_blocks_per_sm", 0, 64);
  P.Unroll = Count("unroll", 1, 1024);
  P.Stages = Count("stages", 0, 64);
  P.ReverseLoads = R.boolean(J, "reverse_loads", Path, false);
  P.StreamingHints = R.boolean(J, "streaming_hints", Path, false);
  P.MaskedEdges = R.boolean(J, "masked_edges", Path, false);
  if (!R.ok())
    return std::nullopt;
  std::string Why;
  if (!P.validate(Why)) {
    // validate() says "strategy.<member>: ..."; put it under Path.
    Error = Path == "strategy" || Why.rfind("strategy", 0) != 0
                ? Why
                : Path + Why.substr(8);
    return std::nullopt;
  }
  return P;
}

bool StrategyParams::validate(std::string &Error) const {
  const StrategyParams &P = *this;
  // The name becomes part of ids, file names and generated identifiers.
  bool Name = !P.Strategy.empty() && P.Strategy.size() <= 64;
  for (char C : P.Strategy)
    Name &= (C >= 'a' && C <= 'z') || (C >= '0' && C <= '9') || C == '_';
  if (!Name) {
    Error = "strategy.strategy: '" + P.Strategy.substr(0, 64) +
            "' is not a strategy name (lower-case letters, digits, _)";
    return false;
  }
  if (P.BlockX == 0 || P.BlockY == 0 || P.BlockZ == 0 ||
      P.BlockX * P.BlockY * P.BlockZ > 1024) {
    Error = "strategy.block: 1..1024 threads";
    return false;
  }
  if (P.VectorWidth != 1 && P.VectorWidth != 2 && P.VectorWidth != 4) {
    Error = "strategy.vector_width: 1, 2 or 4";
    return false;
  }
  if (P.Stages > 8) {
    Error = "strategy.stages: 0 to 8";
    return false;
  }
  if (P.PointsY == 0 || P.ZChunk == 0 || P.Unroll == 0) {
    Error = "strategy: points_y, z_chunk and unroll are at least 1";
    return false;
  }
  return true;
}

std::optional<StrategyParams> StrategyParams::fromId(const std::string &Id,
                                                     std::string &Error) {
  // strategy.BXxBY[xBZ].vN.yN.zN[.q|.qp][.s][.uN][.aN][.r][.cs][.w][.mN], as id()
  // writes.
  const std::vector<std::string> Parts = splitOn(Id, '.');
  auto Bad = [&](const std::string &Why) {
    Error = "strategy id '" + Id + "': " + Why;
    return std::nullopt;
  };
  if (Parts.size() < 5 || Parts[0].empty())
    return Bad(
        "expected strategy.BXxBY.vN.yN.zN[.q|.qp][.s][.uN][.aN][.r][.cs][.w][.mN]");
  auto Number = [](const std::string &T, unsigned &Out) {
    if (T.empty() || T.size() > 6 ||
        T.find_first_not_of("0123456789") != std::string::npos)
      return false;
    Out = static_cast<unsigned>(std::stoul(T));
    return true;
  };
  StrategyParams P;
  P.Strategy = Parts[0];
  std::vector<unsigned> Block;
  for (const std::string &T : splitOn(Parts[1], 'x')) {
    unsigned N = 0;
    if (!Number(T, N))
      return Bad("block '" + Parts[1] + "' is not BXxBY or BXxBYxBZ");
    Block.push_back(N);
  }
  if (Block.size() < 2 || Block.size() > 3)
    return Bad("block '" + Parts[1] + "' is not BXxBY or BXxBYxBZ");
  P.BlockX = Block[0];
  P.BlockY = Block[1];
  P.BlockZ = Block.size() == 3 ? Block[2] : 1;
  const char *Fixed[] = {"v", "y", "z"};
  unsigned *FixedOut[] = {&P.VectorWidth, &P.PointsY, &P.ZChunk};
  for (int I = 0; I < 3; ++I) {
    const std::string &T = Parts[2 + I];
    if (T.empty() || T[0] != Fixed[I][0] || !Number(T.substr(1), *FixedOut[I]))
      return Bad("expected '" + std::string(Fixed[I]) + "N', found '" + T +
                 "'");
  }
  for (size_t I = 5; I < Parts.size(); ++I) {
    const std::string &T = Parts[I];
    if (T == "q" || T == "qp") {
      P.RegisterQueue = true;
      P.PlaneQueue = T == "qp";
    } else if (T == "s") {
      P.SharedTile = true;
    } else if (T == "r") {
      P.ReverseLoads = true;
    } else if (T == "cs") {
      P.StreamingHints = true;
    } else if (T == "w") {
      P.MaskedEdges = true;
    } else if (!T.empty() && (T[0] == 'u' || T[0] == 'a' || T[0] == 'm') &&
               Number(T.substr(1), T[0] == 'u'   ? P.Unroll
                                   : T[0] == 'a' ? P.Stages
                                                 : P.MinBlocksPerSM)) {
    } else {
      return Bad("unknown part '" + T + "'");
    }
  }
  if (!P.validate(Error)) {
    Error = "strategy id '" + Id + "': " + Error;
    return std::nullopt;
  }
  if (P.id() != Id)
    return Bad("not in canonical form (that would be '" + P.id() + "')");
  return P;
}

StrategyParams searchPoint(const std::string &Strategy, unsigned BX,
                           unsigned BY, unsigned VW, unsigned PY,
                           unsigned ZC) {
  StrategyParams P;
  P.Strategy = Strategy;
  P.BlockX = BX;
  P.BlockY = BY;
  P.VectorWidth = VW;
  P.PointsY = PY;
  P.ZChunk = ZC;
  return P;
}

std::vector<std::string> splitOn(const std::string &S, char Sep) {
  std::vector<std::string> Parts;
  for (size_t B = 0;;) {
    size_t E = S.find(Sep, B);
    Parts.push_back(S.substr(B, E == std::string::npos ? E : E - B));
    if (E == std::string::npos)
      return Parts;
    B = E + 1;
  }
}

void addSearchPoint(std::vector<StrategyParams> &Space,
                    const StrategyParams &P) {
  for (const StrategyParams &Q : Space)
    if (Q == P)
      return;
  Space.push_back(P);
}

std::vector<StrategyParams> spreadSample(const std::vector<StrategyParams> &Space,
                                         unsigned N) {
  if (N == 0 || Space.size() <= N)
    return Space;
  if (N == 1)
    return {Space.front()};
  std::vector<StrategyParams> Out;
  const size_t Last = Space.size() - 1;
  for (unsigned I = 0; I < N; ++I)
    // Rounded to the nearest index: 0 and Last are always taken, and the
    // steps between taken points differ by at most one. Distinct, since
    // Space has more than N points.
    Out.push_back(Space[(I * Last + (N - 1) / 2) / (N - 1)]);
  return Out;
}

GeneratedSource Strategy::generate(const ir::StencilIR &IR,
                                   const StrategyParams &P,
                                   const GenerateOptions &Opts) const {
  return emit(withSafeParamNames(IR,
                                 [&](const ir::StencilIR &Probe) {
                                   return emit(Probe, P, Opts).Source;
                                 }),
              P, Opts);
}

std::string Strategy::whyNot(const ir::StencilIR &IR) const {
  std::string Error;
  if (!StencilView::create(IR, Error))
    return Error;
  return "";
}

} // namespace forge
} // namespace forgestencil
