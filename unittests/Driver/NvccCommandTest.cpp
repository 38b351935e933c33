//===- NvccCommandTest.cpp - nvcc command lines to CompileJobs ------------===//
///
/// \file
/// parseNvccCommand on argv vectors, one nvcc flag form per test: what lands
/// in CommonFlags (both sides), HostFlags (host side only), GpuArchs,
/// Language and Skip.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Driver/CompileCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <initializer_list>

using namespace forgestencil::driver;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

constexpr const char *Dir = "/src/app/build";

/// Parses "nvcc <Args> -c kernel.cu" run in Dir.
CompileJob parse(std::initializer_list<const char *> Args,
                 const char *Source = "kernel.cu") {
  std::vector<std::string> Argv{"/opt/cuda/bin/nvcc"};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  Argv.insert(Argv.end(), {"-c", Source});
  auto Job = parseNvccCommand(Argv, Dir, "");
  if (!Job) {
    ADD_FAILURE() << llvm::toString(Job.takeError());
    return CompileJob();
  }
  return std::move(*Job);
}

std::string parseError(std::initializer_list<const char *> Args) {
  std::vector<std::string> Argv{"nvcc"};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  auto Job = parseNvccCommand(Argv, Dir, "");
  if (Job)
    return "";
  return llvm::toString(Job.takeError());
}

bool hasNote(const CompileJob &Job, llvm::StringRef Text) {
  for (const std::string &N : Job.Notes)
    if (llvm::StringRef(N).contains(Text))
      return true;
  return false;
}

TEST(NvccLanguage, CuFileIsCuda) {
  CompileJob Job = parse({});
  EXPECT_EQ(Job.Language, SourceLanguage::Cuda);
  EXPECT_EQ(Job.File, "/src/app/build/kernel.cu");
  EXPECT_FALSE(Job.Skip);
}

TEST(NvccLanguage, CppFileIsHostCode) {
  EXPECT_EQ(parse({}, "main.cpp").Language, SourceLanguage::Cxx);
  EXPECT_EQ(parse({}, "util.c").Language, SourceLanguage::C);
}

TEST(NvccLanguage, XCuMakesCppCuda) {
  EXPECT_EQ(parse({"-x", "cu"}, "main.cpp").Language, SourceLanguage::Cuda);
  EXPECT_EQ(parse({"-x=cu"}, "main.cpp").Language, SourceLanguage::Cuda);
  EXPECT_EQ(parse({"--x", "cu"}, "main.cpp").Language, SourceLanguage::Cuda);
}

TEST(NvccLanguage, XCxxOverridesCuExtension) {
  EXPECT_EQ(parse({"-x", "c++"}).Language, SourceLanguage::Cxx);
  EXPECT_EQ(parse({"-x", "c"}).Language, SourceLanguage::C);
}

TEST(NvccArch, ArchWithEquals) {
  EXPECT_THAT(parse({"-arch=sm_80"}).GpuArchs, ElementsAre("sm_80"));
}

TEST(NvccArch, ArchAsSeparateArgument) {
  EXPECT_THAT(parse({"-arch", "sm_86"}).GpuArchs, ElementsAre("sm_86"));
  EXPECT_THAT(parse({"--gpu-architecture", "sm_70"}).GpuArchs,
              ElementsAre("sm_70"));
  EXPECT_THAT(parse({"--gpu-architecture=compute_75"}).GpuArchs,
              ElementsAre("sm_75"));
}

TEST(NvccArch, ArchWithCodeList) {
  CompileJob Job = parse({"-arch=compute_80", "-code=sm_80,sm_86"});
  EXPECT_THAT(Job.GpuArchs, ElementsAre("sm_80", "sm_86"));
  EXPECT_EQ(Job.deviceArch(), "sm_86");
  EXPECT_THAT(parse({"--gpu-code", "sm_90"}).GpuArchs, ElementsAre("sm_90"));
}

