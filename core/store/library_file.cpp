// SPDX-License-Identifier: GPL-3.0-or-later
#include "library_file.h"

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/output_file.h"
#include "paretune/config.h"
#include "sample_library.h"
#include "value_checks.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <string_view>

namespace paretune {

namespace {

constexpr const char* kFormat = "paretune-library";
constexpr int kVersion = 2; // 2: model runs

using nlohmann::json;

json optional(const std::optional<double>& value) {
    return value ? json(*value) : json(nullptr);
}

/// One record's fields, read with messages naming the line and the field.
class Fields {
public:
    Fields(const json& object, std::string where) : m_object(object), m_where(std::move(where)) {}

    std::string text(const char* key) const {
        const json& v = at(key);
        if (!v.is_string()) {
            fail(key, "expected text");
        }
        return v.get<std::string>();
    }
    double number(const char* key) const {
        const json& v = at(key);
        if (!v.is_number()) {
            fail(key, "expected a number");
        }
        return v.get<double>();
    }
    std::optional<double> optionalNumber(const char* key) const {
        const json& v = at(key);
        if (v.is_null()) {
            return std::nullopt;
        }
        return number(key);
    }
    /// A number that older files may not have: none when missing or null.
    std::optional<double> numberIfPresent(const char* key) const {
        return m_object.contains(key) ? optionalNumber(key) : std::nullopt;
    }
    std::int64_t integer(const char* key, std::int64_t min, std::int64_t max) const {
        const json& v = at(key);
        if (!v.is_number_integer() ||
            (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))) {
            fail(key, "expected a whole number");
        }
        const auto value = v.get<std::int64_t>();
        if (value < min || value > max) {
            fail(key, "out of range");
        }
        return value;
    }
    /// An object field that older files do not have: none when missing or null.
    std::optional<Fields> optionalObject(const char* key) const {
        const auto found = m_object.find(key);
        if (found == m_object.end() || found->is_null()) {
            return std::nullopt;
        }
        if (!found->is_object()) {
            fail(key, "expected an object");
        }
        return Fields(*found, m_where + ": field \"" + key + "\"");
    }
    bool flag(const char* key) const {
        const json& v = at(key);
        if (!v.is_boolean()) {
            fail(key, "expected true or false");
        }
        return v.get<bool>();
    }

private:
    const json& at(const char* key) const {
        const auto found = m_object.find(key);
        if (found == m_object.end()) {
            fail(key, "missing");
        }
        return *found;
    }
    [[noreturn]] void fail(const char* key, const char* problem) const {
        throw InputError(m_where + ": field \"" + key + "\": " + problem);
    }

    const json& m_object;
    std::string m_where;
};

void readRecord(const std::string& kind, const Fields& f, LibraryRecords& r) {
    constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
    if (kind == "device") {
        r.devices.push_back({f.text("fingerprint"), f.text("kind"), f.text("name"),
                             f.text("spec_json"), f.text("software_json"), f.text("created_at")});
    } else if (kind == "model") {
        r.models.push_back({f.text("fingerprint"), f.text("name"), f.text("source_path"),
                            f.integer("node_count", 0, kMaxInt), f.text("imported_at")});
    } else if (kind == "signature") {
        r.signatures.push_back({f.text("signature"), f.text("op_type"), f.text("attrs_json"),
                                f.text("shapes_json"), f.number("flops"),
                                f.integer("bytes", 0, kMaxInt)});
    } else if (kind == "benchmark") {
        BenchmarkRecord b{0,
                          f.text("device_fingerprint"),
                          f.text("measured_at"),
                          f.number("gemm_gflops"),
                          f.number("memory_bw_gbs"),
                          f.optionalNumber("dispatch_us"),
                          f.flag("reference"),
                          std::nullopt};
        if (const std::optional<Fields> link = f.optionalObject("host_link")) {
            b.hostLink = HostLinkFigures{link->number("h2d_gbs"), link->number("d2h_gbs"),
                                         link->number("latency_us"),
                                         link->numberIfPresent("h2d_pageable_gbs").value_or(0.0),
                                         link->numberIfPresent("d2h_pageable_gbs").value_or(0.0)};
        }
        r.benchmarks.push_back(std::move(b));
    } else if (kind == "contention") {
        r.contention.push_back({0, f.text("device_fingerprint"), f.text("beside_fingerprint"),
                                f.text("measured_at"), f.number("factor"),
                                f.number("gemm_beside_gemm"), f.number("gemm_beside_triad"),
                                f.number("triad_beside_gemm"), f.number("triad_beside_triad")});
    } else if (kind == "model_run") {
        r.modelRuns.push_back(
            {0, f.text("model_fingerprint"), f.text("device_fingerprint"), f.text("measured_at"),
             f.number("median_us"), f.number("p10_us"), f.number("p90_us"),
             static_cast<int>(f.integer("runs", 1, std::numeric_limits<std::int32_t>::max())),
             f.number("sum_of_ops_us")});
    } else if (kind == "sample") {
        Sample s;
        s.modelFingerprint = f.text("model_fingerprint");
        s.deviceFingerprint = f.text("device_fingerprint");
        s.opSignature = f.text("op_signature");
        s.opMeta = f.text("op_meta");
        s.shapeTuple = f.text("shape_tuple");
        s.configJson = f.text("config_json");
        s.latencyUs = f.number("latency_us");
        s.latencyP10Us = f.optionalNumber("latency_p10_us");
        s.latencyP90Us = f.optionalNumber("latency_p90_us");
        s.peakMemoryMb = f.optionalNumber("peak_memory_mb");
        s.energyUj = f.optionalNumber("energy_uj");
        s.energySource = f.text("energy_source");
        s.repeats = static_cast<std::int32_t>(
            f.integer("repeats", 0, std::numeric_limits<std::int32_t>::max()));
        s.sampleTime = f.text("sample_time");
        s.toolVersion = f.text("tool_version");
        s.stale = f.flag("stale");
        r.samples.push_back(std::move(s));
    } else {
        throw InputError("unknown record \"" + kind + "\"");
    }
}

} // namespace

