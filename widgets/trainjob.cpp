#include "trainjob.h"

#include "common/input_error.h"
#include "paretune/config.h"
#include "store/sample_library.h"

#if PARETUNE_WITH_TORCH
#include "predict/predictor_training.h"
#endif

namespace paretune {

namespace {

/// Thrown from the epoch callback when the job is cancelled: nothing is stored.
struct TrainingCancelled {};

} // namespace

TrainJob::TrainJob(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::sampled, this, &TrainJob::trainingEpoch);
}

bool TrainJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void TrainJob::start(const QString& dbPath, const QString& holdoutModel, int epochs, int members) {
    Q_EMIT trainingStarted(epochs);
    run<TrainOutcome>(
        tr("training"),
        [=](JobResult<TrainOutcome>& r, const std::shared_ptr<JobProgress>& progress) {
            r.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            try {
                SampleLibrary library = SampleLibrary::open(dbPath.toStdString());
                TrainingSettings settings;
                settings.options.epochs = epochs;
                settings.options.members = members;
                const auto onEpoch = [&progress](int epoch, double loss) {
                    if (progress->cancelled()) {
                        throw TrainingCancelled{};
                    }
                    progress->sample(epoch, loss);
                };
                // Hold the open model out when the library has others to learn from; a library
                // with this model alone is scored on its training set (and says so).
                TrainingReport report;
                bool trained = false;
                if (!holdoutModel.isEmpty()) {
                    settings.holdoutModel = holdoutModel.toStdString();
                    try {
                        report = trainPredictorInLibrary(library, settings, onEpoch);
                        trained = true;
                    } catch (const InputError&) {
                        settings.holdoutModel.clear();
                    }
                }
                if (!trained) {
                    report = trainPredictorInLibrary(library, settings, onEpoch);
                }
                TrainOutcome& o = r.outcome;
                o.predictorId = report.predictorId;
                const nlohmann::json& evaluation = report.metrics["evaluation"];
                o.evaluatedOn = report.heldOutModels.empty()
                                    ? QString::fromStdString(evaluation["set"].get<std::string>())
                                    : tr("held out: %1")
                                          .arg(QString::fromStdString(report.dataset.modelNames.at(
                                              report.heldOutModels.front())));
                for (std::size_t i = 0; i < report.evaluatedRows.size(); ++i) {
                    o.measuredUs.push_back(report.evaluatedRows[i].latencyUs);
                    o.predictedUs.push_back(report.predictedUs[i]);
                }
                const std::pair<const char*, QString> metrics[] = {
                    {"mape_percent", tr("MAPE %")},
                    {"within_10_percent", tr("Share within ±10%")},
                    {"spearman", tr("Spearman")},
                    {"end_to_end_error_percent", tr("End-to-end error %")}};
                for (const auto& [key, name] : metrics) {
                    o.metricNames << name;
                    o.predictorMetrics.push_back(evaluation["predictor"].value(key, 0.0));
                    o.rooflineMetrics.push_back(evaluation["roofline"].value(key, 0.0));
                }
                // With several (model, device) pairs, each one's own figures follow: a noisy
                // device must not hide how well another is predicted.
                const nlohmann::json& pairs = evaluation["pairs"];
                if (pairs.size() > 1) {
                    for (const nlohmann::json& pair : pairs) {
                        const QString label = QString::fromStdString(pair.value("pair", ""));
                        for (const auto& [key, name] : metrics) {
                            o.metricNames << tr("%1, %2").arg(name, label);
                            o.predictorMetrics.push_back(pair["predictor"].value(key, 0.0));
                            o.rooflineMetrics.push_back(pair["roofline"].value(key, 0.0));
                        }
                    }
                }
                for (const std::string& note : report.notes) {
                    o.notes << QString::fromStdString(note);
                }
            } catch (const TrainingCancelled&) {
                r.error = tr("Training cancelled; nothing was stored.");
            }
#else
            (void)holdoutModel;
            (void)epochs;
            (void)members;
            (void)progress;
            r.error = tr("Training needs LibTorch, which this build does not include.");
#endif
        },
        [this](const TrainOutcome& outcome) { Q_EMIT trainingFinished(outcome); },
        [this](const QString& error) { Q_EMIT trainingFailed(error); });
}

} // namespace paretune
