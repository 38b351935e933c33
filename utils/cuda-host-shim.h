//===- cuda-host-shim.h - CUDA source as ordinary host C++17 ---------------===//
//
// Lets the generated bench sources (driver, original, candidates) compile
// with a host C++ compiler and run on the CPU, so their boundary and domain
// logic can be verified where no GPU exists (CI). utils/cpu-emulate.py
// rewrites every `kernel<<<grid, block, shmem, stream>>>(args)` into a call of
// fs_emu::launch and includes this header in place of <cuda_runtime.h>.
//
// The emulated device runs every launch at once, on the calling thread: the
// blocks one after another, a block's threads in order (x fastest). A kernel
// that calls __syncthreads runs each of its block's threads as a fiber
// that yields at every barrier; the script marks those kernels.
// Streams, events and graphs keep their ordering meaning: work enqueued on a
// stream under capture is recorded, not run, and a graph launch replays it.
//
// Exactly one unit of a program defines FS_EMU_RUNTIME before including this
// header: it holds the grid runner, the fibers and the capture of launches,
// which every other unit only declares.
//
// Device memory is bounds-checked. Every cudaMalloc gets pages of its own
// between two 64 MiB guard regions that fault on any access, so a kernel
// that reads or writes before or well past an array stops with a fault that
// names the kernel, the thread and how far outside which allocation it was.
// Built with AddressSanitizer (cpu-emulate.py does), the bytes between the
// array's end and its last page are poisoned too, so that even one element
// past the end is caught, and so are overruns of shared-memory tiles and
// __constant__ arrays.
//
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_CUDA_HOST_SHIM_H
#define FORGESTENCIL_CUDA_HOST_SHIM_H

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Qualifiers and attributes
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// One block runs at a time, so a function-local static is exactly one
// block's shared memory; its contents are left over from the previous block,
// as undefined as on a GPU.
#define __shared__ static

//===----------------------------------------------------------------------===//
// Vector types, with CUDA's sizes and alignments
//===----------------------------------------------------------------------===//

namespace fs_emu {
[[noreturn]] inline void misaligned(const void *P, const char *Op,
                                    size_t Bytes);
/// Checks the alignment of one side of a vector copy: a misaligned vector
/// access faults on a GPU, and on the CPU it would go unnoticed.
template <class V> inline void checkVectorAlignment(const V *P, const char *Op) {
  if (reinterpret_cast<uintptr_t>(P) % alignof(V) != 0)
    misaligned(P, Op, sizeof(V));
}
} // namespace fs_emu

// A vector type is an aggregate (make_float4 and brace initialisation work)
// whose copy assignment checks both addresses: generated code stores vectors
// as `*(float4 *)p = v`, so every store goes through it. Loads go through
// __ldg and friends, which check too.
#define FS_EMU_VEC_ASSIGN(N, ...)                                              \
  N &operator=(const N &O) {                                                   \
    fs_emu::checkVectorAlignment(this, "a store");                             \
    fs_emu::checkVectorAlignment(&O, "a load");                                \
    __VA_ARGS__;                                                               \
    return *this;                                                              \
  }
#define FS_EMU_VEC1(T, N, A)                                                   \
  struct alignas(A) N##1 { T x; };                                             \
  inline N##1 make_##N##1(T x) { return N##1{x}; }
#define FS_EMU_VEC2(T, N, A)                                                   \
  struct alignas(A) N##2 {                                                     \
    T x, y;                                                                    \
    FS_EMU_VEC_ASSIGN(N##2, x = O.x, y = O.y)                                  \
  };                                                                           \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define FS_EMU_VEC3(T, N)                                                      \
  struct N##3 { T x, y, z; };                                                  \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define FS_EMU_VEC4(T, N, A)                                                   \
  struct alignas(A) N##4 {                                                     \
    T x, y, z, w;                                                              \
    FS_EMU_VEC_ASSIGN(N##4, x = O.x, y = O.y, z = O.z, w = O.w)                \
  };                                                                           \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define FS_EMU_VECS(T, N, S)                                                   \
  FS_EMU_VEC1(T, N, S) FS_EMU_VEC2(T, N, 2 * S) FS_EMU_VEC3(T, N)              \
      FS_EMU_VEC4(T, N, (4 * S < 16 ? 4 * S : 16))

FS_EMU_VECS(signed char, char, 1)
FS_EMU_VECS(unsigned char, uchar, 1)
FS_EMU_VECS(short, short, 2)
FS_EMU_VECS(unsigned short, ushort, 2)
FS_EMU_VECS(int, int, 4)
FS_EMU_VECS(unsigned int, uint, 4)
FS_EMU_VECS(long long, longlong, 8)
FS_EMU_VECS(unsigned long long, ulonglong, 8)
FS_EMU_VECS(float, float, 4)
FS_EMU_VECS(double, double, 8)

#undef FS_EMU_VECS
#undef FS_EMU_VEC1
#undef FS_EMU_VEC2
#undef FS_EMU_VEC3
#undef FS_EMU_VEC4
#undef FS_EMU_VEC_ASSIGN

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");

/// A launch extent: unset components are 1.
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1)
      : x(X), y(Y), z(Z) {}
  constexpr dim3(uint3 V) : x(V.x), y(V.y), z(V.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorNotSupported = 801,
};
typedef cudaError_t cudaError;

inline const char *cudaGetErrorName(cudaError_t E) {
  switch (E) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
  case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
  case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
  case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotReady: return "cudaErrorNotReady";
  case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
  case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
  case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
  case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
  case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
  case cudaErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}

inline const char *cudaGetErrorString(cudaError_t E) {
  switch (E) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInvalidSymbol: return "invalid device symbol";
  case cudaErrorInvalidDevicePointer: return "invalid device pointer";
  case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
  case cudaErrorInvalidDevice: return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle: return "invalid resource handle";
  case cudaErrorNotReady: return "device not ready";
  case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
  case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
  case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
  case cudaErrorStreamCaptureUnmatched: return "capture was not ended in the same stream as it began";
  case cudaErrorStreamCaptureWrongThread: return "attempt to terminate a thread-local capture sequence from another thread";
  case cudaErrorNotSupported: return "operation not supported";
  }
  return "unknown error";
}