TEST(NvccArch, NativeAndAllNameNoRealArch) {
  CompileJob Job = parse({"-arch=native"});
  EXPECT_THAT(Job.GpuArchs, IsEmpty());
  // nvcc's default target when nothing is named.
  EXPECT_EQ(Job.deviceArch(), "sm_75");
  EXPECT_THAT(parse({"-arch=all"}).GpuArchs, IsEmpty());
}

TEST(NvccArch, GencodeSeparateArgument) {
  CompileJob Job = parse({"-gencode", "arch=compute_70,code=sm_70",
                          "-gencode", "arch=compute_90,code=sm_90"});
  EXPECT_THAT(Job.GpuArchs, ElementsAre("sm_70", "sm_90"));
  EXPECT_EQ(Job.deviceArch(), "sm_90");
}

TEST(NvccArch, GencodeWithEquals) {
  EXPECT_THAT(parse({"-gencode=arch=compute_80,code=sm_80"}).GpuArchs,
              ElementsAre("sm_80"));
}

TEST(NvccArch, GenerateCodeWithBracketList) {
  CompileJob Job =
      parse({"--generate-code=arch=compute_80,code=[compute_80,sm_80]",
             "--generate-code=arch=compute_90a,code=[sm_90a]"});
  EXPECT_THAT(Job.GpuArchs, ElementsAre("sm_80", "sm_90a"));
  EXPECT_EQ(Job.deviceArch(), "sm_90a");
}

TEST(NvccArch, GencodeWithoutCodeUsesArch) {
  EXPECT_THAT(parse({"-gencode", "arch=compute_75"}).GpuArchs,
              ElementsAre("sm_75"));
}

TEST(NvccArch, NewestArchWinsRegardlessOfOrder) {
  EXPECT_EQ(parse({"-arch=sm_100", "-gencode=arch=compute_90,code=sm_90"})
                .deviceArch(),
            "sm_100");
}

TEST(NvccHostCompiler, CcbinIsANoteNotAFlag) {
  for (CompileJob Job : {parse({"-ccbin", "g++-12"}), parse({"-ccbin=g++"}),
                         parse({"--compiler-bindir", "/usr/bin"})}) {
    EXPECT_THAT(Job.CommonFlags, IsEmpty());
    EXPECT_THAT(Job.HostFlags, IsEmpty());
    EXPECT_TRUE(hasNote(Job, "(-ccbin) not run"));
    EXPECT_EQ(Job.File, "/src/app/build/kernel.cu");
  }
}

TEST(NvccXcompiler, CommaListIsUnwrapped) {
  CompileJob Job = parse({"-Xcompiler", "-fopenmp,-Wall,-DHOST_ONLY=1"});
  EXPECT_THAT(Job.HostFlags, ElementsAre("-fopenmp"));
  // The host compiler preprocesses both sides for nvcc, so -D reaches both.
  EXPECT_THAT(Job.CommonFlags, ElementsAre("-DHOST_ONLY=1"));
}

TEST(NvccXcompiler, EqualsFormAndLongAlias) {
  EXPECT_THAT(parse({"-Xcompiler=-pthread"}).HostFlags,
              ElementsAre("-pthread"));
  EXPECT_THAT(parse({"--compiler-options", "-fno-strict-aliasing"}).HostFlags,
              ElementsAre("-fno-strict-aliasing"));
}

TEST(NvccXcompiler, CodeGenerationFlagsAreDropped) {
  CompileJob Job = parse({"-Xcompiler=-fPIE", "-Xcompiler", "-O3,-g,-fPIC",
                          "-Xcompiler", "-march=native"});
  EXPECT_THAT(Job.HostFlags, IsEmpty());
  EXPECT_THAT(Job.CommonFlags, IsEmpty());
}

TEST(NvccXcompiler, IsystemKeepsItsValue) {
  CompileJob Job = parse({"-Xcompiler", "-isystem,third_party"});
  EXPECT_THAT(Job.CommonFlags,
              ElementsAre("-isystem", "/src/app/build/third_party"));
}

