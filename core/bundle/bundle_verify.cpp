// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_verify.h"

#include "bundle/bundle_accuracy.h"
#include "bundle/bundle_export.h"
#include "bundle/model_partitioner.h"
#include "common/input_error.h"
#include "common/json_reader.h"
#include "common/sha256.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "plan/memory_plan_json.h"

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <map>
#include <set>

namespace paretune {

namespace {

using Json = nlohmann::json;
using Fields = JsonFields<Json>;

/// Flattens a JSON value to dotted keys ("software.blas" → "\"openblas\"").
void flatten(const Json& value, const std::string& prefix,
             std::map<std::string, std::string>& out) {
    if (value.is_object()) {
        for (const auto& [key, item] : value.items()) {
            flatten(item, prefix.empty() ? key : prefix + "." + key, out);
        }
        return;
    }
    out[prefix] = value.dump();
}

std::string identityDifference(const Json& bundle, const Json& here) {
    std::map<std::string, std::string> a;
    std::map<std::string, std::string> b;
    flatten(bundle, "", a);
    flatten(here, "", b);
    std::set<std::string> keys;
    for (const auto& [key, value] : a) {
        keys.insert(key);
    }
    for (const auto& [key, value] : b) {
        keys.insert(key);
    }
    std::string text;
    for (const std::string& key : keys) {
        const auto x = a.find(key);
        const auto y = b.find(key);
        const std::string was = x == a.end() ? "absent" : x->second;
        const std::string is = y == b.end() ? "absent" : y->second;
        if (was != is) {
            text +=
                (text.empty() ? "" : "; ") + key + ": " + was + " in the bundle, " + is + " here";
        }
    }
    return text.empty() ? "no identity field differs (different fingerprint scheme)" : text;
}

/// The names of a list of tensors or nodes: each item a name, or an object with a "name".
std::vector<std::string> names(const Fields& fields, const Json& list, const std::string& path) {
    fields.requireArray(list, path);
    std::vector<std::string> result;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& item = list[i];
        result.push_back(item.is_object() ? fields.string(item, Fields::at(path, i), "name")
                                          : fields.asString(item, Fields::at(path, i)));
    }
    return result;
}

template <typename Field> std::vector<std::string> protoNames(const Field& field) {
    std::vector<std::string> result;
    for (const auto& item : field) {
        result.push_back(item.name());
    }
    return result;
}

class Verifier {
public:
    Verifier(const BundleFileMap& files, const DeviceInventory& machine,
             const BundleOutputCheck* outputs)
        : m_files(files), m_machine(machine), m_outputs(outputs) {}

    BundleVerification run() {
        // A field of the wrong type ends the verification with one failure naming the field.
        try {
            verify();
        } catch (const InputError& error) {
            fail(error.what());
        }
        return m_result;
    }

private:
    void verify() {
        const auto manifestIt = m_files.find("manifest.json");
        if (manifestIt == m_files.end()) {
            fail("manifest.json is missing: not a Paretune bundle");
            return;
        }
        m_manifest = parseJsonDocument<Json>(manifestIt->second, "manifest.json");
        m_fields.requireObject(m_manifest, "");
        if (m_fields.optionalString(m_manifest, "", "schema") != kBundleSchema) {
            fail("manifest.json: schema " +
                 (m_manifest.contains("schema") ? dumpJson(m_manifest["schema"])
                                                : std::string("missing")) +
                 "; this paretune reads " + kBundleSchema);
            return;
        }
        checkHashes();
        if (!readPlanNodes()) {
            return;
        }
        checkPartitions(m_fields.optionalArray(m_manifest, "", "partitions"), "partitions", "",
                        true);
        const Json& candidates = m_fields.optionalArray(m_manifest, "", "candidates");
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const std::string where = Fields::at("candidates", i);
            const Json& candidate = candidates[i];
            if (m_fields.find(candidate, where, "partitions")) {
                checkPartitions(
                    candidate["partitions"], where + ".partitions",
                    "candidate plan " +
                        std::to_string(m_fields.optionalInteger(candidate, where, "id", -1)) + ": ",
                    false);
            }
        }
        checkDevices();
        checkMemoryPlan();
        checkFeasible();
        checkBundleOutputs(m_files, m_manifest, m_outputs, m_result);
    }

