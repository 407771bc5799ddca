// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <span>

namespace paretune {

/// Exact hypervolume of the region dominated by `points` and bounded by `reference`, for
/// minimised objectives. `points` holds n rows of reference.size() values (row-major); the
/// dimension is 1, 2 or 3. Points that are not strictly better than the reference in every
/// objective add nothing. 2D: O(n log n) sweep; 3D: O(n log n) sweep over the third objective
/// keeping the 2D staircase of the points seen so far.
/// Throws std::invalid_argument for another dimension or a size that is not a multiple of it.
double hypervolume(std::span<const double> points, std::span<const double> reference);

} // namespace paretune
