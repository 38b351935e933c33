//===- Spelling.h - The little grammars of the IR's C spellings -*- C++ -*-===//
///
/// \file
/// Internal to lib/IR (Validate.cpp). What each piece of C text an IR
/// carries must look like before a generator pastes it into CUDA: an
/// identifier, a qualified name, a numeric literal, an expression over names
/// and integers, a type, one line of text, a kernel name, an axis name. Each
/// whyNot* returns why \p S is not one ("" when it is).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_IR_SPELLING_H
#define FORGESTENCIL_LIB_IR_SPELLING_H

#include <cstddef>
#include <string>

namespace forgestencil {
namespace ir {
namespace spelling {

constexpr size_t MaxTextLength = 4096;

bool isIdentStart(char C);
bool isIdentChar(char C);
bool isMemberAccess(const std::string &S);
bool isQualifiedName(const std::string &S);
std::string shown(const std::string &S);
bool isNumericLiteral(const std::string &S);
std::string whyNotExpression(const std::string &S);
std::string whyNotType(const std::string &S);
std::string whyNotOneLine(const std::string &S);
std::string whyNotKernelName(const std::string &S);
bool isAxisName(const std::string &S);

} // namespace spelling
} // namespace ir
} // namespace forgestencil

#endif
