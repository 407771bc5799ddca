// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The machine's speed just before a tune round's timed runs (the tune loop, tune_workflow.h):
// the round's baselines timed alone, against the latest round's probes of the same plans.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct PlanToValidate;

/// A baseline timed alone just before a round's timed runs (SpeedCalibration).
struct SpeedProbe {
    std::string label;
    std::vector<std::uint8_t> genome;
    std::string device; ///< the device it runs on alone; empty for a plan over several
    double us = 0.0;    ///< median of the probe's runs
};

/// The machine's speed just before a round's timed runs. The round's baselines run first on
/// their own (SpeedProbe, fewer runs), and each is compared with its probe of the latest round:
/// probes against probes, as the same plan timed alone ran up to 8 % faster (MobileNet-V2, its
/// weights still in cache) than interleaved with the round's other plans. The search's costs
/// are at the latest round's speed (observationsAtLatestSpeed); on a shared VM the speed moved by
/// up to ±17 % between rounds a minute apart, and not alike on every device (`cpu`, whose two
/// threads wait for each other, more than one core), so the speed of seconds before is the
/// better guess of what the round's runs will measure.
struct SpeedCalibration {
    std::vector<SpeedProbe> probes; ///< this round's
    int runs = 0;                   ///< timed runs of each probe, interleaved
    /// Median over the probes the latest round took too of (now / then); absent in the first
    /// round, or when the latest round took none of them.
    std::optional<double> speed;
    /// Per device id, from the probe that runs on it alone: that probe's ratio.
    std::map<std::string, double> deviceSpeed;
    int compared = 0; ///< probes with a ratio

    /// A plan's speed: its devices' speeds (`speed` for a device without one) weighted by the
    /// plan's simulated busy time on each (`busyUs`, per device id); 1 without a speed.
    double speedOf(const std::map<std::string, double>& busyUs) const;
};

/// The device every node of a plan runs on, or empty for a plan over several.
std::string onlyDeviceOf(const PlanToValidate& plan);

/// Sets `now`'s speeds (speed, deviceSpeed, compared) from its probes that `latest` took too
/// (the same genome): each ratio now / then, a probe on one device giving that device's speed,
/// their median the speed of the others.
void compareProbes(SpeedCalibration& now, const SpeedCalibration& latest);

} // namespace paretune
