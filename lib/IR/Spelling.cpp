//===- Spelling.cpp - The little grammars of the IR's C spellings ---------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "Spelling.h"

#include "forgestencil/IR/StencilIR.h"

#include <cctype>
#include <set>

namespace forgestencil {
namespace ir {
namespace spelling {

bool isIdentStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_';
}
bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

/// `a`, `g.nx`, `p->u`: an identifier or a member access of one.
bool isMemberAccess(const std::string &S) {
  size_t I = 0;
  while (true) {
    if (I >= S.size() || !isIdentStart(S[I]))
      return false;
    while (I < S.size() && isIdentChar(S[I]))
      ++I;
    if (I == S.size())
      return true;
    if (S[I] == '.')
      ++I;
    else if (S.compare(I, 2, "->") == 0)
      I += 2;
    else
      return false;
  }
}

/// `sqrtf`, `std::sqrt`.
bool isQualifiedName(const std::string &S) {
  size_t I = 0;
  while (true) {
    if (I >= S.size() || !isIdentStart(S[I]))
      return false;
    while (I < S.size() && isIdentChar(S[I]))
      ++I;
    if (I == S.size())
      return true;
    if (S.compare(I, 2, "::") != 0)
      return false;
    I += 2;
  }
}

/// A message fragment that shows \p S, shortened and without control
/// characters, so that an error never prints what it refuses verbatim.
std::string shown(const std::string &S) {
  std::string Out;
  for (char C : S.substr(0, 60)) {
    unsigned char U = static_cast<unsigned char>(C);
    Out += (U < 0x20 || U >= 0x7f) ? '?' : C;
  }
  if (S.size() > 60)
    Out += "...";
  return "'" + Out + "'";
}

/// A C number as a literal spells it: decimal, hexadecimal, octal or
/// binary integers and decimal or hexadecimal floating literals, with
/// digit separators and suffixes, optionally negated.
bool isNumericLiteral(const std::string &S) {
  size_t I = 0, N = S.size();
  if (I < N && S[I] == '-')
    ++I;
  if (I >= N)
    return false;
  auto Digits = [&](auto IsDigit) {
    size_t Start = I;
    while (I < N && (IsDigit(S[I]) ||
                     (S[I] == '\'' && I > Start && I + 1 < N &&
                      IsDigit(S[I + 1]))))
      ++I;
    return I - Start;
  };
  auto Dec = [](char C) { return C >= '0' && C <= '9'; };
  auto Hex = [](char C) {
    return std::isxdigit(static_cast<unsigned char>(C)) != 0;
  };
  auto Bin = [](char C) { return C == '0' || C == '1'; };
  bool Float = false;
  if (S.compare(I, 2, "0x") == 0 || S.compare(I, 2, "0X") == 0) {
    I += 2;
    size_t Whole = Digits(Hex), Frac = 0;
    if (I < N && S[I] == '.') {
      ++I;
      Frac = Digits(Hex);
      Float = true;
    }
    if (Whole + Frac == 0)
      return false;
    if (I < N && (S[I] == 'p' || S[I] == 'P')) {
      ++I;
      if (I < N && (S[I] == '+' || S[I] == '-'))
        ++I;
      if (Digits(Dec) == 0)
        return false;
      Float = true;
    } else if (Float) {
      return false; // A hexadecimal float needs its exponent.
    }
  } else if (S.compare(I, 2, "0b") == 0 || S.compare(I, 2, "0B") == 0) {
    I += 2;
    if (Digits(Bin) == 0)
      return false;
  } else {
    size_t Whole = Digits(Dec), Frac = 0;
    if (I < N && S[I] == '.') {
      ++I;
      Frac = Digits(Dec);
      Float = true;
    }
    if (Whole + Frac == 0)
      return false;
    if (I < N && (S[I] == 'e' || S[I] == 'E')) {
      ++I;
      if (I < N && (S[I] == '+' || S[I] == '-'))
        ++I;
      if (Digits(Dec) == 0)
        return false;
      Float = true;
    }
  }
  std::string Suffix = S.substr(I);
  for (char &C : Suffix)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  static const std::set<std::string> FloatSuffixes = {"", "f", "l"};
  static const std::set<std::string> IntSuffixes = {
      "", "u", "l", "ul", "lu", "ll", "ull", "llu"};
  return Float ? FloatSuffixes.count(Suffix) != 0
               : IntSuffixes.count(Suffix) != 0;
}

namespace {
/// How a whyNot* check names a character it does not accept.
std::string unexpectedCharacter(char C) {
  unsigned char U = static_cast<unsigned char>(C);
  if (U < 0x20 || U >= 0x7f)
    return "a control or non-ASCII character";
  return std::string("the character '") + C + "'";
}
} // namespace

/// Why \p S is not an expression over names and integers that can stand
/// between parentheses in generated code; empty when it is one. Allowed:
/// identifiers and member accesses, integer literals, the arithmetic,
/// shift, comparison, logical and conditional operators, commas (for
/// min/max calls), parentheses and brackets, balanced.
std::string whyNotExpression(const std::string &S) {
  if (S.size() > MaxTextLength)
    return "longer than " + std::to_string(MaxTextLength) + " characters";
  std::string Stack;
  size_t I = 0, N = S.size();
  bool Any = false;
  while (I < N) {
    char C = S[I];
    if (C == ' ' || C == '\t') {
      ++I;
      continue;
    }
    Any = true;
    if (isIdentStart(C)) {
      while (I < N && (isIdentChar(S[I]) || S[I] == '.' ||
                       S.compare(I, 2, "->") == 0 || S.compare(I, 2, "::") == 0))
        I += (S[I] == '-' || S[I] == ':') ? 2 : 1;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(C))) {
      while (I < N && (std::isalnum(static_cast<unsigned char>(S[I])) ||
                       S[I] == '\''))
        ++I;
      continue;
    }
    if (S.compare(I, 2, "//") == 0 || S.compare(I, 2, "/*") == 0)
      return "a comment";
    if (S.compare(I, 2, "++") == 0 || S.compare(I, 2, "--") == 0)
      return "an increment or decrement";
    if (C == '(' || C == '[') {
      Stack += C;
      ++I;
      continue;
    }
    if (C == ')' || C == ']') {
      if (Stack.empty() || Stack.back() != (C == ')' ? '(' : '['))
        return std::string("an unbalanced '") + C + "'";
      Stack.pop_back();
      ++I;
      continue;
    }
    // Two-character operators first: ==, !=, <=, >=, <<, >>, &&, ||.
    static const char *const Pairs[] = {"==", "!=", "<=", ">=",
                                        "<<", ">>", "&&", "||"};
    bool Pair = false;
    for (const char *P : Pairs)
      if (S.compare(I, 2, P) == 0) {
        I += 2;
        Pair = true;
        break;
      }
    if (Pair)
      continue;
    if (std::string("+-*/%<>&|^!~?:,").find(C) != std::string::npos) {
      ++I;
      continue;
    }
    if (C == '=')
      return "an assignment";
    return unexpectedCharacter(C);
  }
  if (!Stack.empty())
    return std::string("an unclosed '") + Stack.back() + "'";
  if (!Any)
    return "empty";
  return "";
}

/// Why \p S is not a C type as a parameter declaration spells it
/// (`const float *__restrict__`, `Grid`, `float (*)[512]`,
/// `std::size_t`); empty when it is one.
std::string whyNotType(const std::string &S) {
  if (S.size() > MaxTextLength)
    return "longer than " + std::to_string(MaxTextLength) + " characters";
  std::string Stack;
  bool Name = false;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (isIdentChar(C)) {
      Name |= isIdentStart(C);
      continue;
    }
    if (C == ' ' || C == '\t' || C == '*' || C == '&' || C == ',' ||
        C == ':')
      continue;
    if (C == '(' || C == '[' || C == '<') {
      Stack += C;
      continue;
    }
    if (C == ')' || C == ']' || C == '>') {
      char Open = C == ')' ? '(' : C == ']' ? '[' : '<';
      if (Stack.empty() || Stack.back() != Open)
        return std::string("an unbalanced '") + C + "'";
      Stack.pop_back();
      continue;
    }
    return unexpectedCharacter(C);
  }
  if (!Stack.empty())
    return std::string("an unclosed '") + Stack.back() + "'";
  if (!Name)
    return "no type name";
  return "";
}

