// SPDX-License-Identifier: GPL-3.0-or-later
// The torch-free parts of the profiler's result types (op_profile.h, profile_model.h).
#include "op_profile.h"

#include "profile_model.h"

#include <algorithm>

namespace paretune {

std::string_view profileStatusName(ProfileStatus status) {
    switch (status) {
    case ProfileStatus::Ok:
        return "ok";
    case ProfileStatus::Unsupported:
        return "unsupported";
    case ProfileStatus::Failed:
        return "failed";
    }
    return "failed";
}

std::int64_t HostTensor::elementCount() const {
    std::int64_t n = 1;
    for (std::int64_t d : dims) {
        n *= d;
    }
    return n;
}

int ProfileResult::count(ProfileStatus status) const {
    return static_cast<int>(std::count_if(
        nodes.begin(), nodes.end(), [status](const auto& e) { return e.second.status == status; }));
}

} // namespace paretune
