#include "bundle_verify.h"

#include "bundle/bundle_export.h"
#include "bundle/model_partitioner.h"
#include "common/input_error.h"
#include "common/sha256.h"
#include "device/device.h"
#include "device/device_fingerprint.h"

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <map>
#include <set>

namespace paretune {

namespace {

using Json = nlohmann::json;

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

std::vector<std::string> names(const Json& list) {
    std::vector<std::string> result;
    if (list.is_array()) {
        for (const Json& item : list) {
            result.push_back(item.is_object()   ? item.value("name", std::string())
                             : item.is_string() ? item.get<std::string>()
                                                : std::string());
        }
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
    Verifier(const BundleFileMap& files, const DeviceInventory& machine)
        : m_files(files), m_machine(machine) {}

    BundleVerification run() {
        const auto manifestIt = m_files.find("manifest.json");
        if (manifestIt == m_files.end()) {
            fail("manifest.json is missing: not a Paretune bundle");
            return m_result;
        }
        try {
            m_manifest = Json::parse(manifestIt->second);
        } catch (const Json::parse_error& error) {
            fail(std::string("manifest.json is not valid JSON: ") + error.what());
            return m_result;
        }
        if (!m_manifest.is_object() || m_manifest.value("schema", std::string()) != kBundleSchema) {
            fail("manifest.json: schema " +
                 (m_manifest.is_object() && m_manifest.contains("schema")
                      ? m_manifest["schema"].dump()
                      : std::string("missing")) +
                 "; this paretune reads " + kBundleSchema);
            return m_result;
        }
        checkHashes();
        if (!readPlanNodes()) {
            return m_result;
        }
        checkPartitions(m_manifest.value("partitions", Json::array()), "", true);
        for (const Json& candidate : m_manifest.value("candidates", Json::array())) {
            if (candidate.is_object() && candidate.contains("partitions")) {
                checkPartitions(candidate["partitions"],
                                "candidate plan " + candidate.value("id", Json(-1)).dump() + ": ",
                                false);
            }
        }
        checkDevices();
        return m_result;
    }

private:
    void fail(std::string message) { m_result.failures.push_back(std::move(message)); }
    void warn(std::string message) { m_result.warnings.push_back(std::move(message)); }
    void pass(std::string message) { m_result.passed.push_back(std::move(message)); }

    void checkHashes() {
        const Json& listed = m_manifest.value("files", Json::object());
        if (!listed.is_object() || listed.empty()) {
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
            const std::string expected = entry.is_object() ? entry.value("sha256", "") : "";
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
    void checkPartitions(const Json& parts, const std::string& prefix, bool exported) {
        if (!parts.is_array() || parts.empty()) {
            fail(prefix + "manifest.json lists no partitions");
            return;
        }
        std::set<std::string> available;
        for (const std::string& name : names(m_manifest["model"].value("inputs", Json::array()))) {
            available.insert(name);
        }
        std::map<std::string, int> covered;
        std::map<std::string, std::string> deviceOfNode;
        std::size_t checked = 0;
        for (std::size_t p = 0; p < parts.size(); ++p) {
            const Json& part = parts[p];
            const std::string file = part.value("file", std::string());
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
            onnx::ModelProto model;
            model.ParseFromString(bytes->second);
            const std::vector<std::string> nodes = names(part.value("nodes", Json::array()));
            std::vector<std::string> protoNodes;
            for (const auto& node : model.graph().node()) {
                protoNodes.push_back(node.name());
            }
            if (protoNodes != nodes) {
                fail(label + ": its nodes are not the " + std::to_string(nodes.size()) +
                     " nodes manifest.json lists");
            }
            const std::string device = part.value("device", std::string());
            for (const std::string& node : protoNodes) {
                ++covered[node];
                deviceOfNode[node] = device;
            }
            const std::vector<std::string> inputs = protoNames(model.graph().input());
            if (inputs != names(part.value("inputs", Json::array())) ||
                protoNames(model.graph().output()) != names(part.value("outputs", Json::array()))) {
                fail(label + ": its inputs or outputs differ from manifest.json's");
            }
            for (const std::string& input : inputs) {
                if (!available.count(input)) {
                    fail(label + ": input '" + input +
                         "' is neither a model input nor an output of an earlier partition");
                }
            }
            for (const std::string& output : protoNames(model.graph().output())) {
                available.insert(output);
            }
            ++checked;
        }
        for (const std::string& output :
             names(m_manifest["model"].value("outputs", Json::array()))) {
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
        Json plan;
        try {
            plan = Json::parse(planIt->second);
        } catch (const Json::parse_error& error) {
            fail(std::string("plan.json is not valid JSON: ") + error.what());
            return false;
        }
        const Json& nodes = plan.is_object() ? plan.value("nodes", Json::array()) : Json();
        if (!nodes.is_array() || nodes.empty()) {
            fail("plan.json has no \"nodes\" list");
            return false;
        }
        for (const Json& node : nodes) {
            if (node.is_object()) {
                m_planNodes.emplace_back(node.value("name", std::string()),
                                         node.value("device", std::string()));
            }
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
        const Json& devices = m_manifest.value("devices", Json::array());
        for (const Json& entry : devices) {
            const std::string id = entry.value("id", std::string());
            const std::string tag = entry.value("tag", std::string());
            if (tag != "real") {
                pass("device " + id + ": " + (tag.empty() ? "untagged" : tag) +
                     ", nothing to match on this machine");
                continue;
            }
            const Device* here = m_machine.find(id);
            if (here == nullptr || here->tag != DeviceTag::Real) {
                warn("device " + id + " (" + entry.value("name", std::string()) +
                     ") is not on this machine");
                continue;
            }
            const std::string fingerprint = deviceFingerprint(*here);
            if (fingerprint == entry.value("fingerprint", std::string())) {
                pass("device " + id + ": fingerprint matches this machine");
                continue;
            }
            warn("device " + id + ": fingerprint differs on this machine (" +
                 identityDifference(entry.value("identity", Json::object()),
                                    deviceIdentity(*here, softwareStack())) +
                 ")");
        }
    }

    const BundleFileMap& m_files;
    const DeviceInventory& m_machine;
    Json m_manifest;
    std::vector<std::pair<std::string, std::string>> m_planNodes; ///< plan.json: name, device
    BundleVerification m_result;
};

double number(const Json& entry, const char* key, const std::string& what) {
    if (!entry.contains(key) || !entry[key].is_number()) {
        throw InputError(what + ": no number \"" + key + "\"");
    }
    return entry[key].get<double>();
}

} // namespace

BundleVerification verifyBundle(const BundleFileMap& files, const DeviceInventory& machine) {
    return Verifier(files, machine).run();
}

std::vector<BundleCandidate> bundleCandidates(const BundleFileMap& files,
                                              const std::string& origin) {
    const auto manifestIt = files.find("manifest.json");
    if (manifestIt == files.end()) {
        throw InputError(origin + ": no manifest.json: not a Paretune bundle");
    }
    Json manifest;
    try {
        manifest = Json::parse(manifestIt->second);
    } catch (const Json::parse_error& error) {
        throw InputError(origin + ": manifest.json is not valid JSON: " + error.what());
    }
    if (!manifest.is_object() || manifest.value("schema", std::string()) != kBundleSchema) {
        throw InputError(origin + ": manifest.json is not a " + std::string(kBundleSchema) +
                         " manifest");
    }
    const Json& list = manifest.value("candidates", Json::array());
    if (!list.is_array() || list.empty()) {
        throw InputError(origin + ": manifest.json lists no candidates");
    }
    std::vector<BundleCandidate> candidates;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& entry = list[i];
        const std::string what = origin + ": manifest.json candidates[" + std::to_string(i) + "]";
        if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer()) {
            throw InputError(what + ": no integer \"id\"");
        }
        BundleCandidate c;
        c.id = entry["id"].get<std::int64_t>();
        c.file = entry.value("file", std::string());
        c.exported = entry.value("exported", false);
        if (entry.contains("partitions_folder") && entry["partitions_folder"].is_string()) {
            c.partitionsFolder = entry["partitions_folder"].get<std::string>();
        }
        c.latencyMs = number(entry, "latency_ms", what);
        c.energyMj = number(entry, "energy_mj", what);
        c.averagePowerW = number(entry, "average_power_w", what);
        c.peakMemoryMb = number(entry, "peak_memory_mb", what);
        c.source = entry.value("source", std::string("modelled"));
        const auto file = files.find(c.file);
        const Json& listed = manifest.value("files", Json::object());
        if (file == files.end()) {
            throw InputError(what + ": file '" + c.file + "' is missing");
        }
        if (!listed.is_object() || !listed.contains(c.file) || !listed[c.file].is_object() ||
            listed[c.file].value("sha256", std::string()) != Sha256::hex(file->second)) {
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
