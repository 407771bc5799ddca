// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/pareto_search.h"
#include "workflow/tune_workflow.h"

#include "jobrunner.h"
#include "measuredpoints.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <string>
#include <vector>

namespace paretune {

struct ImportResult;
struct SearchOutcome;

/// How long a tune goes on (the search settings are the workbench's current ones).
struct TuneSettings {
    int rounds = 3;        ///< at most this many rounds
    int plansPerRound = 3; ///< front plans validated per round, besides the best baselines
    int repeats = 20;      ///< timed runs of each plan per round, interleaved, at least
    double windowS = TuneRequest().windowS; ///< seconds the round's timed runs last, at least
    int warmup = 2;
};

/// A finished (or cancelled) tune, as the workbench shows it.
struct TuneOutcome {
    TuneSettings settings;
    QString dbPath;
    std::vector<TuneRound> rounds; ///< resumed ones (read back from the library) first
    bool converged = false;        ///< the last round's plans are within the target error
    bool cancelled = false;        ///< stopped during a round (that round was not stored)
    double targetError = 0.0;
    /// The last round's search, as a search's outcome: its front is the result. Null when no
    /// round finished (cancelled in the first).
    std::shared_ptr<const SearchOutcome> search;
    std::vector<MeasuredPoint> measured;        ///< the last round's validated plans
    std::vector<std::vector<PlanClaim>> claims; ///< per plan of the final front (front index)
    QStringList notes;                          ///< the run's diagnostics (resumed, …)
};

/// Runs the tune loop (core's runTune, as `paretune tune`) on a worker thread: rounds of search
/// with the costs learned so far, validation of plans along the front and the best baselines on
/// this machine's devices (timed interleaved), and learning from what was measured inside the
/// plans; each round is stored in the sample library, and a rerun with the same settings
/// resumes after the stored rounds. Progress reports "round N: search …" / "round N: validate
/// …"; each generation's hypervolume is sampled (its step restarts at 1 every round). The latest
/// start wins; cancel() stops during a round, which is then not stored. Needs LibTorch
/// (available()).
class TuneJob : public JobRunner {
    Q_OBJECT
public:
    explicit TuneJob(QObject* parent = nullptr);

    static bool available();
    /// `deviceIds`: catalog ids of real devices of this machine; `dbPath`: the sample library
    /// with the model's samples on each of them (the rounds are stored there too).
    void start(std::shared_ptr<const ImportResult> model, const QByteArray& catalogJson,
               const QString& catalogName, const std::vector<std::string>& deviceIds,
               const SearchOptions& options, const QString& dbPath, const TuneSettings& settings);

Q_SIGNALS:
    void tuneStarted();
    void tuneProgressed(double fraction, const QString& message);
    /// One generation's hypervolume of the running round's search; `generation` is 1 at the
    /// first generation of every round.
    void hypervolumeReported(int generation, double hypervolume);
    void tuneFinished(const paretune::TuneOutcome& outcome);
    void tuneFailed(const QString& message);
};

} // namespace paretune
