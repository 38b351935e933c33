//===- CandidateScreenTest.cpp - The static screen for candidate code ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/CandidateScreen.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;

namespace {

/// A clean, realistic candidate: a 2D 5-point heat stencil with a shared
/// memory tile, launched on the given stream.
const char *CleanCandidate = R"cuda(#include <cuda_runtime.h>
#include <cstdint>

namespace {
constexpr int TileX = 32;
constexpr int TileY = 8;
__constant__ float Weights[2] = {0.6f, 0.1f};

__device__ __forceinline__ int clampIndex(int i, int n) {
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

__global__ void __launch_bounds__(TileX * TileY)
heat_tiled(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  __shared__ float tile[TileY + 2][TileX + 2];
  const int x = blockIdx.x * TileX + threadIdx.x;
  const int y = blockIdx.y * TileY + threadIdx.y;
  const int half = 1; // a variable, not the type
  tile[threadIdx.y + half][threadIdx.x + half] =
      in[clampIndex(y, ny) * nx + clampIndex(x, nx)];
  __syncthreads();
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
    return;
  float c = tile[threadIdx.y + 1][threadIdx.x + 1];
  out[y * nx + x] = Weights[0] * c + Weights[1] * (in[y * nx + x - 1] +
                    in[y * nx + x + 1] + in[(y - 1) * nx + x] + in[(y + 1) * nx + x]);
}
} // namespace

void fs_launch_heat(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                    const float *in, float *out, int nx, int ny) {
  static_assert(TileX % 32 == 0, "warp multiple");
  dim3 tiles((nx + TileX - 1) / TileX, (ny + TileY - 1) / TileY);
  heat_tiled<<<tiles, dim3(TileX, TileY), 0, stream>>>(in, out, nx, ny);
}
)cuda";

std::vector<ScreenFinding> screenFloat(const std::string &Code) {
  return screenCandidate(Code, ScreenOptions{"float"});
}

/// Findings of \p Category in \p Code, which is wrapped in a function.
std::vector<ScreenFinding> findingsOf(const std::string &Code, ScreenCategory Category) {
  std::vector<ScreenFinding> Selected;
  for (const ScreenFinding &F : screenFloat(Code))
    if (F.Category == Category)
      Selected.push_back(F);
  return Selected;
}

TEST(CandidateScreenTest, CleanStencilIsAccepted) {
  std::vector<ScreenFinding> Findings = screenFloat(CleanCandidate);
  EXPECT_TRUE(Findings.empty()) << formatScreenFindings(Findings);
  EXPECT_FALSE(screenRefuses(Findings));
}

TEST(CandidateScreenTest, CommentsAndStringsDoNotTrigger) {
  std::string Code = R"(
// clock64(), cudaEventRecord, malloc, fopen, asm, atomicAdd, __half
/* cudaDeviceSynchronize(); std::chrono::steady_clock; getenv("HOME");
   __device__ int counter; #include <fstream> */
__global__ void k(float *out) {
  const char *note = "clock() malloc(4) system(\"rm\") asm cudaStreamCreate";
  const char c = '"';
  const char *raw = R"x(fopen("f") // not a comment
  cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost))x";
  out[0] = 1'000.0f; // digit separator, then a comment with new int[3]
}
)";
  std::vector<ScreenFinding> Findings = screenFloat(Code);
  EXPECT_TRUE(Findings.empty()) << formatScreenFindings(Findings);
}

struct CategoryCase {
  const char *Code;
  ScreenCategory Category;
  unsigned Line;
};

class ForbiddenUseTest : public ::testing::TestWithParam<CategoryCase> {};

TEST_P(ForbiddenUseTest, IsRefusedWithItsLine) {
  const CategoryCase &Case = GetParam();
  std::vector<ScreenFinding> Findings = findingsOf(Case.Code, Case.Category);
  ASSERT_FALSE(Findings.empty())
      << "no " << screenCategoryName(Case.Category) << " finding in:\n"
      << Case.Code << "\nall findings:\n"
      << formatScreenFindings(screenFloat(Case.Code));
  EXPECT_EQ(Findings[0].Line, Case.Line) << formatScreenFindings(Findings);
}