void writeLibraryFile(const std::filesystem::path& path, const LibraryRecords& r,
                      const std::string& source) {
    std::string out;
    const auto line = [&out](const char* kind, json fields) {
        out += json{{kind, std::move(fields)}}.dump(-1, ' ', false, json::error_handler_t::replace);
        out += '\n';
    };
    out += json{{"format", kFormat},
                {"version", kVersion},
                {"schema_version", SampleLibrary::kSchemaVersion},
                {"tool_version", PARETUNE_VERSION},
                {"exported_at", currentTimestamp()},
                {"source", source},
                {"counts",
                 {{"devices", r.devices.size()},
                  {"models", r.models.size()},
                  {"signatures", r.signatures.size()},
                  {"benchmarks", r.benchmarks.size()},
                  {"contention", r.contention.size()},
                  {"model_runs", r.modelRuns.size()},
                  {"samples", r.samples.size()}}}}
               .dump(-1, ' ', false, json::error_handler_t::replace);
    out += '\n';
    for (const DeviceRecord& d : r.devices) {
        line("device", {{"fingerprint", d.fingerprint},
                        {"kind", d.kind},
                        {"name", d.name},
                        {"spec_json", d.specJson},
                        {"software_json", d.softwareJson},
                        {"created_at", d.createdAt}});
    }
    for (const ModelRecord& m : r.models) {
        line("model", {{"fingerprint", m.fingerprint},
                       {"name", m.name},
                       {"source_path", m.sourcePath},
                       {"node_count", m.nodeCount},
                       {"imported_at", m.importedAt}});
    }
    for (const SignatureRecord& s : r.signatures) {
        line("signature", {{"signature", s.signature},
                           {"op_type", s.opType},
                           {"attrs_json", s.attrsJson},
                           {"shapes_json", s.shapesJson},
                           {"flops", s.flops},
                           {"bytes", s.bytes}});
    }
    for (const BenchmarkRecord& b : r.benchmarks) {
        line("benchmark",
             {{"device_fingerprint", b.deviceFingerprint},
              {"measured_at", b.measuredAt},
              {"gemm_gflops", b.gemmGflops},
              {"memory_bw_gbs", b.memoryBwGbs},
              {"dispatch_us", optional(b.dispatchUs)},
              {"reference", b.reference},
              {"host_link",
               b.hostLink ? json{{"h2d_gbs", b.hostLink->h2dGbs},
                                 {"d2h_gbs", b.hostLink->d2hGbs},
                                 {"latency_us", b.hostLink->latencyUs},
                                 {"h2d_pageable_gbs",
                                  optional(store::linkFigure(b, &HostLinkFigures::h2dPageableGbs))},
                                 {"d2h_pageable_gbs",
                                  optional(store::linkFigure(b, &HostLinkFigures::d2hPageableGbs))}}
                          : json(nullptr)}});
    }
    for (const ContentionRecord& c : r.contention) {
        line("contention", {{"device_fingerprint", c.deviceFingerprint},
                            {"beside_fingerprint", c.besideFingerprint},
                            {"measured_at", c.measuredAt},
                            {"factor", c.factor},
                            {"gemm_beside_gemm", c.gemmBesideGemm},
                            {"gemm_beside_triad", c.gemmBesideTriad},
                            {"triad_beside_gemm", c.triadBesideGemm},
                            {"triad_beside_triad", c.triadBesideTriad}});
    }
    for (const ModelRunRecord& m : r.modelRuns) {
        line("model_run", {{"model_fingerprint", m.modelFingerprint},
                           {"device_fingerprint", m.deviceFingerprint},
                           {"measured_at", m.measuredAt},
                           {"median_us", m.medianUs},
                           {"p10_us", m.p10Us},
                           {"p90_us", m.p90Us},
                           {"runs", m.runs},
                           {"sum_of_ops_us", m.sumOfOpsUs}});
    }
    for (const Sample& s : r.samples) {
        line("sample", {{"model_fingerprint", s.modelFingerprint},
                        {"device_fingerprint", s.deviceFingerprint},
                        {"op_signature", s.opSignature},
                        {"op_meta", s.opMeta},
                        {"shape_tuple", s.shapeTuple},
                        {"config_json", s.configJson},
                        {"latency_us", s.latencyUs},
                        {"latency_p10_us", optional(s.latencyP10Us)},
                        {"latency_p90_us", optional(s.latencyP90Us)},
                        {"peak_memory_mb", optional(s.peakMemoryMb)},
                        {"energy_uj", optional(s.energyUj)},
                        {"energy_source", s.energySource},
                        {"repeats", s.repeats},
                        {"sample_time", s.sampleTime},
                        {"tool_version", s.toolVersion},
                        {"stale", s.stale}});
    }
    writeOutputFile(path.string(), out);
}

