// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/tune_request.h"

#include "common/data_folders.h"
#include "common/input_error.h"
#include "common/sha256.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/graph.h"
#include "profile/plan_validation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace paretune {

namespace detail {

void checkRequest(const DeviceCatalog& catalog, const TuneRequest& request,
                  const DeviceInventory& inventory) {
    if (request.rounds < 1) {
        throw InputError::forSetting("rounds",
                                     "expected 1 or more, got " + std::to_string(request.rounds));
    }
    if (request.validate < 1) {
        throw InputError::forSetting("validate", "expected 1 or more plans per round, got " +
                                                     std::to_string(request.validate));
    }
    if (!(request.windowS >= 0.0 && request.windowS <= kMaxTuneWindowS)) {
        throw InputError::forSetting(
            "window", "expected 0 to " + std::to_string(static_cast<int>(kMaxTuneWindowS)) +
                          " seconds of timed runs per round");
    }
    if (!(request.targetError > 0.0)) {
        throw InputError::forSetting("target", "expected a positive relative error");
    }
    if (request.dbPath.empty()) {
        throw InputError::forSetting("db", "the tune loop needs a sample library");
    }
    std::string modelled;
    std::string absent;
    for (const std::string& id : request.deviceIds) {
        const int index = catalog.findDevice(id);
        const Device* device = inventory.find(id);
        if (index >= 0 && catalog.devices[static_cast<std::size_t>(index)].modelled) {
            modelled += (modelled.empty() ? "" : ", ") + id;
        } else if (!device || device->tag != DeviceTag::Real) {
            absent += (absent.empty() ? "" : ", ") + id;
        }
    }
    if (!modelled.empty()) {
        throw InputError::forSetting(
            "devices",
            "modelled devices cannot be validated, so they cannot be tuned: " + modelled +
                "; tune on this machine's measured devices (a catalog that marks "
                "them \"cost\": \"measured\", e.g. " +
                bundledCatalogText("cpu_cores.json") + ")");
    }
    if (!absent.empty()) {
        throw InputError::forSetting("devices",
                                     "not devices of this machine: " + absent +
                                         " (the tune loop measures every plan it validates)");
    }
}

std::string tuneKeyOf(const Graph& graph, const DeviceCatalog& catalog, const TuneRequest& request,
                      const DeviceInventory& inventory) {
    nlohmann::json devices = nlohmann::json::array();
    for (const std::string& id : request.deviceIds) {
        devices.push_back({id, deviceFingerprint(*inventory.find(id))});
    }
    nlohmann::json specs = nlohmann::json::array();
    for (const DeviceSpec& d : catalog.devices) {
        specs.push_back({d.id, d.kind, d.modelled, d.peakGflops, d.memBwGbs, d.launchUs, d.activeW,
                         d.idleW, d.memoryMb, d.resources, d.memoryDomain, d.contention});
    }
    nlohmann::json links = nlohmann::json::array();
    for (const LinkSpec& l : catalog.links) {
        links.push_back({l.a, l.b, l.bandwidthGbs, l.latencyUs, l.fullDuplex});
    }
    nlohmann::json objectives = nlohmann::json::array();
    for (const Objective o : request.options.objectives) {
        objectives.push_back(std::string(objectiveName(o)));
    }
    nlohmann::json key = {
        {"model", graph.fingerprint},
        {"devices", devices},
        {"catalog", {{"host", catalog.host}, {"devices", specs}, {"links", links}}},
        {"search",
         {request.options.seed, request.options.population, request.options.generations, objectives,
          request.options.coarseToFine}},
        {"validate", request.validate},
        {"repeats", request.repeats},
        {"warmup", request.warmup},
        {"target", request.targetError}};
    if (request.windowS > 0.0) { // without a window, the key of the versions before it
        key["window_s"] = request.windowS;
    }
    return Sha256::hex(key.dump());
}

} // namespace detail

int runsOfRound(const TuneRequest& request, double cycleUs) {
    if (!(cycleUs > 0.0)) {
        return request.repeats;
    }
    const double runs = std::ceil(request.windowS * 1e6 / cycleUs);
    return runs > request.repeats ? static_cast<int>(std::min<double>(runs, kMaxValidationRepeats))
                                  : request.repeats;
}

} // namespace paretune
