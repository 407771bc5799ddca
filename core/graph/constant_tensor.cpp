// SPDX-License-Identifier: GPL-3.0-or-later
#include "constant_tensor.h"

#include <cmath>
#include <limits>

namespace paretune {

std::int64_t ConstantTensor::elementCount() const {
    std::int64_t count = 1;
    for (const std::int64_t dim : dims) {
        count *= dim;
    }
    return count;
}

double ConstantTensor::real(std::int64_t index) const {
    return holdsIntegers() ? static_cast<double>(ints[static_cast<std::size_t>(index)])
                           : reals[static_cast<std::size_t>(index)];
}

std::int64_t ConstantTensor::integer(std::int64_t index) const {
    if (holdsIntegers()) {
        return ints[static_cast<std::size_t>(index)];
    }
    return saturatingInt64(std::trunc(reals[static_cast<std::size_t>(index)]));
}

std::int64_t saturatingInt64(double x) {
    // Converting a double outside int64's range is undefined; saturate instead (NaN gives 0).
    if (!(x == x)) {
        return 0;
    }
    if (x >= 9223372036854775807.0) {
        return std::numeric_limits<std::int64_t>::max();
    }
    if (x <= -9223372036854775808.0) {
        return std::numeric_limits<std::int64_t>::min();
    }
    return static_cast<std::int64_t>(x);
}

} // namespace paretune