//===----------------------------------------------------------------------===//
// The emulated device: launch state, faults, streams
//===----------------------------------------------------------------------===//

/// What the script knows about a kernel from its source.
struct FsEmuKernel {
  const char *Name;   ///< as written at the launch, template arguments included
  const char *Unit;   ///< the source file that launches it
  bool Barriers;      ///< calls __syncthreads: run threads as fibers
  unsigned MaxThreads; ///< __launch_bounds__ maximum, 0 if none
  const void *Fn;      ///< the kernel's address, for its attributes
};

/// A stream: work runs when enqueued unless the stream is being captured.
struct CUstream_st {
  bool Capturing = false;
  bool Invalidated = false;
  std::vector<std::function<void()>> Recorded;
};
typedef CUstream_st *cudaStream_t;

struct CUgraph_st {
  std::vector<std::function<void()>> Nodes;
};
typedef CUgraph_st *cudaGraph_t;
struct CUgraphExec_st {
  std::vector<std::function<void()>> Nodes;
};
typedef CUgraphExec_st *cudaGraphExec_t;

struct CUevent_st {
  std::chrono::steady_clock::time_point At;
  bool Recorded = false;
};
typedef CUevent_st *cudaEvent_t;

inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

namespace fs_emu {

inline cudaError_t LastError = cudaSuccess;
/// The launch being run, for fault reports.
inline const FsEmuKernel *Running = nullptr;
/// Device allocations: start address to size.
inline std::map<uintptr_t, size_t> Allocations;
/// Every device allocation's mapping, which holds it between its guards.
struct Mapping {
  void *Base;
  size_t Length;
};
inline std::map<uintptr_t, Mapping> Mappings;
/// Inaccessible bytes before and after every device allocation.
constexpr size_t GuardBytes = size_t(64) << 20;
/// The per-block dynamic shared memory of the running launch.
inline std::vector<unsigned char> DynamicShared;
/// Per kernel, the dynamic shared memory cudaFuncSetAttribute allowed.
inline std::map<const void *, size_t> MaxDynamicShared;
inline std::map<const void *, size_t> &maxDynamicShared() {
  return MaxDynamicShared;
}

inline cudaError_t record(cudaError_t E) {
  if (E != cudaSuccess)
    LastError = E;
  return E;
}

} // namespace fs_emu

// AddressSanitizer's interface, when the program is built with it (weak:
// null otherwise).
extern "C" {
void __asan_poison_memory_region(void const volatile *, size_t)
    __attribute__((weak));
void __asan_unpoison_memory_region(void const volatile *, size_t)
    __attribute__((weak));
void __asan_set_death_callback(void (*)(void)) __attribute__((weak));
void *__asan_get_report_address() __attribute__((weak));
int __asan_get_report_access_type() __attribute__((weak));
size_t __asan_get_report_access_size() __attribute__((weak));
}

namespace fs_emu {

/// Reports a fault of the running kernel the way the script reads it and
/// ends the process: a GPU would have lost its context too.
[[noreturn]] inline void fault(const char *What) {
  if (Running)
    fprintf(stderr,
            "FS_EMU_FAULT unit=%s kernel=%s block=(%u,%u,%u) "
            "thread=(%u,%u,%u): %s\n",
            Running->Unit, Running->Name, blockIdx.x, blockIdx.y, blockIdx.z,
            threadIdx.x, threadIdx.y, threadIdx.z, What);
  else
    fprintf(stderr, "FS_EMU_FAULT unit=? kernel=? (host code): %s\n", What);
  fflush(stderr);
  _exit(3);
}

/// Where address A lies relative to the nearest device allocation, in
/// words: "8 bytes past the end of a device allocation of 4096 bytes".
inline std::string describeAddress(uintptr_t A) {
  std::string Best;
  uintptr_t BestDistance = UINTPTR_MAX;
  for (const auto &[Start, Bytes] : Allocations) {
    uintptr_t End = Start + Bytes, Distance;
    std::string Where;
    if (A < Start) {
      Distance = Start - A;
      Where = std::to_string(Distance) + " bytes before the start";
    } else if (A >= End) {
      Distance = A - End;
      Where = std::to_string(Distance) + " bytes past the end";
    } else {
      Distance = 0;
      Where = "at byte " + std::to_string(A - Start);
    }
    if (Distance < BestDistance) {
      BestDistance = Distance;
      Best = Where + " of a device allocation of " + std::to_string(Bytes) +
             " bytes";
    }
  }
  return Best.empty() ? "outside every device allocation" : Best;
}

inline void onSignal(int Sig, siginfo_t *Info, void *) {
  bool InGuard = false;
  if ((Sig == SIGSEGV || Sig == SIGBUS) && Info)
    for (const auto &[Start, M] : Mappings) {
      uintptr_t A = reinterpret_cast<uintptr_t>(Info->si_addr);
      uintptr_t Base = reinterpret_cast<uintptr_t>(M.Base);
      InGuard |= A >= Base && A < Base + M.Length;
    }
  if (InGuard) {
    std::string What = std::string("out of bounds: an access ") +
                       describeAddress(reinterpret_cast<uintptr_t>(Info->si_addr)) +
                       " (" + (Sig == SIGSEGV ? "segmentation fault" : "bus error") +
                       ")";
    fault(What.c_str());
  }
  const char *What = Sig == SIGSEGV  ? "segmentation fault (invalid address)"
                     : Sig == SIGBUS ? "bus error"
                     : Sig == SIGFPE ? "arithmetic exception"
                     : Sig == SIGILL ? "illegal instruction"
                                     : "aborted (see the message above)";
  fault(What);
}

/// AddressSanitizer found a bad access (its report is above): the fault,
/// in the words the script reads.
inline void onSanitizerReport() {
  std::string What = "out of bounds";
  if (__asan_get_report_address && __asan_get_report_address()) {
    uintptr_t A = reinterpret_cast<uintptr_t>(__asan_get_report_address());
    What += std::string(": a ") +
            (__asan_get_report_access_type() ? "write" : "read") + " of " +
            std::to_string(__asan_get_report_access_size()) + " bytes ";
    bool Device = false;
    for (const auto &[Start, Bytes] : Allocations)
      Device |= A + 65536 >= Start && A < Start + Bytes + 65536;
    What += Device ? describeAddress(A)
                   : "outside device memory (a shared-memory tile, a "
                     "__constant__ array or the stack; see the report above)";
  }
  fault(What.c_str());
}

/// Installs the fault handlers on an alternate stack, so that a fiber's
/// stack overflow is reported too.
inline bool installHandlers() {
  static std::vector<char> AltStack(1 << 16);
  stack_t SS{};
  SS.ss_sp = AltStack.data();
  SS.ss_size = AltStack.size();
  sigaltstack(&SS, nullptr);
  struct sigaction SA {};
  SA.sa_sigaction = onSignal;
  SA.sa_flags = SA_ONSTACK | SA_SIGINFO;
  for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    sigaction(Sig, &SA, nullptr);
  if (__asan_set_death_callback)
    __asan_set_death_callback(onSanitizerReport);
  return true;
}
inline const bool HandlersInstalled = installHandlers();

/// Runs Work now, or records it when Stream is being captured.
inline void enqueue(cudaStream_t Stream, std::function<void()> Work) {
  if (Stream && Stream->Capturing) {
    Stream->Recorded.push_back(std::move(Work));
    return;
  }
  Work();
}

/// The allocation with the highest base at or below address A (which may
/// still end before A), or Allocations.end() where none starts there.
inline std::map<uintptr_t, size_t>::const_iterator allocationBelow(uintptr_t A) {
  auto It = Allocations.upper_bound(A);
  return It == Allocations.begin() ? Allocations.cend() : std::prev(It);
}

inline bool isDevicePointer(const void *P, size_t Bytes) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  auto It = allocationBelow(A);
  return It != Allocations.cend() && A + Bytes <= It->first + It->second;
}

