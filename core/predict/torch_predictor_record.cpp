// SPDX-License-Identifier: GPL-3.0-or-later
// The predictor's stored record: TorchPredictor::toRecord and torch_impl::loadPredictor, each
// the other's inverse (the training set's figures as JSON, the members' weights as a LibTorch
// archive).
#include "runtime/torch_impl.h"

#include "common/input_error.h"
#include "store/records.h"
#include "torch_predictor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace paretune {

namespace {

constexpr const char* kSchema = "paretune.predictor/1";

std::vector<float> floatsOf(const nlohmann::json& j, const char* key, std::size_t size) {
    const auto values = j.at(key).get<std::vector<float>>();
    if (values.size() != size) {
        throw InputError(std::string("stored predictor: ") + key + " has " +
                         std::to_string(values.size()) + " values, expected " +
                         std::to_string(size));
    }
    return values;
}

nlohmann::json figuresJson(const DeviceFigures& d) {
    return {{"fingerprint", d.fingerprint},
            {"kind", d.kind},
            {"name", d.name},
            {"cores", d.cores},
            {"l1d_bytes", d.l1dBytes},
            {"l2_bytes", d.l2Bytes},
            {"l3_bytes", d.l3Bytes},
            {"memory_bytes", d.memoryBytes},
            {"avx2", d.avx2},
            {"avx512f", d.avx512f},
            {"fma3", d.fma3},
            {"gemm_gflops", d.gemmGflops},
            {"memory_bw_gbs", d.memoryBwGbs}};
}

DeviceFigures figuresFromJson(const nlohmann::json& j) {
    DeviceFigures d;
    d.fingerprint = j.at("fingerprint").get<std::string>();
    d.kind = j.at("kind").get<std::string>();
    d.name = j.at("name").get<std::string>();
    d.cores = j.at("cores").get<double>();
    d.l1dBytes = j.at("l1d_bytes").get<double>();
    d.l2Bytes = j.at("l2_bytes").get<double>();
    d.l3Bytes = j.at("l3_bytes").get<double>();
    d.memoryBytes = j.at("memory_bytes").get<double>();
    d.avx2 = j.at("avx2").get<bool>();
    d.avx512f = j.at("avx512f").get<bool>();
    d.fma3 = j.at("fma3").get<bool>();
    d.gemmGflops = j.at("gemm_gflops").get<double>();
    d.memoryBwGbs = j.at("memory_bw_gbs").get<double>();
    return d;
}

/// How a stored predictor's features differ from this version's: "19 features; this version
/// has 22, adding precision_fp32, precision_bf16, precision_int8" (and the names it no longer
/// has).
std::string featureSetChange(const std::vector<std::string>& stored,
                             const std::vector<std::string>& current) {
    const auto namesNotIn = [](const std::vector<std::string>& names,
                               const std::vector<std::string>& in) {
        std::string list;
        for (const std::string& name : names) {
            if (std::find(in.begin(), in.end(), name) == in.end()) {
                list += (list.empty() ? "" : ", ") + name;
            }
        }
        return list;
    };
    std::string text = std::to_string(stored.size()) + " features; this version has " +
                       std::to_string(current.size());
    const std::string added = namesNotIn(current, stored);
    const std::string dropped = namesNotIn(stored, current);
    if (!added.empty()) {
        text += ", adding " + added;
    }
    if (!dropped.empty()) {
        text += std::string(added.empty() ? ", " : " and ") + "no longer " + dropped;
    }
    if (added.empty() && dropped.empty()) {
        text += ", in another order";
    }
    return text;
}

} // namespace

using detail::kNumericCount;
using detail::Net;
using detail::PredictorState;
using detail::torchFailure;
using detail::TorchPredictor;

PredictorRecord detail::TorchPredictor::toRecord(const nlohmann::json& metrics) const {
    const PredictorState& impl = *m_impl;
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceFigures& d : impl.devices) {
        devices.push_back(figuresJson(d));
    }
    std::vector<std::string> featureNames(opFeatureNames().begin(), opFeatureNames().end());
    featureNames.insert(featureNames.end(), deviceFeatureNames().begin(),
                        deviceFeatureNames().end());
    const nlohmann::json trainSet = {
        {"schema", kSchema},
        {"options",
         {{"epochs", impl.options.epochs},
          {"batch_size", impl.options.batchSize},
          {"learning_rate", impl.options.learningRate},
          {"members", impl.options.members},
          {"seed", impl.options.seed},
          {"target", impl.options.rooflineRatio ? "log_ratio_to_roofline" : "log_latency"}}},
        {"calibration", impl.calibration},
        {"rows", impl.rows},
        {"op_vocabulary", impl.opVocabulary},
        {"op_counts", impl.opCounts},
        {"device_offsets", impl.deviceOffsets},
        {"devices", devices},
        {"feature_names", featureNames},
        {"feature_mean", impl.mean},
        {"feature_std", impl.stddev},
        {"feature_min", impl.low},
        {"feature_max", impl.high},
        {"target_mean", {impl.targetMean[0], impl.targetMean[1]}},
        {"target_std", {impl.targetStd[0], impl.targetStd[1]}}};
    PredictorRecord record;
    record.trainSetJson = trainSet.dump();
    record.metricsJson = metrics.dump();
    try {
        torch::serialize::OutputArchive archive;
        for (std::size_t m = 0; m < impl.members.size(); ++m) {
            torch::serialize::OutputArchive member;
            impl.members[m]->save(member);
            archive.write("member" + std::to_string(m), member);
        }
        std::ostringstream bytes;
        archive.save_to(bytes);
        record.weights = bytes.str();
    } catch (const c10::Error& e) {
        throw std::runtime_error(torchFailure(e));
    }
    return record;
}