INSTANTIATE_TEST_SUITE_P(
    Timing, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"__global__ void k(long long *t) {\n  t[0] = clock64();\n}",
                     ScreenCategory::Timing, 2},
        CategoryCase{"__global__ void k(long *t) { t[0] = clock(); }",
                     ScreenCategory::Timing, 1},
        CategoryCase{"void l() {\n cudaEvent_t e;\n cudaEventCreate(&e);\n}",
                     ScreenCategory::Timing, 2},
        CategoryCase{"#include <chrono>\nvoid l() {}", ScreenCategory::Timing, 1},
        CategoryCase{"void l() {\n\n auto t = std::chrono::steady_clock::now();\n}",
                     ScreenCategory::Timing, 3},
        CategoryCase{"void l() { timeval tv; gettimeofday(&tv, 0); }",
                     ScreenCategory::Timing, 1},
        CategoryCase{"void l() { long t = time(nullptr); }", ScreenCategory::Timing, 1}));

INSTANTIATE_TEST_SUITE_P(
    Streams, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"void l() {\n cudaStream_t s2;\n cudaStreamCreate(&s2);\n}",
                     ScreenCategory::Stream, 3},
        CategoryCase{"void l(cudaStream_t s) { cudaStreamSynchronize(s); }",
                     ScreenCategory::Stream, 1},
        CategoryCase{"void l() {\n cudaDeviceSynchronize();\n}", ScreenCategory::Stream, 2},
        CategoryCase{"void l(float *d, float *h, size_t n) {\n\n cudaMemcpy(h, d, n, "
                     "cudaMemcpyDeviceToHost);\n}",
                     ScreenCategory::Stream, 3},
        CategoryCase{"void l(float *d, float *h, size_t n, cudaStream_t s) {\n "
                     "cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s);\n}",
                     ScreenCategory::Stream, 2},
        CategoryCase{"void l(dim3 g, dim3 b) { k<<<g, b, 0, cudaStreamPerThread>>>(); }",
                     ScreenCategory::Stream, 1},
        CategoryCase{"void l(dim3 g, dim3 b) {\n k<<<g, b>>>(p);\n}",
                     ScreenCategory::Stream, 2},
        CategoryCase{"void l(dim3 g, dim3 b) {\n k<<<g, b, 0, 0>>>(p);\n}",
                     ScreenCategory::Stream, 2},
        CategoryCase{"void l() { cudaStreamLegacy; }", ScreenCategory::Stream, 1}));

INSTANTIATE_TEST_SUITE_P(
    Memory, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"void l() { float *p = (float *)malloc(16); }",
                     ScreenCategory::HostMemory, 1},
        CategoryCase{"void l() {\n float *p = new float[4];\n}", ScreenCategory::HostMemory,
                     2},
        CategoryCase{"void l() { float *p; cudaMallocHost(&p, 4); }",
                     ScreenCategory::HostMemory, 1},
        CategoryCase{"void l() { float *p; cudaHostAlloc(&p, 4, 0); }",
                     ScreenCategory::HostMemory, 1},
        CategoryCase{"void l() { float *p; cudaMallocManaged(&p, 4); }",
                     ScreenCategory::HostMemory, 1},
        CategoryCase{"void l() {\n float *scratch;\n cudaMalloc(&scratch, 64);\n}",
                     ScreenCategory::HostMemory, 3},
        CategoryCase{"void l() { std::vector<float> v(8); }", ScreenCategory::HostMemory,
                     1}));

INSTANTIATE_TEST_SUITE_P(
    SystemAccess, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"void l() { FILE *f = fopen(\"x\", \"w\"); }",
                     ScreenCategory::FileEnvProcess, 1},
        CategoryCase{"void l() {\n std::ofstream out(\"log\");\n}",
                     ScreenCategory::FileEnvProcess, 2},
        CategoryCase{"#include <fstream>\n", ScreenCategory::FileEnvProcess, 1},
        CategoryCase{"#include <cstdlib>\n", ScreenCategory::FileEnvProcess, 1},
        CategoryCase{"void l() { const char *v = getenv(\"USE_OURS\"); }",
                     ScreenCategory::FileEnvProcess, 1},
        CategoryCase{"void l() { system(\"nvidia-smi\"); }", ScreenCategory::FileEnvProcess,
                     1},
        CategoryCase{"void l() { popen(\"ls\", \"r\"); }", ScreenCategory::FileEnvProcess, 1},
        CategoryCase{"void l() { execvp(\"sh\", 0); }", ScreenCategory::FileEnvProcess, 1}));