/// Text that only reaches comments and messages (kernel names, source
/// files, notes): printable, one line.
std::string whyNotOneLine(const std::string &S) {
  if (S.size() > MaxTextLength)
    return "longer than " + std::to_string(MaxTextLength) + " characters";
  for (char C : S) {
    unsigned char U = static_cast<unsigned char>(C);
    if (U < 0x20 || U == 0x7f)
      return "a control character";
  }
  if (S.find("*/") != std::string::npos)
    return "'*/'";
  return "";
}

/// A kernel name as the analysis spells it: `k`, `ns::k`, `heat<double>`,
/// `k<float, 4>`, `k<(N > 2)>`.
std::string whyNotKernelName(const std::string &S) {
  if (S.empty())
    return "empty";
  if (std::string Why = whyNotOneLine(S); !Why.empty())
    return Why;
  for (char C : S)
    if (!isIdentChar(C) && std::string(":<>,*&()[] .+-").find(C) ==
                               std::string::npos)
      return std::string("the character '") + C + "'";
  return "";
}

/// An axis name: an identifier, or the analysis's names for a thread axis
/// (`thread.x`) and a coordinate split from a 1-D id (`mod[...]`,
/// `div[...]`).
bool isAxisName(const std::string &S) {
  if (isIdentifier(S))
    return true;
  if (S == "thread.x" || S == "thread.y" || S == "thread.z" ||
      S == "block.x" || S == "block.y" || S == "block.z")
    return true;
  if ((S.rfind("mod[", 0) == 0 || S.rfind("div[", 0) == 0) &&
      S.size() > 5 && S.back() == ']' && S.size() <= MaxTextLength) {
    int Depth = 0; // mod[div[@gx|nx]|ny] nests.
    for (size_t I = 4; I + 1 < S.size(); ++I) {
      if (S[I] == '[')
        ++Depth;
      else if (S[I] == ']' && --Depth < 0)
        return false;
      else if (S[I] != ']' && !isIdentChar(S[I]) &&
               std::string(".@|*+- ").find(S[I]) == std::string::npos)
        return false;
    }
    return Depth == 0;
  }
  return false;
}

} // namespace spelling

