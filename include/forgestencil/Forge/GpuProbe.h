//===- GpuProbe.h - Is there a GPU here that can run a kernel? -*- C++ -*-===//
///
/// \file
/// Compiling a bench for minutes and then learning that the host has no GPU
/// (or a driver too old for the toolkit) wastes the user's time; so the
/// GPU-side tools ask the CUDA driver first. The driver library is loaded
/// at run time, so the tools still build and run (for --emit-dir,
/// --build-only) where CUDA has no driver.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_GPUPROBE_H
#define FORGESTENCIL_FORGE_GPUPROBE_H

#include <string>

namespace forgestencil {
namespace forge {

/// True when CUDA device \p Device can run kernels on this host: the driver
/// library (libcuda.so.1) loads, cuInit succeeds and the device exists.
/// Otherwise false, with the reason in \p Why ("no CUDA driver library
/// (libcuda.so.1)", "cuInit failed: CUDA driver version is insufficient
/// for CUDA runtime version", "device 3 of 1"). FS_ASSUME_NO_GPU=1 and
/// FS_ASSUME_GPU=1 in the environment decide without asking (for tests).
bool probeGpu(int Device, std::string &Why);

} // namespace forge
} // namespace forgestencil

#endif // FORGESTENCIL_FORGE_GPUPROBE_H
