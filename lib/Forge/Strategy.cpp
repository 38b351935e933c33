//===- Strategy.cpp - Strategy parameters ----------------------------------===//

#include "forgestencil/Forge/Strategy.h"

#include "forgestencil/Forge/CodeGen.h"

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
  return J;
}

std::optional<StrategyParams> StrategyParams::fromJson(const json &J,
                                                       std::string &Error) {
  StrategyParams P;
  try {
    P.Strategy = J.at("strategy").get<std::string>();
    auto B = J.value("block", std::vector<unsigned>{32, 4, 1});
    if (B.size() != 3) {
      Error = "strategy.block: expected 3 numbers";
      return std::nullopt;
    }
    P.BlockX = B[0];
    P.BlockY = B[1];
    P.BlockZ = B[2];
    P.VectorWidth = J.value("vector_width", 1u);
    P.PointsY = J.value("points_y", 1u);
    P.ZChunk = J.value("z_chunk", 1u);
    P.RegisterQueue = J.value("register_queue", false);
    P.PlaneQueue = J.value("plane_queue", false);
    P.SharedTile = J.value("shared_tile", false);
    P.MinBlocksPerSM = J.value("min_blocks_per_sm", 0u);
    P.Unroll = J.value("unroll", 1u);
    P.Stages = J.value("stages", 0u);
  } catch (const json::exception &E) {
    Error = std::string("strategy: ") + E.what();
    return std::nullopt;
  }
  if (P.BlockX == 0 || P.BlockY == 0 || P.BlockZ == 0 ||
      P.BlockX * P.BlockY * P.BlockZ > 1024) {
    Error = "strategy.block: 1..1024 threads";
    return std::nullopt;
  }
  if (P.VectorWidth != 1 && P.VectorWidth != 2 && P.VectorWidth != 4) {
    Error = "strategy.vector_width: 1, 2 or 4";
    return std::nullopt;
  }
  if (P.Stages > 8) {
    Error = "strategy.stages: 0 to 8";
    return std::nullopt;
  }
  if (P.PointsY == 0 || P.ZChunk == 0 || P.Unroll == 0) {
    Error = "strategy: points_y, z_chunk and unroll are at least 1";
    return std::nullopt;
  }
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

void addSearchPoint(std::vector<StrategyParams> &Space,
                    const StrategyParams &P) {
  for (const StrategyParams &Q : Space)
    if (Q == P)
      return;
  Space.push_back(P);
}

std::string Strategy::whyNot(const ir::StencilIR &IR) const {
  std::string Error;
  if (!StencilView::create(IR, Error))
    return Error;
  return "";
}

} // namespace forge
} // namespace forgestencil
