//===- BlockShapeChoice.cpp - Block shapes chosen from in-app times -------===//

#include "forgestencil/Knowledge/BlockShapeChoice.h"

#include "VerifyRecord.h"

#include "forgestencil/Rewrite/RewritePlanner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace llvm;

namespace forgestencil {
namespace knowledge {

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "%s", Msg.str().c_str());
}

Expected<std::vector<ShapeChoice>>
chooseBlockShapes(StringRef JsonText, const std::vector<std::string> &Kernels,
                  double MinGain) {
  VerifyRecord R;
  if (Error E = readVerifyRecord(JsonText, R))
    return E;
  const json::Object *Times = R.Times;
  std::vector<ShapeChoice> Out;
  for (const std::string &Kernel : Kernels) {
    ShapeChoice C;
    C.Kernel = Kernel;
    double BestMs = 0;
    std::optional<std::array<unsigned, 3>> Best;
    std::optional<unsigned> BestCap;
    std::optional<rewrite::Coarsening> BestCo;
    for (const auto &[Key, Value] : *Times) {
      StringRef K = Key;
      if (!K.consume_front(Kernel) || !K.consume_front("[") ||
          !K.consume_back("]"))
        continue;
      // "XxYxZ", "XxYxZ/rN" (a register-capped copy) or "XxYxZ/cyN" (a
      // coarsened one).
      auto [ShapeText, CapText] = K.split('/');
      std::optional<unsigned> Cap;
      std::optional<rewrite::Coarsening> Co;
      unsigned N = 0;
      bool CapOk = true;
      if (CapText.consume_front("c")) {
        Co = rewrite::parseCoarsening(CapText);
        CapOk = Co.has_value();
      } else if (!CapText.empty()) {
        CapOk = CapText.consume_front("r") && !CapText.getAsInteger(10, N) &&
                rewrite::validRegisterCap(N);
        Cap = N;
      }
      std::optional<std::array<unsigned, 3>> Shape =
          CapOk ? rewrite::parseBlockShape(ShapeText) : std::nullopt;
      const json::Object *T = Value.getAsObject();
      std::optional<double> O = T ? T->getNumber("original_ms") : std::nullopt;
      std::optional<double> Ms = T ? T->getNumber("copy_ms") : std::nullopt;
      if (!Shape || !O || !Ms || *Ms <= 0)
        return fail("kernel_times." + Key.str() +
                    ": not a block shape (XxYxZ, XxYxZ/rN or XxYxZ/cyN) "
                    "with original_ms and copy_ms");
      ++C.Measured;
      C.OriginalMs = *O;
      if (!Best || *Ms < BestMs) {
        Best = Shape;
        BestCap = Cap;
        BestCo = Co;
        BestMs = *Ms;
      }
    }
    if (!C.Measured) {
      // Not launched in the run, or no copy of its body was made: it keeps
      // its launches (the caller says so).
      Out.push_back(C);
      continue;
    }
    C.CopyMs = BestMs;
    if (C.OriginalMs / BestMs >= 1 + MinGain) {
      C.Block = Best;
      C.MaxRegisters = BestCap;
      C.Coarsened = BestCo;
    }
    Out.push_back(C);
  }
  // A record with times for none of them is another run's.
  if (!Kernels.empty() &&
      std::none_of(Out.begin(), Out.end(),
                   [](const ShapeChoice &C) { return C.Measured > 0; }))
    return fail("no times for kernel" +
                std::string(Kernels.size() > 1 ? "s" : "") + " '" +
                join(Kernels, "', '") + "' (kernel_times has none named " +
                Kernels.front() + "[XxYxZ]): was it the record of a "
                "USE_OURS=verify run of the --reblock patch?");
  return Out;
}

} // namespace knowledge
} // namespace forgestencil
