// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small placement search of the bundled sample model on the example catalog's modelled
// devices, as the workbench runs it: a SearchOutcome the view tests share; and one of a plan
// with nodes in bf16 and int8, set by hand.
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "placementsearch.h"
#include "testpaths.h"

#include <memory>
#include <vector>

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

/// The sample model on the example catalog with bf16 and int8 offered, and a front of one plan
/// set by hand (no search): every compute node on the host, the lowerable ones alternately in
/// bf16 and int8 (the first in bf16), each where the host has a cell for it, the others in fp32.
/// `model`: the sample as a window shows it (a search belongs to one import); null: imported.
inline std::shared_ptr<const paretune::SearchOutcome>
sampleLoweredOutcome(std::shared_ptr<const paretune::ImportResult> model = nullptr) {
    using namespace paretune;
    auto outcome = std::make_shared<SearchOutcome>();
    outcome->model =
        model ? std::move(model)
              : std::make_shared<const ImportResult>(importOnnxFile(PARETUNE_SAMPLE_MODEL));
    const DeviceCatalog catalog =
        loadDeviceCatalog(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");
    CostTableOptions costOptions;
    costOptions.variants = {Precision::Bf16, Precision::Int8};
    outcome->costs =
        buildCostTable(outcome->model->graph, catalog, {"cpu", "gpu", "npu"}, costOptions);
    for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
        outcome->deviceIds.push_back(outcome->costs.device(d).id);
    }
    outcome->costSource = QStringLiteral("modelled from example.json");
    outcome->options.variants = costOptions.variants;
    Simulator simulator(outcome->model->graph, outcome->costs);
    const std::int32_t host = outcome->costs.host();
    std::vector<std::int32_t> lowered; // variant indices in turn: bf16, int8
    for (std::int32_t v = 1; v < outcome->costs.variantCount(); ++v) {
        lowered.push_back(v);
    }
    Solution plan;
    std::size_t turn = 0;
    for (std::int32_t ci = 0; ci < simulator.computeCount(); ++ci) {
        std::int32_t column = simulator.column(host, 0);
        const std::int32_t v = lowered[turn % lowered.size()];
        if (simulator.columnSupported(ci, simulator.column(host, v))) {
            column = simulator.column(host, v);
            ++turn;
        }
        plan.genome.push_back(static_cast<std::uint8_t>(column));
    }
    plan.objectives = simulator.evaluate(plan.genome);
    outcome->result.front = {plan};
    outcome->priority.assign(simulator.priority().begin(), simulator.priority().end());
    return outcome;
}
