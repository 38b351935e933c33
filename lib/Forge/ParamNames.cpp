//===- ParamNames.cpp - Kernel parameters named like generated locals -----===//

#include "forgestencil/Forge/ParamNames.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace forgestencil {
namespace forge {

namespace {

bool identStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_';
}
bool identChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

/// Calls Ident(begin, end) for each identifier of Text and copies the rest
/// through Other(begin, end); literals and (with Comments) comments go to
/// Other whole. Numbers such as 1e5f or 0x1F are not identifiers.
template <typename IdentFn, typename OtherFn>
void scan(const std::string &Text, bool Comments, IdentFn Ident,
          OtherFn Other) {
  size_t I = 0, N = Text.size();
  while (I < N) {
    char C = Text[I];
    size_t Start = I;
    if (identStart(C)) {
      while (I < N && identChar(Text[I]))
        ++I;
      Ident(Start, I);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(C)) ||
        (C == '.' && I + 1 < N &&
         std::isdigit(static_cast<unsigned char>(Text[I + 1])))) {
      // A pp-number: digits, letters, '.', and signs after an exponent.
      ++I;
      while (I < N && (identChar(Text[I]) || Text[I] == '.' ||
                       ((Text[I] == '+' || Text[I] == '-') &&
                        std::string("eEpP").find(Text[I - 1]) !=
                            std::string::npos)))
        ++I;
      Other(Start, I);
      continue;
    }
    if (C == '"' || C == '\'') {
      ++I;
      while (I < N && Text[I] != C) {
        if (Text[I] == '\\')
          ++I;
        ++I;
      }
      I = I < N ? I + 1 : N;
      Other(Start, I);
      continue;
    }
    if (Comments && C == '/' && I + 1 < N && Text[I + 1] == '/') {
      while (I < N && Text[I] != '\n')
        ++I;
      Other(Start, I);
      continue;
    }
    if (Comments && C == '/' && I + 1 < N && Text[I + 1] == '*') {
      size_t End = Text.find("*/", I + 2);
      I = End == std::string::npos ? N : End + 2;
      Other(Start, I);
      continue;
    }
    ++I;
    Other(Start, I);
  }
}

/// The last non-blank character before Pos, or 0.
char before(const std::string &S, size_t Pos, size_t &At) {
  while (Pos > 0 && std::isspace(static_cast<unsigned char>(S[Pos - 1])))
    --Pos;
  At = Pos;
  return Pos ? S[Pos - 1] : 0;
}

void renameExpr(ir::Expr &E, const std::map<std::string, std::string> &R,
                const std::set<std::string> &ScalarCoefs) {
  switch (E.Kind) {
  case ir::Expr::Read:
  case ir::Expr::ParamRef:
    E.Name = renameIdentifiers(E.Name, R);
    break;
  case ir::Expr::Coef:
    if (ScalarCoefs.count(E.Name))
      E.Name = renameIdentifiers(E.Name, R);
    E.IndexExpr = renameIdentifiers(E.IndexExpr, R);
    break;
  default:
    break;
  }
  for (ir::Expr &A : E.Args)
    renameExpr(A, R, ScalarCoefs);
}

} // namespace

std::string renameIdentifiers(const std::string &Text,
                              const std::map<std::string, std::string> &Renames) {
  std::string Out;
  Out.reserve(Text.size());
  scan(
      Text, /*Comments=*/false,
      [&](size_t B, size_t E) {
        std::string Word = Text.substr(B, E - B);
        auto It = Renames.find(Word);
        size_t At = 0;
        char Prev = before(Text, B, At);
        bool Member = Prev == '.' || (Prev == '>' && At >= 2 &&
                                      Text[At - 2] == '-') ||
                      (Prev == ':' && At >= 2 && Text[At - 2] == ':');
        size_t Next = E;
        while (Next < Text.size() &&
               std::isspace(static_cast<unsigned char>(Text[Next])))
          ++Next;
        bool Qualifier = Next + 1 < Text.size() && Text[Next] == ':' &&
                         Text[Next + 1] == ':';
        Out += (It != Renames.end() && !Member && !Qualifier) ? It->second
                                                              : Word;
      },
      [&](size_t B, size_t E) { Out.append(Text, B, E - B); });
  return Out;
}

