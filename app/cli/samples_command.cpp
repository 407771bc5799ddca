// SPDX-License-Identifier: GPL-3.0-or-later
#include "samples_command.h"

#include "common/json_reader.h"
#include "common/json_values.h"

#include "paretune/config.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace paretune::cli {

namespace {

/// Shortest text that reads back as the same double.
std::string number(double value) {
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return std::string(text, result.ptr);
}

std::string optionalNumber(const std::optional<double>& value) {
    return value ? number(*value) : std::string();
}

/// RFC 4180: quote a field holding a comma, a quote or a line break; double inner quotes.
std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (const char c : text) {
        quoted += c;
        if (c == '"') {
            quoted += '"';
        }
    }
    return quoted + '"';
}

nlohmann::json parsedOrText(const std::string& text) {
    nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
    return value.is_discarded() ? nlohmann::json(text) : value;
}

std::string filterText(const SamplesArguments& args) {
    std::string text;
    if (!args.model.empty()) {
        text += " --model " + args.model;
    }
    if (!args.device.empty()) {
        text += " --device " + args.device;
    }
    return text;
}

void printCsv(const std::vector<Sample>& samples) {
    std::cout << "id,model_fingerprint,device_fingerprint,op_signature,op_type,shape_tuple,"
                 "latency_us,latency_p10_us,latency_p90_us,peak_memory_mb,energy_uj,"
                 "energy_source,repeats,sample_time,tool_version,stale,op_meta,config_json\n";
    for (const Sample& s : samples) {
        std::cout << s.id << ',' << s.modelFingerprint << ',' << s.deviceFingerprint << ','
                  << s.opSignature << ',' << csvField(s.opType) << ',' << csvField(s.shapeTuple)
                  << ',' << number(s.latencyUs) << ',' << optionalNumber(s.latencyP10Us) << ','
                  << optionalNumber(s.latencyP90Us) << ',' << optionalNumber(s.peakMemoryMb) << ','
                  << optionalNumber(s.energyUj) << ',' << csvField(s.energySource) << ','
                  << s.repeats << ',' << s.sampleTime << ',' << csvField(s.toolVersion) << ','
                  << (s.stale ? 1 : 0) << ',' << csvField(s.opMeta) << ',' << csvField(s.configJson)
                  << '\n';
    }
}

void printJson(const std::string& db, int schemaVersion, const std::vector<Sample>& samples) {
    nlohmann::json list = nlohmann::json::array();
    for (const Sample& s : samples) {
        list.push_back({{"id", s.id},
                        {"model_fingerprint", s.modelFingerprint},
                        {"device_fingerprint", s.deviceFingerprint},
                        {"op_signature", s.opSignature},
                        {"op_type", s.opType},
                        {"op_meta", parsedOrText(s.opMeta)},
                        {"shape_tuple", s.shapeTuple},
                        {"config", parsedOrText(s.configJson)},
                        {"source", "measured"},
                        {"latency_us", s.latencyUs},
                        {"latency_p10_us", optionalJson(s.latencyP10Us)},
                        {"latency_p90_us", optionalJson(s.latencyP90Us)},
                        {"peak_memory_mb", optionalJson(s.peakMemoryMb)},
                        {"energy_uj", optionalJson(s.energyUj)},
                        {"energy_source", s.energySource},
                        {"repeats", s.repeats},
                        {"sample_time", s.sampleTime},
                        {"tool_version", s.toolVersion},
                        {"stale", s.stale}});
    }
    const nlohmann::json doc = {{"tool", "paretune"},
                                {"tool_version", PARETUNE_VERSION},
                                {"db", db},
                                {"schema_version", schemaVersion},
                                {"samples", list}};
    std::cout << dumpJson(doc, 2) << "\n";
}

