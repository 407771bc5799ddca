// SPDX-License-Identifier: GPL-3.0-or-later
#include "library_command.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "paretune/config.h"
#include "store/library_file.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace paretune::cli {

namespace {

struct LibraryArguments {
    std::string db; ///< empty: defaultSampleLibraryPath()
    std::string file;
    bool json = false;
};

std::filesystem::path libraryPath(const std::string& db) {
    return db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(db);
}

void runExport(const LibraryArguments& args) {
    const SampleLibrary library =
        SampleLibrary::open(libraryPath(args.db), SampleLibrary::OpenMode::ExistingOnly);
    const LibraryRecords records = library.records();
    writeLibraryFile(args.file, records, library.path().string());
    if (args.json) {
        const nlohmann::json doc = {{"tool", "paretune"},
                                    {"tool_version", PARETUNE_VERSION},
                                    {"db", library.path().string()},
                                    {"file", args.file},
                                    {"devices", records.devices.size()},
                                    {"models", records.models.size()},
                                    {"signatures", records.signatures.size()},
                                    {"benchmarks", records.benchmarks.size()},
                                    {"contention", records.contention.size()},
                                    {"model_runs", records.modelRuns.size()},
                                    {"samples", records.samples.size()}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    std::printf("Exported %zu samples (%zu devices, %zu models, %zu signatures, %zu "
                "micro-benchmarks, %zu contention, %zu whole-model runs) from %s to %s\n",
                records.samples.size(), records.devices.size(), records.models.size(),
                records.signatures.size(), records.benchmarks.size(), records.contention.size(),
                records.modelRuns.size(), library.path().string().c_str(), args.file.c_str());
}

void runImport(const LibraryArguments& args) {
    // The whole file is read and checked before the library is opened for writing.
    const LibraryRecords records = readLibraryFile(args.file);
    SampleLibrary library = SampleLibrary::open(libraryPath(args.db));
    const ImportCounts added = library.importRecords(records);
    if (args.json) {
        const nlohmann::json doc = {{"tool", "paretune"},
                                    {"tool_version", PARETUNE_VERSION},
                                    {"db", library.path().string()},
                                    {"file", args.file},
                                    {"added",
                                     {{"devices", added.devices},
                                      {"models", added.models},
                                      {"signatures", added.signatures},
                                      {"benchmarks", added.benchmarks},
                                      {"contention", added.contention},
                                      {"model_runs", added.modelRuns},
                                      {"samples", added.samples}}},
                                    {"samples_present", added.samplesPresent},
                                    {"sample_count", library.sampleCount()}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    std::printf("Imported %lld new samples into %s (%lld were there already; %lld devices, %lld "
                "models, %lld signatures, %lld micro-benchmarks, %lld contention, %lld "
                "whole-model runs added); the library holds %lld samples\n",
                static_cast<long long>(added.samples), library.path().string().c_str(),
                static_cast<long long>(added.samplesPresent), static_cast<long long>(added.devices),
                static_cast<long long>(added.models), static_cast<long long>(added.signatures),
                static_cast<long long>(added.benchmarks), static_cast<long long>(added.contention),
                static_cast<long long>(added.modelRuns),
                static_cast<long long>(library.sampleCount()));
}

} // namespace

void addLibraryCommand(CLI::App& app) {
    CLI::App* library =
        app.add_subcommand("library", "Move samples between sample libraries (SQLite files or "
                                      "PostgreSQL databases)");
    library->require_subcommand(1);

    auto exportArgs = std::make_shared<LibraryArguments>();
    CLI::App* exportCmd = library->add_subcommand(
        "export", "Write the library's samples, devices, models and signatures to a file");
    exportCmd->add_option("--db", exportArgs->db,
                          "Sample library: a file or postgresql://… (default "
                          "$XDG_DATA_HOME/paretune/samples.db)");
    exportCmd->add_option("--out", exportArgs->file, "File to write (JSON lines)")->required();
    exportCmd->add_flag("--json", exportArgs->json, "Machine-readable output");
    exportCmd->callback([exportArgs] { runExport(*exportArgs); });

    auto importArgs = std::make_shared<LibraryArguments>();
    CLI::App* importCmd = library->add_subcommand(
        "import", "Store the samples of an exported file (those not stored already)");
    importCmd->add_option("file", importArgs->file, "File written by paretune library export")
        ->required();
    importCmd->add_option("--db", importArgs->db,
                          "Sample library: a file or postgresql://… (default "
                          "$XDG_DATA_HOME/paretune/samples.db); created when missing");
    importCmd->add_flag("--json", importArgs->json, "Machine-readable output");
    importCmd->callback([importArgs] { runImport(*importArgs); });
}

} // namespace paretune::cli