    /// memory_plan.json (bundles of older versions have none): sizes that add up, and no two
    /// tensors live at the same step overlapping in their device's arena.
    void checkMemoryPlan() {
        const auto it = m_files.find("memory_plan.json");
        if (it == m_files.end()) {
            pass("no memory_plan.json (a bundle of an older paretune)");
            return;
        }
        const std::vector<std::string> problems = memoryPlanProblems(
            parseJsonDocument<nlohmann::ordered_json>(it->second, "memory_plan.json"));
        for (std::size_t i = 0; i < problems.size() && i < 5; ++i) {
            fail(problems[i]);
        }
        if (problems.size() > 5) {
            fail("memory_plan.json: " + std::to_string(problems.size() - 5) + " more problems");
        }
        if (problems.empty()) {
            pass("memory_plan.json: every tensor fits its device's arena, no two live ones "
                 "overlap");
        }
    }

    /// An infeasible plan (exported with --force) deploys, but not as its figures say.
    void checkFeasible() {
        const Json& plan = m_fields.optionalObject(m_manifest, "", "plan");
        if (m_fields.optionalBoolean(plan, "plan", "feasible", true)) {
            pass("the plan is feasible: every node has a cost on its device, none over memory");
            return;
        }
        warn("the plan is infeasible (manifest.json plan.feasible is false; exported with "
             "--force): a node on a device without a cost for it, or a device over its memory, "
             "so its figures do not hold");
    }

    void fail(std::string message) {
        m_result.diagnostics.push_back(
            {Diagnostic::Severity::Error, "bundle-check-failed", std::move(message)});
    }
    void warn(std::string message) {
        m_result.diagnostics.push_back(
            {Diagnostic::Severity::Warning, "bundle-check-warning", std::move(message)});
    }
    void pass(std::string message) { m_result.passed.push_back(std::move(message)); }

    void checkHashes() {
        const Json& listed = m_fields.optionalObject(m_manifest, "", "files");
        if (listed.empty()) {
            fail("manifest.json lists no files and their hashes");
            return;
        }
        std::size_t good = 0;
        for (const auto& [name, entry] : listed.items()) {
            if (const std::string problem = unsafeBundlePath(name); !problem.empty()) {
                fail("manifest.json lists '" + name + "': " + problem);
                continue;
            }
            const auto file = m_files.find(name);
            if (file == m_files.end()) {
                fail(name + ": missing (manifest.json lists it)");
                continue;
            }
            const std::string expected = m_fields.optionalString(entry, "files." + name, "sha256");
            const std::string actual = Sha256::hex(file->second);
            if (actual != expected) {
                fail(name + ": SHA-256 " + actual.substr(0, 16) + "… does not match the " +
                     "manifest's " + (expected.empty() ? "(none)" : expected.substr(0, 16) + "…") +
                     ": the file was modified or damaged");
                continue;
            }
            ++good;
        }
        for (const auto& [name, bytes] : m_files) {
            if (name != "manifest.json" && !listed.contains(name)) {
                fail(name + ": not listed in manifest.json (added after export)");
            }
        }
        pass(std::to_string(good) + " of " + std::to_string(listed.size()) +
             " files match their SHA-256");
    }

