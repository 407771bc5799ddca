#include "modelloader.h"

#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <QtConcurrent/QtConcurrentRun>

#include <string_view>

namespace paretune {

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}

ModelLoader::~ModelLoader() {
    // The worker keeps running to completion; its result goes nowhere once we are gone.
    if (m_watcher) {
        m_watcher->disconnect(this);
    }
}

bool ModelLoader::isBusy() const {
    return m_watcher && m_watcher->isRunning();
}

template <typename Work> void ModelLoader::start(const QString& displayName, Work work) {
    const int job = ++m_latestJob;
    Q_EMIT loadStarted(displayName);
    // Each job gets its own watcher so a superseded job cannot report into the current one.
    auto* watcher = new QFutureWatcher<Outcome>(this);
    if (m_watcher) {
        m_watcher->disconnect(this);
        if (m_watcher->isFinished()) {
            m_watcher->deleteLater();
        } else {
            connect(m_watcher, &QFutureWatcher<Outcome>::finished, m_watcher,
                    &QObject::deleteLater);
        }
    }
    m_watcher = watcher;
    connect(watcher, &QFutureWatcher<Outcome>::finished, this,
            [this, watcher] { deliver(watcher); });
    watcher->setFuture(QtConcurrent::run([work, job, displayName]() {
        Outcome outcome;
        outcome.job = job;
        outcome.displayName = displayName;
        // Nothing may escape the worker thread.
        try {
            outcome.result = std::make_shared<const ImportResult>(work());
        } catch (const InputError& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            outcome.error = tr("Internal error while importing %1: %2")
                                .arg(displayName, QString::fromStdString(e.what()));
        }
        return outcome;
    }));
}

void ModelLoader::load(const QString& path) {
    const std::string file = path.toStdString();
    start(path, [file] { return importOnnxFile(file); });
}

void ModelLoader::loadBytes(const QByteArray& bytes, const QString& displayName) {
    const std::string name = displayName.toStdString();
    start(displayName, [bytes, name] {
        ImportResult result = importOnnxBytes(
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), {}, name);
        result.graph.sourcePath = name;
        return result;
    });
}

void ModelLoader::deliver(QFutureWatcher<Outcome>* watcher) {
    if (watcher != m_watcher) {
        return;
    }
    const Outcome outcome = watcher->result();
    if (outcome.job != m_latestJob) {
        return;
    }
    if (outcome.result) {
        Q_EMIT modelLoaded(outcome.result, outcome.displayName);
    } else {
        Q_EMIT loadFailed(outcome.error);
    }
}

} // namespace paretune
