// SPDX-License-Identifier: GPL-3.0-or-later
#include "devices_command.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "cost/device_catalog.h"
#include "device/corun_benchmark.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "device/micro_benchmark.h"
#include "device/nvml_energy.h"
#include "paretune/config.h"
#include "runtime/torch_runtime.h"
#include "store/benchmark_drift.h"
#include "store/graph_records.h"
#include "store/sample_library.h"
#if PARETUNE_WITH_TORCH
#include "profile/dispatch_overhead.h"
#endif

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

namespace paretune::cli {

namespace {

constexpr std::size_t kShortFingerprint = 12;

std::string bytesText(std::int64_t bytes) {
    char text[32];
    if (bytes >= 1024LL * 1024 * 1024) {
        std::snprintf(text, sizeof(text), "%.0f GiB", static_cast<double>(bytes) / (1 << 30));
    } else if (bytes >= 1024 * 1024) {
        std::snprintf(text, sizeof(text), "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
    } else {
        std::snprintf(text, sizeof(text), "%.0f KiB", static_cast<double>(bytes) / 1024);
    }
    return text;
}

/// "0-3,8" style list of CPU ids.
std::string cpuListText(const std::vector<std::int32_t>& cpus) {
    std::string text;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i) {
            text += "-" + std::to_string(cpus[j]);
        }
        i = j + 1;
    }
    return text;
}

std::vector<std::string> simdFlags(const Device& d) {
    std::vector<std::string> flags;
    if (d.avx2) {
        flags.emplace_back("avx2");
    }
    if (d.fma3) {
        flags.emplace_back("fma");
    }
    if (d.avx512f) {
        flags.emplace_back("avx512f");
    }
    return flags;
}

std::string figuresText(const Device& d) {
    char text[256];
    if (d.tag == DeviceTag::Modelled) {
        std::snprintf(text, sizeof(text), "peak %g GFLOP/s, %g GB/s, %s", d.peakGflops, d.memBwGbs,
                      bytesText(d.memoryBytes).c_str());
        return text;
    }
    if (d.kind == "cpu") {
        std::string flags;
        for (const std::string& f : simdFlags(d)) {
            flags += " " + f;
        }
        std::snprintf(text, sizeof(text), "%d core%s [cpus %s], L1d %s, L2 %s, L3 %s,%s", d.cores,
                      d.cores == 1 ? "" : "s", cpuListText(d.cpus).c_str(),
                      bytesText(d.l1dBytes).c_str(), bytesText(d.l2Bytes).c_str(),
                      bytesText(d.l3Bytes).c_str(), flags.c_str());
        return text;
    }
    std::snprintf(text, sizeof(text), "%d SMs, %s, cc %d.%d", d.cores,
                  bytesText(d.memoryBytes).c_str(), d.computeMajor, d.computeMinor);
    return text;
}

struct Row {
    const Device* device;
    std::string fingerprint;
    std::optional<MicroBenchmark> bench;
    const char* benchSource = nullptr;    ///< "measured" / "modelled"
    std::optional<DriftOutcome> drift;    ///< measured vectors compared with the library's
    std::optional<GpuMicroBenchmark> gpu; ///< a CUDA device's full figures, links included
};

/// "first benchmark (reference)", "within 15% of the reference", "drifted: … 3 samples stale".
std::string driftText(const DriftOutcome& drift) {
    if (drift.firstBenchmark) {
        return "first benchmark: stored as the reference";
    }
    if (!drift.drifted) {
        char text[64];
        std::snprintf(text, sizeof(text), "within %.0f%% of the reference", drift.threshold * 100);
        return text;
    }
    return drift.why + "; " + std::to_string(drift.samplesMarkedStale) +
           " samples marked stale, new reference";
}

/// One ordered pair of real CPU devices that can run at the same time, and the contention the
/// library stores for it (none: not measured yet).
struct ContentionRow {
    const Device* device;
    const Device* beside;
    std::optional<ContentionRecord> stored;
};

std::vector<ContentionRow> contentionRows(const std::vector<Device>& devices,
                                          const SampleLibrary* library,
                                          const SoftwareStack& software) {
    std::vector<ContentionRow> rows;
    for (const Device& d : devices) {
        for (const Device* other : coRunPartners(d, devices)) {
            ContentionRow row{&d, other, std::nullopt};
            if (library != nullptr) {
                row.stored = library->contention(deviceFingerprint(d, software),
                                                 deviceFingerprint(*other, software));
            }
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

nlohmann::json contentionJson(const std::vector<ContentionRow>& rows) {
    nlohmann::json list = nlohmann::json::array();
    for (const ContentionRow& row : rows) {
        nlohmann::json entry = {{"device", row.device->id}, {"beside", row.beside->id}};
        if (row.stored) {
            const ContentionRecord& c = *row.stored;
            entry["factor"] = c.factor;
            entry["source"] = "measured";
            entry["measured_at"] = c.measuredAt;
            entry["slowdowns"] = {{"gemm_beside_gemm", c.gemmBesideGemm},
                                  {"gemm_beside_triad", c.gemmBesideTriad},
                                  {"triad_beside_gemm", c.triadBesideGemm},
                                  {"triad_beside_triad", c.triadBesideTriad}};
        } else {
            entry["factor"] = nullptr;
            entry["source"] = nullptr;
        }
        list.push_back(std::move(entry));
    }
    return list;
}

} // namespace

void runDevices(const DevicesArguments& args) {
    std::optional<DeviceCatalog> catalog;
    if (!args.catalog.empty()) {
        catalog = loadDeviceCatalog(args.catalog); // throws InputError naming the file
    }
    const DeviceInventory inventory = discoverDevices(catalog ? &*catalog : nullptr);
    const SoftwareStack& software = softwareStack();

    if (args.bench && !(args.driftPercent > 0 && args.driftPercent <= 1000)) {
        throw InputError("--drift-threshold must be a percentage in (0, 1000], got " +
                         std::to_string(args.driftPercent));
    }
    std::vector<std::string> notes;
    for (const Diagnostic& d : inventory.diagnostics) {
        notes.push_back(d.message);
    }
    std::optional<SampleLibrary> library;
    const std::filesystem::path libraryPath =
        args.db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(args.db);
    if (!args.bench) {
        // Only read, for the contention it stores: a library named by --db must be there; the
        // default one only when it exists.
        std::error_code error;
        if (!args.db.empty() || std::filesystem::is_regular_file(libraryPath, error)) {
            library = SampleLibrary::open(libraryPath, SampleLibrary::OpenMode::ExistingOnly);
        }
    }
    if (args.bench) {
        library = SampleLibrary::open(libraryPath);
        // Other work on the machine reads as a slower device, i.e. as drift: say so.
        double load = 0.0;
        if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
            if (std::fscanf(f, "%lf", &load) != 1) {
                load = 0.0;
            }
            std::fclose(f);
        }
        const unsigned cpus = std::max(1U, std::thread::hardware_concurrency());
        if (load > 0.5 * cpus) {
            char text[200];
            std::snprintf(text, sizeof(text),
                          "load average %.1f on %u CPUs: other work is running, benchmark figures "
                          "may read low and show as drift",
                          load, cpus);
            notes.emplace_back(text);
        }
    }
    std::vector<Row> rows;
    for (const Device& d : inventory.devices) {
        Row row{&d,          deviceFingerprint(d, software), std::nullopt, nullptr, std::nullopt,
                std::nullopt};
        if (args.bench && d.isCpu()) {
            if (!args.json) {
                std::fprintf(stderr, "benchmarking %s …\n", d.id.c_str());
            }
            try {
                row.bench = runMicroBenchmark(d, MicroBenchmarkOptions{true});
#if PARETUNE_WITH_TORCH
                row.bench->dispatchUs = measureDispatchOverheadUs(d.cpus);
#endif
                row.benchSource = "measured";
            } catch (const std::runtime_error& e) {
                // Pinning refused (a sandbox without CPU affinity): list the device, say why.
                row.bench.reset();
                notes.push_back(d.id + ": micro-benchmark not run: " + e.what());
            }
            if (row.bench) {
                library->upsertDevice(deviceRecordOf(d));
                row.drift = recordBenchmark(*library, row.fingerprint, *row.bench,
                                            args.driftPercent / 100.0);
            }
        } else if (args.bench && d.tag == DeviceTag::Real && d.cudaIndex >= 0) {
            // The CUDA flavour's module measures the GPU; the CPU flavour says how to get it.
            if (!args.json) {
                std::fprintf(stderr, "benchmarking %s …\n", d.id.c_str());
            }
            try {
                row.gpu = runGpuMicroBenchmark(d.cudaIndex, MicroBenchmarkOptions{true});
                row.bench = MicroBenchmark{
                    row.gpu->gemmGflops, row.gpu->memoryBwGbs, row.gpu->launchUs,
                    HostLinkFigures{row.gpu->h2dPinnedGbs, row.gpu->d2hPinnedGbs,
                                    row.gpu->linkLatencyUs, row.gpu->h2dPageableGbs,
                                    row.gpu->d2hPageableGbs}}; // stored: the search uses it
                row.benchSource = "measured";
                library->upsertDevice(deviceRecordOf(d));
                row.drift = recordBenchmark(*library, row.fingerprint, *row.bench,
                                            args.driftPercent / 100.0);
            } catch (const std::runtime_error& e) { // InputError, TorchUnavailable
                notes.push_back(d.id + ": micro-benchmark not run: " + e.what());
            }
        } else if (args.bench && d.tag == DeviceTag::Modelled) {
            row.bench = MicroBenchmark{d.peakGflops, d.memBwGbs};
            row.benchSource = "modelled";
        }
        rows.push_back(std::move(row));
    }

    const std::vector<ContentionRow> contention =
        contentionRows(inventory.devices, library ? &*library : nullptr, software);

    // GPU energy counters: NVML when the driver provides it (loaded at run time).
    std::string nvmlWhy;
    const std::unique_ptr<NvmlEnergy> nvml = NvmlEnergy::open(&nvmlWhy);
    nlohmann::json nvmlJson = {{"available", nvml != nullptr}};
    if (nvml) {
        nvmlJson["gpus"] = nvml->deviceCount();
    } else {
        nvmlJson["reason"] = nvmlWhy;
    }

    if (args.json) {
        nlohmann::json devices = nlohmann::json::array();
        for (const Row& row : rows) {
            const Device& d = *row.device;
            nlohmann::json entry = {{"id", d.id},
                                    {"kind", d.kind},
                                    {"name", d.name},
                                    {"tag", deviceTagName(d.tag)},
                                    {"fingerprint", row.fingerprint}};
            if (d.tag == DeviceTag::Modelled) {
                entry["peak_gflops"] = d.peakGflops;
                entry["mem_bw_gbs"] = d.memBwGbs;
                entry["memory_bytes"] = d.memoryBytes;
            } else if (d.kind == "cpu") {
                entry["cpus"] = d.cpus;
                entry["cores"] = d.cores;
                entry["l1d_bytes"] = d.l1dBytes;
                entry["l2_bytes"] = d.l2Bytes;
                entry["l3_bytes"] = d.l3Bytes;
                entry["simd"] = simdFlags(d);
            } else {
                entry["cuda_index"] = d.cudaIndex;
                entry["multiprocessors"] = d.cores;
                entry["memory_bytes"] = d.memoryBytes;
                entry["compute_capability"] =
                    std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor);
                entry["clock_mhz"] = d.clockMhz;
                const auto energy = nvml ? nvml->totalEnergyMj(d.cudaIndex) : std::nullopt;
                entry["energy_counter"] = energy ? nlohmann::json("nvml") : nlohmann::json(nullptr);
            }
            if (row.bench) {
                entry["benchmark"] = {{"gemm_gflops", row.bench->gemmGflops},
                                      {"memory_bw_gbs", row.bench->memoryBwGbs},
                                      {"dispatch_us", row.bench->dispatchUs > 0
                                                          ? nlohmann::json(row.bench->dispatchUs)
                                                          : nlohmann::json(nullptr)},
                                      {"source", row.benchSource}};
                if (row.drift) {
                    entry["benchmark"]["drift"] = {
                        {"first_benchmark", row.drift->firstBenchmark},
                        {"drifted", row.drift->drifted},
                        {"why", row.drift->why},
                        {"threshold_percent", row.drift->threshold * 100},
                        {"samples_marked_stale", row.drift->samplesMarkedStale}};
                }
            } else {
                entry["benchmark"] = nullptr;
            }
            if (row.gpu) { // the GPU's measured link to the host, and its launch overhead
                entry["benchmark"]["launch_us"] = row.gpu->launchUs;
                entry["benchmark"]["link"] = {{"h2d_pinned_gbs", row.gpu->h2dPinnedGbs},
                                              {"h2d_pageable_gbs", row.gpu->h2dPageableGbs},
                                              {"d2h_pinned_gbs", row.gpu->d2hPinnedGbs},
                                              {"d2h_pageable_gbs", row.gpu->d2hPageableGbs},
                                              {"latency_us", row.gpu->linkLatencyUs},
                                              {"source", "measured"}};
            }
            devices.push_back(std::move(entry));
        }
        const nlohmann::json doc = {{"tool", "paretune"},
                                    {"tool_version", PARETUNE_VERSION},
                                    {"catalog", args.catalog.empty()
                                                    ? nlohmann::json(nullptr)
                                                    : nlohmann::json(args.catalog)},
                                    {"software",
                                     {{"compiler", software.compiler},
                                      {"torch", software.torchVersion},
                                      {"blas", software.blas},
                                      {"cuda_runtime", software.cudaRuntime},
                                      {"cuda_driver", software.cudaDriver},
                                      {"torch_cuda", software.torchCuda},
                                      {"cudnn", software.cudnn},
                                      {"torch_module", torchFlavourAdvice()}}},
                                    {"devices", devices},
                                    {"contention", contentionJson(contention)},
                                    {"nvml", nvmlJson},
                                    {"notes", notes}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }

    std::printf("%-8s %-5s %-9s %-12s %-40s %s\n", "ID", "Kind", "Tag", "Fingerprint", "Name",
                "Figures");
    for (const Row& row : rows) {
        const Device& d = *row.device;
        std::printf("%-8s %-5s %-9s %-12s %-40s %s\n", d.id.c_str(), d.kind.c_str(),
                    deviceTagName(d.tag), row.fingerprint.substr(0, kShortFingerprint).c_str(),
                    d.name.c_str(), figuresText(d).c_str());
    }
    if (args.bench) {
        std::printf("\n%-8s %12s %10s %11s  %-9s %s\n", "ID", "GEMM GFLOP/s", "Mem GB/s",
                    "Dispatch µs", "Source", "Drift");
        for (const Row& row : rows) {
            if (row.bench) {
                char dispatch[32] = "-";
                if (row.bench->dispatchUs > 0) {
                    std::snprintf(dispatch, sizeof(dispatch), "%.2f", row.bench->dispatchUs);
                }
                std::printf("%-8s %12.1f %10.1f %11s  %-9s %s\n", row.device->id.c_str(),
                            row.bench->gemmGflops, row.bench->memoryBwGbs, dispatch,
                            row.benchSource, row.drift ? driftText(*row.drift).c_str() : "-");
            } else {
                std::printf("%-8s %12s %10s %11s  %s\n", row.device->id.c_str(), "-", "-", "-",
                            "not benchmarked (no CPU micro-benchmark for this device)");
            }
        }
        std::printf("GEMM is Paretune's own blocked fp32 kernel (quick mode), not the BLAS "
                    "figure; memory is a STREAM-like triad; dispatch is a one-element LibTorch "
                    "add.\nVectors are stored in %s.\n",
                    library->path().c_str());
    }
    if (!contention.empty()) {
        std::printf("\n%-8s %-8s %7s  %-9s %s\n", "ID", "Beside", "Factor", "Source", "Measured");
        for (const ContentionRow& row : contention) {
            if (row.stored) {
                std::printf("%-8s %-8s %7.2f  %-9s %s\n", row.device->id.c_str(),
                            row.beside->id.c_str(), row.stored->factor, "measured",
                            row.stored->measuredAt.c_str());
            } else {
                std::printf("%-8s %-8s %7s  %-9s %s\n", row.device->id.c_str(),
                            row.beside->id.c_str(), "-", "-",
                            library ? "not measured yet (paretune profile measures it)"
                                    : "no sample library (paretune profile measures it)");
            }
        }
        std::printf("Contention: a node on ID runs at 1/factor of its speed while a node runs on "
                    "Beside (co-run benchmark:\nmean slowdown of GEMM and triad beside GEMM and "
                    "triad). Devices sharing a core never run at once.\n");
    }
    std::printf("\nSoftware  %s; LibTorch %s; BLAS %s; CUDA runtime %d, driver %d\n",
                software.compiler.c_str(),
                software.torchVersion.empty() ? "-" : software.torchVersion.c_str(),
                software.blas.empty() ? "-" : software.blas.c_str(), software.cudaRuntime,
                software.cudaDriver);
    std::printf("LibTorch module: %s\n", torchFlavourAdvice().c_str());
    // Without a driver there are no GPUs to count energy on: say so, not why NVML is missing.
    std::printf("GPU energy: %s\n",
                nvml ? ("NVML (" + std::to_string(nvml->deviceCount()) + " GPUs)").c_str()
                : software.cudaDriver == 0 ? "none (no NVIDIA driver on this machine)"
                                           : ("no NVML: " + nvmlWhy).c_str());
    for (const std::string& note : notes) {
        std::printf("note: %s\n", note.c_str());
    }
}

void addDevicesCommand(CLI::App& app) {
    auto args = std::make_shared<DevicesArguments>();
    CLI::App* cmd = app.add_subcommand(
        "devices", "List this machine's devices (and a catalog's modelled devices) with their "
                   "fingerprints and key figures");
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog (paretune.devices/1 JSON: a file, or an installed catalog's "
                    "name such as example); its devices are listed as modelled");
    cmd->add_flag("--bench", args->bench,
                  "Run the quick micro-benchmark (GEMM GFLOP/s, memory GB/s, dispatch µs) on "
                  "every real CPU device, store it in the sample library and mark the device's "
                  "samples stale when it drifted from the stored reference");
    cmd->add_option("--db", args->db,
                    "Sample library where --bench stores the vectors and whose measured "
                    "contention factors are listed (default: $XDG_DATA_HOME/paretune/samples.db, "
                    "read when it exists)");
    cmd->add_option("--drift-threshold", args->driftPercent,
                    "With --bench: a figure drifting from the device's reference by more than "
                    "this percentage marks the device's samples stale (default 15)");
    cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
    cmd->callback([args] { runDevices(*args); });
}

} // namespace paretune::cli