    /// One set of partitions: the exported plan's (whose devices must match plan.json) or a
    /// candidate's; `prefix` goes before every message about it.
    void checkPartitions(const Json& parts, const std::string& path, const std::string& prefix,
                         bool exported) {
        m_fields.requireArray(parts, path);
        if (parts.empty()) {
            fail(prefix + "manifest.json lists no partitions");
            return;
        }
        const Json& model = m_fields.optionalObject(m_manifest, "", "model");
        std::set<std::string> available;
        for (const std::string& name :
             names(m_fields, m_fields.optionalArray(model, "model", "inputs"), "model.inputs")) {
            available.insert(name);
        }
        std::map<std::string, int> covered;
        std::map<std::string, std::string> deviceOfNode;
        std::size_t checked = 0;
        for (std::size_t p = 0; p < parts.size(); ++p) {
            const Json& part = parts[p];
            const std::string where = Fields::at(path, p);
            const std::string file = m_fields.optionalString(part, where, "file");
            const std::string label = prefix + "partition " + std::to_string(p) + " (" + file + ")";
            const auto bytes = m_files.find(file);
            if (file.empty() || bytes == m_files.end()) {
                fail(label + ": file missing");
                continue;
            }
            const std::string problem = checkOnnxModel(bytes->second);
            if (!problem.empty()) {
                fail(label + ": the ONNX checker rejects it: " + problem);
                continue;
            }
            onnx::ModelProto onnxModel;
            onnxModel.ParseFromString(bytes->second);
            const std::vector<std::string> nodes =
                names(m_fields, m_fields.optionalArray(part, where, "nodes"), where + ".nodes");
            std::vector<std::string> protoNodes;
            for (const auto& node : onnxModel.graph().node()) {
                protoNodes.push_back(node.name());
            }
            if (protoNodes != nodes) {
                fail(label + ": its nodes are not the " + std::to_string(nodes.size()) +
                     " nodes manifest.json lists");
            }
            const std::string device = m_fields.optionalString(part, where, "device");
            for (const std::string& node : protoNodes) {
                ++covered[node];
                deviceOfNode[node] = device;
            }
            const std::vector<std::string> inputs = protoNames(onnxModel.graph().input());
            if (inputs != names(m_fields, m_fields.optionalArray(part, where, "inputs"),
                                where + ".inputs") ||
                protoNames(onnxModel.graph().output()) !=
                    names(m_fields, m_fields.optionalArray(part, where, "outputs"),
                          where + ".outputs")) {
                fail(label + ": its inputs or outputs differ from manifest.json's");
            }
            for (const std::string& input : inputs) {
                if (!available.count(input)) {
                    fail(label + ": input '" + input +
                         "' is neither a model input nor an output of an earlier partition");
                }
            }
            for (const std::string& output : protoNames(onnxModel.graph().output())) {
                available.insert(output);
            }
            ++checked;
        }
        for (const std::string& output :
             names(m_fields, m_fields.optionalArray(model, "model", "outputs"), "model.outputs")) {
            if (!available.count(output)) {
                fail(prefix + "model output '" + output + "' comes out of no partition");
            }
        }
        pass(prefix + std::to_string(checked) + " of " + std::to_string(parts.size()) +
             " partitions pass the ONNX checker and chain");
        checkCoverage(covered, deviceOfNode, prefix, exported);
    }

    /// plan.json's nodes (name → device) into m_planNodes; false (with a failure) when unusable.
    bool readPlanNodes() {
        const auto planIt = m_files.find("plan.json");
        if (planIt == m_files.end()) {
            fail("plan.json is missing");
            return false;
        }
        const Fields fields("plan.json");
        const Json plan = parseJsonDocument<Json>(planIt->second, "plan.json");
        const Json& nodes = fields.optionalArray(plan, "", "nodes");
        if (nodes.empty()) {
            fail("plan.json has no \"nodes\" list");
            return false;
        }
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const std::string where = Fields::at("nodes", i);
            m_planNodes.emplace_back(fields.string(nodes[i], where, "name"),
                                     fields.optionalString(nodes[i], where, "device"));
        }
        // The conversions of nodes in lower precisions are nodes of the partitions too.
        const Json& conversions = fields.optionalArray(plan, "", "conversions");
        for (std::size_t i = 0; i < conversions.size(); ++i) {
            const std::string where = Fields::at("conversions", i);
            m_planNodes.emplace_back(fields.string(conversions[i], where, "name"),
                                     fields.optionalString(conversions[i], where, "device"));
        }
        return true;
    }

    void checkCoverage(const std::map<std::string, int>& covered,
                       const std::map<std::string, std::string>& deviceOfNode,
                       const std::string& prefix, bool compareDevices) {
        std::size_t problems = 0;
        std::set<std::string> planned;
        for (const auto& [name, device] : m_planNodes) {
            planned.insert(name);
            const auto it = covered.find(name);
            const int count = it == covered.end() ? 0 : it->second;
            if (count != 1 && ++problems <= 5) {
                fail(prefix + "node '" + name + "' is in " + std::to_string(count) +
                     " partitions, expected exactly 1");
            } else if (count == 1 && compareDevices && deviceOfNode.at(name) != device &&
                       ++problems <= 5) {
                fail(prefix + "node '" + name + "' runs on " + deviceOfNode.at(name) +
                     " in its partition but on " + device + " in plan.json");
            }
        }
        for (const auto& [name, count] : covered) {
            if (!planned.count(name) && ++problems <= 5) {
                fail(prefix + "partition node '" + name + "' is not a node of plan.json");
            }
        }
        if (problems > 5) {
            fail(prefix + std::to_string(problems - 5) + " more node coverage problems");
        }
        if (problems == 0) {
            pass(prefix + "the partitions cover each of the " + std::to_string(planned.size()) +
                 " nodes exactly once");
        }
    }

    void checkDevices() {
        const Json& devices = m_fields.optionalArray(m_manifest, "", "devices");
        for (std::size_t i = 0; i < devices.size(); ++i) {
            const Json& entry = devices[i];
            const std::string where = Fields::at("devices", i);
            const std::string id = m_fields.optionalString(entry, where, "id");
            const std::string tag = m_fields.optionalString(entry, where, "tag");
            if (tag != "real") {
                pass("device " + id + ": " + (tag.empty() ? "untagged" : tag) +
                     ", nothing to match on this machine");
                continue;
            }
            const Device* here = m_machine.find(id);
            if (here == nullptr || here->tag != DeviceTag::Real) {
                warn("device " + id + " (" + m_fields.optionalString(entry, where, "name") +
                     ") is not on this machine");
                continue;
            }
            const std::string fingerprint = deviceFingerprint(*here);
            if (fingerprint == m_fields.optionalString(entry, where, "fingerprint")) {
                pass("device " + id + ": fingerprint matches this machine");
                continue;
            }
            warn("device " + id + ": fingerprint differs on this machine (" +
                 identityDifference(m_fields.optionalObject(entry, where, "identity"),
                                    deviceIdentity(*here, softwareStack())) +
                 ")");
        }
    }

    const BundleFileMap& m_files;
    const DeviceInventory& m_machine;
    const BundleOutputCheck* m_outputs;
    Json m_manifest;
    Fields m_fields{"manifest.json"};
    std::vector<std::pair<std::string, std::string>> m_planNodes; ///< plan.json: name, device
    BundleVerification m_result;
};

} // namespace