TEST(NvccToolOptions, AreDroppedWithANote) {
  CompileJob Job = parse({"-Xptxas", "-v", "-Xptxas=-O3", "-Xnvlink",
                          "--suppress-stack-size-warning", "-Xcudafe",
                          "--diag_suppress=177", "-Xfatbin", "-compress-all",
                          "--ptxas-options=-dlcm=ca"});
  EXPECT_THAT(Job.CommonFlags, IsEmpty());
  EXPECT_THAT(Job.HostFlags, IsEmpty());
  EXPECT_TRUE(hasNote(Job, "dropped -Xptxas -v"));
  EXPECT_TRUE(hasNote(Job, "dropped -Xptxas -O3"));
  EXPECT_TRUE(hasNote(Job, "dropped -Xnvlink --suppress-stack-size-warning"));
  EXPECT_TRUE(hasNote(Job, "dropped -Xcudafe --diag_suppress=177"));
  EXPECT_TRUE(hasNote(Job, "dropped -Xfatbin -compress-all"));
  EXPECT_TRUE(hasNote(Job, "dropped --ptxas-options -dlcm=ca"));
  // The values are not mistaken for inputs or options.
  EXPECT_EQ(Job.File, "/src/app/build/kernel.cu");
  EXPECT_FALSE(Job.Skip);
}

TEST(NvccLanguageExtensions, RelaxedConstexprAndExtendedLambda) {
  CompileJob Job = parse({"--expt-relaxed-constexpr", "--extended-lambda"});
  EXPECT_THAT(Job.CommonFlags,
              ElementsAre("-D__CUDACC_RELAXED_CONSTEXPR__=1"));
  EXPECT_TRUE(Job.ExtendedLambda);
  EXPECT_TRUE(parse({"--expt-extended-lambda"}).ExtendedLambda);
  EXPECT_FALSE(parse({}).ExtendedLambda);
}

TEST(NvccRdc, Forms) {
  EXPECT_TRUE(parse({"-rdc=true"}).RelocatableDeviceCode);
  EXPECT_TRUE(parse({"-rdc", "true"}).RelocatableDeviceCode);
  EXPECT_TRUE(parse({"--relocatable-device-code=true"}).RelocatableDeviceCode);
  EXPECT_TRUE(parse({"-dc"}).RelocatableDeviceCode);
  EXPECT_FALSE(parse({"-rdc=false"}).RelocatableDeviceCode);
  EXPECT_FALSE(parse({}).RelocatableDeviceCode);
}

TEST(NvccFastMath, DefinesUseFastMath) {
  EXPECT_THAT(parse({"--use_fast_math"}).CommonFlags,
              ElementsAre("-D__USE_FAST_MATH__=1"));
  EXPECT_THAT(parse({"-use_fast_math"}).CommonFlags,
              ElementsAre("-D__USE_FAST_MATH__=1"));
}

TEST(NvccDebug, LineinfoIsDroppedAndGDefinesDebug) {
  EXPECT_THAT(parse({"-lineinfo", "-g"}).CommonFlags, IsEmpty());
  EXPECT_THAT(parse({"--generate-line-info"}).CommonFlags, IsEmpty());
  EXPECT_THAT(parse({"-G"}).CommonFlags, ElementsAre("-D__CUDACC_DEBUG__=1"));
}

