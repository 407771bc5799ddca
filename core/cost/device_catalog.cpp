// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_catalog.h"

#include "common/data_folders.h"
#include "common/input_error.h"
#include "common/input_file.h"
#include "common/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace paretune {

double DeviceSpec::efficiency(std::string_view opType) const {
    const auto it = opEfficiency.find(opType);
    return it == opEfficiency.end() ? defaultEfficiency : it->second;
}

double DeviceSpec::peakGflopsFor(Precision precision) const {
    if (precision == Precision::Fp32) {
        return peakGflops;
    }
    for (const auto& [p, peak] : precisionPeaks) {
        if (p == precision) {
            return peak;
        }
    }
    return 0.0;
}

bool DeviceSpec::supports(std::string_view opType) const {
    return !std::binary_search(unsupportedOps.begin(), unsupportedOps.end(), opType);
}

double DeviceSpec::rooflineLatencyUs(std::string_view opType, double flops, double bytes) const {
    const double computeUs = flops / (peakGflops * efficiency(opType) * 1e3);
    const double memoryUs = bytes / (memBwGbs * 1e3);
    return launchUs + std::max(computeUs, memoryUs);
}

int DeviceCatalog::findDevice(std::string_view id) const {
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i].id == id) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int DeviceCatalog::findLink(std::string_view a, std::string_view b) const {
    for (std::size_t i = 0; i < links.size(); ++i) {
        if ((links[i].a == a && links[i].b == b) || (links[i].a == b && links[i].b == a)) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

std::vector<std::string> DeviceCatalog::path(std::string_view src, std::string_view dst) const {
    if (src == dst) {
        return {std::string(src)};
    }
    if (findLink(src, dst) >= 0) {
        return {std::string(src), std::string(dst)};
    }
    for (const RouteSpec& r : routes) {
        if (r.src == src && r.dst == dst) {
            std::vector<std::string> hops{r.src};
            hops.insert(hops.end(), r.via.begin(), r.via.end());
            hops.push_back(r.dst);
            return hops;
        }
    }
    if (src != host && dst != host && findLink(src, host) >= 0 && findLink(host, dst) >= 0) {
        return {std::string(src), host, std::string(dst)};
    }
    return {};
}

namespace {

class Validator {
public:
    explicit Validator(std::string origin) : m_origin(std::move(origin)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw InputError(m_origin + ": " + (field.empty() ? "" : field + ": ") + problem);
    }

    const nlohmann::json& member(const nlohmann::json& object, const std::string& where,
                                 const char* key) const {
        const auto it = object.find(key);
        if (it == object.end()) {
            fail(join(where, key), "missing");
        }
        return *it;
    }

    std::string string(const nlohmann::json& object, const std::string& where,
                       const char* key) const {
        const nlohmann::json& v = member(object, where, key);
        if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
            fail(join(where, key), "expected a non-empty string");
        }
        return v.get<std::string>();
    }

    double number(const nlohmann::json& object, const std::string& where, const char* key,
                  bool allowZero) const {
        const nlohmann::json& v = member(object, where, key);
        return checkNumber(v, join(where, key), allowZero);
    }

    double optionalNumber(const nlohmann::json& object, const std::string& where, const char* key,
                          bool allowZero, double fallback) const {
        const auto it = object.find(key);
        return it == object.end() ? fallback : checkNumber(*it, join(where, key), allowZero);
    }

    double checkNumber(const nlohmann::json& v, const std::string& field, bool allowZero) const {
        if (!v.is_number() || !std::isfinite(v.get<double>())) {
            fail(field, allowZero ? "expected a number >= 0" : "expected a positive number");
        }
        const double x = v.get<double>();
        if (x < 0.0 || (!allowZero && x == 0.0)) {
            fail(field, allowZero ? "expected a number >= 0, got " + v.dump()
                                  : "expected a positive number, got " + v.dump());
        }
        return x;
    }

    void onlyKnownKeys(const nlohmann::json& object, const std::string& where,
                       std::initializer_list<const char*> known) const {
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (std::none_of(known.begin(), known.end(),
                             [&](const char* k) { return it.key() == k; })) {
                fail(join(where, it.key().c_str()), "unknown field");
            }
        }
    }

    static std::string join(const std::string& where, const char* key) {
        return where.empty() ? std::string(key) : where + "." + key;
    }

private:
    std::string m_origin;
};

/// "precisions": {"bf16": {"peak_gflops": 180}} (optional; modelled devices only).
void parsePrecisionPeaks(const Validator& v, const nlohmann::json& d, const std::string& where,
                         DeviceSpec& spec) {
    const auto it = d.find("precisions");
    if (it == d.end()) {
        return;
    }
    const std::string pw = Validator::join(where, "precisions");
    if (!it->is_object()) {
        v.fail(pw, "expected an object {\"bf16\": {\"peak_gflops\": x}}");
    }
    if (!spec.modelled) {
        v.fail(pw, "a measured device's variants are measured, not modelled: list precisions "
                   "on modelled devices only");
    }
    for (auto p = it->begin(); p != it->end(); ++p) {
        const std::string field = pw + "." + p.key();
        Precision precision = Precision::Fp32;
        try {
            precision = parsePrecision(p.key());
        } catch (const InputError& e) {
            v.fail(field, e.what());
        }
        if (precision == Precision::Fp32) {
            v.fail(field, "fp32's peak is the device's peak_gflops");
        }
        if (!p.value().is_object()) {
            v.fail(field, "expected an object {\"peak_gflops\": x}");
        }
        v.onlyKnownKeys(p.value(), field, {"peak_gflops"});
        spec.precisionPeaks.emplace_back(precision,
                                         v.number(p.value(), field, "peak_gflops", false));
    }
    std::sort(spec.precisionPeaks.begin(), spec.precisionPeaks.end());
}

DeviceSpec parseDevice(const Validator& v, const nlohmann::json& d, const std::string& where) {
    if (!d.is_object()) {
        v.fail(where, "expected an object");
    }
    v.onlyKnownKeys(d, where,
                    {"id", "kind", "name", "cost", "peak_gflops", "mem_bw_gbs", "launch_us",
                     "active_w", "idle_w", "memory_mb", "efficiency", "unsupported_ops",
                     "resources", "memory_domain", "contention", "precisions"});
    DeviceSpec spec;
    spec.id = v.string(d, where, "id");
    spec.kind = v.string(d, where, "kind");
    if (d.contains("cost")) {
        const std::string cost = v.string(d, where, "cost");
        if (cost != "modelled" && cost != "measured") {
            v.fail(Validator::join(where, "cost"),
                   "expected \"modelled\" or \"measured\", got \"" + cost + "\"");
        }
        spec.modelled = cost == "modelled";
    }
    if (spec.modelled) {
        spec.peakGflops = v.number(d, where, "peak_gflops", false);
        spec.memBwGbs = v.number(d, where, "mem_bw_gbs", false);
        spec.launchUs = v.number(d, where, "launch_us", true);
    } else {
        spec.peakGflops = v.optionalNumber(d, where, "peak_gflops", false, 0.0);
        spec.memBwGbs = v.optionalNumber(d, where, "mem_bw_gbs", false, 0.0);
        spec.launchUs = v.optionalNumber(d, where, "launch_us", true, 0.0);
    }
    spec.activeW = v.number(d, where, "active_w", true);
    spec.idleW = v.number(d, where, "idle_w", true);
    if (spec.idleW > spec.activeW) {
        v.fail(Validator::join(where, "idle_w"), "is larger than active_w");
    }
    spec.memoryMb = v.number(d, where, "memory_mb", false);
    if (const auto it = d.find("efficiency"); it != d.end()) {
        const std::string ew = Validator::join(where, "efficiency");
        if (!it->is_object()) {
            v.fail(ew, "expected an object {\"default\": x, \"ops\": {...}}");
        }
        v.onlyKnownKeys(*it, ew, {"default", "ops"});
        spec.defaultEfficiency = v.optionalNumber(*it, ew, "default", false, 1.0);
        if (spec.defaultEfficiency > 1.0) {
            v.fail(Validator::join(ew, "default"), "expected a fraction in (0, 1]");
        }
        if (const auto ops = it->find("ops"); ops != it->end()) {
            if (!ops->is_object()) {
                v.fail(Validator::join(ew, "ops"), "expected an object of op type → fraction");
            }
            for (auto op = ops->begin(); op != ops->end(); ++op) {
                const std::string field = Validator::join(ew, "ops") + "." + op.key();
                const double e = v.checkNumber(op.value(), field, false);
                if (e > 1.0) {
                    v.fail(field, "expected a fraction in (0, 1]");
                }
                spec.opEfficiency.emplace(op.key(), e);
            }
        }
    }
    if (const auto it = d.find("unsupported_ops"); it != d.end()) {
        const std::string uw = Validator::join(where, "unsupported_ops");
        if (!it->is_array()) {
            v.fail(uw, "expected an array of op types");
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            if (!(*it)[i].is_string()) {
                v.fail(uw + "[" + std::to_string(i) + "]", "expected an op type string");
            }
            spec.unsupportedOps.push_back((*it)[i].get<std::string>());
        }
        std::sort(spec.unsupportedOps.begin(), spec.unsupportedOps.end());
        spec.unsupportedOps.erase(
            std::unique(spec.unsupportedOps.begin(), spec.unsupportedOps.end()),
            spec.unsupportedOps.end());
    }
    if (const auto it = d.find("resources"); it != d.end()) {
        const std::string rw = Validator::join(where, "resources");
        if (!it->is_array()) {
            v.fail(rw, "expected an array of resource names");
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const nlohmann::json& r = (*it)[i];
            if (!r.is_string() || r.get_ref<const std::string&>().empty()) {
                v.fail(rw + "[" + std::to_string(i) + "]", "expected a non-empty string");
            }
            spec.resources.push_back(r.get<std::string>());
        }
        std::sort(spec.resources.begin(), spec.resources.end());
        spec.resources.erase(std::unique(spec.resources.begin(), spec.resources.end()),
                             spec.resources.end());
    }
    if (d.contains("memory_domain")) {
        spec.memoryDomain = v.string(d, where, "memory_domain");
    }
    if (const auto it = d.find("contention"); it != d.end()) {
        const std::string cw = Validator::join(where, "contention");
        if (!it->is_number() || !std::isfinite(it->get<double>())) {
            v.fail(cw, "expected a number of at least 1");
        }
        spec.contention = it->get<double>();
        if (!(spec.contention >= 1.0)) {
            v.fail(cw, "expected a number of at least 1, got " + it->dump());
        }
        // Only a device of the same memory domain slows this one: a factor without a domain
        // would silently do nothing.
        if (spec.contention != 1.0 && spec.memoryDomain.empty()) {
            v.fail(cw, "has no effect without a \"memory_domain\"");
        }
    }
    parsePrecisionPeaks(v, d, where, spec);
    return spec;
}

} // namespace