void printTable(const std::string& db, const std::vector<Sample>& samples) {
    std::size_t stale = 0;
    for (const Sample& s : samples) {
        stale += s.stale ? 1 : 0;
    }
    std::printf("Sample library  %s\n", db.c_str());
    std::printf("Samples         %zu%s\n", samples.size(),
                stale > 0
                    ? (" (" + std::to_string(stale) + " stale: the device drifted since)").c_str()
                    : "");
    std::printf("Latency, memory and energy are measured (energy: source per row)\n\n");
    std::printf("%6s  %-12s  %-12s  %-18s %-12s  %12s  %21s  %9s  %-18s %7s  %-24s %s\n", "ID",
                "Model", "Device", "Op type", "Signature", "Latency us", "p10-p90 us", "Mem MiB",
                "Energy uJ", "Repeats", "Measured at", "Stale");
    for (const Sample& s : samples) {
        char spread[48] = "-";
        if (s.latencyP10Us && s.latencyP90Us) {
            std::snprintf(spread, sizeof spread, "%.2f-%.2f", *s.latencyP10Us, *s.latencyP90Us);
        }
        char memory[32] = "-";
        if (s.peakMemoryMb) {
            std::snprintf(memory, sizeof memory, "%.2f", *s.peakMemoryMb);
        }
        char energy[64] = "-";
        if (s.energyUj) {
            std::snprintf(energy, sizeof energy, "%.1f (%s)", *s.energyUj,
                          s.energySource.empty() ? "?" : s.energySource.c_str());
        }
        std::printf("%6lld  %-12.12s  %-12.12s  %-18.18s %-12.12s  %12.2f  %21s  %9s  %-18s %7d  "
                    "%-24s%s\n",
                    static_cast<long long>(s.id), s.modelFingerprint.c_str(),
                    s.deviceFingerprint.c_str(), s.opType.c_str(), s.opSignature.c_str(),
                    s.latencyUs, spread, memory, energy, s.repeats, s.sampleTime.c_str(),
                    s.stale ? " stale" : "");
    }
}

} // namespace

void runSamples(const SamplesArguments& args) {
    const std::filesystem::path path =
        args.db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(args.db);
    SampleFilter filter;
    filter.modelPrefix = args.model;
    filter.devicePrefix = args.device;

    std::error_code error;
    const bool exists = isServerLibrary(path.native()) || std::filesystem::exists(path, error);
    std::vector<Sample> samples;
    int schemaVersion = SampleLibrary::kSchemaVersion;
    if (exists) {
        const SampleLibrary library =
            SampleLibrary::open(path, SampleLibrary::OpenMode::ExistingOnly);
        schemaVersion = library.schemaVersion();
        samples = library.samples(filter);
    } else {
        // Listing creates nothing; still reject a malformed filter the way a real library would.
        filter.normalized();
    }

    if (args.json) {
        printJson(path.string(), schemaVersion, samples);
    } else if (args.csv) {
        printCsv(samples);
    }
    if (samples.empty()) {
        const std::string line =
            exists ? "no samples" +
                         (filterText(args).empty() ? std::string() : " match" + filterText(args)) +
                         " in " + path.string()
                   : "no samples: there is no sample library at " + path.string() + " yet";
        (args.json || args.csv ? std::cerr : std::cout) << line << "\n";
        return;
    }
    if (!args.json && !args.csv) {
        printTable(path.string(), samples);
    }
}

void addSamplesCommand(CLI::App& app) {
    auto args = std::make_shared<SamplesArguments>();
    CLI::App* cmd = app.add_subcommand("samples", "List the measurements in the sample library");
    cmd->add_option("--db", args->db,
                    "Sample library (default $XDG_DATA_HOME/paretune/samples.db, else "
                    "~/.local/share/paretune/samples.db)");
    cmd->add_option("--model", args->model,
                    "Only samples of models whose fingerprint starts with this (hex)");
    cmd->add_option("--device", args->device,
                    "Only samples of devices whose fingerprint starts with this (hex)");
    CLI::Option* csv = cmd->add_flag("--csv", args->csv, "CSV with a header row on stdout");
    CLI::Option* json = cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
    csv->excludes(json);
    cmd->callback([args] { runSamples(*args); });
}

} // namespace paretune::cli
