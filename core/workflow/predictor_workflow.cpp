// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictor_workflow.h"

#include "common/input_error.h"
#include "graph/graph.h"
#include "profile/library_profile.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace paretune {

PerformancePredictor latestPredictor(const SampleLibrary& library, std::int64_t* id) {
    const auto record = library.latestPredictor();
    if (!record) {
        throw InputError(library.path().string() +
                         ": no predictor in the sample library: train one first");
    }
    *id = record->id;
    return PerformancePredictor::fromRecord(*record);
}

int ModelPrediction::measuredCount() const {
    return static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                          [](const NodePrediction& n) { return n.measured; }));
}

ModelPrediction predictModel(SampleLibrary& library, const PerformancePredictor& predictor,
                             const Graph& graph, const Device& device) {
    ModelPrediction result;
    const DeviceFigures figures = deviceFiguresFor(library, device);
    result.deviceFingerprint = figures.fingerprint;
    if (!predictor.knowsDevice(figures.fingerprint)) {
        result.coldStartFrom = predictor.nearestDevice(figures);
    }
    result.rows = nodeRows(graph, figures.fingerprint);
    const std::vector<LatencyPrediction> predictions =
        predictor.predict(result.rows, {{figures.fingerprint, figures}});
    for (std::size_t i = 0; i < result.rows.size(); ++i) {
        NodePrediction node{i, predictions[i], false};
        if (const auto sample = library.findSample(result.rows[i].signature, figures.fingerprint)) {
            node.value = {sample->latencyUs, sample->peakMemoryMb.value_or(0.0), 0.0, false};
            node.measured = true;
        }
        result.sumUs += node.value.latencyUs;
        result.nodes.push_back(node);
    }
    return result;
}

AdaptRun adaptPredictor(const Graph& graph, const Device& device, SampleLibrary& library,
                        const AdaptRequest& request, Progress* progress) {
    if (request.budget < 1) {
        throw InputError::forSetting("budget",
                                     "expected a positive number of operators to measure, got " +
                                         std::to_string(request.budget));
    }
    if (request.repeats < 0) {
        throw InputError::forSetting("repeats", "expected 0 (adaptive) or more, got " +
                                                    std::to_string(request.repeats));
    }
    AdaptRun run;
    const PerformancePredictor predictor = latestPredictor(library, &run.predictorBefore);
    run.predictorAfter = run.predictorBefore;
    const ModelPrediction p = predictModel(library, predictor, graph, device);
    run.deviceFingerprint = p.deviceFingerprint;

    // The most uncertain operators not measured yet (by expected absolute error).
    std::vector<PredictorRow> open;
    std::vector<LatencyPrediction> openPredictions;
    std::vector<NodeId> openNodes;
    for (const NodePrediction& n : p.nodes) {
        if (!n.measured) {
            open.push_back(p.rows[n.row]);
            openPredictions.push_back(n.value);
            openNodes.push_back(graph.findNode(p.rows[n.row].nodeName));
        }
    }
    const std::vector<std::size_t> chosen =
        mostInformative(open, openPredictions, static_cast<std::size_t>(request.budget));
    LibraryProfileOptions options;
    options.repeats = request.repeats;
    options.wholeModel = false;
    for (const std::size_t i : chosen) {
        options.nodes.push_back(openNodes[i]);
    }
    if (options.nodes.empty()) {
        return run;
    }
    const ProfileResult result =
        profileIntoLibrary(graph, device, library, options, progress).result;
    // Retrain on everything, the new samples included, with the same settings.
    const PredictorDataset dataset = assembleDataset(library);
    std::vector<std::size_t> all(dataset.rows.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i] = i;
    }
    const PerformancePredictor retrained =
        PerformancePredictor::train(dataset, all, predictor.options());
    std::vector<PredictorRow> measuredRows;
    std::vector<double> predictedBefore, measuredUs;
    for (const std::size_t i : chosen) {
        const auto profile = result.nodes.find(openNodes[i]);
        if (profile == result.nodes.end() || profile->second.status != ProfileStatus::Ok) {
            continue;
        }
        PredictorRow row = open[i];
        row.latencyUs = profile->second.latency.medianUs;
        measuredRows.push_back(row);
        predictedBefore.push_back(openPredictions[i].latencyUs);
        measuredUs.push_back(row.latencyUs);
        run.measured.push_back({row.nodeName, row.opType, openPredictions[i].latencyUs,
                                openPredictions[i].uncertainty, row.latencyUs});
    }
    const std::vector<std::string> groups(measuredRows.size(), graph.fingerprint);
    run.before = accuracyMetrics(predictedBefore, measuredUs, groups);
    std::vector<double> predictedAfter;
    for (const LatencyPrediction& v : retrained.predict(measuredRows, dataset.devices)) {
        predictedAfter.push_back(v.latencyUs);
    }
    run.afterInSample = accuracyMetrics(predictedAfter, measuredUs, groups);
    PredictorEvaluation evaluation = evaluatePredictor(retrained, dataset, dataset.rows);
    evaluation.set = PredictorEvaluation::kTrainingSet;
    run.predictorAfter =
        library.addPredictor(retrained.toRecord({{"evaluation", toJson(evaluation)},
                                                 {"adapt",
                                                  {{"model", graph.fingerprint},
                                                   {"device", p.deviceFingerprint},
                                                   {"measured", run.measured.size()},
                                                   {"previous_predictor", run.predictorBefore}}}}));
    return run;
}

} // namespace paretune