//===----------------------------------------------------------------------===//
// Running a grid
//===----------------------------------------------------------------------===//

/// The launch checks a GPU makes before it runs anything.
inline cudaError_t checkLaunch(const FsEmuKernel &K, dim3 Grid, dim3 Block,
                               size_t Shmem) {
  const unsigned long long Threads =
      1ULL * Block.x * Block.y * Block.z;
  if (Grid.x == 0 || Grid.y == 0 || Grid.z == 0 || Threads == 0 ||
      Grid.x > 2147483647u || Grid.y > 65535 || Grid.z > 65535 ||
      Block.x > 1024 || Block.y > 1024 || Block.z > 64 || Threads > 1024)
    return cudaErrorInvalidConfiguration;
  if (K.MaxThreads && Threads > K.MaxThreads)
    return cudaErrorLaunchOutOfResources;
  // 48 KiB of dynamic shared memory unless the kernel asked for more.
  size_t Limit = 48 * 1024;
  auto It = maxDynamicShared().find(K.Fn);
  if (It != maxDynamicShared().end())
    Limit = It->second;
  if (Shmem > Limit)
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

/// A launch's threads: Run(Context) runs the calling thread of the grid.
struct ThreadBody {
  void (*Run)(const void *);
  const void *Context;
};

/// Runs a whole grid now: blocks in order, each block's threads in order or,
/// for a kernel with barriers, as fibers.
void runGrid(const FsEmuKernel &K, dim3 Grid, dim3 Block, size_t Shmem,
             ThreadBody Body);
/// Records a grid on a stream under capture; Destroy(Context) frees the
/// copy of the launch's thread body once no graph holds it.
void recordGrid(cudaStream_t Stream, const FsEmuKernel &K, dim3 Grid,
                dim3 Block, size_t Shmem, ThreadBody Body,
                void (*Destroy)(void *));
/// The barrier of the running block.
void barrier();

/// `Kernel<<<Grid, Block, Shmem, Stream>>>(Args...)`: checks the
/// configuration and runs or records the grid on Stream. Run calls the
/// kernel once with the arguments, which the script has it capture by value
/// at the launch, as a launch binds them. Everything past the type of Run
/// lives in the runtime unit, so that a launch costs its unit little to
/// compile.
template <class Thread>
void launch(const FsEmuKernel &K, dim3 Grid, dim3 Block, size_t Shmem,
            cudaStream_t Stream, Thread Run) {
  if (Stream && Stream->Capturing && Stream->Invalidated)
    return;
  if (cudaError_t E = checkLaunch(K, Grid, Block, Shmem)) {
    record(E);
    if (Stream && Stream->Capturing)
      Stream->Invalidated = true;
    return;
  }
  auto Call = [](const void *C) { (*static_cast<const Thread *>(C))(); };
  if (Stream && Stream->Capturing) {
    recordGrid(Stream, K, Grid, Block, Shmem, ThreadBody{Call, new Thread(Run)},
               [](void *C) { delete static_cast<Thread *>(C); });
    return;
  }
  runGrid(K, Grid, Block, Shmem, ThreadBody{Call, &Run});
}

inline void *dynamicShared() { return DynamicShared.data(); }

} // namespace fs_emu

/// A barrier for the threads of a block. Only kernels run as fibers may
/// reach it; the script runs every kernel that names it that way.
inline void __syncthreads() { fs_emu::barrier(); }
inline int __syncthreads_count(int P) {
  (void)P;
  fs_emu::fault("__syncthreads_count is not emulated");
}
inline void __threadfence() {}
inline void __threadfence_block() {}

