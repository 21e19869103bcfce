// costmodel/methods/tbs/tbs_plan.h — (private) the part of a Plan that tbs adds: the memory
// its C blocks may take and the K columns of an A panel (the family is in family.h).
#pragma once

#include <cstdint>

namespace tcec::costmodel {

/// The integer part of a tbs plan (Plan::method): tbs_schedule(|I|, block_words, P) is its
/// family, and each block reads A in panels of `chunk` K columns. Text: "block=W chunk=KC".
struct TbsPlan {
  std::int64_t block_words = 1;   ///< the family's C block budget, elements
  std::int64_t chunk = 1;         ///< K columns per A panel
  friend bool operator==(const TbsPlan&, const TbsPlan&) = default;
};

}  // namespace tcec::costmodel
