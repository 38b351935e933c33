/*===- analysis-prelude.h - What clang needs to read old CUDA code ---------===*
 *
 * fs-rewrite passes this header with -include to its own clang parses of a
 * CUDA translation unit, and to nothing else: the patches it writes never
 * include or depend on it, and the app's own build never sees it.
 *
 * Part 1 lets clang's CUDA front end parse the toolkit's headers as nvcc
 * would see them. Part 2 declares APIs that CUDA has removed, so that code
 * written against an older toolkit (which nvcc 13 rejects as well) still
 * parses for analysis. Declarations only: nothing here is ever run or
 * linked. fs-rewrite -v names the declarations of part 2 a TU used.
 *
 * The text is built into fs-rewrite (lib/Driver/CMakeLists.txt), so a fresh
 * install or a relocated binary always has it.
 *===----------------------------------------------------------------------===*/

#ifndef FORGESTENCIL_ANALYSIS_PRELUDE_H
#define FORGESTENCIL_ANALYSIS_PRELUDE_H

/*===--- Part 1: CUDA 13 headers under clang -------------------------------===*
 * fs-rewrite defines __NVCC__ for apps built by nvcc, because their own
 * #ifdef __NVCC__ code is what runs. CCCL (libcu++, CUB, Thrust) and
 * <nv/target> read __NVCC__ as "the CUDA compiler is nvcc" and then declare
 * things the way nvcc needs them, e.g. a __host__ __device__ __assert_fail
 * under NDEBUG that clang's own __device__ __assert_fail cannot overload.
 * Both headers decide once (include guards): let them decide while
 * __NVCC__ is hidden, so that they configure themselves for clang.
 */
#pragma push_macro("__NVCC__")
#undef __NVCC__
#if defined(__CUDA__) && defined(__has_include)
#if __has_include(<cuda/std/__cccl/compiler.h>)
#include <cuda/std/__cccl/compiler.h>
#endif
#if __has_include(<nv/target>)
#include <nv/target>
#endif
#endif
#pragma pop_macro("__NVCC__")

/* nvcc's host code can call min() and max() on integers and on floating
 * point (crt/math_functions.hpp defines them for nvcc's host compiler);
 * clang's CUDA headers declare them for device code only. */
#if defined(__CUDA__) && defined(__cplusplus)
__host__ int min(int a, int b);
__host__ unsigned int umin(unsigned int a, unsigned int b);
__host__ long long int llmin(long long int a, long long int b);
__host__ unsigned long long int ullmin(unsigned long long int a,
                                       unsigned long long int b);
__host__ int max(int a, int b);
__host__ unsigned int umax(unsigned int a, unsigned int b);
__host__ long long int llmax(long long int a, long long int b);
__host__ unsigned long long int ullmax(unsigned long long int a,
                                       unsigned long long int b);
#define __FS_HOST_MINMAX(F)                                                    \
  __host__ unsigned int F(unsigned int a, unsigned int b);                     \
  __host__ unsigned int F(int a, unsigned int b);                              \
  __host__ unsigned int F(unsigned int a, int b);                              \
  __host__ long int F(long int a, long int b);                                 \
  __host__ unsigned long int F(unsigned long int a, unsigned long int b);      \
  __host__ unsigned long int F(long int a, unsigned long int b);               \
  __host__ unsigned long int F(unsigned long int a, long int b);               \
  __host__ long long int F(long long int a, long long int b);                  \
  __host__ unsigned long long int F(unsigned long long int a,                  \
                                    unsigned long long int b);                 \
  __host__ unsigned long long int F(long long int a,                           \
                                    unsigned long long int b);                 \
  __host__ unsigned long long int F(unsigned long long int a,                  \
                                    long long int b);                          \
  __host__ float F(float a, float b);                                          \
  __host__ double F(double a, double b);                                       \
  __host__ double F(float a, double b);                                        \
  __host__ double F(double a, float b);
__FS_HOST_MINMAX(min)
__FS_HOST_MINMAX(max)
#undef __FS_HOST_MINMAX
#endif

/*===--- Part 2: APIs CUDA removed -----------------------------------------===*
 * Each group is guarded by the toolkit version that removed it, so that a
 * toolkit that still declares an API keeps its own declaration.
 */
#if defined(__CUDA__) && defined(__cplusplus) && defined(CUDART_VERSION)

/* Removed in CUDA 13.0 (deprecated since CUDA 4.0): the cudaThread* calls,
 * renamed cudaDevice*. */
