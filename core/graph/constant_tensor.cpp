#include "constant_tensor.h"

#include <cmath>

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
    return holdsIntegers()
               ? ints[static_cast<std::size_t>(index)]
               : static_cast<std::int64_t>(std::trunc(reals[static_cast<std::size_t>(index)]));
}

} // namespace paretune