std::set<std::string>
identifiersSeenBy(const std::string &Source,
                  const std::set<std::string> &Params) {
  // Tokens outside comments, literals and preprocessor lines: identifiers,
  // and the braces and semicolons that delimit top-level declarations.
  struct Token {
    std::string Text;
    bool Ident;
  };
  std::vector<Token> Tokens;
  bool LineStart = true, Directive = false;
  scan(
      Source, /*Comments=*/true,
      [&](size_t B, size_t E) {
        LineStart = false;
        size_t At = 0;
        char Prev = before(Source, B, At);
        bool Member = Prev == '.' || (Prev == '>' && At >= 2 &&
                                      Source[At - 2] == '-');
        // A member (g.y, p->x) cannot clash with a parameter; it still
        // counts as a token of the declaration.
        if (!Directive)
          Tokens.push_back({Member ? "." : Source.substr(B, E - B), true});
      },
      [&](size_t B, size_t E) {
        if (E - B > 1) { // a comment, a literal or a number
          LineStart = false;
          return;
        }
        char C = Source[B];
        if (C == '\n') {
          // A directive ends at a newline not escaped by a backslash.
          if (!(Directive && B > 0 && Source[B - 1] == '\\'))
            Directive = false;
          LineStart = true;
          return;
        }
        if (std::isspace(static_cast<unsigned char>(C)))
          return;
        if (LineStart && C == '#')
          Directive = true;
        LineStart = false;
        if (!Directive && (C == '{' || C == '}' || C == ';'))
          Tokens.push_back({std::string(1, C), false});
      });

  std::set<std::string> Seen;
  // Braces of namespaces and linkage blocks hold declarations, not code.
  std::vector<bool> Transparent;
  size_t Start = 0; // first token of the current top-level declaration
  for (size_t I = 0; I < Tokens.size(); ++I) {
    const Token &T = Tokens[I];
    if (T.Ident)
      continue;
    if (T.Text == ";") {
      if (std::all_of(Transparent.begin(), Transparent.end(),
                      [](bool B) { return B; }))
        Start = I + 1;
      continue;
    }
    if (T.Text == "}") {
      if (!Transparent.empty() && Transparent.back()) {
        Transparent.pop_back();
        Start = I + 1;
      }
      continue;
    }
    // An opening brace at the top level: a namespace or extern "C" block,
    // or a declaration whose whole text runs to the matching brace.
    bool TopLevel = std::all_of(Transparent.begin(), Transparent.end(),
                                [](bool B) { return B; });
    if (!TopLevel)
      continue;
    bool Block = I > Start && (Tokens[Start].Text == "namespace" ||
                               Tokens[Start].Text == "extern");
    if (Block && (Tokens[Start].Text == "namespace" || I == Start + 1)) {
      Transparent.push_back(true);
      Start = I + 1;
      continue;
    }
    size_t Depth = 0, End = I;
    for (; End < Tokens.size(); ++End) {
      if (Tokens[End].Ident)
        continue;
      if (Tokens[End].Text == "{")
        ++Depth;
      else if (Tokens[End].Text == "}" && --Depth == 0)
        break;
    }
    bool Takes = false;
    for (size_t J = Start; J < I && !Takes; ++J)
      Takes = Tokens[J].Ident && Params.count(Tokens[J].Text);
    if (Takes)
      for (size_t J = Start; J < End && J < Tokens.size(); ++J)
        if (Tokens[J].Ident && Tokens[J].Text != ".")
          Seen.insert(Tokens[J].Text);
    I = End;
    Start = End + 1;
  }
  return Seen;
}