INSTANTIATE_TEST_SUITE_P(
    AsmStateAtomicsPrecision, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"__global__ void k(unsigned long long *t) {\n asm volatile(\"mov.u64 "
                     "%0, %%globaltimer;\" : \"=l\"(t[0]));\n}",
                     ScreenCategory::InlineAsm, 2},
        CategoryCase{"__device__ float cached[1024];\n__global__ void k() {}",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"\n__device__ int calls = 0;", ScreenCategory::PersistentState, 2},
        CategoryCase{"void l() {\n static bool done = false;\n}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"__managed__ float m;", ScreenCategory::PersistentState, 1},
        CategoryCase{"__global__ void k(float *o) {\n atomicAdd(o, 1.0f);\n}",
                     ScreenCategory::Atomic, 2},
        CategoryCase{"__global__ void k(__half *o) {}", ScreenCategory::Precision, 1},
        CategoryCase{"__global__ void k(float *o) {\n half h = __float2half(o[0]);\n}",
                     ScreenCategory::Precision, 2},
        CategoryCase{"__global__ void k(__nv_bfloat16 *o) {}", ScreenCategory::Precision,
                     1},
        CategoryCase{"#include <cuda_fp16.h>\n", ScreenCategory::Precision, 1},
        CategoryCase{"#include \"../../secret.h\"\n", ScreenCategory::Include, 1},
        CategoryCase{"#include <curl/curl.h>\n", ScreenCategory::Include, 1},
        CategoryCase{"#define CAT(a, b) a##b\n", ScreenCategory::Preprocessor, 1}));

