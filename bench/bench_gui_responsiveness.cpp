// SPDX-License-Identifier: GPL-3.0-or-later
// Responsiveness of the workbench's GUI thread while a job runs on a worker.
// Usage: bench_gui_responsiveness [MODEL] [SECONDS]
//   MODEL    ONNX file (default: the bundled sample model)
//   SECONDS  how long each job may run before it is cancelled (default 5)
// A GUI-thread timer ticks every 5 ms while (1) the model is imported on the worker, (2) a
// placement search (default options, example catalog's modelled devices) runs, and (3), when
// LibTorch is built in, the model is profiled on the "cpu" device into a throw-away sample
// library; a job still running after SECONDS is cancelled. The figures are the largest and
// 99th-percentile gaps between ticks (target: the largest gap < 100 ms), the ticks, and the time
// from Cancel to the job's result. Runs offscreen unless QT_QPA_PLATFORM says otherwise. Prints
// one JSON object.
#include "bench_cli.h"
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "placementsearch.h"
#include "profilejob.h"

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace {

/// Gaps between the ticks of a GUI-thread timer.
class TickRecorder {
public:
    explicit TickRecorder(int intervalMs) {
        m_timer.setInterval(intervalMs);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
            if (m_last >= 0) {
                m_gaps.push_back(now - m_last);
            }
            m_last = now;
        });
    }
    void start() {
        m_gaps.clear();
        m_last = -1;
        m_clock.start();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    nlohmann::json figures() const {
        std::vector<double> sorted = m_gaps;
        std::sort(sorted.begin(), sorted.end());
        const auto at = [&](double q) {
            return sorted.empty() ? 0.0
                                  : sorted[std::min(sorted.size() - 1,
                                                    static_cast<std::size_t>(q * sorted.size()))];
        };
        return {{"ticks", m_gaps.size() + 1},
                {"max_gap_ms", sorted.empty() ? 0.0 : sorted.back()},
                {"p99_gap_ms", at(0.99)},
                {"median_gap_ms", at(0.5)}};
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    std::vector<double> m_gaps;
    double m_last = -1;
};

} // namespace

int benchMain(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    const QStringList args = QApplication::arguments();
    const QString model = args.size() > 1 ? args[1] : QString();
    const double searchSeconds = args.size() > 2 ? args[2].toDouble() : 5.0;

    paretune::MainWindow window;
    window.resize(1400, 900);
    window.show();
    constexpr int kIntervalMs = 5;
    TickRecorder importTicks(kIntervalMs);
    TickRecorder searchTicks(kIntervalMs);
    TickRecorder profileTicks(kIntervalMs);
    QTemporaryDir libraryDir;
    nlohmann::json out = {
        {"benchmark", "gui_responsiveness"},
        {"model", model.isEmpty() ? "sample.onnx (bundled)" : model.toStdString()},
        {"timer_interval_ms", kIntervalMs},
        {"target_max_gap_ms", 100}};
    QElapsedTimer clock;
    double cancelAt = 0.0;
    int generations = 0;

    QObject::connect(&window, &paretune::MainWindow::errorShown, [](const QString& message) {
        std::cerr << message.toStdString() << "\n";
        QApplication::exit(1);
    });
    QObject::connect(&window, &paretune::MainWindow::modelShown, [&] {
        importTicks.stop();
        out["import"] = importTicks.figures();
        out["import"]["seconds"] = static_cast<double>(clock.nsecsElapsed()) / 1e9;
        out["nodes"] = window.currentModel()->graph.nodes.size();
        searchTicks.start();
        clock.restart();
        window.searchPlacements(paretune::SearchOptions{});
        QTimer::singleShot(static_cast<int>(searchSeconds * 1000), &window, [&] {
            cancelAt = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            window.cancelSearch();
        });
    });
    QObject::connect(window.placementSearch(), &paretune::PlacementSearch::hypervolumeReported,
                     [&] { ++generations; });
    QObject::connect(&window, &paretune::MainWindow::searchShown, [&] {
        searchTicks.stop();
        const double end = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        out["search"] = searchTicks.figures();
        out["search"]["seconds"] = end / 1e3;
        out["search"]["generations"] = window.currentSearch()->result.generationsRun;
        out["search"]["generations_reported_live"] = generations;
        out["search"]["cancelled"] = window.currentSearch()->result.cancelled;
        out["search"]["cancel_to_result_ms"] = cancelAt > 0 ? end - cancelAt : 0.0;
        out["max_gap_ms"] = std::max(out["import"]["max_gap_ms"].get<double>(),
                                     out["search"]["max_gap_ms"].get<double>());
        if (!paretune::ProfileJob::available()) {
            out["profile"] = "not built (no LibTorch)";
            QApplication::exit(0);
            return;
        }
        window.setDatabasePath(libraryDir.filePath(QStringLiteral("samples.db")));
        profileTicks.start();
        clock.restart();
        cancelAt = 0.0;
        window.profileOnDevice(QStringLiteral("cpu"));
        QTimer::singleShot(static_cast<int>(searchSeconds * 1000), &window, [&] {
            if (window.profileJob()->isRunning()) {
                cancelAt = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                window.profileJob()->cancel();
            }
        });
    });
    QObject::connect(window.profileJob(), &paretune::ProfileJob::profileFinished,
                     [&](const paretune::ProfileOutcome& o) {
                         profileTicks.stop();
                         const double end = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                         out["profile"] = profileTicks.figures();
                         out["profile"]["device"] = o.deviceId.toStdString();
                         out["profile"]["seconds"] = end / 1e3;
                         out["profile"]["operators_measured"] = o.measured;
                         out["profile"]["cancelled"] = o.cancelled;
                         out["profile"]["cancel_to_result_ms"] =
                             cancelAt > 0 ? end - cancelAt : 0.0;
                         out["max_gap_ms"] = std::max(out["max_gap_ms"].get<double>(),
                                                      out["profile"]["max_gap_ms"].get<double>());
                         QApplication::exit(0);
                     });
    QObject::connect(window.profileJob(), &paretune::ProfileJob::profileFailed,
                     [](const QString& message) {
                         std::cerr << message.toStdString() << "\n";
                         QApplication::exit(1);
                     });
    importTicks.start();
    clock.start();
    if (model.isEmpty()) {
        window.openSampleModel();
    } else {
        window.openModel(model);
    }
    const int rc = QApplication::exec();
    if (rc == 0) {
        std::cout << out.dump(2) << "\n";
    }
    return rc;
}

int main(int argc, char** argv) {
    return paretune::bench::run(argc, argv,
                                {"bench_gui_responsiveness",
                                 "[MODEL] [SECONDS]",
                                 "  Largest gap of a 5 ms GUI-thread timer while a model is "
                                 "imported, a placement search and\n  a profile run on workers "
                                 "(each cancelled after SECONDS, default 5). Prints JSON.\n",
                                 0,
                                 2,
                                 {}},
                                benchMain);
}
