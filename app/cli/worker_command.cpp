// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker_command.h"

#include "interrupt.h"

#include "common/json_reader.h"
#include "common/progress.h"
#include "paretune/config.h"
#include "profile/profile_worker.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace paretune::cli {

namespace {

struct WorkerArguments {
    std::string db;
    std::string device;
    double leaseSeconds = 60;
    double idleExit = 0;
    double pollSeconds = 1;
    bool once = false;
    bool json = false;
};

std::filesystem::path libraryPath(const std::string& db) {
    return db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(db);
}

/// Stops the worker between jobs and operators on SIGINT or SIGTERM.
struct InterruptProgress : Progress {
    void report(double, const std::string&) override {}
    bool cancelled() const override { return InterruptScope::requested() != 0; }
};

void runWorker(const WorkerArguments& args) {
    ProfileWorkerOptions options;
    options.deviceId = args.device;
    options.leaseSeconds = args.leaseSeconds;
    options.idleExitSeconds = args.idleExit;
    options.pollSeconds = args.pollSeconds;
    options.once = args.once;
    const bool json = args.json;
    options.jobFinished = [json](std::int64_t id, bool done, const std::string& result) {
        if (json) {
            std::cout << nlohmann::json{{"job", id},
                                        {"state", done ? "done" : "failed"},
                                        {"result", nlohmann::json::parse(result)}}
                             .dump()
                      << std::endl; // one line a job, as it happens
        } else {
            std::printf("job %lld %s: %s\n", static_cast<long long>(id), done ? "done" : "failed",
                        result.c_str());
            std::fflush(stdout);
        }
    };
    const InterruptScope interrupts;
    InterruptProgress progress;
    const ProfileWorkerReport report = runProfileWorker(libraryPath(args.db), options, &progress);
    if (json) {
        std::cout << nlohmann::json{{"worker", report.worker},
                                    {"device_fingerprint", report.deviceFingerprint},
                                    {"done", report.done},
                                    {"failed", report.failed},
                                    {"lost", report.lost}}
                         .dump()
                  << "\n";
    } else {
        std::printf("worker %s: %d jobs done, %d failed, %d lost to an expired lease\n",
                    report.worker.c_str(), report.done, report.failed, report.lost);
    }
}

void runQueueList(const WorkerArguments& args) {
    const SampleLibrary library =
        SampleLibrary::open(libraryPath(args.db), SampleLibrary::OpenMode::ExistingOnly);
    const std::vector<ProfileJobRecord> jobs = library.profileJobs();
    if (args.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const ProfileJobRecord& j : jobs) {
            list.push_back({{"job", j.id},
                            {"model", j.modelName},
                            {"model_fingerprint", j.modelFingerprint},
                            {"device_fingerprint", j.deviceFingerprint},
                            {"state", j.state},
                            {"worker", j.worker},
                            {"attempts", j.attempts},
                            {"queued_at", j.queuedAt},
                            {"finished_at", j.finishedAt},
                            {"result", nlohmann::json::parse(j.resultJson, nullptr, false)}});
        }
        std::cout << dumpJson(nlohmann::json{{"db", library.path().string()}, {"jobs", list}}, 2)
                  << "\n";
        return;
    }
    std::printf("%6s  %-8s  %-12s  %-24s  %8s  %s\n", "Job", "State", "Device", "Worker",
                "Attempts", "Model");
    for (const ProfileJobRecord& j : jobs) {
        std::printf("%6lld  %-8s  %-12.12s  %-24s  %8lld  %s\n", static_cast<long long>(j.id),
                    j.state.c_str(), j.deviceFingerprint.c_str(), j.worker.c_str(),
                    static_cast<long long>(j.attempts), j.modelName.c_str());
    }
}

} // namespace

void addWorkerCommands(CLI::App& app) {
    auto args = std::make_shared<WorkerArguments>();
    CLI::App* cmd = app.add_subcommand(
        "worker", "Measure the profiling jobs queued in a sample library for a device of this "
                  "machine (profile --queue), one after another");
    cmd->add_option("--db", args->db, "Sample library, usually postgresql://… shared by a team");
    cmd->add_option("--device", args->device, "Device id: cpu or cpu:N")->required();
    cmd->add_option("--lease-seconds", args->leaseSeconds,
                    "A claimed job goes to another worker when this worker has not renewed its "
                    "claim for this long (default 60)");
    cmd->add_option("--idle-exit", args->idleExit,
                    "Stop when no job came for this many seconds (default: wait forever)");
    cmd->add_option("--poll-seconds", args->pollSeconds,
                    "How often an idle worker looks for a job (default 1)");
    cmd->add_flag("--once", args->once, "Measure one job (or none waiting), then stop");
    cmd->add_flag("--json", args->json, "Machine-readable output: one line a job, then a summary");
    cmd->callback([args] { runWorker(*args); });

    auto list = std::make_shared<WorkerArguments>();
    CLI::App* queue =
        app.add_subcommand("queue", "List the library's profiling jobs and who holds them");
    queue->add_option("--db", list->db, "Sample library");
    queue->add_flag("--json", list->json, "Machine-readable output");
    queue->callback([list] { runQueueList(*list); });
}

} // namespace paretune::cli
