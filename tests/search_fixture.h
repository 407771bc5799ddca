// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small placement search of the bundled sample model on the example catalog's modelled
// devices, as the workbench runs it: a SearchOutcome the view tests share.
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "placementsearch.h"
#include "testpaths.h"

#include <memory>

inline std::shared_ptr<const paretune::SearchOutcome> sampleSearchOutcome(int generations = 15) {
    using namespace paretune;
    auto outcome = std::make_shared<SearchOutcome>();
    outcome->model = std::make_shared<const ImportResult>(importOnnxFile(PARETUNE_SAMPLE_MODEL));
    const DeviceCatalog catalog =
        loadDeviceCatalog(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");
    outcome->costs = buildCostTable(outcome->model->graph, catalog, {"cpu", "gpu", "npu"});
    for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
        outcome->deviceIds.push_back(outcome->costs.device(d).id);
    }
    outcome->costSource = QStringLiteral("modelled from example.json");
    Simulator simulator(outcome->model->graph, outcome->costs);
    SearchOptions options;
    options.population = 24;
    options.generations = generations;
    outcome->result = searchPareto(simulator, options);
    outcome->priority.assign(simulator.priority().begin(), simulator.priority().end());
    return outcome;
}
