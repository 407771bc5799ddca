// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuepanel.h"

#include "jobrunner.h"
#include "librarylocation.h"
#include "store/sample_library.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace paretune {

namespace {

constexpr int kPollMs = 5000;

enum Column { Id, Model, Device, State, Worker, Attempts, Queued, Lease, Result, Columns };

} // namespace

QString jobResultText(const ProfileJobRecord& job) {
    const nlohmann::json result = nlohmann::json::parse(job.resultJson, nullptr, false);
    if (!result.is_object()) {
        return QString();
    }
    if (result.contains("error") && result["error"].is_string()) {
        return QString::fromStdString(result["error"].get<std::string>());
    }
    const auto count = [&](const char* key) {
        return result.contains(key) && result[key].is_number_integer() ? result[key].get<int>() : 0;
    };
    return QCoreApplication::translate("paretune::QueuePanel",
                                       "%1 measured, %2 reused, %3 failed, %4 not run")
        .arg(count("measured"))
        .arg(count("reused"))
        .arg(count("failed"))
        .arg(count("cancelled"));
}

QueuePanel::QueuePanel(QWidget* parent)
    : QWidget(parent), m_status(new QLabel(this)), m_table(new QTableWidget(0, Columns, this)),
      m_poll(new QTimer(this)), m_reader(new JobRunner(this)) {
    m_status->setObjectName(QStringLiteral("queueStatus"));
    m_status->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("queueTable"));
    m_table->setHorizontalHeaderLabels({tr("Job"), tr("Model"), tr("Device"), tr("State"),
                                        tr("Worker"), tr("Attempts"), tr("Queued"),
                                        tr("Lease until"), tr("Result")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* refresh = new QPushButton(tr("Refresh"), this);
    refresh->setObjectName(QStringLiteral("queueRefresh"));
    refresh->setToolTip(tr("Read the queue again"));
    connect(refresh, &QPushButton::clicked, this, &QueuePanel::refresh);
    auto* top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(refresh);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_table);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &QueuePanel::refresh);
    m_status->setText(tr("No sample library opened yet."));
}

void QueuePanel::showLibrary(const QString& library) {
    m_library = library;
    refresh();
}

void QueuePanel::refresh() {
    m_reader->abandon(); // a read still running for another library is dropped
    if (m_library.isEmpty()) {
        return;
    }
    if (!isServerLocation(m_library) && !QFileInfo(m_library).isFile()) {
        m_poll->stop();
        m_jobs.clear();
        m_table->setRowCount(0);
        m_status->setText(tr("No sample library at %1 yet, so no queued jobs.").arg(m_library));
        Q_EMIT queueShown();
        return;
    }
    const std::string location = m_library.toStdString();
    m_reader->run<std::vector<ProfileJobRecord>>(
        tr("reading the profiling queue"),
        [location](JobResult<std::vector<ProfileJobRecord>>& r,
                   const std::shared_ptr<JobProgress>&) {
            r.outcome =
                SampleLibrary::open(location, SampleLibrary::OpenMode::ExistingOnly).profileJobs();
        },
        [this](const std::vector<ProfileJobRecord>& jobs) { showJobs(jobs); },
        [this](const QString& error) { showError(error); });
}

void QueuePanel::showJobs(const std::vector<ProfileJobRecord>& jobs) {
    m_jobs = jobs;
    m_table->setRowCount(static_cast<int>(jobs.size()));
    int waiting = 0;
    int running = 0;
    for (int row = 0; row < static_cast<int>(jobs.size()); ++row) {
        const ProfileJobRecord& job = jobs[static_cast<std::size_t>(row)];
        waiting += job.state == "queued";
        running += job.state == "running";
        const QString lease =
            job.state == "running" && job.leaseExpires
                ? QDateTime::fromSecsSinceEpoch(static_cast<qint64>(*job.leaseExpires))
                      .toString(QStringLiteral("HH:mm:ss"))
                : QString();
        const QStringList cells = {QString::number(job.id),
                                   QFileInfo(QString::fromStdString(job.modelName)).fileName(),
                                   QString::fromStdString(job.deviceFingerprint.substr(0, 12)),
                                   QString::fromStdString(job.state),
                                   QString::fromStdString(job.worker),
                                   QString::number(job.attempts),
                                   QString::fromStdString(job.queuedAt),
                                   lease,
                                   jobResultText(job)};
        for (int c = 0; c < Columns; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == Model) {
                item->setToolTip(QString::fromStdString(job.modelName));
            } else if (c == Device) {
                item->setToolTip(QString::fromStdString(job.deviceFingerprint));
            } else if (c == Result) {
                item->setToolTip(cells[c]);
            }
            m_table->setItem(row, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_status->setText(jobs.empty()
                          ? tr("No profiling jobs in %1. Queue some with paretune profile MODEL "
                               "--device FINGERPRINT --queue; paretune worker measures them.")
                                .arg(withoutPassword(m_library))
                          : tr("%1 jobs in %2: %3 queued, %4 running.")
                                .arg(jobs.size())
                                .arg(withoutPassword(m_library))
                                .arg(waiting)
                                .arg(running));
    // Follow the queue while work is pending.
    if (waiting + running > 0) {
        m_poll->start();
    } else {
        m_poll->stop();
    }
    Q_EMIT queueShown();
}

void QueuePanel::showError(const QString& error) {
    m_poll->stop();
    m_jobs.clear();
    m_table->setRowCount(0);
    m_status->setText(tr("Cannot read the queue of %1: %2").arg(withoutPassword(m_library), error));
    Q_EMIT queueShown();
}

} // namespace paretune
