// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/cell_shrinkage.h"

#include "profile/measurement.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace paretune {

namespace {

constexpr int kMinCells = 3;          // cells behind a noise figure or a device's ratio
constexpr double kMinSpreadSd = 0.01; // a cell differs at least this much from its prior

/// A cell's prior: the log-ratio its node's other devices give it, and the variance of their
/// noise in it (in units of one time's noise).
struct Prior {
    double logRatio = 0.0;
    double noiseShare = 0.0;
};

} // namespace

std::optional<CellShrinkage> shrinkInPlanTimes(const std::vector<InPlanCell>& cells,
                                               std::vector<double>& estimatesUs) {
    std::vector<double> medians;
    medians.reserve(cells.size());
    for (const InPlanCell& c : cells) {
        medians.push_back(medianOf(c.timesUs));
    }
    estimatesUs = medians;
    // The noise: each time against its cell's median, weighted by the cell's time.
    double squares = 0.0;
    double freedom = 0.0;
    int noisy = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].timesUs.size() < 2) {
            continue;
        }
        for (const double t : cells[i].timesUs) {
            const double x = std::log(t / medians[i]);
            squares += medians[i] * x * x;
        }
        freedom += medians[i] * static_cast<double>(cells[i].timesUs.size() - 1);
        ++noisy;
    }
    if (noisy < kMinCells || !(freedom > 0.0)) {
        return std::nullopt;
    }
    const double noise = squares / freedom; // of one time's log
    // Each device's log-ratio (of sums: weighted by time, as a plan's latency is).
    struct Sums {
        double mediansUs = 0.0;
        double cellsUs = 0.0;
        int count = 0;
    };
    std::map<std::int32_t, Sums> byDevice;
    std::map<std::string, std::vector<std::size_t>> byNode;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        Sums& s = byDevice[cells[i].device];
        s.mediansUs += medians[i];
        s.cellsUs += cells[i].cellUs;
        ++s.count;
        byNode[cells[i].node].push_back(i);
    }
    const auto deviceLog = [&](std::size_t i) {
        const Sums& s = byDevice.at(cells[i].device);
        return s.count >= kMinCells ? std::optional<double>(std::log(s.mediansUs / s.cellsUs))
                                    : std::nullopt;
    };
    const auto x = [&](std::size_t i) { return std::log(medians[i] / cells[i].cellUs); };
    std::vector<std::optional<Prior>> priors(cells.size());
    double spread = 0.0;
    double weights = 0.0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::optional<double> own = deviceLog(i);
        if (!own) {
            continue;
        }
        double sum = 0.0;
        double share = 0.0;
        int others = 0;
        for (const std::size_t j : byNode.at(cells[i].node)) {
            const std::optional<double> theirs = deviceLog(j);
            if (j == i || cells[j].device == cells[i].device || !theirs) {
                continue;
            }
            sum += x(j) - *theirs;
            share += 1.0 / static_cast<double>(cells[j].timesUs.size());
            ++others;
        }
        if (others == 0) {
            continue;
        }
        const double n = static_cast<double>(others);
        priors[i] = Prior{*own + sum / n, share / (n * n)};
        const double r = x(i) - priors[i]->logRatio;
        const double ownShare = 1.0 / static_cast<double>(cells[i].timesUs.size());
        spread += medians[i] * (r * r - noise * (ownShare + priors[i]->noiseShare));
        weights += medians[i];
    }
    if (!(weights > 0.0)) {
        return std::nullopt;
    }
    CellShrinkage fit;
    fit.noiseSd = std::sqrt(noise);
    fit.spreadSd = std::sqrt(std::max(spread / weights, kMinSpreadSd * kMinSpreadSd));
    const double between = fit.spreadSd * fit.spreadSd;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (!priors[i]) {
            continue;
        }
        const double v = between + noise * priors[i]->noiseShare;
        const double w = v / (v + noise / static_cast<double>(cells[i].timesUs.size()));
        const double logRatio = priors[i]->logRatio + w * (x(i) - priors[i]->logRatio);
        estimatesUs[i] = cells[i].cellUs * std::exp(logRatio);
        ++fit.cells;
    }
    return fit;
}

} // namespace paretune
