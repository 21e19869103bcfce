// costmodel/methods/tbs/tbs_plan.h — (private) the part of a Plan that tbs adds: the memory
// its C blocks may take and the K columns of an A panel (the family is in family.h).
#pragma once

#include <cstdint>

namespace tcec::costmodel {

/// The integer part of a tbs plan (Plan::method): tbs_schedule(|I|, block_words, P, {panel,
/// group, |K|}) is its family, and each triangle block reads A in panels of `chunk` K columns.
/// Text: "block=W chunk=KC", then " panel=R group=G" when it streams.
struct TbsPlan {
  std::int64_t block_words = 1;  ///< the family's C block budget, elements
  std::int64_t chunk = 1;        ///< K columns per A panel
  /// Streaming (family.h TbsStream): resident rows per panel and streamed rows per group; 0: none.
  std::int64_t panel = 0, group = 0;
  friend bool operator==(const TbsPlan&, const TbsPlan&) = default;
};

}  // namespace tcec::costmodel
