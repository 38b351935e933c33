//===- TestSupport.cpp - Helpers for the patch tests ----------------------===//

#include "TestSupport.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>

namespace fs = std::filesystem;

namespace forgestencil {
namespace patch {
namespace test {

namespace {

/// Quotes \p Text for /bin/sh.
std::string shellQuote(const std::string &Text) {
  std::string Out = "'";
  for (char C : Text)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

} // namespace

TempDir::TempDir() {
  std::string Template =
      (fs::temp_directory_path() / "forgestencil-patch-XXXXXX").string();
  if (!::mkdtemp(Template.data()))
    throw std::runtime_error("mkdtemp failed");
  Root = Template;
}

TempDir::~TempDir() {
  std::error_code EC;
  fs::remove_all(Root, EC);
}

void writeFile(const fs::path &Path, const std::string &Content) {
  fs::create_directories(Path.parent_path());
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(Content.data(), static_cast<std::streamsize>(Content.size()));
  if (!Out)
    throw std::runtime_error("cannot write " + Path.string());
}

std::optional<std::string> readFile(const fs::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Content;
  Content << In.rdbuf();
  return Content.str();
}

CommandResult runCommand(const std::string &Command,
                         const fs::path &Directory) {
  std::string Full = "cd " + shellQuote(Directory.string()) +
                     " && GIT_CEILING_DIRECTORIES=" +
                     shellQuote(Directory.parent_path().string()) +
                     " GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
                     "LC_ALL=C " +
                     Command + " 2>&1";
  CommandResult Result;
  FILE *Pipe = ::popen(Full.c_str(), "r");
  if (!Pipe)
    return Result;
  std::array<char, 4096> Buffer;
  size_t Read;
  while ((Read = std::fread(Buffer.data(), 1, Buffer.size(), Pipe)) > 0)
    Result.Output.append(Buffer.data(), Read);
  int Status = ::pclose(Pipe);
  Result.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  return Result;
}

bool haveProgram(const std::string &Program) {
  return std::system(("command -v " + shellQuote(Program) + " >/dev/null 2>&1")
                         .c_str()) == 0;
}

std::string escapeForMessage(const std::string &Text) {
  std::string Out;
  for (unsigned char C : Text) {
    if (C == '\n')
      Out += "\\n\n";
    else if (C == '\r')
      Out += "\\r";
    else if (C == '\t')
      Out += "\\t";
    else if (C < 0x20 || C >= 0x7f) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\x%02x", C);
      Out += Buf;
    } else
      Out += static_cast<char>(C);
  }
  return Out;
}

} // namespace test
} // namespace patch
} // namespace forgestencil