BundleVerification verifyBundle(const BundleFileMap& files, const DeviceInventory& machine,
                                const BundleOutputCheck* outputs) {
    return Verifier(files, machine, outputs).run();
}

std::vector<BundleCandidate> bundleCandidates(const BundleFileMap& files,
                                              const std::string& origin) {
    const auto manifestIt = files.find("manifest.json");
    if (manifestIt == files.end()) {
        throw InputError(origin + ": no manifest.json: not a Paretune bundle");
    }
    const std::string document = origin + ": manifest.json";
    const Json manifest = parseJsonDocument<Json>(manifestIt->second, document);
    const Fields fields(document);
    fields.requireObject(manifest, "");
    if (fields.optionalString(manifest, "", "schema") != kBundleSchema) {
        throw InputError(origin + ": manifest.json is not a " + std::string(kBundleSchema) +
                         " manifest");
    }
    const Json& list = fields.optionalArray(manifest, "", "candidates");
    if (list.empty()) {
        throw InputError(origin + ": manifest.json lists no candidates");
    }
    const Json& listed = fields.optionalObject(manifest, "", "files");
    std::vector<BundleCandidate> candidates;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& entry = list[i];
        const std::string where = Fields::at("candidates", i);
        const std::string what = document + " " + where;
        BundleCandidate c;
        c.id = fields.integer(entry, where, "id");
        c.file = fields.optionalString(entry, where, "file");
        c.exported = fields.optionalBoolean(entry, where, "exported", false);
        c.partitionsFolder = fields.optionalString(entry, where, "partitions_folder");
        c.latencyMs = fields.number(entry, where, "latency_ms");
        c.energyMj = fields.number(entry, where, "energy_mj");
        c.averagePowerW = fields.number(entry, where, "average_power_w");
        c.peakMemoryMb = fields.number(entry, where, "peak_memory_mb");
        c.source = fields.optionalString(entry, where, "source", "modelled");
        const auto file = files.find(c.file);
        if (file == files.end()) {
            throw InputError(what + ": file '" + c.file + "' is missing");
        }
        const Json* hashed = fields.find(listed, "files", c.file);
        if (!hashed || fields.optionalString(*hashed, "files." + c.file, "sha256") !=
                           Sha256::hex(file->second)) {
            throw InputError(what + ": file '" + c.file +
                             "' does not match its SHA-256 in manifest.json (run `paretune "
                             "bundle verify`)");
        }
        candidates.push_back(std::move(c));
    }
    return candidates;
}

std::optional<std::size_t> selectCandidate(std::span<const BundleCandidate> candidates,
                                           const Budget& budget) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const BundleCandidate& c = candidates[i];
        if ((budget.maxLatencyMs && c.latencyMs > *budget.maxLatencyMs) ||
            (budget.maxEnergyMj && c.energyMj > *budget.maxEnergyMj) ||
            (budget.maxMemoryMb && c.peakMemoryMb > *budget.maxMemoryMb)) {
            continue;
        }
        if (!best) {
            best = i;
            continue;
        }
        const BundleCandidate& b = candidates[*best];
        if (std::tie(c.latencyMs, c.energyMj, c.peakMemoryMb) <
            std::tie(b.latencyMs, b.energyMj, b.peakMemoryMb)) {
            best = i;
        }
    }
    return best;
}

} // namespace paretune