DeviceCatalog parseDeviceCatalog(const nlohmann::json& doc, const std::string& origin) {
    const Validator v(origin);
    if (!doc.is_object()) {
        v.fail("", "expected a JSON object at the top level");
    }
    v.onlyKnownKeys(doc, "", {"schema", "host", "devices", "links", "routes", "comment"});
    const std::string schema = v.string(doc, "", "schema");
    if (schema != DeviceCatalog::kSchema) {
        v.fail("schema",
               "expected \"" + std::string(DeviceCatalog::kSchema) + "\", got \"" + schema + "\"");
    }
    DeviceCatalog catalog;
    catalog.origin = origin;
    catalog.host = v.string(doc, "", "host");

    const nlohmann::json& devices = v.member(doc, "", "devices");
    if (!devices.is_array() || devices.empty()) {
        v.fail("devices", "expected a non-empty array");
    }
    std::set<std::string> ids;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string where = "devices[" + std::to_string(i) + "]";
        DeviceSpec spec = parseDevice(v, devices[i], where);
        if (!ids.insert(spec.id).second) {
            v.fail(where + ".id", "duplicate device id \"" + spec.id + "\"");
        }
        catalog.devices.push_back(std::move(spec));
    }
    if (catalog.findDevice(catalog.host) < 0) {
        v.fail("host", "\"" + catalog.host + "\" is not the id of a device in \"devices\"");
    }
    auto knownDevice = [&](const std::string& where, const std::string& id) {
        if (catalog.findDevice(id) < 0) {
            v.fail(where, "unknown device \"" + id + "\"");
        }
    };

    if (const auto it = doc.find("links"); it != doc.end()) {
        if (!it->is_array()) {
            v.fail("links", "expected an array");
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string where = "links[" + std::to_string(i) + "]";
            const nlohmann::json& l = (*it)[i];
            if (!l.is_object()) {
                v.fail(where, "expected an object");
            }
            v.onlyKnownKeys(l, where, {"a", "b", "bandwidth_gbs", "latency_us", "duplex"});
            LinkSpec link;
            link.a = v.string(l, where, "a");
            link.b = v.string(l, where, "b");
            knownDevice(where + ".a", link.a);
            knownDevice(where + ".b", link.b);
            if (link.a == link.b) {
                v.fail(where, "a link joins two different devices, both are \"" + link.a + "\"");
            }
            if (catalog.findLink(link.a, link.b) >= 0) {
                v.fail(where, "duplicate link between \"" + link.a + "\" and \"" + link.b + "\"");
            }
            link.bandwidthGbs = v.number(l, where, "bandwidth_gbs", false);
            link.latencyUs = v.number(l, where, "latency_us", true);
            if (l.contains("duplex")) {
                const std::string duplex = v.string(l, where, "duplex");
                if (duplex != "full" && duplex != "half") {
                    v.fail(where + ".duplex",
                           "expected \"full\" or \"half\", got \"" + duplex + "\"");
                }
                link.fullDuplex = duplex == "full";
            }
            catalog.links.push_back(link);
        }
    }

    if (const auto it = doc.find("routes"); it != doc.end()) {
        if (!it->is_array()) {
            v.fail("routes", "expected an array");
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string where = "routes[" + std::to_string(i) + "]";
            const nlohmann::json& r = (*it)[i];
            if (!r.is_object()) {
                v.fail(where, "expected an object");
            }
            v.onlyKnownKeys(r, where, {"src", "dst", "via"});
            RouteSpec route;
            route.src = v.string(r, where, "src");
            route.dst = v.string(r, where, "dst");
            knownDevice(where + ".src", route.src);
            knownDevice(where + ".dst", route.dst);
            const nlohmann::json& via = v.member(r, where, "via");
            if (!via.is_array() || via.empty()) {
                v.fail(where + ".via", "expected a non-empty array of device ids");
            }
            for (std::size_t k = 0; k < via.size(); ++k) {
                const std::string vw = where + ".via[" + std::to_string(k) + "]";
                if (!via[k].is_string()) {
                    v.fail(vw, "expected a device id");
                }
                route.via.push_back(via[k].get<std::string>());
                knownDevice(vw, route.via.back());
            }
            std::vector<std::string> hops{route.src};
            hops.insert(hops.end(), route.via.begin(), route.via.end());
            hops.push_back(route.dst);
            for (std::size_t k = 0; k + 1 < hops.size(); ++k) {
                if (catalog.findLink(hops[k], hops[k + 1]) < 0) {
                    v.fail(where, "no link between \"" + hops[k] + "\" and \"" + hops[k + 1] +
                                      "\" for this route's hop " + std::to_string(k + 1));
                }
            }
            catalog.routes.push_back(std::move(route));
        }
    }
    return catalog;
}

DeviceCatalog parseDeviceCatalogText(std::string_view text, const std::string& origin) {
    return parseDeviceCatalog(parseJsonDocument(text, origin), origin);
}

DeviceCatalog loadDeviceCatalog(const std::string& nameOrPath) {
    const std::string path = findDeviceCatalog(nameOrPath);
    return parseDeviceCatalogText(readInputFile(path, "device catalog"), path);
}

} // namespace paretune
