// SPDX-License-Identifier: GPL-3.0-or-later
#include "hypervolume.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <stdexcept>
#include <vector>

namespace paretune {

namespace {

double hypervolume2d(std::vector<std::array<double, 3>>& p, double rx, double ry) {
    std::sort(p.begin(), p.end());
    double volume = 0.0;
    double minY = ry;
    for (const auto& q : p) {
        if (q[1] < minY) {
            volume += (rx - q[0]) * (minY - q[1]);
            minY = q[1];
        }
    }
    return volume;
}

/// The 2D staircase of non-dominated points (x ascending, y descending) and its area.
class Staircase {
public:
    Staircase(double rx, double ry) : m_rx(rx), m_ry(ry) {}

    /// Inserts (x, y) and returns by how much the dominated area grew.
    double insert(double x, double y) {
        auto it = m_points.lower_bound(x);
        if (it != m_points.begin() && std::prev(it)->second <= y) {
            return 0.0;
        }
        if (it != m_points.end() && it->first == x && it->second <= y) {
            return 0.0;
        }
        const double top = it != m_points.begin() ? std::prev(it)->second : m_ry;
        double covered = 0.0;
        while (it != m_points.end() && it->second >= y) {
            const double dx = it->first;
            const double dy = it->second;
            it = m_points.erase(it);
            const double nextX = it != m_points.end() ? it->first : m_rx;
            // Only the part of the removed point's strip that lies left of the next survivor
            // counts; the survivor already covers the rest of the strip below `top`.
            covered += (nextX - dx) * (top - dy);
        }
        const double rightX = it != m_points.end() ? it->first : m_rx;
        m_points.emplace(x, y);
        return (rightX - x) * (top - y) - covered;
    }

private:
    double m_rx;
    double m_ry;
    std::map<double, double> m_points;
};

} // namespace

double hypervolume(std::span<const double> points, std::span<const double> reference) {
    const std::size_t dims = reference.size();
    if (dims < 1 || dims > 3 || points.size() % dims != 0) {
        throw std::invalid_argument("hypervolume: 1, 2 or 3 objectives, whole rows");
    }
    const std::size_t n = points.size() / dims;
    std::vector<std::array<double, 3>> p;
    p.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::array<double, 3> q{0.0, 0.0, 0.0};
        bool inside = true;
        for (std::size_t k = 0; k < dims; ++k) {
            q[k] = points[i * dims + k];
            inside = inside && q[k] < reference[k];
        }
        if (inside) {
            p.push_back(q);
        }
    }
    if (p.empty()) {
        return 0.0;
    }
    if (dims == 1) {
        double best = reference[0];
        for (const auto& q : p) {
            best = std::min(best, q[0]);
        }
        return reference[0] - best;
    }
    if (dims == 2) {
        return hypervolume2d(p, reference[0], reference[1]);
    }
    std::sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a[2] < b[2]; });
    Staircase stairs(reference[0], reference[1]);
    double area = 0.0;
    double volume = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        area += stairs.insert(p[i][0], p[i][1]);
        const double nextZ = i + 1 < p.size() ? p[i + 1][2] : reference[2];
        volume += area * (nextZ - p[i][2]);
    }
    return volume;
}

} // namespace paretune
