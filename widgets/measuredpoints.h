// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/objective.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace paretune {

/// A plan measured on this machine (a tune round's validation), beside its simulated objectives.
struct MeasuredPoint {
    QString label; ///< "front 2" or the baseline's name
    std::vector<std::uint8_t> genome;
    Objectives simulated; ///< the plan as the search simulated it
    /// The latency predicted before its runs (TunedPlan::predictedUs); 0: the simulated one.
    double predictedUs = 0.0;
    double medianUs = 0.0;
    double p10Us = 0.0;
    double p90Us = 0.0;
    int runs = 0;
    std::optional<double> energyMj; ///< measured, when a power counter was readable
    std::optional<double> memoryMb; ///< measured peak memory of the largest device
    double error = 0.0;             ///< latency, (predicted − measured) / measured
};

/// What a front plan claims over a baseline (better in some objectives, or dominating it), as
/// the last tune round's measurements judge it.
struct PlanClaim {
    QString baseline;
    bool dominates = false; ///< no worse than the baseline in every searched objective
    /// Core's words: "contradicted" (a measured objective contradicts it), "confirmed" (every
    /// measured one confirms it) or "predicted" (nothing claimed was measured).
    QString status;
    /// Per objective the plan claims to be better in (core's name: "latency"), its status:
    /// "confirmed", "contradicted", "unmeasured" or "not measured".
    std::vector<std::pair<QString, QString>> objectives;
    bool contradicted() const { return status == QLatin1String("contradicted"); }
};

/// A claim's status word (or an objective's name), translated.
QString claimStatusText(const QString& status);
/// "better than cpu_only in latency (confirmed), energy (unmeasured): confirmed", translated;
/// "dominates …" for a claim of dominance.
QString claimText(const PlanClaim& claim);

/// "latency 1.23 ms (p10 1.2, p90 1.3, 20 runs), predicted 1.1 ms, error -10.6 %; energy …",
/// translated.
QString measuredText(const MeasuredPoint& point);
/// A plan's claims as tooltip lines (each starting with <br>), a contradicted one in bold red.
QString claimsHtml(const std::vector<PlanClaim>& claims);

/// Where a measured point is drawn in the Pareto plot's coordinates (display units: latency in
/// ms): the measured median latency on the latency axis and on the other axis the measured
/// peak memory when that axis is memory and the point has one, else the simulated value,
/// its p10–p90 spread as error bars along the latency axis, and the simulated point it belongs
/// to (the line between them shows the prediction's error).
struct MeasuredMark {
    int point = -1; ///< index into the points given
    double x = 0.0;
    double y = 0.0;
    double minus = 0.0; ///< error bar below the median (>= 0), along the latency axis
    double plus = 0.0;  ///< error bar above the median (>= 0)
    double simulatedX = 0.0;
    double simulatedY = 0.0;
};

/// Which plot axis the measurements lie along.
enum class MeasuredAxis { None, X, Y };

/// The latency axis of an X/Y choice: X, Y, or None when neither shows latency (the
/// measurements cannot be placed then).
MeasuredAxis measuredAxis(Objective x, Objective y);

/// The marks of `points` for the X/Y choice, sorted by x (QCustomPlot keeps a graph's data
/// sorted by key, and its error bars follow the data's order); empty when neither axis is
/// latency.
std::vector<MeasuredMark> measuredMarks(const std::vector<MeasuredPoint>& points, Objective x,
                                        Objective y);

} // namespace paretune
