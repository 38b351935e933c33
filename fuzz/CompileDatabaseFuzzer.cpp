//===- CompileDatabaseFuzzer.cpp - compile_commands.json from anywhere ----===//
///
/// \file
/// A database is refused with a message or loaded, every entry translated
/// to clang commands or recorded as a problem, without a crash.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Driver/CompilationDatabase.h"

#include <cstdint>

using namespace forgestencil;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  driver::DatabaseOptions Opts;
  auto DB = driver::CudaCompilationDatabase::loadFromBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size),
      "/fuzz/compile_commands.json", Opts);
  if (!DB) {
    llvm::consumeError(DB.takeError());
    return 0;
  }
  for (const std::string &File : (*DB)->getAllFiles())
    for (const clang::tooling::CompileCommand &C :
         (*DB)->getCompileCommands(File))
      if (C.CommandLine.empty())
        __builtin_trap(); // A translated command runs something.
  (void)(*DB)->cudaFiles();
  return 0;
}