/// Module state of every kind: a candidate that remembers anything between
/// calls can be honest while checked and idle while timed.
INSTANTIATE_TEST_SUITE_P(
    ModuleState, ForbiddenUseTest,
    ::testing::Values(
        CategoryCase{"#include <cstdint>\nunsigned long long calls = 0;\nvoid l() {}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"int calls;", ScreenCategory::PersistentState, 1},
        CategoryCase{"unsigned calls, more;", ScreenCategory::PersistentState, 1},
        CategoryCase{"namespace {\nnamespace inner {\nint seen{0};\n}\n}",
                     ScreenCategory::PersistentState, 3},
        CategoryCase{"const float *last_out = nullptr;",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"cudaStream_t mine;", ScreenCategory::PersistentState, 1},
        CategoryCase{"void (*hook)(int) = nullptr;", ScreenCategory::PersistentState, 1},
        CategoryCase{"dim3 saved(1, 1);", ScreenCategory::PersistentState, 1},
        CategoryCase{"struct {\n  int calls;\n} state;",
                     ScreenCategory::PersistentState, 3},
        CategoryCase{"struct Memo { int calls; };\nstruct Memo memo;",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"struct Memo { static int calls; };\nint Memo::calls = 0;",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"struct Memo {\n  static inline int calls = 0;\n};",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"template <int N> int counter = 0;",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"thread_local int calls = 0;", ScreenCategory::PersistentState, 1},
        CategoryCase{"void l() {\n  thread_local int calls;\n}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"void l() {\n  static int calls{0};\n}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"void l() {\n  static int calls(0);\n}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"void l(int n) {\n  if (n) {\n    for (;;) {\n      static "
                     "unsigned c;\n    }\n  }\n}",
                     ScreenCategory::PersistentState, 4},
        CategoryCase{"void l() {\n  extern int app_counter;\n}",
                     ScreenCategory::PersistentState, 2},
        CategoryCase{"extern float *app_field;", ScreenCategory::PersistentState, 1},
        CategoryCase{"__device__ unsigned launches;", ScreenCategory::PersistentState, 1},
        CategoryCase{"__device__ __align__(8) unsigned long long launches[2];",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"enum Mode { Honest, Idle } mode = Honest;",
                     ScreenCategory::PersistentState, 1},
        CategoryCase{"extern \"C\" {\nint calls;\n}", ScreenCategory::PersistentState,
                     2}));

TEST(CandidateScreenTest, DeclarationsThatHoldNoStateAreFine) {
  std::string Code = R"(#include <cuda_runtime.h>
#define TILE 32
#define DECLARE_NOTHING(x) \
  { x; }
namespace fs {
constexpr int Radius = 4;
const float Half = 0.5f;
const char *const Names[] = {"a", "b"};
static const int Table[3] = {1, 2, 3};
__constant__ float Coef[5];
extern __shared__ float Smem[];
struct Params { int nx, ny; float c[4]; };
struct Params;
enum class Axis : int { X, Y, Z };
using Vec = float4;
typedef struct { int a; } Pair;
template <int R> struct Taps { static constexpr int N = 2 * R + 1; };
template <int R> __device__ __forceinline__ float tap(const float *p) { return p[R]; }
__device__ float helper(float);
__global__ void kern(const float *__restrict__ in, float *__restrict__ out, int n);
__global__ void __launch_bounds__(256) kern2(float *out) {
  __shared__ float tile[TILE];
  int i = threadIdx.x;
  static_assert(TILE % 32 == 0, "warp multiple");
  for (int k = 0; k < 4; ++k) { float v = out[k]; tile[i] = v; }
  if (i == 0) { out[0] = tile[0]; } else { out[1] = static_cast<float>(i); }
  switch (i) { case 0: out[2] = 1; break; default: break; }
  auto f = [&](int j) { return tile[j]; };
  out[3] = f(0);
}
void launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, float *out) {
  const dim3 tiles(grid.x, 1);
  Params p{1, 2, {0, 0, 0, 0}};
  kern2<<<tiles, block, shmem, stream>>>(out);
}
float4 operator+(float4 a, float4 b);
} // namespace fs
)";
  std::vector<ScreenFinding> Findings = screenFloat(Code);
  EXPECT_TRUE(Findings.empty()) << formatScreenFindings(Findings);
}

TEST(CandidateScreenTest, StateFindingsNameTheVariable) {
  std::vector<ScreenFinding> Findings =
      screenFloat("int calls = 0;\nvoid l() {\n  static int n{0};\n}\n"
                  "thread_local int t;\nstruct { int c; } s;");
  std::string Text = formatScreenFindings(Findings);
  EXPECT_NE(Text.find("line 1: `namespace-scope variable `calls``"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("line 3: `function-local static `n``"), std::string::npos) << Text;
  EXPECT_NE(Text.find("line 5: `thread_local variable `t``"), std::string::npos) << Text;
  EXPECT_NE(Text.find("line 6: `namespace-scope variable `s``"), std::string::npos)
      << Text;
  EXPECT_TRUE(screenRefuses(Findings));
}

TEST(CandidateScreenTest, AtomicsAreSuspiciousNotRefused) {
  std::vector<ScreenFinding> Findings =
      screenFloat("__global__ void k(float *o) { atomicAdd(o, 1.0f); }");
  ASSERT_EQ(Findings.size(), 1u);
  EXPECT_EQ(Findings[0].Severity, ScreenSeverity::Suspicious);
  EXPECT_FALSE(screenRefuses(Findings));
}

TEST(CandidateScreenTest, HalfTypesAreAllowedForAHalfStencil) {
  std::string Code = "#include <cuda_fp16.h>\n__global__ void k(__half *o) { o[0] = "
                     "__float2half(1.0f); }";
  EXPECT_TRUE(screenCandidate(Code, ScreenOptions{"half"}).empty());
  EXPECT_TRUE(screenRefuses(screenCandidate(Code, ScreenOptions{"double"})));
}

TEST(CandidateScreenTest, DeviceFunctionsConstantsAndSharedAreNotState) {
  std::string Code = "__device__ float f(float x) { return x; }\n"
                     "__device__ const float Scale = 2.0f;\n"
                     "__constant__ float C[3];\n"
                     "static __global__ void k() { __shared__ float s[32]; "
                     "static __shared__ float t[32]; }\n"
                     "static inline void helper() {}\n"
                     "auto lambda = [] __device__ (int i) { return i; };\n";
  std::vector<ScreenFinding> Findings = screenFloat(Code);
  EXPECT_TRUE(Findings.empty()) << formatScreenFindings(Findings);
}

TEST(CandidateScreenTest, MembersNamedLikeForbiddenFunctionsAreFine) {
  std::vector<ScreenFinding> Findings = screenFloat(
      "__global__ void k(float *o) { cooperative_groups::this_grid().sync(); "
      "auto t = cg.clock; }");
  EXPECT_TRUE(Findings.empty()) << formatScreenFindings(Findings);
}

TEST(CandidateScreenTest, FindingsAreOrderedAndFormatted) {
  std::vector<ScreenFinding> Findings = screenFloat(
      "#include <chrono>\nvoid l() {\n  cudaDeviceSynchronize();\n  malloc(4);\n}");
  ASSERT_EQ(Findings.size(), 3u);
  EXPECT_EQ(Findings[0].Line, 1u);
  EXPECT_EQ(Findings[1].Line, 3u);
  EXPECT_EQ(Findings[2].Line, 4u);
  std::string Text = formatScreenFindings(Findings);
  EXPECT_NE(Text.find("line 3: `cudaDeviceSynchronize` (stream)"), std::string::npos)
      << Text;
}

} // namespace
