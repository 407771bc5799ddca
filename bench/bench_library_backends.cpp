// SPDX-License-Identifier: GPL-3.0-or-later
// The sample library on SQLite and on PostgreSQL side by side.
// Usage: bench_library_backends CONNINFO [MODEL]
//   CONNINFO: an empty PostgreSQL database the benchmark may fill (its tables are dropped
//   first if it is a Paretune library); MODEL: the graph whose cost table is loaded (default
//   $PARETUNE_TEST_MODELS/bert_base.onnx). Prints one JSON object:
//   - samples committed per second at batch sizes 1, 100 and 1000 on each backend;
//   - the time `search --db` spends loading the model's measured cost table for cpu:0
//     (costsFromLibrary over one stored sample per compute node), on each backend.
#include "bench_cli.h"
#include "common/sha256.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "predict/library_costs.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <libpq-fe.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace paretune;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/// Drops the library's tables from the database, so that each run starts from an empty one.
void emptyDatabase(const std::string& conninfo) {
    std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(conninfo.c_str()), &PQfinish);
    PQsetNoticeProcessor(
        c.get(), [](void*, const char*) {}, nullptr);
    PQclear(PQexec(c.get(), "DROP TABLE IF EXISTS paretune_library, perf_samples, stale_marks, "
                            "device_benchmarks, device_contention, tune_rounds, plans, "
                            "predictors, profile_jobs, op_signatures, models, devices CASCADE"));
}

struct Keys {
    std::string device;
    std::string model;
    std::vector<std::string> signatures;
};

Keys storeKeys(SampleLibrary& library) {
    Keys k{Sha256::hex("bench device"), Sha256::hex("bench model"), {}};
    library.upsertDevice({k.device, "cpu", "bench CPU", "{}", "{}", ""});
    library.upsertModel({k.model, "bench", "/bench.onnx", 100, ""});
    std::vector<SignatureRecord> signatures;
    for (int s = 0; s < 200; ++s) {
        k.signatures.push_back(Sha256::hex("signature " + std::to_string(s)).substr(0, 32));
        signatures.push_back({k.signatures.back(), "Conv", "{}", "{}", 1e8, 1 << 20});
    }
    library.upsertSignatures(signatures);
    return k;
}

nlohmann::json insertRates(const std::string& location) {
    nlohmann::json rates = nlohmann::json::array();
    SampleLibrary library = SampleLibrary::open(location);
    const Keys keys = storeKeys(library);
    std::int64_t serial = 0;
    for (const auto& [batchSize, batches] : {std::pair{1, 200}, {100, 30}, {1000, 10}}) {
        const auto start = Clock::now();
        for (int b = 0; b < batches; ++b) {
            std::vector<Sample> batch;
            for (int i = 0; i < batchSize; ++i, ++serial) {
                Sample s;
                s.modelFingerprint = keys.model;
                s.deviceFingerprint = keys.device;
                s.opSignature = keys.signatures[static_cast<std::size_t>(serial % 200)];
                s.opMeta = R"({"node":")" + std::to_string(serial) + R"("})";
                s.configJson = R"({"threads":4})";
                s.latencyUs = 100.0 + static_cast<double>(serial % 997);
                s.latencyP10Us = s.latencyUs * 0.95;
                s.latencyP90Us = s.latencyUs * 1.1;
                s.repeats = 50;
                batch.push_back(std::move(s));
            }
            library.addSamples(batch);
        }
        const double elapsed = seconds(start);
        rates.push_back({{"batch_size", batchSize},
                         {"batches", batches},
                         {"samples_per_s", batchSize * batches / elapsed},
                         {"ms_per_batch", elapsed * 1e3 / batches}});
    }
    return rates;
}

/// One measured sample for each compute node of the graph on cpu:0, then the cost table load.
nlohmann::json costTableLoad(const std::string& location, const Graph& graph,
                             const DeviceCatalog& catalog, const std::string& cpu0) {
    {
        SampleLibrary library = SampleLibrary::open(location);
        library.upsertDevice({cpu0, "cpu", "cpu:0", "{}", "{}", ""});
        library.upsertGraph(graph);
        std::vector<Sample> samples;
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            if (graph.nodes[i].kind != NodeKind::Compute) {
                continue;
            }
            Sample s;
            s.modelFingerprint = graph.fingerprint;
            s.deviceFingerprint = cpu0;
            s.opSignature = graph.signatures[i];
            s.opMeta = R"({"node":")" + graph.nodes[i].name + R"("})";
            s.latencyUs = 10.0 + static_cast<double>(i);
            s.peakMemoryMb = 1.0;
            s.repeats = 5;
            samples.push_back(std::move(s));
        }
        library.addSamples(samples);
    }
    const auto start = Clock::now();
    SampleLibrary library = SampleLibrary::open(location, SampleLibrary::OpenMode::ExistingOnly);
    CostTable table = buildCostTable(graph, catalog, {"cpu:0"});
    const LibraryCosts costs = costsFromLibrary(table, graph, catalog, library);
    return {{"load_ms", seconds(start) * 1e3}, {"measured_cells", costs.measuredCells}};
}

} // namespace

int benchMain(int argc, char** argv) {
    const std::string conninfo = argv[1];
    std::string model;
    if (argc > 2) {
        model = argv[2];
    } else if (const char* dir = std::getenv("PARETUNE_TEST_MODELS")) {
        model = std::string(dir) + "/bert_base.onnx";
    }
    std::string pattern =
        (std::filesystem::temp_directory_path() / "bench_backends-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        std::cerr << "bench_library_backends: cannot create a temporary folder\n";
        return 1;
    }
    const std::filesystem::path folder = pattern;
    nlohmann::json doc = {{"bench", "library_backends"}, {"postgres", libraryLabel(conninfo)}};
    emptyDatabase(conninfo);
    doc["insert"] = {{"sqlite", insertRates((folder / "insert.db").string())},
                     {"postgres", insertRates(conninfo)}};
    if (!model.empty() && std::filesystem::exists(model)) {
        const ImportResult imported = importOnnxFile(model);
        const DeviceCatalog catalog = loadDeviceCatalog("cpu_cores");
        const DeviceInventory inventory = discoverDevices(&catalog);
        const Device* cpu0 = inventory.find("cpu:0");
        if (cpu0 != nullptr) {
            emptyDatabase(conninfo);
            const std::string fingerprint = deviceFingerprint(*cpu0);
            doc["cost_table"] = {
                {"model", model},
                {"nodes", imported.graph.nodes.size()},
                {"sqlite", costTableLoad((folder / "costs.db").string(), imported.graph, catalog,
                                         fingerprint)},
                {"postgres", costTableLoad(conninfo, imported.graph, catalog, fingerprint)}};
        }
    }
    emptyDatabase(conninfo);
    std::error_code error;
    std::filesystem::remove_all(folder, error);
    std::cout << doc.dump(2) << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_library_backends",
         "CONNINFO [MODEL]",
         "  Samples committed per second into SQLite and into the PostgreSQL database CONNINFO\n"
         "  (emptied first), and the cost-table load time of MODEL (default BERT-like from\n"
         "  $PARETUNE_TEST_MODELS) from each. Prints JSON.\n",
         1,
         2,
         {}},
        benchMain);
}