ir::StencilIR renameParams(const ir::StencilIR &IR,
                           const std::map<std::string, std::string> &Renames) {
  ir::StencilIR Out = IR;
  if (Renames.empty())
    return Out;
  auto R = [&](std::string &S) { S = renameIdentifiers(S, Renames); };
  for (ir::Param &P : Out.Params)
    R(P.Name);
  for (ir::Axis &A : Out.Axes) {
    R(A.Lower);
    R(A.Upper);
    R(A.Extent);
    R(A.ThreadOffset);
    R(A.LinearStep);
    R(A.LinearModulus);
    R(A.ClampLower);
    R(A.ClampUpper);
    R(A.WrapLower);
    R(A.WrapUpper);
    R(A.WrapPeriod);
    R(A.ZeroLower);
    R(A.ZeroUpper);
  }
  for (std::string &S : Out.Strides)
    R(S);
  for (ir::InputArray &In : Out.Inputs) {
    R(In.Param);
    for (std::string &S : In.Strides)
      R(S);
  }
  for (ir::OutputArray &O : Out.Outputs)
    R(O.Param);
  std::set<std::string> ScalarCoefs;
  for (ir::Coefficient &C : Out.Coefficients)
    if (C.Kind == ir::Coefficient::ScalarParam ||
        C.Kind == ir::Coefficient::ParamArray) {
      ScalarCoefs.insert(C.Name);
      R(C.Name);
    }
  for (ir::Update &U : Out.Updates) {
    R(U.Target);
    renameExpr(U.Value, Renames, ScalarCoefs);
  }
  for (std::string &S : Out.Frame.Lower)
    R(S);
  for (std::string &S : Out.Frame.Upper)
    R(S);
  for (ir::Update &U : Out.Frame.Updates) {
    R(U.Target);
    renameExpr(U.Value, Renames, ScalarCoefs);
  }
  // Only a grid extent's value and an at-least's or a mode's expression are
  // written over the parameters; the other kinds name a thread dimension
  // ("x"), numbers or compile-time constants.
  for (ir::Assumption &A : Out.Assumptions)
    if (A.Kind == ir::Assumption::GridExtent)
      R(A.Value);
    else if (A.Kind == ir::Assumption::AtLeast ||
             A.Kind == ir::Assumption::Holds)
      R(A.Expr);
  for (ir::BlockReduction &B : Out.Reductions)
    for (std::string &O : B.Outputs)
      R(O);
  return Out;
}

std::map<std::string, std::string>
collidingParams(const ir::StencilIR &IR,
                const std::function<std::string(const ir::StencilIR &)> &Emit) {
  std::map<std::string, std::string> None;
  if (IR.Params.empty())
    return None;
  // Probe names no generator writes and no kernel is likely to have.
  std::map<std::string, std::string> Probe;
  for (size_t I = 0; I < IR.Params.size(); ++I)
    Probe[IR.Params[I].Name] = "fs_probe_param" + std::to_string(I) + "_";
  std::string Code = Emit(renameParams(IR, Probe));
  if (Code.empty())
    return None;
  std::set<std::string> ProbeNames;
  for (const auto &[Old, New] : Probe)
    ProbeNames.insert(New);
  std::set<std::string> Used = identifiersSeenBy(Code, ProbeNames);
  std::set<std::string> Taken = Used;
  for (const ir::Param &P : IR.Params)
    Taken.insert(P.Name);
  std::map<std::string, std::string> Renames;
  for (const ir::Param &P : IR.Params) {
    if (!Used.count(P.Name))
      continue;
    std::string New = "fs_p_" + P.Name;
    while (Taken.count(New))
      New += "_";
    Taken.insert(New);
    Renames[P.Name] = New;
  }
  return Renames;
}

ir::StencilIR
withSafeParamNames(const ir::StencilIR &IR,
                   const std::function<std::string(const ir::StencilIR &)> &Emit) {
  std::map<std::string, std::string> Renames = collidingParams(IR, Emit);
  return Renames.empty() ? IR : renameParams(IR, Renames);
}

} // namespace forge
} // namespace forgestencil
