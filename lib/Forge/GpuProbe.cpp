//===- GpuProbe.cpp - Is there a GPU here that can run a kernel? ----------===//

#include "forgestencil/Forge/GpuProbe.h"

#include <cstdlib>
#include <dlfcn.h>

namespace forgestencil {
namespace forge {

bool probeGpu(int Device, std::string &Why) {
  // Tests say what the host has: FS_ASSUME_NO_GPU for what happens without
  // a GPU (on hosts that have one too), FS_ASSUME_GPU for a bench faked by
  // a script.
  auto Set = [](const char *Name) {
    const char *V = std::getenv(Name);
    return V && *V && std::string(V) != "0";
  };
  if (Set("FS_ASSUME_NO_GPU")) {
    Why = "FS_ASSUME_NO_GPU is set";
    return false;
  }
  if (Set("FS_ASSUME_GPU"))
    return true;
  void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    Why = "no CUDA driver library (libcuda.so.1) on this host";
    return false;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using ErrorFn = int (*)(int, const char **);
  auto Init = reinterpret_cast<InitFn>(dlsym(Lib, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(Lib, "cuDeviceGetCount"));
  auto ErrorString = reinterpret_cast<ErrorFn>(dlsym(Lib, "cuGetErrorString"));
  if (!Init || !Count) {
    Why = "libcuda.so.1 lacks cuInit or cuDeviceGetCount";
    return false;
  }
  auto Describe = [&](int RC) {
    const char *S = nullptr;
    if (ErrorString && ErrorString(RC, &S) == 0 && S)
      return std::string(S);
    return "CUDA error " + std::to_string(RC);
  };
  if (int RC = Init(0); RC != 0) {
    Why = "the CUDA driver cannot start (cuInit: " + Describe(RC) + ")";
    return false;
  }
  int N = 0;
  if (int RC = Count(&N); RC != 0) {
    Why = "the CUDA driver cannot count devices (" + Describe(RC) + ")";
    return false;
  }
  if (N == 0) {
    Why = "the CUDA driver sees no device";
    return false;
  }
  if (Device < 0 || Device >= N) {
    Why = "there is no device " + std::to_string(Device) + " (the driver sees " +
          std::to_string(N) + ")";
    return false;
  }
  // The library stays loaded: unloading the CUDA driver is not supported.
  return true;
}

} // namespace forge
} // namespace forgestencil