LibraryRecords readLibraryFile(const std::filesystem::path& path) {
    const std::string label = path.string();
    const std::string text = readInputFile(label, "library file", kMaxLibraryFileBytes);
    LibraryRecords r;
    json counts;
    std::size_t lineNumber = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string_view lineText(text.data() + start, end - start);
        start = end + 1;
        ++lineNumber;
        const std::string where = label + ": line " + std::to_string(lineNumber);
        if (lineText.empty() && lineNumber > 1) {
            continue;
        }
        json record;
        try {
            record = json::parse(lineText);
        } catch (const json::exception& e) {
            throw InputError(
                where + ": not JSON (" + e.what() + ")" +
                (lineNumber == 1 ? "; not a file of paretune library export" : std::string()));
        }
        if (lineNumber == 1) {
            if (!record.is_object() || record.value("format", json()) != kFormat) {
                throw InputError(where + ": not a file of paretune library export (no \"format\": "
                                         "\"paretune-library\" header)");
            }
            const json version = record.value("version", json());
            if (!version.is_number_integer() || version.get<std::int64_t>() < 1) {
                throw InputError(where + ": the header has no valid \"version\"");
            }
            if (version.get<std::int64_t>() > kVersion) {
                throw InputError(where + ": format version " + version.dump() +
                                 ", newer than this paretune reads (" + std::to_string(kVersion) +
                                 "); import it with a newer paretune");
            }
            counts = record.value("counts", json());
            if (!counts.is_object()) {
                throw InputError(where + ": the header has no \"counts\"");
            }
            continue;
        }
        if (!record.is_object() || record.size() != 1 || !record.begin().value().is_object()) {
            throw InputError(where + ": expected an object with one record, such as "
                                     "{\"sample\": {…}}");
        }
        try {
            readRecord(record.begin().key(), Fields(record.begin().value(), where), r);
        } catch (const InputError& e) {
            const std::string message = e.what();
            throw InputError(message.rfind(label, 0) == 0 ? message : where + ": " + message);
        }
    }
    if (lineNumber == 0) {
        throw InputError(label + ": empty, not a file of paretune library export");
    }
    const std::pair<const char*, std::size_t> kinds[] = {
        {"devices", r.devices.size()},       {"models", r.models.size()},
        {"signatures", r.signatures.size()}, {"benchmarks", r.benchmarks.size()},
        {"contention", r.contention.size()}, {"model_runs", r.modelRuns.size()},
        {"samples", r.samples.size()}};
    for (const auto& [kind, count] : kinds) {
        // Files written before model runs moved have none and do not count them.
        const json expected = std::string_view(kind) == "model_runs" && !counts.contains(kind)
                                  ? json(0U)
                                  : counts.value(kind, json());
        if (!expected.is_number_unsigned() || expected.get<std::uint64_t>() != count) {
            throw InputError(label + ": holds " + std::to_string(count) + " " + kind +
                             ", its header says " + expected.dump() +
                             ": the file is incomplete or was edited; nothing was imported");
        }
    }
    return r;
}

} // namespace paretune