/// The math functions the analysis records as calls, and their CUDA
/// relatives: a call to anything else is not part of a stencil update. Each
/// is defined in device code and for the host (<cmath>, or the CPU
/// emulation's utils/cuda-host-shim.h for the CUDA intrinsics), so that the
/// generated kernels, which spell the calls as the IR names them, build on
/// both.
bool isMathFunctionName(const std::string &N) {
  static const std::set<std::string> Names = {
      "sqrt",      "sqrtf",     "rsqrt",     "rsqrtf",    "cbrt",
      "cbrtf",     "fabs",      "fabsf",     "abs",       "exp",
      "expf",      "exp2",      "exp2f",     "__expf",    "log",
      "logf",      "log2",      "log2f",     "__logf",    "sin",
      "sinf",      "cos",       "cosf",      "__sinf",    "__cosf",
      "tan",       "tanf",      "tanh",      "tanhf",     "pow",
      "powf",      "__powf",    "fmax",      "fmaxf",     "fmin",
      "fminf",     "max",       "min",       "fma",       "fmaf",
      "__fmaf_rn", "__fma_rn",  "__fmul_rn", "__fadd_rn", "__fsub_rn",
      "__fdiv_rn", "__dmul_rn", "__dadd_rn", "__dsub_rn", "__ddiv_rn",
      "floor",     "floorf",    "ceil",      "ceilf",     "hypot",
      "hypotf",    "copysign",  "copysignf", "std::sqrt", "std::abs",
      "std::exp",  "std::max",  "std::min",  "std::fabs", "std::pow",
      "std::fma",  "__fdividef", "__saturatef", "log10",    "log10f",
      "log1p",     "log1pf",    "expm1",     "expm1f",    "sinh",
      "sinhf",     "cosh",      "coshf",     "asin",      "asinf",
      "acos",      "acosf",     "atan",      "atanf",     "atan2",
      "atan2f",    "erf",       "erff",      "erfc",      "erfcf",
      "trunc",     "truncf",    "round",     "roundf",    "rint",
      "rintf",     "fmod",      "fmodf"};
  return Names.count(N) != 0;
}

bool isIdentifier(const std::string &S) {
  if (S.empty() || !spelling::isIdentStart(S[0]))
    return false;
  for (char C : S)
    if (!spelling::isIdentChar(C))
      return false;
  return true;
}

} // namespace ir
} // namespace forgestencil
