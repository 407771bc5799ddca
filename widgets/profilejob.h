// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/device.h"

#include "jobrunner.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace paretune {

struct ImportResult;

/// What a profiling run stored, as the GUI reports it. Every latency in it is measured.
struct ProfileOutcome {
    QString deviceId;
    QString dbPath;
    int measured = 0;      ///< operators measured now (one per new signature)
    int fusedMeasured = 0; ///< fusion groups measured now as fused nodes (one sample each)
    int reused = 0;        ///< compute nodes whose sample the library already held (or shared)
    int failed = 0;        ///< unsupported or failed operators
    int notRun = 0;        ///< left unmeasured by Cancel
    bool cancelled = false;
    double sumOfOpsUs = 0.0;
    double endToEndUs = 0.0; ///< 0 when the whole-model run did not happen
    /// The machine's speed changed while profiling (SpeedCheck::why); empty when it did not.
    QString speedChange;
    std::shared_ptr<const ImportResult> model; ///< the model profiled
    /// Measured (or reused) median latency per graph node, µs; NaN where none.
    std::vector<double> nodeLatencyUs;
};

/// Profiles a model's operators on a real CPU device into the sample library, on a worker
/// thread (core's profileIntoLibrary). The latest start wins; cancel() stops between operators,
/// and what was measured before is stored. Without LibTorch in the build, available() is false
/// and start() fails with a message saying so.
class ProfileJob : public JobRunner {
    Q_OBJECT
public:
    explicit ProfileJob(QObject* parent = nullptr);

    static bool available();
    /// `repeats` timed runs per round (0: adaptive); `activeW` > 0 gives modelled energy where no
    /// power counter is readable.
    void start(std::shared_ptr<const ImportResult> model, const Device& device,
               const QString& dbPath, int repeats = 0, double activeW = 0.0);

Q_SIGNALS:
    void profileStarted();
    void profileProgressed(double fraction, const QString& message);
    void profileFinished(const paretune::ProfileOutcome& outcome);
    void profileFailed(const QString& message);
};

} // namespace paretune