/// Cooperative groups' thread block (cooperative_groups.h stands for the
/// toolkit's): its sync() is the block's barrier. Tiles of a block and the
/// grid group are not emulated (the script refuses code that names them).
namespace cooperative_groups {
class thread_block {
public:
  void sync() const { fs_emu::barrier(); }
  unsigned long long size() const {
    return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
  }
  unsigned long long thread_rank() const {
    return ((unsigned long long)threadIdx.z * blockDim.y + threadIdx.y) *
               blockDim.x + threadIdx.x;
  }
  // Static, as the toolkit's: `block.group_index()` and
  // `cooperative_groups::thread_block::group_index()` both compile.
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() {
    return dim3(threadIdx.x, threadIdx.y, threadIdx.z);
  }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block &B) { B.sync(); }
} // namespace cooperative_groups

//===----------------------------------------------------------------------===//
// Asynchronous copies (cuda_pipeline.h)
//===----------------------------------------------------------------------===//

namespace fs_emu {
inline void misaligned(const void *P, const char *Op, size_t Bytes);
} // namespace fs_emu

/// The copy happens at once, so waiting is a no-op: the emulation shows that
/// the right elements land in the right place, not that the waits suffice
/// (the barriers after them run as on the GPU). Sizes and alignment are
/// checked as the GPU requires them.
inline void __pipeline_memcpy_async(void *Dst, const void *Src, size_t Size,
                                    size_t ZeroFill = 0) {
  if (Size != 4 && Size != 8 && Size != 16)
    fs_emu::fault("__pipeline_memcpy_async copies 4, 8 or 16 bytes");
  if (reinterpret_cast<uintptr_t>(Dst) % Size != 0)
    fs_emu::misaligned(Dst, "an asynchronous copy's destination", Size);
  if (reinterpret_cast<uintptr_t>(Src) % Size != 0)
    fs_emu::misaligned(Src, "an asynchronous copy's source", Size);
  if (ZeroFill > Size)
    fs_emu::fault("__pipeline_memcpy_async fills more than it copies");
  memcpy(Dst, Src, Size - ZeroFill);
  memset(static_cast<char *>(Dst) + (Size - ZeroFill), 0, ZeroFill);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}

//===----------------------------------------------------------------------===//
// Loads and stores with cache hints: alignment checked as the GPU does
//===----------------------------------------------------------------------===//

namespace fs_emu {
inline void misaligned(const void *P, const char *Op, size_t Bytes) {
  char Buf[160];
  snprintf(Buf, sizeof Buf, "misaligned address %p in %s of %zu bytes", P, Op,
           Bytes);
  fault(Buf);
}
template <class T> inline void checkAligned(const T *P, const char *Op) {
  if (reinterpret_cast<uintptr_t>(P) % alignof(T) != 0)
    misaligned(P, Op, sizeof(T));
}
template <class T> inline T load(const T *P, const char *Op) {
  checkAligned(P, Op);
  return *P;
}
template <class T> inline void store(T *P, T V, const char *Op) {
  checkAligned(P, Op);
  *P = V;
}
} // namespace fs_emu

namespace fs_emu {
/// The address of an inline-PTX access of Lanes values of T at Base +
/// Offset bytes, checked for the alignment PTX requires of the whole access.
template <class T>
inline T *ptxAddress(const void *Base, long long Offset, int Lanes,
                     const char *Ptx) {
  const char *P = static_cast<const char *>(Base) + Offset;
  if (reinterpret_cast<uintptr_t>(P) % (sizeof(T) * Lanes) != 0)
    misaligned(P, Ptx, sizeof(T) * Lanes);
  return reinterpret_cast<T *>(const_cast<char *>(P));
}
} // namespace fs_emu

template <class T> inline T __ldg(const T *P) { return fs_emu::load(P, "__ldg"); }
template <class T> inline T __ldca(const T *P) { return fs_emu::load(P, "__ldca"); }
template <class T> inline T __ldcg(const T *P) { return fs_emu::load(P, "__ldcg"); }
template <class T> inline T __ldcs(const T *P) { return fs_emu::load(P, "__ldcs"); }
template <class T> inline T __ldlu(const T *P) { return fs_emu::load(P, "__ldlu"); }
template <class T> inline T __ldcv(const T *P) { return fs_emu::load(P, "__ldcv"); }
template <class T> inline void __stwb(T *P, T V) { fs_emu::store(P, V, "__stwb"); }
template <class T> inline void __stcg(T *P, T V) { fs_emu::store(P, V, "__stcg"); }
template <class T> inline void __stcs(T *P, T V) { fs_emu::store(P, V, "__stcs"); }
template <class T> inline void __stwt(T *P, T V) { fs_emu::store(P, V, "__stwt"); }

//===----------------------------------------------------------------------===//
// Atomics: one thread runs at a time, so a plain read-modify-write is atomic
//===----------------------------------------------------------------------===//

template <class T> inline T atomicAdd(T *P, T V) { T O = *P; *P = O + V; return O; }
template <class T> inline T atomicSub(T *P, T V) { T O = *P; *P = O - V; return O; }
template <class T> inline T atomicExch(T *P, T V) { T O = *P; *P = V; return O; }
template <class T> inline T atomicMin(T *P, T V) { T O = *P; *P = V < O ? V : O; return O; }
template <class T> inline T atomicMax(T *P, T V) { T O = *P; *P = V > O ? V : O; return O; }
template <class T> inline T atomicAnd(T *P, T V) { T O = *P; *P = O & V; return O; }
template <class T> inline T atomicOr(T *P, T V) { T O = *P; *P = O | V; return O; }
template <class T> inline T atomicXor(T *P, T V) { T O = *P; *P = O ^ V; return O; }
template <class T> inline T atomicCAS(T *P, T Compare, T V) {
  T O = *P;
  if (O == Compare)
    *P = V;
  return O;
}
inline unsigned atomicInc(unsigned *P, unsigned V) {
  unsigned O = *P;
  *P = O >= V ? 0 : O + 1;
  return O;
}

//===----------------------------------------------------------------------===//
// Device math the generated code may use
//===----------------------------------------------------------------------===//

