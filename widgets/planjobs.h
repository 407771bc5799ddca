// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "profile/plan_validation.h"

#include "jobrunner.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace paretune {

struct ImportResult;
struct SearchOutcome;
struct TimelineData;

/// A plan of the front validated on this machine's devices (core's validatePlan).
struct ValidationOutcome {
    std::shared_ptr<const SearchOutcome> search;
    int planIndex = -1; ///< in the search's front
    QString dbPath;     ///< where the measurement was stored
    PlanValidation report;
};

/// Runs validatePlan for a plan of a search's front on a worker thread: warm-up and timed runs
/// of the whole plan on the real devices, the comparison with the plan simulated again over the
/// search's costs, the measurement stored in the sample library. The latest start wins;
/// cancel() stops between runs and nothing is stored. Needs LibTorch (available()).
class ValidateJob : public JobRunner {
    Q_OBJECT
public:
    explicit ValidateJob(QObject* parent = nullptr);

    static bool available();
    void start(std::shared_ptr<const SearchOutcome> search, int planIndex, const QString& dbPath,
               int repeats = 20, int warmup = 2);

Q_SIGNALS:
    void validationStarted();
    void validationProgressed(double fraction, const QString& message);
    void validationFinished(const paretune::ValidationOutcome& outcome);
    void validationFailed(const QString& message);
};

/// The timeline of a validated plan: `simulated` (the plan's simulated lanes) with one more
/// lane per device the plan ran on, "<device> measured", holding the per-node begin and end
/// times of the timed run of median wall time.
TimelineData withMeasuredLanes(TimelineData simulated, const ImportResult& model,
                               const ValidationOutcome& validation);

/// What a bundle export wrote.
struct BundleExportOutcome {
    QString path;
    bool zip = false;
    int planIndex = -1;
    int partitions = 0;
    std::vector<std::int64_t> candidateIds; ///< plan ids (front indices), the exported first
    int files = 0;
    double megabytes = 0.0; ///< MiB (bytes / 2^20), as the plot and the log say
    QStringList warnings;
    bool cancelled = false; ///< cancelled before writing: nothing was written
};

/// Exports a plan of a search's front as a deployment bundle (core's buildBundle) on a worker
/// thread: the plans document of the whole front (plansDocument, plan id = front index), the
/// catalog and the model go to a temporary folder, then the bundle is written to `path`
/// atomically, as a folder or, when `path` ends in ".zip", as a zip archive. An existing `path`
/// is never replaced. The latest start wins; cancel() before the bundle is written leaves
/// nothing behind.
class BundleExportJob : public JobRunner {
    Q_OBJECT
public:
    explicit BundleExportJob(QObject* parent = nullptr);

    /// `modelPath` is the file the model was opened from (a Qt resource path works too);
    /// `dbPath`: the sample library whose measurements go into profile.csv (when it exists).
    void start(std::shared_ptr<const SearchOutcome> search, int planIndex, const QString& modelPath,
               const QString& path, int candidates, const QString& dbPath);

Q_SIGNALS:
    void exportStarted();
    void exportFinished(const paretune::BundleExportOutcome& outcome);
    void exportFailed(const QString& message);
};

} // namespace paretune
