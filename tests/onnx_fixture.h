// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Test models and small graphs for the LibTorch suites (tst_oprunner, tst_executor).
#include "graph/onnx_importer.h"
#include "testpaths.h"

#include <QByteArray>
#include <QString>

#include <string>

/// The exported test models: $PARETUNE_TEST_MODELS, else the folder CMake was configured with.
inline QString testModelsDir() {
    const QByteArray env = qgetenv("PARETUNE_TEST_MODELS");
    return env.isEmpty() ? QStringLiteral(PARETUNE_TEST_MODELS_DIR) : QString::fromLocal8Bit(env);
}

/// A graph from ONNX text: `body` is "(inputs) => (outputs) { nodes }".
inline paretune::Graph onnxFixture(const std::string& body, int opset = 13) {
    return paretune::importOnnxText(
               "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng " + body,
               {}, "fixture")
        .graph;
}