using std::max;
using std::min;
// CUDA's overloads for mixed operands: an int beside an unsigned one is
// converted to unsigned, as in C (max(0u - 1, 0) is 4294967295), and a
// float beside a double to double.
inline unsigned max(unsigned A, int B) { return std::max(A, (unsigned)B); }
inline unsigned max(int A, unsigned B) { return std::max((unsigned)A, B); }
inline unsigned min(unsigned A, int B) { return std::min(A, (unsigned)B); }
inline unsigned min(int A, unsigned B) { return std::min((unsigned)A, B); }
inline unsigned long long max(unsigned long long A, long long B) {
  return std::max(A, (unsigned long long)B);
}
inline unsigned long long max(long long A, unsigned long long B) {
  return std::max((unsigned long long)A, B);
}
inline unsigned long long min(unsigned long long A, long long B) {
  return std::min(A, (unsigned long long)B);
}
inline unsigned long long min(long long A, unsigned long long B) {
  return std::min((unsigned long long)A, B);
}
inline double max(float A, double B) { return fmax((double)A, B); }
inline double max(double A, float B) { return fmax(A, (double)B); }
inline double min(float A, double B) { return fmin((double)A, B); }
inline double min(double A, float B) { return fmin(A, (double)B); }
inline float rsqrtf(float X) { return 1.0f / sqrtf(X); }
inline double rsqrt(double X) { return 1.0 / sqrt(X); }
inline float __fdividef(float A, float B) { return A / B; }
inline float __saturatef(float X) { return X < 0.f ? 0.f : X > 1.f ? 1.f : X; }
inline float __expf(float X) { return expf(X); }
inline float __logf(float X) { return logf(X); }
inline float __sinf(float X) { return sinf(X); }
inline float __cosf(float X) { return cosf(X); }
inline float __fadd_rn(float A, float B) { return A + B; }
inline float __fmul_rn(float A, float B) { return A * B; }
inline float __fmaf_rn(float A, float B, float C) { return fmaf(A, B, C); }
inline double __dadd_rn(double A, double B) { return A + B; }
inline double __dmul_rn(double A, double B) { return A * B; }
inline double __fma_rn(double A, double B, double C) { return fma(A, B, C); }
inline int __float2int_rn(float X) { return static_cast<int>(nearbyintf(X)); }

//===----------------------------------------------------------------------===//
// Runtime API
//===----------------------------------------------------------------------===//

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};
constexpr unsigned cudaStreamDefault = 0;
constexpr unsigned cudaStreamNonBlocking = 1;
constexpr unsigned cudaEventDefault = 0;
constexpr unsigned cudaEventDisableTiming = 2;
#define cudaStreamLegacy ((cudaStream_t)0)
#define cudaStreamPerThread ((cudaStream_t)0)

/// A device that says plainly what it is: the driver's results carry its
/// name, so no emulated run can pass for a GPU measurement.
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  size_t sharedMemPerMultiprocessor;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int maxThreadsPerMultiProcessor;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int memoryBusWidth;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
};

