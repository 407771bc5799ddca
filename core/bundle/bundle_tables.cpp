// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_parts.h"

#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "paretune/config.h"
#include "plan/simulator.h"
#include "store/sample_library.h"

#include <optional>

namespace paretune::bundle {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (const char c : text) {
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return quoted + "\"";
}

Json devicesJson(const CostTable& table, const DeviceCatalog& catalog,
                 const DeviceInventory& inventory, Diagnostics& diagnostics) {
    Json devices = Json::array();
    for (const CostDevice& d : table.devices()) {
        const Device* device = inventory.find(d.id);
        const int spec = catalog.findDevice(d.id);
        Json entry = {
            {"id", d.id},
            {"kind", d.kind},
            {"costs", spec >= 0 && !catalog.devices[static_cast<std::size_t>(spec)].modelled
                          ? "measured"
                          : "modelled"}};
        if (device == nullptr) {
            entry["tag"] = "unknown";
            diagnostics.push_back({Diagnostic::Severity::Warning, "unknown-device",
                                   "device '" + d.id +
                                       "' is neither on this machine "
                                       "nor in the catalog"});
        } else {
            const SoftwareStack& software = softwareStack();
            entry["tag"] = deviceTagName(device->tag);
            entry["name"] = device->name;
            entry["fingerprint"] = deviceFingerprint(*device);
            entry["identity"] = deviceIdentity(*device, software);
            if (device->tag == DeviceTag::Real) {
                entry["software"] = {{"compiler", software.compiler},
                                     {"torch", software.torchVersion},
                                     {"blas", software.blas},
                                     {"cuda_runtime", software.cudaRuntime},
                                     {"cuda_driver", software.cudaDriver}};
            }
        }
        devices.push_back(std::move(entry));
    }

    return devices;
}

std::string profileCsv(const Simulator& sim, const Plan& plan, const DeviceInventory& inventory,
                       const std::string& samplesPath, std::int64_t* measuredRows) {
    const Graph& g = sim.graph();
    const CostTable& table = sim.costs();
    std::string csv = "node,op_type,device,planned,latency_us,latency_p10_us,latency_p90_us,"
                      "energy_uj,workspace_bytes,source,energy_source,precision\n";
    auto optional = [](const std::optional<double>& value) {
        return value ? number(*value) : std::string();
    };
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        const NodeId n = sim.computeNode(ci);
        const Node& node = g.nodes[static_cast<std::size_t>(n)];
        const std::int32_t planned =
            plan.variant.empty() ? 0 : plan.variant[static_cast<std::size_t>(n)];
        // fp32 on every device; a lower precision where the device runs it.
        for (std::int32_t v = 0; v < table.variantCount(); ++v) {
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                const CostCell& cell = table.cell(n, d, v);
                const bool supported = cell.supported();
                if (v > 0 && !supported) {
                    continue;
                }
                const std::string source(costSourceName(cell.source));
                const bool chosen = plan.device[static_cast<std::size_t>(n)] == d && planned == v;
                csv += csvField(node.name) + "," + csvField(node.opType) + "," +
                       csvField(table.device(d).id) + "," + (chosen ? "1" : "0") + "," +
                       (supported ? number(cell.latencyUs) : std::string()) + ",,," +
                       (supported ? number(cell.energyUj) : std::string()) + "," +
                       (supported ? std::to_string(cell.workspaceBytes) : std::string()) + "," +
                       source + "," + (supported ? source : std::string()) + "," +
                       std::string(variantName(table.variant(v))) + "\n";
            }
        }
    }
    *measuredRows = 0;
    if (!samplesPath.empty()) {
        const SampleLibrary library =
            SampleLibrary::open(samplesPath, SampleLibrary::OpenMode::ExistingOnly);
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            const Device* device = inventory.find(table.device(d).id);
            if (device == nullptr || device->tag != DeviceTag::Real) {
                continue;
            }
            const std::string fingerprint = deviceFingerprint(*device);
            for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
                const NodeId n = sim.computeNode(ci);
                const std::optional<Sample> sample =
                    library.findSample(g.signatures[static_cast<std::size_t>(n)], fingerprint);
                if (!sample) {
                    continue;
                }
                const Node& node = g.nodes[static_cast<std::size_t>(n)];
                csv += csvField(node.name) + "," + csvField(node.opType) + "," +
                       csvField(table.device(d).id) + "," +
                       (plan.device[static_cast<std::size_t>(n)] == d &&
                                (plan.variant.empty() ||
                                 plan.variant[static_cast<std::size_t>(n)] == 0)
                            ? "1"
                            : "0") +
                       "," + number(sample->latencyUs) + "," + optional(sample->latencyP10Us) +
                       "," + optional(sample->latencyP90Us) + "," + optional(sample->energyUj) +
                       ",,measured," + (sample->energyUj ? csvField(sample->energySource) : "") +
                       ",fp32\n";
                ++*measuredRows;
            }
        }
    }
    return csv;
}

