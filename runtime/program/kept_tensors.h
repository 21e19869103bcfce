// runtime/program/kept_tensors.h — KeptTensors: results that stay on the ranks between steps
// instead of going to the tensor store: the hand-off's kept tensors (GemmSpec::keep_result,
// take_A …) and a resident accumulation's block (resident_spec.h).
//
// While anything is kept here, the store does not hold the run's latest values, so no
// checkpoint is saved (StepCheckpoints::save()).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/memory.h"
#include "runtime/comm/placement.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/tiled_matrix.h"

namespace tcert {

/// A step's result kept on the ranks for later steps instead of written to the store (the
/// hand-off: GemmSpec::keep_result, take_A …): where its parts lie and this rank's file of
/// them (null where the placement gives this rank nothing).
struct KeptTensor {
  TensorShape shape;
  Placement placement;
  std::unique_ptr<TiledMatrix> file;
  /// --verify only: the store's latest version of the tensor holds the same values (written
  /// outside the counted phases, for the checks that read operands from the store).
  bool shadowed = false;
};

/// The latest versions kept on the ranks (by tensor name) and the one resident block.
class KeptTensors {
 public:
  /// For a program whose outputs are `outputs` (they are never kept: they go to the store).
  explicit KeptTensors(std::vector<TensorShape> outputs);

  // --- the hand-off ---
  /// Makes `tensor` the latest version of its name, kept on the ranks; an earlier kept
  /// version is dropped (drop()). Throws Error("output NAME cannot be kept on the ranks; outputs
  /// go to the store") for a program output.
  void keep(KeptTensor tensor);
  /// The kept latest version of `name`, or nullptr when there is none (it is in the store).
  KeptTensor* find(const std::string& name);
  /// Removes the kept version of `name` and returns it (null when none): the caller reads it and
  /// then deletes its file (a flush).
  std::unique_ptr<KeptTensor> withdraw(const std::string& name);
  /// Forgets the kept version of `name`, if any, and deletes this rank's file of it: it is
  /// superseded (a new version) or released.
  void drop(const std::string& name);

  // --- a result held in memory across steps (resident accumulation, resident_spec.h) ---
  /// Holds this rank's block of `name` (possibly empty) from the first step of a resident
  /// accumulation to its last. Throws Error ("a resident accumulation of NAME starts while OTHER
  /// is still held") when a block is already held.
  void hold_resident(const std::string& name, Buffer block);
  /// The held block of `name`; Error ("a resident accumulation step of NAME found no block of it
  /// held by an earlier step") when none is held for it (the steps ran out of order).
  Buffer& resident(const std::string& name);
  /// Frees the held block (the last step wrote it).
  void drop_resident();

  /// Whether nothing is kept and no block is held: the store holds every latest version.
  bool empty() const { return kept_.empty() && resident_name_.empty(); }

 private:
  std::vector<TensorShape> outputs_;
  std::map<std::string, std::unique_ptr<KeptTensor>> kept_;  // by tensor name: latest versions on the ranks
  std::string resident_name_;                                // hold_resident(): the tensor, "" when none
  Buffer resident_;                                          // and this rank's block of it
};

}  // namespace tcert
