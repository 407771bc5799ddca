// SPDX-License-Identifier: GPL-3.0-or-later
#include "rapl_energy.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace paretune {
namespace {

std::optional<std::uint64_t> readNumber(const std::string& path) {
    std::ifstream in(path);
    std::uint64_t value = 0;
    if (!(in >> value)) {
        return std::nullopt;
    }
    return value;
}

} // namespace

std::optional<RaplEnergy> RaplEnergy::open(const std::string& root) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        return std::nullopt;
    }
    RaplEnergy meter;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        // Package domains only: "intel-rapl:0", not "intel-rapl:0:0".
        if (name.rfind("intel-rapl:", 0) != 0 || std::count(name.begin(), name.end(), ':') != 1) {
            continue;
        }
        Domain domain;
        domain.path = (entry.path() / "energy_uj").string();
        const auto range = readNumber((entry.path() / "max_energy_range_uj").string());
        if (!range || !readNumber(domain.path)) {
            continue;
        }
        domain.maxRangeUj = *range;
        meter.m_domains.push_back(std::move(domain));
    }
    if (meter.m_domains.empty()) {
        return std::nullopt;
    }
    std::sort(meter.m_domains.begin(), meter.m_domains.end(),
              [](const Domain& a, const Domain& b) { return a.path < b.path; });
    return meter;
}

std::optional<RaplEnergy::Reading> RaplEnergy::read() const {
    Reading reading;
    reading.reserve(m_domains.size());
    for (const Domain& d : m_domains) {
        const auto value = readNumber(d.path);
        if (!value) {
            return std::nullopt;
        }
        reading.push_back(*value);
    }
    return reading;
}

double RaplEnergy::deltaUj(const Reading& before, const Reading& after) const {
    double total = 0.0;
    const std::size_t n = std::min({before.size(), after.size(), m_domains.size()});
    for (std::size_t i = 0; i < n; ++i) {
        if (after[i] >= before[i]) {
            total += static_cast<double>(after[i] - before[i]);
        } else {
            // The counter wrapped: it ran up to max_energy_range_uj, then restarted from 0.
            total += static_cast<double>(m_domains[i].maxRangeUj - before[i] + after[i]);
        }
    }
    return total;
}

} // namespace paretune
