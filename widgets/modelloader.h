// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobrunner.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <memory>

namespace paretune {

struct ImportResult;

/// Imports ONNX models on a worker thread. The latest request wins: a result that arrives after
/// a newer load() was started is dropped, so the window never shows a superseded model.
/// Signals are emitted on the thread that owns the loader (the GUI thread).
class ModelLoader : public JobRunner {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);

    /// Imports a model file.
    void load(const QString& path);
    /// Imports a serialized model held in memory (e.g. the bundled sample from resources);
    /// `displayName` stands for the file in messages.
    void loadBytes(const QByteArray& bytes, const QString& displayName);

    bool isBusy() const { return isRunning(); }

Q_SIGNALS:
    void loadStarted(const QString& displayName);
    void modelLoaded(std::shared_ptr<const paretune::ImportResult> result,
                     const QString& displayName);
    void loadFailed(const QString& message);

private:
    template <typename Work> void start(const QString& displayName, Work work);
};

} // namespace paretune
