// runtime/program/piece_checkpoints.cpp — checkpoints between the pieces of sfc and tbs steps.
#include "runtime/program/piece_checkpoints.h"

#include <string>

namespace tcert {

PieceCheckpoints::PieceCheckpoints(Run& run, DirectResult& result, std::int64_t pieces) : run_(run), result_(result) {
  if (run_.options().checkpoint.empty()) return;
  boundaries_ = -static_cast<std::int64_t>(run_.context().max_over_ranks(-static_cast<double>(pieces)));
  resumed_ =
      static_cast<std::int64_t>(run_.checkpoints().resume_within(static_cast<std::uint64_t>(boundaries_), partial()));
}

PartialC PieceCheckpoints::partial() const { return {run_.context().rank() == 0 ? result_.file() : std::string(), {}}; }

bool PieceCheckpoints::before(std::int64_t w) {
  if (w < resumed_) return false;  // its elements are in the checkpoint's copy of C
  // Not before the first piece, nor where the run resumed: nothing new since that checkpoint.
  if (w > resumed_ && w < boundaries_ && run_.checkpoints().saves_within() && run_.checkpoints().within_due()) {
    result_.sync(run_.context());  // the pieces before w are in C's file
    run_.checkpoints().save_within(static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(boundaries_), partial());
  }
  return true;
}

}  // namespace tcert
