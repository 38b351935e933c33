//===- HostInfo.h - The GPU, driver and compiler a measurement ran on -----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A speed-up means little without the machine it was measured on. These
/// helpers ask nvidia-smi and nvcc, and fall back to "unknown" (never to a
/// guess) where a tool is missing, as on a build machine without a GPU.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_SUPPORT_HOSTINFO_H
#define FORGESTENCIL_SUPPORT_HOSTINFO_H

#include <optional>
#include <string>

namespace forgestencil {
namespace support {

/// What the registry records when a tool cannot tell.
inline constexpr const char *UnknownValue = "unknown";

struct GpuInfo {
  std::string Name = UnknownValue;
  std::string Driver = UnknownValue;
};

/// Parses the first line of
/// `nvidia-smi --query-gpu=name,driver_version --format=csv,noheader`.
std::optional<GpuInfo> parseGpuQueryOutput(const std::string &Output);

/// The release in `nvcc --version` output ("12.4.131" from
/// "Cuda compilation tools, release 12.4, V12.4.131"); "unknown" when absent.
std::string parseNvccVersion(const std::string &Output);

/// From `nvidia-smi --query-gpu=index,utilization.gpu,memory.used
/// --format=csv,noheader,nounits` output, the index of the least busy GPU
/// (lowest utilisation, then least memory in use); none when no line parses.
std::optional<std::string> pickIdlestGpu(const std::string &Output);

/// Asks nvidia-smi about \p Device (an index or UUID; empty for the first
/// GPU).
GpuInfo queryGpu(const std::string &Device);

/// Asks nvidia-smi for the least busy GPU.
std::optional<std::string> queryIdlestGpu();

/// The version of the nvcc in PATH, $CUDA_PATH/bin or /usr/local/cuda/bin.
std::string queryNvccVersion();

} // namespace support
} // namespace forgestencil

#endif // FORGESTENCIL_SUPPORT_HOSTINFO_H
