// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the tests find the models tools/export_models.py exported: $PARETUNE_TEST_MODELS (set by
// ctest), else the folder CMake was configured with.
#include "testpaths.h"

#include <QByteArray>
#include <QString>

/// Path of an exported test model by name ("resnet18"); "sample" is the bundled sample model.
inline QString testModelPath(const QString& name) {
    if (name == QLatin1String("sample")) {
        return QStringLiteral(PARETUNE_SAMPLE_MODEL);
    }
    const QByteArray env = qgetenv("PARETUNE_TEST_MODELS");
    const QString dir =
        env.isEmpty() ? QStringLiteral(PARETUNE_TEST_MODELS_DIR) : QString::fromLocal8Bit(env);
    return dir + QLatin1Char('/') + name + QStringLiteral(".onnx");
}