std::string readme(const Graph& g, const Json& manifest, const std::vector<Partition>& parts) {
    std::string text;
    text += "# Deployment bundle: " + g.name + "\n\n";
    text += "Made by paretune " + std::string(PARETUNE_VERSION) + " from `" +
            manifest["model"]["file"].get<std::string>() + "` (model fingerprint `" +
            g.fingerprint.substr(0, 16) + "…`), plan " +
            std::to_string(manifest["plan"]["id"].get<std::int64_t>()) + ".\n\n";
    text += "## Check it first\n\n"
            "```sh\n"
            "paretune bundle verify THIS_FOLDER   # hashes, ONNX checker, node coverage, devices\n"
            "```\n\n"
            "A device fingerprint that differs on the target machine is a warning: the plan was "
            "made for hardware or software that is not quite what runs it.\n\n";
    text += "## Objectives of this plan\n\n| Objective | Value | Source |\n|---|---|---|\n";
    for (const auto& [name, figure] : manifest["plan"]["objectives"].items()) {
        const bool energy = name == "energy_mj" || name == "average_power_w";
        text += "| " + name + " | " + number(figure["value"].get<double>()) + " | simulated from " +
                figure["source"].get<std::string>() + " costs" +
                (energy ? ", idle power modelled" : "") + " |\n";
    }
    text += "\nEvery figure is simulated: the plan's schedule computed from per-operator costs. "
            "The source says where those costs come from: *modelled* ones from the device "
            "catalog's roofline model, *predicted* ones from the learned predictor, *measured* "
            "ones from this tool's profiling. Idle power is the catalog's. `paretune validate` "
            "measures the plan itself.\n\n";
    text += "## How to run it\n\n"
            "Run the files of `partitions/` one after another, in the order below, each on its "
            "device. Keep a map from tensor name to value, starting with the model's inputs; "
            "feed each partition its inputs from the map and add its outputs to it. The model's "
            "outputs are then in the map. Every partition is a complete ONNX model that keeps the "
            "original node and tensor names.\n\n"
            "| # | File | Device | Nodes | Inputs | Outputs |\n|---|---|---|---|---|---|\n";
    for (std::size_t p = 0; p < parts.size(); ++p) {
        auto names = [](const std::vector<PartitionTensor>& list) {
            std::string joined;
            for (std::size_t k = 0; k < list.size() && k < 4; ++k) {
                joined += (k == 0 ? "" : ", ") + ("`" + list[k].name + "`");
            }
            return list.size() > 4 ? joined + ", … (" + std::to_string(list.size()) + ")" : joined;
        };
        text += "| " + std::to_string(p) + " | `" +
                manifest["partitions"][p]["file"].get<std::string>() + "` | " + parts[p].device +
                " | " + std::to_string(parts[p].nodes.size()) + " | " + names(parts[p].inputs) +
                " | " + names(parts[p].outputs) + " |\n";
    }
    text += "\n## Files\n\n"
            "* `manifest.json`: schema, tool version, model and device fingerprints, objectives "
            "with their sources, the partitions with their inputs and outputs, the tensors "
            "handed from one partition to the next, and the SHA-256 of every other file.\n"
            "* `plan.json`: per node its name, op type, device, partition, run order and "
            "simulated start and finish (µs).\n"
            "* `profile.csv`: per compute node and device the latency, energy and workspace "
            "figures the plan was chosen with, and their source.\n"
            "* `candidates/`: other Pareto-optimal plans of the same search, so that a runtime "
            "can choose by its budget:\n\n"
            "```sh\n"
            "paretune bundle select THIS_FOLDER --max-latency-ms 20 --max-energy-mj 500\n"
            "```\n\n"
            "  A candidate holds its placement and objectives; its partitions are in the "
            "folder its `partitions_folder` names (partitions/ for the exported plan, "
            "candidates/plan-N/ when exported with --candidate-partitions), else `paretune "
            "export --plan ID` makes them.\n";
    return text;
}

} // namespace paretune::bundle
