// costmodel/methods/sfc/curve.cpp — generalized_hilbert() (curve.h).
#include "costmodel/methods/sfc/curve.h"

#include <cstdlib>

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using Cells = std::vector<std::pair<i64, i64>>;

i64 sign(i64 v) { return (v > 0) - (v < 0); }
/// ⌊v / 2⌋, rounding towards −∞ as the construction needs for negative directions.
i64 half(i64 v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

/// Appends the cells of the parallelogram at (x, y) spanned by the major direction (ax, ay)
/// and the minor (bx, by), one of each pair zero, starting at (x, y) and ending next to
/// (x + ax − sign(ax), y + ay − sign(ay)).
void walk(i64 x, i64 y, i64 ax, i64 ay, i64 bx, i64 by, Cells& out) {
  const i64 w = std::abs(ax + ay), h = std::abs(bx + by);
  const i64 dax = sign(ax), day = sign(ay), dbx = sign(bx), dby = sign(by);
  if (h == 1) {  // a single row along the major direction
    for (i64 i = 0; i < w; ++i, x += dax, y += day) out.emplace_back(x, y);
    return;
  }
  if (w == 1) {  // a single column along the minor direction
    for (i64 i = 0; i < h; ++i, x += dbx, y += dby) out.emplace_back(x, y);
    return;
  }
  i64 ax2 = half(ax), ay2 = half(ay), bx2 = half(bx), by2 = half(by);
  const i64 w2 = std::abs(ax2 + ay2), h2 = std::abs(bx2 + by2);
  if (2 * w > 3 * h) {  // long: two halves along the major direction, the first of even length
    if (w2 % 2 != 0 && w > 2) ax2 += dax, ay2 += day;
    walk(x, y, ax2, ay2, bx, by, out);
    walk(x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by, out);
    return;
  }
  if (h2 % 2 != 0 && h > 2) bx2 += dbx, by2 += dby;  // up (even), along, and back down
  walk(x, y, bx2, by2, ax2, ay2, out);
  walk(x + bx2, y + by2, ax, ay, bx - bx2, by - by2, out);
  walk(x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby), -bx2, -by2, -(ax - ax2), -(ay - ay2), out);
}

}  // namespace

Cells generalized_hilbert(i64 width, i64 height) {
  Cells out;
  out.reserve(static_cast<std::size_t>(width * height));
  if (width >= height)
    walk(0, 0, width, 0, 0, height, out);
  else
    walk(0, 0, 0, height, width, 0, out);
  return out;
}

}  // namespace tcec::costmodel