std::unique_ptr<PredictorEngine> torch_impl::loadPredictor(const PredictorRecord& record) {
    const std::string where = "predictor " + std::to_string(record.id);
    auto impl = std::make_unique<PredictorState>();
    try {
        const nlohmann::json j = nlohmann::json::parse(record.trainSetJson);
        if (j.value("schema", "") != kSchema) {
            throw InputError(where + ": not a " + std::string(kSchema) +
                             " predictor (retrain with paretune train)");
        }
        std::vector<std::string> featureNames(opFeatureNames().begin(), opFeatureNames().end());
        featureNames.insert(featureNames.end(), deviceFeatureNames().begin(),
                            deviceFeatureNames().end());
        const auto stored = j.value("feature_names", std::vector<std::string>());
        if (stored != featureNames) {
            throw InputError(where + ": trained on another feature set than this version's (" +
                             featureSetChange(stored, featureNames) +
                             "); train again with paretune train");
        }
        const nlohmann::json& o = j.at("options");
        impl->options.epochs = o.at("epochs").get<int>();
        impl->options.batchSize = o.at("batch_size").get<int>();
        impl->options.learningRate = o.at("learning_rate").get<double>();
        impl->options.members = o.at("members").get<int>();
        impl->options.seed = o.at("seed").get<std::uint64_t>();
        impl->options.rooflineRatio = o.at("target").get<std::string>() == "log_ratio_to_roofline";
        impl->calibration =
            j.value("calibration", std::map<std::string, double>()); // older predictors: none
        impl->rows = j.at("rows").get<std::size_t>();
        impl->opVocabulary = j.at("op_vocabulary").get<std::vector<std::string>>();
        impl->opCounts = j.at("op_counts").get<std::vector<std::int64_t>>();
        if (impl->opCounts.size() != impl->opVocabulary.size()) {
            throw InputError(where + ": op_counts and op_vocabulary differ in length");
        }
        for (const nlohmann::json& d : j.at("devices")) {
            impl->devices.push_back(figuresFromJson(d));
        }
        impl->deviceOffsets = j.at("device_offsets").get<std::vector<double>>();
        if (impl->deviceOffsets.size() != impl->devices.size()) {
            throw InputError(where + ": device_offsets and devices differ in length");
        }
        impl->mean = floatsOf(j, "feature_mean", kNumericCount);
        impl->stddev = floatsOf(j, "feature_std", kNumericCount);
        impl->low = floatsOf(j, "feature_min", kNumericCount);
        impl->high = floatsOf(j, "feature_max", kNumericCount);
        const auto tm = floatsOf(j, "target_mean", 2);
        const auto ts = floatsOf(j, "target_std", 2);
        std::copy(tm.begin(), tm.end(), impl->targetMean);
        std::copy(ts.begin(), ts.end(), impl->targetStd);
        if (impl->opVocabulary.empty() || impl->devices.empty() || impl->options.members < 1) {
            throw InputError(where + ": empty vocabulary, device list or ensemble");
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": train_set_json is damaged (" + e.what() + ")");
    }
    try {
        torch::serialize::InputArchive archive;
        std::istringstream bytes(record.weights);
        archive.load_from(bytes);
        for (int m = 0; m < impl->options.members; ++m) {
            Net net(static_cast<std::int64_t>(impl->opVocabulary.size()),
                    static_cast<std::int64_t>(impl->devices.size()));
            torch::serialize::InputArchive member;
            archive.read("member" + std::to_string(m), member);
            net->load(member);
            net->eval();
            impl->members.push_back(net);
        }
    } catch (const c10::Error& e) {
        throw InputError(where + ": the weights are damaged (" + torchFailure(e) + ")");
    }
    return std::make_unique<TorchPredictor>(std::move(impl));
}

} // namespace paretune