#if CUDART_VERSION >= 13000
extern "C" {
extern __host__ cudaError_t cudaThreadSynchronize(void);
extern __host__ cudaError_t cudaThreadExit(void);
extern __host__ cudaError_t cudaThreadSetLimit(enum cudaLimit limit,
                                               size_t value);
extern __host__ cudaError_t cudaThreadGetLimit(size_t *pValue,
                                               enum cudaLimit limit);
extern __host__ cudaError_t
cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig);
extern __host__ cudaError_t
cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig);
extern __host__ cudaError_t cudaSetDoubleForDevice(double *d);
extern __host__ cudaError_t cudaSetDoubleForHost(double *d);
}

/* CUDA 13.0 takes a cudaMemLocation (and flags) where these took a device
 * number. */
__host__ cudaError_t
cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                     cudaStream_t stream = 0);
__host__ cudaError_t cudaMemAdvise(const void *devPtr,
                                                     size_t count,
                                                     enum cudaMemoryAdvise advice,
                                                     int device);

/* cudaDeviceProp fields that CUDA 13.0 removed (cudaDeviceGetAttribute
 * gives most of them). The struct cannot grow, so user code sees a struct
 * derived from it that has them; cudaGetDeviceProperties takes it as the
 * base it is. */
struct __fs_cudaDeviceProp : public ::cudaDeviceProp {
  /* Constructors keep "cudaDeviceProp p = {0};" meaning what it did. */
  __host__ __device__ __fs_cudaDeviceProp();
  __host__ __device__ __fs_cudaDeviceProp(int);
  int clockRate;
  int deviceOverlap;
  int kernelExecTimeoutEnabled;
  int computeMode;
  int maxTexture1DLinear;
  int memoryClockRate;
  int singleToDoublePrecisionPerfRatio;
  int cooperativeMultiDeviceLaunch;
};
#define cudaDeviceProp __fs_cudaDeviceProp

/* Multi-device cooperative launches, removed in CUDA 13.0. */
struct cudaLaunchParams {
  void *func;
  dim3 gridDim;
  dim3 blockDim;
  void **args;
  size_t sharedMem;
  cudaStream_t stream;
};
extern "C" __host__ cudaError_t
cudaLaunchCooperativeKernelMultiDevice(struct cudaLaunchParams *launchParamsList,
                                       unsigned int numDevices,
                                       unsigned int flags = 0);

/* Graph calls that CUDA 12.0/13.0 changed: their older forms. */
__host__ cudaError_t
cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                     cudaGraphNode_t *pErrorNode, char *pLogBuffer,
                     size_t bufferSize);
__host__ cudaError_t cudaGraphGetEdges(cudaGraph_t graph,
                                                         cudaGraphNode_t *from,
                                                         cudaGraphNode_t *to,
                                                         size_t *numEdges);
__host__ cudaError_t
cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                             cudaGraphNode_t *pDependencies,
                             size_t *pNumDependencies);
__host__ cudaError_t
cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                               cudaGraphNode_t *pDependentNodes,
                               size_t *pNumDependentNodes);
__host__ cudaError_t
cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                         const cudaGraphNode_t *to, size_t numDependencies);
__host__ cudaError_t
cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                            const cudaGraphNode_t *to, size_t numDependencies);
#endif /* CUDART_VERSION >= 13000 */

/* Removed in CUDA 12.0: texture and surface references (texture objects
 * replace them) and the profiler's initialisation call. */
#if CUDART_VERSION >= 12000
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};

struct surfaceReference {
  struct cudaChannelFormatDesc channelDesc;
};

/* clang treats a variable of a type marked device_builtin_texture_type
 * (surface_type) as a texture (surface) reference that device code may
 * read, as nvcc does. */
template <class T, int texType = cudaTextureType1D,
          enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture
    : public textureReference {
  __host__ texture(int norm = 0,
                   enum cudaTextureFilterMode fMode = cudaFilterModePoint,
                   enum cudaTextureAddressMode aMode = cudaAddressModeClamp);
  __host__ texture(int norm, enum cudaTextureFilterMode fMode,
                   enum cudaTextureAddressMode aMode,
                   struct cudaChannelFormatDesc desc);
};

template <class T, int dim = 1>
struct __attribute__((device_builtin_surface_type)) surface
    : public surfaceReference {
  __host__ surface();
  __host__ surface(struct cudaChannelFormatDesc desc);
};

