// SPDX-License-Identifier: GPL-3.0-or-later
// Sample library speed: inserting batches, the reuse lookup, listing, file size.
// Usage: bench_store [FOLDER]   (default: a new folder under $TMPDIR; prints one JSON object)
// Figures: creating a library (schema migration), addSamples at batch sizes 1, 100 and 1000
// (samples/s and ms per committed batch, synchronous=FULL: one fsync per batch), findSample on
// a library of 100,000 samples over 2,000 signatures and 4 devices (µs per lookup), listing
// every sample (ms), listing one model's (ms), and the file's bytes per sample.
#include "bench_cli.h"
#include "common/sha256.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace paretune;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

constexpr int kDevices = 4;
constexpr int kModels = 20;
constexpr int kSignatures = 2000;

std::string fingerprint(const std::string& text) {
    return Sha256::hex(text);
}
std::string signature(int i) {
    return Sha256::hex("signature " + std::to_string(i)).substr(0, 32);
}

void storeKeys(SampleLibrary& library) {
    for (int d = 0; d < kDevices; ++d) {
        library.upsertDevice({fingerprint("device " + std::to_string(d)), "cpu",
                              "CPU " + std::to_string(d), R"({"cores":8})", "{}", ""});
    }
    for (int m = 0; m < kModels; ++m) {
        library.upsertModel(
            {fingerprint("model " + std::to_string(m)), "model", "/m.onnx", 100, ""});
    }
    std::vector<SignatureRecord> signatures;
    for (int s = 0; s < kSignatures; ++s) {
        signatures.push_back({signature(s), "Conv", R"({"kernel_shape":"[3,3]"})",
                              R"({"inputs":[],"outputs":[]})", 1e8, 1 << 20});
    }
    library.upsertSignatures(signatures);
}

Sample sampleNumber(std::int64_t i) {
    Sample s;
    s.modelFingerprint = fingerprint("model " + std::to_string(i % kModels));
    s.deviceFingerprint = fingerprint("device " + std::to_string(i % kDevices));
    s.opSignature = signature(static_cast<int>((i * 7) % kSignatures));
    // Every sample distinct: the library stores a sample identical to a stored one once.
    s.opMeta = R"({"node":"conv)" + std::to_string(i) + R"(","op_type":"Conv"})";
    s.shapeTuple = "float32[1,64,56,56],float32[64,64,3,3]->float32[1,64,56,56]";
    s.configJson = R"({"threads":4,"warmup":5})";
    s.latencyUs = 100.0 + static_cast<double>(i % 1000);
    s.latencyP10Us = s.latencyUs * 0.95;
    s.latencyP90Us = s.latencyUs * 1.1;
    s.peakMemoryMb = 12.5;
    s.energyUj = 340.0;
    s.energySource = "rapl";
    s.repeats = 50;
    return s;
}

nlohmann::json insertRate(const std::filesystem::path& path, int batchSize, int batches) {
    SampleLibrary library = SampleLibrary::open(path);
    storeKeys(library);
    std::vector<std::vector<Sample>> batchList(static_cast<std::size_t>(batches));
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < batchSize; ++i) {
            batchList[static_cast<std::size_t>(b)].push_back(
                sampleNumber(static_cast<std::int64_t>(b) * batchSize + i));
        }
    }
    const auto start = Clock::now();
    for (const std::vector<Sample>& batch : batchList) {
        library.addSamples(batch);
    }
    const double elapsed = seconds(start);
    return {{"batch_size", batchSize},
            {"batches", batches},
            {"samples_per_s", batchSize * batches / elapsed},
            {"ms_per_batch", elapsed * 1e3 / batches}};
}

} // namespace

int benchMain(int argc, char** argv) {
    std::filesystem::path folder;
    if (argc > 1) {
        folder = argv[1];
    } else {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "bench_store-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) {
            std::cerr << "bench_store: cannot create a temporary folder\n";
            return 1;
        }
        folder = pattern;
    }
    std::filesystem::create_directories(folder);

    auto start = Clock::now();
    { SampleLibrary::open(folder / "create.db"); }
    const double createMs = seconds(start) * 1e3;

    nlohmann::json inserts = nlohmann::json::array();
    inserts.push_back(insertRate(folder / "insert1.db", 1, 200));
    inserts.push_back(insertRate(folder / "insert100.db", 100, 50));
    inserts.push_back(insertRate(folder / "insert1000.db", 1000, 20));

    const std::filesystem::path big = folder / "big.db";
    constexpr std::int64_t kSamples = 100000;
    {
        SampleLibrary library = SampleLibrary::open(big);
        storeKeys(library);
        std::vector<Sample> batch;
        for (std::int64_t i = 0; i < kSamples; ++i) {
            batch.push_back(sampleNumber(i));
            if (batch.size() == 5000) {
                library.addSamples(batch);
                batch.clear();
            }
        }
    }
    SampleLibrary library = SampleLibrary::open(big);
    constexpr int kLookups = 20000;
    int found = 0;
    std::vector<std::pair<std::string, std::string>> keys; // (signature, device) of stored samples
    for (int i = 0; i < kLookups; ++i) {
        const Sample s = sampleNumber((static_cast<std::int64_t>(i) * 7919) % kSamples);
        keys.emplace_back(s.opSignature, s.deviceFingerprint);
    }
    start = Clock::now();
    for (const auto& [sig, device] : keys) {
        found += library.findSample(sig, device) ? 1 : 0;
    }
    const double lookupUs = seconds(start) * 1e6 / kLookups;

    start = Clock::now();
    const std::size_t listed = library.samples().size();
    const double listAllMs = seconds(start) * 1e3;
    SampleFilter oneModel;
    oneModel.modelPrefix = fingerprint("model 3").substr(0, 8);
    start = Clock::now();
    const std::size_t listedModel = library.samples(oneModel).size();
    const double listModelMs = seconds(start) * 1e3;
    std::error_code error;
    const auto bytes = std::filesystem::file_size(big, error);

    const nlohmann::json doc = {
        {"bench", "store"},
        {"folder", folder.string()},
        {"create_ms", createMs},
        {"insert", inserts},
        {"library_samples", kSamples},
        {"lookup_us", lookupUs},
        {"lookups_found", found},
        {"lookups", kLookups},
        {"list_all_ms", listAllMs},
        {"list_all_rows", listed},
        {"list_one_model_ms", listModelMs},
        {"list_one_model_rows", listedModel},
        {"bytes_per_sample", error ? 0.0 : static_cast<double>(bytes) / kSamples}};
    std::cout << doc.dump(2) << "\n";
    if (argc <= 1) {
        std::filesystem::remove_all(folder, error);
    }
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_store",
         "[FOLDER]",
         "  Sample library speed: batch inserts, reuse lookups, listing, bytes per sample, in "
         "FOLDER\n  (default a new temporary folder, removed afterwards). Prints JSON.\n",
         0,
         1,
         {}},
        benchMain);
}
