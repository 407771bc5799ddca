// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelloader.h"

#include "graph/onnx_importer.h"

#include <string_view>

namespace paretune {

ModelLoader::ModelLoader(QObject* parent) : JobRunner(parent) {}

template <typename Work> void ModelLoader::start(const QString& displayName, Work work) {
    Q_EMIT loadStarted(displayName);
    using Outcome = std::shared_ptr<const ImportResult>;
    run<Outcome>(
        tr("importing %1").arg(displayName),
        [work](JobResult<Outcome>& r, const std::shared_ptr<JobProgress>&) {
            r.outcome = std::make_shared<const ImportResult>(work());
        },
        [this, displayName](const Outcome& result) { Q_EMIT modelLoaded(result, displayName); },
        [this](const QString& error) { Q_EMIT loadFailed(error); });
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

} // namespace paretune
