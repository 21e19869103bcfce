// runtime/program/piece_checkpoints.h — checkpoints inside a step whose ranks each run their own pieces
// in order (SfcGemm's tiles, TbsGemm's blocks), writing every piece straight into C's new
// version (DirectResult). Before piece w of every rank, for 0 < w < the fewest pieces of any
// rank, each rank's earlier pieces are in the version's file: the file is synced and rank 0
// copies it (StepCheckpoints::save_within(), position w of that many). A run resumed from such a checkpoint
// copies the file back and skips the pieces before w on every rank.
#pragma once

#include <cstdint>

#include "runtime/program/direct_result.h"
#include "runtime/program/run.h"

namespace tcert {

class PieceCheckpoints {
 public:
  /// Call at the start of the compute phase on every rank, `pieces` being this rank's count.
  /// With a checkpoint (RunOptions::checkpoint): finds the fewest pieces of any rank and, when
  /// the run resumed inside this step, copies C's new version back (StepCheckpoints::resume_within()).
  /// Collective then; Error on every rank as StepCheckpoints::resume_within() raises it.
  PieceCheckpoints(Run& run, DirectResult& result, std::int64_t pieces);

  /// Before this rank's piece w (0, 1, … in order): false when the checkpoint the run resumed
  /// from holds it (skip it); otherwise saves a checkpoint first when one is due there
  /// (StepCheckpoints::saves_within(), StepCheckpoints::within_due()) and returns true. Collective for
  /// w < the fewest pieces of any rank; Error on every rank when a save fails.
  bool before(std::int64_t w);

 private:
  /// This rank's partial C: the new version's file on rank 0, none elsewhere.
  PartialC partial() const;

  Run& run_;
  DirectResult& result_;
  std::int64_t boundaries_ = 0;  // the fewest pieces of any rank (0: no checkpoint)
  std::int64_t resumed_ = 0;     // pieces the resumed checkpoint holds
};

}  // namespace tcert
