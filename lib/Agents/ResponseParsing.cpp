//===- ResponseParsing.cpp - Pull candidate code out of an answer --------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/ResponseParsing.h"
#include "SourceText.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace forgestencil {
namespace agents {

namespace {

/// What every block-format repair request asks for.
constexpr const char *WhatToSend =
    "reply with exactly one ```cuda block containing the complete CUDA source "
    "(every kernel and the launcher), and no other code blocks.";

std::string lowercase(std::string_view Text) {
  std::string Out(Text);
  for (char &C : Out)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Out;
}

/// Removes `<think>` reasoning. Some servers strip the opening tag, leaving
/// the reasoning followed by a lone `</think>`.
std::string withoutReasoning(std::string_view Answer) {
  static constexpr std::string_view Open = "<think>", Close = "</think>";
  std::string Text(Answer);
  size_t FirstOpen = Text.find(Open);
  size_t FirstClose = Text.find(Close);
  if (FirstClose != std::string::npos &&
      (FirstOpen == std::string::npos || FirstClose < FirstOpen))
    Text.erase(0, FirstClose + Close.size());
  while (true) {
    size_t Begin = Text.find(Open);
    if (Begin == std::string::npos)
      break;
    size_t End = Text.find(Close, Begin);
    if (End == std::string::npos) {
      Text.erase(Begin); // Unclosed: the answer never left its reasoning.
      break;
    }
    Text.erase(Begin, End + Close.size() - Begin);
  }
  return Text;
}

struct FencedBlock {
  std::string Language;
  std::string Body;
  bool Closed = false;
};

/// A fence line: up to three spaces, then three or more backticks or tildes.
/// Returns the fence length and sets \p FenceChar and \p Info.
size_t fenceLength(std::string_view Line, char &FenceChar, std::string &Info) {
  size_t Indent = 0;
  while (Indent < Line.size() && Indent < 4 && Line[Indent] == ' ')
    ++Indent;
  if (Indent > 3 || Indent >= Line.size())
    return 0;
  char C = Line[Indent];
  if (C != '`' && C != '~')
    return 0;
  size_t Count = 0;
  while (Indent + Count < Line.size() && Line[Indent + Count] == C)
    ++Count;
  if (Count < 3)
    return 0;
  FenceChar = C;
  std::string_view Rest = Line.substr(Indent + Count);
  size_t Begin = Rest.find_first_not_of(" \t\r");
  size_t End = Rest.find_first_of(" \t\r{", Begin);
  Info = Begin == std::string_view::npos
             ? std::string()
             : lowercase(Rest.substr(Begin, End == std::string_view::npos
                                                ? std::string_view::npos
                                                : End - Begin));
  return Count;
}

std::vector<FencedBlock> findFencedBlocks(std::string_view Text) {
  std::vector<FencedBlock> Blocks;
  std::optional<FencedBlock> Open;
  size_t OpenLength = 0;
  char OpenChar = 0;
  size_t Pos = 0;
  while (Pos <= Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    std::string_view Line = Text.substr(Pos, End - Pos);
    char FenceChar = 0;
    std::string Info;
    size_t Length = fenceLength(Line, FenceChar, Info);
    if (!Open && Length > 0) {
      Open = FencedBlock{Info, "", false};
      OpenLength = Length;
      OpenChar = FenceChar;
    } else if (Open && Length >= OpenLength && FenceChar == OpenChar &&
               Info.empty()) {
      Open->Closed = true;
      Blocks.push_back(std::move(*Open));
      Open.reset();
    } else if (Open) {
      Open->Body.append(Line);
      Open->Body.push_back('\n');
    }
    if (End == Text.size())
      break;
    Pos = End + 1;
  }
  if (Open)
    Blocks.push_back(std::move(*Open));
  return Blocks;
}

bool isAcceptedLanguage(const std::string &Language) {
  static const char *Accepted[] = {"", "cuda", "cu", "cpp", "c++", "cxx", "c"};
  return std::find(std::begin(Accepted), std::end(Accepted), Language) !=
         std::end(Accepted);
}

bool isBlank(std::string_view Text) {
  return std::all_of(Text.begin(), Text.end(), [](char C) {
    return std::isspace(static_cast<unsigned char>(C));
  });
}

} // namespace

Result<std::string> extractSingleCudaBlock(std::string_view Answer) {
  std::vector<FencedBlock> Blocks = findFencedBlocks(withoutReasoning(Answer));
  if (Blocks.empty())
    return makeError(std::string("Your answer contained no fenced code block; ") +
                     WhatToSend);
  if (Blocks.size() > 1)
    return makeError("Your answer contained " + std::to_string(Blocks.size()) +
                     " fenced code blocks; " + WhatToSend +
                     " Put helper kernels and device functions in that same "
                     "block.");
  FencedBlock &Block = Blocks.front();
  if (!Block.Closed)
    return makeError("Your code block was not closed with ``` (the answer may "
                     "have been cut off at the token limit); " +
                     std::string(WhatToSend) + " Keep the explanation short.");
  if (!isAcceptedLanguage(Block.Language))
    return makeError("Your code block was tagged ```" + Block.Language +
                     "; " + WhatToSend);
  if (isBlank(Block.Body))
    return makeError(std::string("Your code block was empty; ") + WhatToSend);
  return std::move(Block.Body);
}

namespace {

bool isQualifierOrBuiltin(const std::string &Word) {
  static const char *Words[] = {"const",  "volatile", "unsigned", "signed",
                                "int",    "char",     "short",    "long",
                                "float",  "double",   "bool",     "void",
                                "struct", "class",    "enum",     "typename"};
  return std::find(std::begin(Words), std::end(Words), Word) != std::end(Words);
}

bool isIdentifier(const std::string &Word) {
  return !Word.empty() &&
         (std::isalpha(static_cast<unsigned char>(Word[0])) || Word[0] == '_') &&
         std::all_of(Word.begin(), Word.end(), [](char C) {
           return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
         });
}

/// The type of one parameter declaration with whitespace normalised and the
/// parameter name, default argument and restrict qualifiers removed:
/// `const float * __restrict__ in` -> `const float*`.
std::string normaliseParameterType(std::string_view Param) {
  std::string Spaced;
  for (char C : Param.substr(0, Param.find('=')))
    if (C == '*' || C == '&')
      Spaced += std::string(" ") + C + " ";
    else
      Spaced += C;
  std::vector<std::string> Words;
  size_t Pos = 0;
  while (Pos < Spaced.size()) {
    size_t Begin = Spaced.find_first_not_of(" \t\r\n", Pos);
    if (Begin == std::string::npos)
      break;
    size_t End = Spaced.find_first_of(" \t\r\n", Begin);
    std::string Word = Spaced.substr(Begin, End - Begin);
    if (Word != "__restrict__" && Word != "__restrict" && Word != "restrict")
      Words.push_back(Word);
    Pos = End == std::string::npos ? Spaced.size() : End;
  }
  // A trailing identifier after a complete type is the parameter's name.
  if (Words.size() > 1 && isIdentifier(Words.back()) &&
      !isQualifierOrBuiltin(Words.back())) {
    const std::string &Before = Words[Words.size() - 2];
    if (Before != "const" && Before != "volatile" && Before != "unsigned" &&
        Before != "signed" && Before != "struct" && Before != "typename")
      Words.pop_back();
  }
  std::string Type;
  for (const std::string &Word : Words) {
    bool IsPointer = Word == "*" || Word == "&";
    if (!Type.empty() && !IsPointer)
      Type += ' ';
    Type += Word;
  }
  return Type;
}

/// Splits a parameter list at the commas that are not nested in brackets.
std::vector<std::string> splitParameters(std::string_view List) {
  std::vector<std::string> Params;
  int Depth = 0;
  std::string Current;
  for (char C : List) {
    if (C == '(' || C == '<' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == '>' || C == ']' || C == '}')
      --Depth;
    if (C == ',' && Depth == 0) {
      Params.push_back(Current);
      Current.clear();
      continue;
    }
    Current += C;
  }
  if (!isBlank(Current) || !Params.empty())
    Params.push_back(Current);
  if (Params.size() == 1 && normaliseParameterType(Params[0]) == "void")
    Params.clear();
  return Params;
}

/// One place where the launcher's name is followed by a parameter list.
struct NameOccurrence {
  size_t NameOffset;
  std::string Parameters;
  bool IsDefinition; ///< The `)` is followed by `{`.
};

std::vector<NameOccurrence> findOccurrences(const std::string &Code,
                                            std::string_view Name) {
  std::vector<NameOccurrence> Found;
  auto IsIdent = [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  };
  for (size_t Pos = Code.find(Name); Pos != std::string::npos;
       Pos = Code.find(Name, Pos + 1)) {
    size_t After = Pos + Name.size();
    if ((Pos > 0 && IsIdent(Code[Pos - 1])) ||
        (After < Code.size() && IsIdent(Code[After])))
      continue;
    size_t Open = Code.find_first_not_of(" \t\r\n", After);
    if (Open == std::string::npos || Code[Open] != '(')
      continue;
    int Depth = 0;
    size_t Close = Open;
    for (; Close < Code.size(); ++Close) {
      if (Code[Close] == '(')
        ++Depth;
      else if (Code[Close] == ')' && --Depth == 0)
        break;
    }
    if (Close >= Code.size())
      continue;
    size_t Next = Code.find_first_not_of(" \t\r\n", Close + 1);
    bool IsDefinition = Next != std::string::npos && Code[Next] == '{';
    Found.push_back({Pos, Code.substr(Open + 1, Close - Open - 1), IsDefinition});
  }
  return Found;
}

/// The declaration specifiers before the name: back to the previous `;`,
/// `}`, `{` or preprocessor line.
std::string specifiersBefore(const std::string &Code, size_t NameOffset) {
  size_t Begin = Code.find_last_of(";{}#", NameOffset == 0 ? 0 : NameOffset - 1);
  Begin = Begin == std::string::npos ? 0 : Begin + 1;
  if (Begin > 0 && Code[Begin - 1] == '#') {
    size_t LineEnd = Code.find('\n', Begin);
    Begin = LineEnd == std::string::npos ? NameOffset : LineEnd + 1;
  }
  return Code.substr(Begin, NameOffset - Begin);
}

bool containsWord(const std::string &Text, std::string_view Word) {
  for (size_t Pos = Text.find(Word); Pos != std::string::npos;
       Pos = Text.find(Word, Pos + 1)) {
    size_t After = Pos + Word.size();
    bool StartOk = Pos == 0 || !(std::isalnum(static_cast<unsigned char>(Text[Pos - 1])) ||
                                 Text[Pos - 1] == '_');
    bool EndOk = After >= Text.size() ||
                 !(std::isalnum(static_cast<unsigned char>(Text[After])) || Text[After] == '_');
    if (StartOk && EndOk)
      return true;
  }
  return false;
}

} // namespace

std::string formatLauncherSignature(std::string_view Name,
                                    const std::vector<std::string> &Params) {
  std::string Signature = "void " + std::string(Name) + "(";
  for (size_t I = 0; I < Params.size(); ++I)
    Signature += (I ? ", " : "") + Params[I];
  return Signature + ")";
}

Result<void> checkLauncherSignature(std::string_view Code,
                                    std::string_view ExpectedName,
                                    const std::vector<std::string> &ExpectedParams) {
  const std::string Agreed =
      "Define it exactly as `" +
      formatLauncherSignature(ExpectedName, ExpectedParams) +
      " { ... }` and resend the complete source in one ```cuda block.";
  const std::string Name = "`" + std::string(ExpectedName) + "`";
  std::string Blanked = blankCommentsAndLiterals(Code, /*AlsoLiterals=*/true);

  std::vector<NameOccurrence> Definitions;
  bool Mentioned = false;
  for (NameOccurrence &Occurrence : findOccurrences(Blanked, ExpectedName)) {
    Mentioned = true;
    if (Occurrence.IsDefinition)
      Definitions.push_back(std::move(Occurrence));
  }
  if (Definitions.empty())
    return makeError("The launcher " + Name +
                     (Mentioned ? " is declared or called but never defined. "
                                : " is missing from your code. ") +
                     Agreed);
  if (Definitions.size() > 1)
    return makeError("The launcher " + Name + " is defined " +
                     std::to_string(Definitions.size()) +
                     " times; define it once. " + Agreed);

  const NameOccurrence &Definition = Definitions.front();
  std::string Specifiers = specifiersBefore(Blanked, Definition.NameOffset);
  if (containsWord(Specifiers, "__global__"))
    return makeError("The launcher " + Name +
                     " must be a host function that launches your kernels, not "
                     "a __global__ kernel. " + Agreed);
  if (!containsWord(Specifiers, "void"))
    return makeError("The launcher " + Name + " must return void. " + Agreed);

  std::vector<std::string> Actual = splitParameters(Definition.Parameters);
  if (Actual.size() != ExpectedParams.size())
    return makeError("The launcher " + Name + " takes " +
                     std::to_string(Actual.size()) +
                     " parameters but the agreed signature has " +
                     std::to_string(ExpectedParams.size()) + ". " + Agreed);
  for (size_t I = 0; I < Actual.size(); ++I) {
    std::string Got = normaliseParameterType(Actual[I]);
    std::string Want = normaliseParameterType(ExpectedParams[I]);
    if (Got != Want)
      return makeError("Parameter " + std::to_string(I + 1) + " of the launcher " +
                       Name + " has type `" + Got +
                       "` but the agreed signature has `" + Want + "` (`" +
                       ExpectedParams[I] + "`). " + Agreed);
  }
  return Result<void>::success();
}

} // namespace agents
} // namespace forgestencil