/* What a fetch returns: the element, or float for normalised reads. */
template <class T, enum cudaTextureReadMode mode> struct __fs_texel {
  typedef T type;
};
template <class T> struct __fs_texel<T, cudaReadModeNormalizedFloat> {
  typedef float type;
};

template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex1Dfetch(texture<T, texType, mode> t, int x);
template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex1D(texture<T, texType, mode> t, float x);
template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex2D(texture<T, texType, mode> t, float x, float y);
template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex3D(texture<T, texType, mode> t, float x, float y, float z);
template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex1DLayered(texture<T, texType, mode> t, float x, int layer);
template <class T, int texType, enum cudaTextureReadMode mode>
__device__ typename __fs_texel<T, mode>::type
tex2DLayered(texture<T, texType, mode> t, float x, float y, int layer);

extern "C" {
extern __host__ cudaError_t
cudaBindTexture(size_t *offset, const struct textureReference *texref,
                const void *devPtr, const struct cudaChannelFormatDesc *desc,
                size_t size = ~(size_t)0);
extern __host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct textureReference *texref,
                  const void *devPtr, const struct cudaChannelFormatDesc *desc,
                  size_t width, size_t height, size_t pitch);
extern __host__ cudaError_t
cudaBindTextureToArray(const struct textureReference *texref,
                       cudaArray_const_t array,
                       const struct cudaChannelFormatDesc *desc);
extern __host__ cudaError_t
cudaUnbindTexture(const struct textureReference *texref);
extern __host__ cudaError_t
cudaGetTextureAlignmentOffset(size_t *offset,
                              const struct textureReference *texref);
extern __host__ cudaError_t
cudaGetTextureReference(const struct textureReference **texref,
                        const void *symbol);
extern __host__ cudaError_t
cudaBindSurfaceToArray(const struct surfaceReference *surfref,
                       cudaArray_const_t array,
                       const struct cudaChannelFormatDesc *desc);
extern __host__ cudaError_t
cudaGetSurfaceReference(const struct surfaceReference **surfref,
                        const void *symbol);
}

/* The C++ forms that took the texture or surface itself. */
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTexture(size_t *offset, const struct texture<T, dim, mode> &tex,
                const void *devPtr, size_t size = ~(size_t)0);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTexture(size_t *offset, const struct texture<T, dim, mode> &tex,
                const void *devPtr, const struct cudaChannelFormatDesc &desc,
                size_t size = ~(size_t)0);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, mode> &tex,
                  const void *devPtr, size_t width, size_t height,
                  size_t pitch);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, mode> &tex,
                  const void *devPtr, const struct cudaChannelFormatDesc &desc,
                  size_t width, size_t height, size_t pitch);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, mode> &tex,
                       cudaArray_const_t array);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, mode> &tex,
                       cudaArray_const_t array,
                       const struct cudaChannelFormatDesc &desc);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ cudaError_t
cudaUnbindTexture(const struct texture<T, dim, mode> &tex);
template <class T, int dim>
__host__ cudaError_t
cudaBindSurfaceToArray(const struct surface<T, dim> &surf,
                       cudaArray_const_t array);

/* The profiler's initialisation call (cuda_profiler_api.h). */
enum cudaOutputMode { cudaKeyValuePair = 0x00, cudaCSV = 0x01 };
typedef enum cudaOutputMode cudaOutputMode_t;
extern "C" __host__ cudaError_t cudaProfilerInitialize(const char *configFile,
                                                      const char *outputFile,
                                                      cudaOutputMode_t outputMode);
#endif /* CUDART_VERSION >= 12000 */

/* Removed in CUDA 10.1 and 11.0: the launch calls behind the first
 * <<< >>> implementation. */
#if CUDART_VERSION >= 11000
extern "C" {
extern __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,
                                              size_t sharedMem = 0,
                                              cudaStream_t stream = 0);
extern __host__ cudaError_t cudaSetupArgument(const void *arg, size_t size,
                                              size_t offset);
extern __host__ cudaError_t cudaLaunch(const void *func);
}
template <class T>
__host__ cudaError_t cudaLaunch(T *func);
template <class T>
__host__ cudaError_t cudaSetupArgument(T arg, size_t offset);
#endif /* CUDART_VERSION >= 11000 */

#endif /* __CUDA__ && __cplusplus && CUDART_VERSION */

#endif /* FORGESTENCIL_ANALYSIS_PRELUDE_H */