TEST(NvccDefaultStream, PerThreadDefinesTheRuntimeMacro) {
  EXPECT_THAT(parse({"--default-stream", "per-thread"}).CommonFlags,
              ElementsAre("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  EXPECT_THAT(parse({"--default-stream=per-thread"}).CommonFlags,
              ElementsAre("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  EXPECT_THAT(parse({"--default-stream=legacy"}).CommonFlags, IsEmpty());
}

TEST(NvccStd, Forms) {
  EXPECT_THAT(parse({"-std=c++17"}).CommonFlags, ElementsAre("-std=c++17"));
  EXPECT_THAT(parse({"--std", "c++20"}).CommonFlags,
              ElementsAre("-std=c++20"));
}

TEST(NvccPreprocessor, DefineForms) {
  CompileJob Job = parse({"-DRADIUS=4", "-D", "NX=128", "-DUSE_DOUBLE",
                          "--define-macro=NY=64", "--define-macro", "NZ",
                          "-UNDEBUG", "--undefine-macro=OLD"});
  EXPECT_THAT(Job.CommonFlags,
              ElementsAre("-DRADIUS=4", "-DNX=128", "-DUSE_DOUBLE", "-DNY=64",
                          "-DNZ", "-UNDEBUG", "-UOLD"));
  EXPECT_FALSE(hasNote(Job, "unknown"));
}

TEST(NvccPreprocessor, IncludePathsAreMadeAbsolute) {
  CompileJob Job = parse({"-I../include", "-I", "src", "--include-path=/abs",
                          "--include-path", "gen"});
  EXPECT_THAT(Job.CommonFlags,
              ElementsAre("-I/src/app/include", "-I/src/app/build/src",
                          "-I/abs", "-I/src/app/build/gen"));
}

TEST(NvccPreprocessor, SystemIncludeForms) {
  CompileJob Job = parse({"-isystem=/opt/thrust", "-isystem", "deps",
                          "--system-include=/opt/cub"});
  EXPECT_THAT(Job.CommonFlags,
              ElementsAre("-isystem", "/opt/thrust", "-isystem",
                          "/src/app/build/deps", "-isystem", "/opt/cub"));
}

TEST(NvccPreprocessor, PreInclude) {
  EXPECT_THAT(parse({"-include", "config.h"}).CommonFlags,
              ElementsAre("-include", "/src/app/build/config.h"));
  EXPECT_THAT(parse({"--pre-include=/p/cfg.h"}).CommonFlags,
              ElementsAre("-include", "/p/cfg.h"));
}

TEST(NvccUnknownOptions, IgnoredWithANote) {
  CompileJob Job = parse({"-fopenmp", "--frobnicate", "-Wall"});
  EXPECT_THAT(Job.HostFlags, IsEmpty());
  EXPECT_TRUE(hasNote(Job, "ignored unknown nvcc option -fopenmp"));
  EXPECT_TRUE(hasNote(Job, "ignored unknown nvcc option --frobnicate"));
}

TEST(NvccUnknownOptions, ForwardedToTheHostWhenAsked) {
  CompileJob Job = parse(
      {"-forward-unknown-to-host-compiler", "-fopenmp", "-pthread", "-Wall"});
  EXPECT_THAT(Job.HostFlags, ElementsAre("-fopenmp", "-pthread", "-Wall"));
  EXPECT_THAT(parse({"--forward-unknown-opts", "-pthread"}).HostFlags,
              ElementsAre("-pthread"));
}

TEST(NvccOutputs, OutputAndLibrariesAreNotInputs) {
  CompileJob Job = parse({"-o", "kernel.cu.o", "-O3", "-lcublas", "-L/lib64",
                          "--output-file=x.o", "-m64", "-lineinfo"});
  EXPECT_EQ(Job.File, "/src/app/build/kernel.cu");
  EXPECT_THAT(Job.CommonFlags, IsEmpty());
  EXPECT_FALSE(Job.Skip);
}

TEST(NvccSkip, NonCompilingModes) {
  EXPECT_TRUE(parse({"-M"}).Skip);
  EXPECT_TRUE(parse({"-E"}).Skip);
  EXPECT_TRUE(parse({"--generate-dependencies"}).Skip);
  EXPECT_TRUE(parse({"-dlink"}).Skip);
  EXPECT_THAT(parse({"-E"}).SkipReason, HasSubstr("-E"));
}

TEST(NvccSkip, LinkStepWithoutSources) {
  auto Job = parseNvccCommand({"nvcc", "-o", "app", "a.o", "b.o", "-lcudart"},
                              Dir, "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_TRUE(Job->Skip);
  EXPECT_THAT(Job->SkipReason, HasSubstr("no source"));
}

TEST(NvccSkip, LinkStepWithObjectAsFile) {
  // bear names the first object file as the entry's "file".
  auto Job = parseNvccCommand({"nvcc", "-o", "app", "a.o", "b.o"}, Dir, "a.o");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_TRUE(Job->Skip);
  EXPECT_THAT(Job->SkipReason, HasSubstr("no source"));
}

TEST(NvccErrors, MissingValue) {
  EXPECT_THAT(parseError({"kernel.cu", "-arch"}),
              HasSubstr("'-arch' expects a value"));
}

TEST(NvccErrors, SeveralSources) {
  EXPECT_THAT(parseError({"-c", "a.cu", "b.cu"}), HasSubstr("2 sources"));
}

TEST(NvccErrors, MissingOptionsFile) {
  EXPECT_THAT(parseError({"--options-file", "/nonexistent/x.rsp", "a.cu"}),
              HasSubstr("cannot read options file '/nonexistent/x.rsp'"));
}

TEST(NvccFile, DatabaseFileWinsOverArguments) {
  auto Job = parseNvccCommand({"nvcc", "-c", "../src/k.cu"}, Dir, "k2.cu");
  ASSERT_TRUE(bool(Job));
  EXPECT_EQ(Job->File, "/src/app/build/k2.cu");
}

TEST(NvccToolkit, NvccPathNamesTheToolkit) {
  auto Abs = parseNvccCommand({"/opt/cuda-12/bin/nvcc", "a.cu"}, Dir, "");
  ASSERT_TRUE(bool(Abs));
  EXPECT_EQ(Abs->CudaPathHint, "/opt/cuda-12");
  auto Rel = parseNvccCommand({"../cuda/bin/nvcc", "a.cu"}, Dir, "");
  ASSERT_TRUE(bool(Rel));
  EXPECT_EQ(Rel->CudaPathHint, "/src/app/cuda");
  auto Bare = parseNvccCommand({"nvcc", "a.cu"}, Dir, "");
  ASSERT_TRUE(bool(Bare));
  EXPECT_EQ(Bare->CudaPathHint, "");
}

/// A file in a fresh temporary directory, removed with it.
class TempDir {
public:
  TempDir() {
    std::error_code EC =
        llvm::sys::fs::createUniqueDirectory("fs-driver-test", Path);
    EXPECT_FALSE(EC) << EC.message();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::append(P, Name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    EXPECT_FALSE(EC) << EC.message();
    OS << Text;
    return std::string(P);
  }
  std::string path() const { return std::string(Path); }

private:
  llvm::SmallString<256> Path;
};

TEST(NvccOptionsFile, CMakeIncludesResponseFile) {
  TempDir T;
  T.write("CMakeFiles/app.dir/includes_CUDA.rsp",
          "-I\"inc dir\" -isystem /opt/deps -DFROM_RSP=1\n");
  auto Job = parseNvccCommand(
      {"nvcc", "--options-file", "CMakeFiles/app.dir/includes_CUDA.rsp",
       "-x", "cu", "-c", "k.cu"},
      T.path(), "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_THAT(Job->CommonFlags,
              ElementsAre("-I" + T.path() + "/inc dir", "-isystem",
                          "/opt/deps", "-DFROM_RSP=1"));
  EXPECT_EQ(Job->Language, SourceLanguage::Cuda);
}

TEST(NvccOptionsFile, LanguageInsideOptionsFileCounts) {
  TempDir T;
  T.write("lang.rsp", "-x c++");
  auto Job = parseNvccCommand({"nvcc", "-optf", "lang.rsp", "-c", "k.cu"},
                              T.path(), "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_EQ(Job->Language, SourceLanguage::Cxx);
}

TEST(NvccOptionsFile, SelfInclusionIsAnError) {
  TempDir T;
  T.write("loop.rsp", "--options-file loop.rsp");
  auto Job = parseNvccCommand({"nvcc", "--options-file=loop.rsp", "k.cu"},
                              T.path(), "");
  ASSERT_FALSE(bool(Job));
  EXPECT_THAT(llvm::toString(Job.takeError()), HasSubstr("nested too deeply"));
}

TEST(CompileCommandDispatch, LauncherBeforeNvcc) {
  auto Job = parseCompileCommand(
      {"/usr/bin/ccache", "/opt/cuda/bin/nvcc", "-arch=sm_90", "-c", "k.cu"},
      Dir, "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_EQ(Job->Compiler, "/opt/cuda/bin/nvcc");
  EXPECT_EQ(Job->Language, SourceLanguage::Cuda);
  EXPECT_THAT(Job->GpuArchs, ElementsAre("sm_90"));
}

TEST(CompileCommandDispatch, ClangCuda) {
  auto Job = parseCompileCommand({"clang++", "-x", "cuda",
                                  "--cuda-gpu-arch=sm_80",
                                  "--cuda-path=/opt/cuda", "-DR=2", "-c",
                                  "k.cpp"},
                                 Dir, "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_EQ(Job->Language, SourceLanguage::Cuda);
  EXPECT_THAT(Job->GpuArchs, ElementsAre("sm_80"));
  EXPECT_EQ(Job->CudaPathHint, "/opt/cuda");
  EXPECT_THAT(Job->CommonFlags, ElementsAre("-DR=2"));
}

TEST(CompileCommandDispatch, HostCompilerKeepsItsLanguage) {
  auto Job = parseCompileCommand({"g++", "-O2", "-c", "main.cpp"}, Dir, "");
  ASSERT_TRUE(bool(Job));
  EXPECT_EQ(Job->Language, SourceLanguage::Cxx);
}

} // namespace

namespace {

TEST(NvccLanguage, XCuMakesAnyExtensionASource) {
  auto Job = parseNvccCommand({"nvcc", "-x", "cu", "-c", "kernels.cuknl"},
                              Dir, "kernels.cuknl");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_FALSE(Job->Skip);
  EXPECT_EQ(Job->Language, SourceLanguage::Cuda);
  EXPECT_EQ(Job->File, "/src/app/build/kernels.cuknl");
  // Without the "file" entry, the positional file is the source too.
  auto Bare = parseNvccCommand({"nvcc", "-x", "cu", "-c", "k.inc", "-o", "k.o"},
                               Dir, "");
  ASSERT_TRUE(bool(Bare)) << llvm::toString(Bare.takeError());
  EXPECT_EQ(Bare->File, "/src/app/build/k.inc");
}

TEST(NvccLanguage, OtherExtensionWithoutXIsNoSource) {
  auto Job = parseNvccCommand({"nvcc", "-c", "kernels.cuknl"}, Dir,
                              "kernels.cuknl");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_TRUE(Job->Skip);
}

/// A response file in a fresh temporary directory.
std::string writeResponseFile(llvm::StringRef Name, llvm::StringRef Text,
                              llvm::SmallString<128> &DirOut) {
  if (DirOut.empty())
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("fs-rsp", DirOut));
  llvm::SmallString<128> Path(DirOut);
  llvm::sys::path::append(Path, Name);
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  EXPECT_FALSE(EC);
  OS << Text;
  return std::string(Path);
}

TEST(ResponseFiles, ExpandedForNvccAndNested) {
  llvm::SmallString<128> Tmp;
  writeResponseFile("inner.rsp", "-DINNER \"-DSPACED=a b\"", Tmp);
  writeResponseFile("outer.rsp", "-arch=sm_90 @inner.rsp", Tmp);
  auto Job = parseCompileCommand({"nvcc", "@outer.rsp", "-c", "k.cu"},
                                 std::string(Tmp), "");
  ASSERT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  EXPECT_THAT(Job->GpuArchs, ElementsAre("sm_90"));
  EXPECT_THAT(Job->CommonFlags, ElementsAre("-DINNER", "-DSPACED=a b"));
  llvm::sys::fs::remove_directories(Tmp);
}

TEST(ResponseFiles, MissingOneIsAnErrorNamingIt) {
  auto Job = parseCompileCommand({"clang++", "@gone.rsp", "-c", "k.cu"},
                                 "/nonexistent", "");
  ASSERT_FALSE(bool(Job));
  EXPECT_THAT(llvm::toString(Job.takeError()),
              HasSubstr("cannot read response file '@gone.rsp'"));
}

} // namespace
