#include "server/common/scratch_payer.h"

namespace arrayhub {

namespace {

thread_local const ScratchPayer* current_payer = nullptr;

}  // namespace

ScopedScratchPayer::ScopedScratchPayer(const ScratchPayer* payer) : previous_(current_payer) {
  current_payer = payer;
}

ScopedScratchPayer::~ScopedScratchPayer() { current_payer = previous_; }

absl::StatusOr<std::unique_ptr<ScratchReceipt>> PayForScratch(int64_t bytes) {
  if (current_payer == nullptr || bytes <= 0) return nullptr;
  return current_payer->Pay(bytes);
}

}  // namespace arrayhub