namespace fs_emu {
/// The compute capability the emulated device reports: FS_EMU_CC (e.g. 90,
/// so that a patched program's launchers take their sm_90 case), else 0.0
/// (no GPU's: launchers dispatching on it run the original).
inline int computeCapability() {
  static const int CC = [] {
    const char *V = getenv("FS_EMU_CC");
    return V ? atoi(V) : 0;
  }();
  return CC;
}
} // namespace fs_emu

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *P, int Device) {
  if (Device != 0)
    return fs_emu::record(cudaErrorInvalidDevice);
  *P = cudaDeviceProp{};
  snprintf(P->name, sizeof P->name, "CPU emulation (no GPU)");
  P->totalGlobalMem = 8ULL << 30;
  P->sharedMemPerBlock = 48 * 1024;
  P->sharedMemPerBlockOptin = 227 * 1024;
  P->sharedMemPerMultiprocessor = 48 * 1024;
  P->regsPerBlock = 65536;
  P->warpSize = 32;
  P->maxThreadsPerBlock = 1024;
  P->maxThreadsDim[0] = P->maxThreadsDim[1] = 1024;
  P->maxThreadsDim[2] = 64;
  P->maxGridSize[0] = 2147483647;
  P->maxGridSize[1] = P->maxGridSize[2] = 65535;
  P->maxThreadsPerMultiProcessor = 1024;
  P->totalConstMem = 64 * 1024;
  P->major = fs_emu::computeCapability() / 10;
  P->minor = fs_emu::computeCapability() % 10;
  P->multiProcessorCount = 1;
  P->l2CacheSize = 1 << 20;
  P->memoryBusWidth = 64;
  return cudaSuccess;
}
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
inline cudaError_t cudaDeviceGetAttribute(int *V, cudaDeviceAttr A,
                                          int Device) {
  if (Device != 0)
    return fs_emu::record(cudaErrorInvalidDevice);
  switch (A) {
  case cudaDevAttrMaxThreadsPerBlock: *V = 1024; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *V = 48 * 1024; break;
  case cudaDevAttrWarpSize: *V = 32; break;
  case cudaDevAttrMultiProcessorCount: *V = 1; break;
  case cudaDevAttrComputeCapabilityMajor: *V = fs_emu::computeCapability() / 10; break;
  case cudaDevAttrComputeCapabilityMinor: *V = fs_emu::computeCapability() % 10; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *V = 227 * 1024; break;
  default: return fs_emu::record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int Device) {
  return Device == 0 ? cudaSuccess : fs_emu::record(cudaErrorInvalidDevice);
}
inline cudaError_t cudaGetDevice(int *Device) { *Device = 0; return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int *Count) { *Count = 1; return cudaSuccess; }
inline cudaError_t cudaDriverGetVersion(int *V) { *V = 0; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int *V) { *V = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() {
  cudaError_t E = fs_emu::LastError;
  fs_emu::LastError = cudaSuccess;
  return E;
}
inline cudaError_t cudaPeekAtLastError() { return fs_emu::LastError; }

// The driver entry points a program may ask the runtime for: only
// cuMemGetAddressRange (which forgestencil/checks.h uses), over the
// emulated allocations. CUresult is an int, CUdeviceptr a 64-bit integer.
enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2
};
enum { cudaEnableDefault = 0 };
namespace fs_emu {
inline int memGetAddressRange(unsigned long long *Base, size_t *Size,
                              unsigned long long Ptr) {
  auto It = allocationBelow(static_cast<uintptr_t>(Ptr));
  if (It == Allocations.cend() ||
      Ptr >= It->first + std::max<size_t>(It->second, 1))
    return 1; // CUDA_ERROR_INVALID_VALUE
  if (Base)
    *Base = It->first;
  if (Size)
    *Size = It->second;
  return 0;
}
} // namespace fs_emu
inline cudaError_t
cudaGetDriverEntryPoint(const char *Symbol, void **Fn, unsigned long long,
                        cudaDriverEntryPointQueryResult *Status = nullptr) {
  const bool Known = std::strcmp(Symbol, "cuMemGetAddressRange") == 0;
  *Fn = Known ? reinterpret_cast<void *>(&fs_emu::memGetAddressRange)
              : nullptr;
  if (Status)
    *Status = Known ? cudaDriverEntryPointSuccess
                    : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
inline cudaError_t
cudaGetDriverEntryPointByVersion(const char *Symbol, void **Fn, unsigned,
                                 unsigned long long Flags,
                                 cudaDriverEntryPointQueryResult *Status) {
  return cudaGetDriverEntryPoint(Symbol, Fn, Flags, Status);
}

/// What a kernel's attributes say here: any block the emulation launches.
struct cudaFuncAttributes {
  int maxThreadsPerBlock = 1024;
  int numRegs = 0;
  size_t sharedSizeBytes = 0, localSizeBytes = 0, constSizeBytes = 0;
};
template <class F>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *A, F *) {
  *A = cudaFuncAttributes();
  return cudaSuccess;
}

inline cudaError_t cudaMalloc(void **P, size_t Bytes) {
  // Pages of its own between two guard regions: page-aligned (more than
  // the 256 bytes the CUDA allocator guarantees); never zeroed.
  const size_t Page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t Data = (std::max<size_t>(Bytes, 1) + Page - 1) / Page * Page;
  const size_t Length = fs_emu::GuardBytes + Data + fs_emu::GuardBytes;
  void *Base = mmap(nullptr, Length, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Base == MAP_FAILED)
    return fs_emu::record(cudaErrorMemoryAllocation);
  char *M = static_cast<char *>(Base) + fs_emu::GuardBytes;
  if (mprotect(M, Data, PROT_READ | PROT_WRITE) != 0) {
    munmap(Base, Length);
    return fs_emu::record(cudaErrorMemoryAllocation);
  }
  memset(M, 0xff, Bytes); // NaN in every float and double: not zeros
  if (__asan_unpoison_memory_region)
    __asan_unpoison_memory_region(M, Data);
  if (__asan_poison_memory_region && Data > Bytes)
    __asan_poison_memory_region(M + Bytes, Data - Bytes);
  fs_emu::Allocations[reinterpret_cast<uintptr_t>(M)] = Bytes;
  fs_emu::Mappings[reinterpret_cast<uintptr_t>(M)] = {Base, Length};
  *P = M;
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaMalloc(T **P, size_t Bytes) {
  return cudaMalloc(reinterpret_cast<void **>(P), Bytes);
}
inline cudaError_t cudaFree(void *P) {
  if (!P)
    return cudaSuccess;
  auto It = fs_emu::Allocations.find(reinterpret_cast<uintptr_t>(P));
  if (It == fs_emu::Allocations.end())
    return fs_emu::record(cudaErrorInvalidDevicePointer);
  fs_emu::Allocations.erase(It);
  auto Map = fs_emu::Mappings.find(reinterpret_cast<uintptr_t>(P));
  if (__asan_unpoison_memory_region)
    __asan_unpoison_memory_region(Map->second.Base, Map->second.Length);
  munmap(Map->second.Base, Map->second.Length);
  fs_emu::Mappings.erase(Map);
  return cudaSuccess;
}
inline cudaError_t cudaMallocHost(void **P, size_t Bytes) {
  *P = aligned_alloc(256, (std::max<size_t>(Bytes, 1) + 255) / 256 * 256);
  return *P ? cudaSuccess : fs_emu::record(cudaErrorMemoryAllocation);
}
template <class T> inline cudaError_t cudaMallocHost(T **P, size_t Bytes) {
  return cudaMallocHost(reinterpret_cast<void **>(P), Bytes);
}
inline cudaError_t cudaFreeHost(void *P) { free(P); return cudaSuccess; }

namespace fs_emu {
/// Checks that each side of a copy is device memory where Kind says so.
inline cudaError_t checkCopy(void *Dst, const void *Src, size_t Bytes,
                             cudaMemcpyKind Kind) {
  if (Kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  bool SrcDevice = Kind == cudaMemcpyDeviceToHost || Kind == cudaMemcpyDeviceToDevice;
  bool DstDevice = Kind == cudaMemcpyHostToDevice || Kind == cudaMemcpyDeviceToDevice;
  if ((SrcDevice && !isDevicePointer(Src, Bytes)) ||
      (DstDevice && !isDevicePointer(Dst, Bytes)))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}
} // namespace fs_emu

inline cudaError_t cudaMemcpyAsync(void *Dst, const void *Src, size_t Bytes,
                                   cudaMemcpyKind Kind, cudaStream_t S = 0) {
  if (cudaError_t E = fs_emu::checkCopy(Dst, Src, Bytes, Kind))
    return fs_emu::record(E);
  fs_emu::enqueue(S, [=] { memmove(Dst, Src, Bytes); });
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *Dst, const void *Src, size_t Bytes,
                              cudaMemcpyKind Kind) {
  return cudaMemcpyAsync(Dst, Src, Bytes, Kind, 0);
}
inline cudaError_t cudaMemsetAsync(void *Dst, int Value, size_t Bytes,
                                   cudaStream_t S = 0) {
  if (!fs_emu::isDevicePointer(Dst, Bytes))
    return fs_emu::record(cudaErrorInvalidValue);
  fs_emu::enqueue(S, [=] { memset(Dst, Value, Bytes); });
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *Dst, int Value, size_t Bytes) {
  return cudaMemsetAsync(Dst, Value, Bytes, 0);
}
/// A __constant__ or __device__ variable is a host variable here.
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T &Symbol, const void *Src, size_t Bytes,
                                      size_t Offset = 0,
                                      cudaMemcpyKind Kind = cudaMemcpyHostToDevice) {
  (void)Kind;
  if (Offset + Bytes > sizeof(T))
    return fs_emu::record(cudaErrorInvalidValue);
  memcpy(reinterpret_cast<char *>(&Symbol) + Offset, Src, Bytes);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(T &Symbol, const void *Src,
                                           size_t Bytes, size_t Offset = 0,
                                           cudaMemcpyKind Kind = cudaMemcpyHostToDevice,
                                           cudaStream_t S = 0) {
  (void)Kind;
  if (Offset + Bytes > sizeof(T))
    return fs_emu::record(cudaErrorInvalidValue);
  char *Dst = reinterpret_cast<char *>(&Symbol) + Offset;
  fs_emu::enqueue(S, [=] { memcpy(Dst, Src, Bytes); });
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *Dst, const T &Symbol, size_t Bytes,
                                        size_t Offset = 0,
                                        cudaMemcpyKind Kind = cudaMemcpyDeviceToHost) {
  (void)Kind;
  if (Offset + Bytes > sizeof(T))
    return fs_emu::record(cudaErrorInvalidValue);
  memcpy(Dst, reinterpret_cast<const char *>(&Symbol) + Offset, Bytes);
  return cudaSuccess;
}

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *S, unsigned Flags) {
  (void)Flags;
  *S = new CUstream_st;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t *S) {
  return cudaStreamCreateWithFlags(S, cudaStreamDefault);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t S) {
  delete S;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t S) {
  return S && S->Capturing ? fs_emu::record(cudaErrorStreamCaptureUnsupported)
                           : cudaSuccess;
}
inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t,
                                       unsigned = 0) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCapture(cudaStream_t S,
                                          cudaStreamCaptureMode Mode) {
  (void)Mode;
  if (!S || S->Capturing)
    return fs_emu::record(cudaErrorStreamCaptureUnsupported);
  S->Capturing = true;
  S->Invalidated = false;
  S->Recorded.clear();
  return cudaSuccess;
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t S, cudaGraph_t *G) {
  if (!S || !S->Capturing)
    return fs_emu::record(cudaErrorStreamCaptureUnmatched);
  S->Capturing = false;
  if (S->Invalidated) {
    *G = nullptr;
    S->Recorded.clear();
    return fs_emu::record(cudaErrorStreamCaptureInvalidated);
  }
  *G = new CUgraph_st{std::move(S->Recorded)};
  S->Recorded.clear();
  return cudaSuccess;
}
inline cudaError_t cudaStreamIsCapturing(cudaStream_t S,
                                         cudaStreamCaptureStatus *Status) {
  *Status = S && S->Capturing ? cudaStreamCaptureStatusActive
                              : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *E, cudaGraph_t G,
                                        unsigned long long Flags = 0) {
  (void)Flags;
  if (!G)
    return fs_emu::record(cudaErrorInvalidValue);
  *E = new CUgraphExec_st{G->Nodes};
  return cudaSuccess;
}
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t E, cudaStream_t S) {
  if (!E)
    return fs_emu::record(cudaErrorInvalidValue);
  for (const std::function<void()> &Node : E->Nodes)
    fs_emu::enqueue(S, Node);
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t E) { delete E; return cudaSuccess; }
inline cudaError_t cudaGraphDestroy(cudaGraph_t G) { delete G; return cudaSuccess; }

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *E, unsigned Flags) {
  (void)Flags;
  *E = new CUevent_st;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *E) {
  return cudaEventCreateWithFlags(E, cudaEventDefault);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t E) { delete E; return cudaSuccess; }
