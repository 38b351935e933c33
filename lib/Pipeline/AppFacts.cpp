//===- AppFacts.cpp - Everything one parse of an application says ---------===//

#include "forgestencil/Pipeline/AppFacts.h"

#include "clang/Frontend/MultiplexConsumer.h"

namespace forgestencil {
namespace pipeline {

std::unique_ptr<AppFacts>
AppFacts::parse(const driver::CudaCompilationDatabase &DB) {
  // The consumers keep references into the facts: fill them in place.
  auto F = std::make_unique<AppFacts>();
  F->Parses = driver::runFrontend(
      DB, {},
      [&F](clang::CompilerInstance &CI, const driver::TranslationUnit &TU,
           driver::CudaSide Side) -> std::unique_ptr<clang::ASTConsumer> {
        std::vector<std::unique_ptr<clang::ASTConsumer>> Each;
        if (auto C = F->Inventory.makeConsumer(CI, TU, Side))
          Each.push_back(std::move(C));
        if (auto C = F->Rewrite.makeConsumer(CI, TU, Side))
          Each.push_back(std::move(C));
        if (Each.empty())
          return nullptr;
        if (Each.size() == 1)
          return std::move(Each.front());
        return std::make_unique<clang::MultiplexConsumer>(std::move(Each));
      });
  return F;
}

} // namespace pipeline
} // namespace forgestencil
