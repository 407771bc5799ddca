// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/speed_calibration.h"

#include "profile/measurement.h"
#include "profile/plan_validation.h"

#include <algorithm>
#include <cmath>

namespace paretune {

std::string onlyDeviceOf(const PlanToValidate& plan) {
    std::string only;
    for (const std::string& id : plan.assignment) {
        if (id.empty() || id == only) {
            continue;
        }
        if (!only.empty()) {
            return {};
        }
        only = id;
    }
    return only;
}

void compareProbes(SpeedCalibration& now,
                   const std::map<std::vector<std::uint8_t>, double>& latestUs) {
    std::vector<double> ratios;
    for (const SpeedProbe& p : now.probes) {
        const auto then = latestUs.find(p.genome);
        if (then != latestUs.end() && then->second > 0.0) {
            const double us = p.afterUs ? std::sqrt(p.us * *p.afterUs) : p.us;
            ratios.push_back(us / then->second);
            if (!p.device.empty()) {
                now.deviceSpeed[p.device] = ratios.back();
            }
        }
    }
    if (!ratios.empty()) {
        now.speed = medianOf(ratios);
        now.compared = static_cast<int>(ratios.size());
    }
}

double SpeedCalibration::speedMoved() const {
    double moved = 0.0;
    for (const SpeedProbe& p : probes) {
        for (const std::optional<double>& later : {p.afterUs, p.runsUs}) {
            if (later && p.us > 0.0) {
                moved = std::max(moved, std::abs(*later / p.us - 1.0));
            }
        }
    }
    return moved;
}

double SpeedCalibration::speedOf(const std::map<std::string, double>& busyUs) const {
    if (!speed) {
        return 1.0;
    }
    double weighted = 0.0;
    double total = 0.0;
    for (const auto& [device, us] : busyUs) {
        const auto found = deviceSpeed.find(device);
        weighted += us * (found != deviceSpeed.end() ? found->second : *speed);
        total += us;
    }
    return total > 0.0 ? weighted / total : *speed;
}

NewPlanBias newPlanBiasOf(const std::vector<double>& ratios) {
    NewPlanBias bias;
    std::vector<double> logs;
    for (const double r : ratios) {
        if (r > 0.0 && std::isfinite(r)) {
            logs.push_back(std::log(r));
        }
    }
    if (logs.empty()) {
        return bias;
    }
    const double n = static_cast<double>(logs.size());
    bias.factor = std::clamp(std::exp(medianOf(logs) * n / (n + kNewPlanPrior)), 0.9, 1.2);
    bias.plans = static_cast<int>(logs.size());
    return bias;
}

} // namespace paretune