/// Work runs when it is enqueued, so the host clock at the point an event is
/// reached on its stream is when everything before it finished.
inline cudaError_t cudaEventRecord(cudaEvent_t E, cudaStream_t S = 0) {
  if (!E)
    return fs_emu::record(cudaErrorInvalidResourceHandle);
  fs_emu::enqueue(S, [E] {
    E->At = std::chrono::steady_clock::now();
    E->Recorded = true;
  });
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start,
                                        cudaEvent_t End) {
  if (!Start || !End || !Start->Recorded || !End->Recorded)
    return fs_emu::record(cudaErrorInvalidResourceHandle);
  *Ms = std::chrono::duration<float, std::milli>(End->At - Start->At).count();
  return cudaSuccess;
}

/// The dynamic shared memory a kernel may ask for (an H200's opt-in limit).
template <class F>
inline cudaError_t cudaFuncSetAttribute(F *Fn, cudaFuncAttribute A, int V) {
  if (A == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (V < 0 || V > 227 * 1024)
      return fs_emu::record(cudaErrorInvalidValue);
    fs_emu::maxDynamicShared()[(const void *)Fn] = static_cast<size_t>(V);
  }
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaFuncSetCacheConfig(F *, cudaFuncCache) {
  return cudaSuccess;
}

//===----------------------------------------------------------------------===//
// The runtime: defined in one unit only, the one that defines FS_EMU_RUNTIME
//===----------------------------------------------------------------------===//

#ifdef FS_EMU_RUNTIME
namespace fs_emu {

/// Switches from the running context to another: saves the callee-saved
/// registers on the current stack and its pointer in *From, then resumes the
/// stack To. A plain function call to the compiler, so every other register
/// is saved by the caller. swapcontext would do, but it also saves and
/// restores the signal mask with a system call at every switch, which made
/// kernels with barriers ten times slower.
extern "C" void fs_emu_switch(void **From, void *To);

#if defined(__x86_64__)
__asm__(R"(
  .text
  .globl fs_emu_switch
  .type fs_emu_switch, @function
fs_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size fs_emu_switch, .-fs_emu_switch
)");
#else
#error "the CPU emulation switches fibers with x86-64 code only"
#endif

/// The fibers of one block of a kernel with barriers.
struct FiberBlock {
  enum State : unsigned char { Ready, Waiting, Done };
  void *Scheduler = nullptr;
  std::vector<void *> Stacks; ///< each fiber's saved stack pointer
  std::vector<State> States;
  std::vector<uint3> Indices;
  void (*Body)(const void *) = nullptr; ///< runs the thread...
  const void *Context = nullptr;        ///< ...of this launch
  unsigned Current = 0;
};
inline FiberBlock *CurrentBlock = nullptr;

/// Stacks for up to 1024 fibers, each below a guard page, made once.
class FiberStacks {
public:
  static constexpr size_t Size = 256 * 1024;
  /// The highest address of stack I, 16-byte aligned.
  char *top(unsigned I) {
    while (Stacks.size() <= I) {
      size_t Page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      void *M = mmap(nullptr, Size + Page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (M == MAP_FAILED)
        fault("cannot map a fiber stack");
      mprotect(M, Page, PROT_NONE);
      Stacks.push_back(static_cast<char *>(M) + Page + Size);
    }
    return Stacks[I];
  }

private:
  std::vector<char *> Stacks;
};
inline FiberStacks Stacks;

/// Where a fiber starts: runs the thread, then hands back to the scheduler
/// for good.
[[noreturn]] void fiberMain() {
  FiberBlock &B = *CurrentBlock;
  B.Body(B.Context);
  B.States[B.Current] = FiberBlock::Done;
  void *Finished;
  fs_emu_switch(&Finished, B.Scheduler);
  __builtin_unreachable();
}

/// A fresh stack laid out as fs_emu_switch leaves one: control and status
/// words, six callee-saved registers, then fiberMain as the return address,
/// placed so that fiberMain starts with the alignment a call gives.
void *freshStack(char *Top) {
  uint64_t *SP = reinterpret_cast<uint64_t *>(Top);
  *--SP = 0; // fiberMain's own return address: it never returns
  *--SP = reinterpret_cast<uint64_t>(&fiberMain);
  for (int R = 0; R < 6; ++R)
    *--SP = 0;
  *--SP = 0x037FULL << 32 | 0x1F80; // x87 control word, MXCSR: the defaults
  return SP;
}

/// Runs one block's threads as fibers: every round resumes each unfinished
/// thread until it reaches the next barrier or ends, so no thread passes a
/// barrier before all the others have reached it. A thread that has ended
/// no longer holds the others back, as on the GPU.
void runBlockAsFibers(dim3 Block, void (*Body)(const void *),
                             const void *Context) {
  FiberBlock B;
  const unsigned N = Block.x * Block.y * Block.z;
  B.Stacks.resize(N);
  B.States.assign(N, FiberBlock::Ready);
  B.Indices.resize(N);
  B.Body = Body;
  B.Context = Context;
  unsigned T = 0;
  for (unsigned Z = 0; Z < Block.z; ++Z)
    for (unsigned Y = 0; Y < Block.y; ++Y)
      for (unsigned X = 0; X < Block.x; ++X, ++T) {
        B.Indices[T] = uint3{X, Y, Z};
        B.Stacks[T] = freshStack(Stacks.top(T));
      }
  FiberBlock *Outer = CurrentBlock;
  CurrentBlock = &B;
  for (bool Any = true; Any;) {
    Any = false;
    for (unsigned I = 0; I < N; ++I) {
      if (B.States[I] == FiberBlock::Done)
        continue;
      Any = true;
      B.Current = I;
      B.States[I] = FiberBlock::Ready;
      threadIdx = B.Indices[I];
      fs_emu_switch(&B.Scheduler, B.Stacks[I]);
    }
  }
  CurrentBlock = Outer;
}

void runGrid(const FsEmuKernel &K, dim3 Grid, dim3 Block, size_t Shmem,
             ThreadBody Body) {
  const FsEmuKernel *Outer = Running;
  Running = &K;
  gridDim = Grid;
  blockDim = Block;
  DynamicShared.assign(Shmem, 0xff);
  for (unsigned BZ = 0; BZ < Grid.z; ++BZ)
    for (unsigned BY = 0; BY < Grid.y; ++BY)
      for (unsigned BX = 0; BX < Grid.x; ++BX) {
        blockIdx = uint3{BX, BY, BZ};
        if (K.Barriers) {
          runBlockAsFibers(Block, Body.Run, Body.Context);
          continue;
        }
        for (unsigned TZ = 0; TZ < Block.z; ++TZ)
          for (unsigned TY = 0; TY < Block.y; ++TY)
            for (unsigned TX = 0; TX < Block.x; ++TX) {
              threadIdx = uint3{TX, TY, TZ};
              Body.Run(Body.Context);
            }
      }
  Running = Outer;
}

void recordGrid(cudaStream_t Stream, const FsEmuKernel &K, dim3 Grid,
                dim3 Block, size_t Shmem, ThreadBody Body,
                void (*Destroy)(void *)) {
  std::shared_ptr<void> Copy(const_cast<void *>(Body.Context), Destroy);
  Stream->Recorded.push_back([K, Grid, Block, Shmem, Body, Copy] {
    runGrid(K, Grid, Block, Shmem, Body);
  });
}

void barrier() {
  FiberBlock *B = CurrentBlock;
  if (!B)
    fault("__syncthreads in a kernel that the emulation runs thread by "
          "thread (the script found no barrier in its source)");
  B->States[B->Current] = FiberBlock::Waiting;
  fs_emu_switch(&B->Stacks[B->Current], B->Scheduler);
  threadIdx = B->Indices[B->Current];
}

} // namespace fs_emu
#endif // FS_EMU_RUNTIME

#endif // FORGESTENCIL_CUDA_HOST_SHIM_H
