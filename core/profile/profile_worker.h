// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `paretune worker`: drains the sample library's profiling queue for one device of this
// machine. One worker per device, on as many machines as share the library (PostgreSQL).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace paretune {

struct Progress;

struct ProfileWorkerOptions {
    std::string deviceId = "cpu:0"; ///< a real CPU device of this machine
    double leaseSeconds = 60;       ///< a claim runs out this long after its last heartbeat
    bool once = false;              ///< stop after one job (or none waiting)
    /// Stop when no job has waited for this long (seconds); 0: wait for jobs forever.
    double idleExitSeconds = 0;
    double pollSeconds = 1; ///< how often an idle worker looks for a job
    std::string workerName; ///< empty: "HOST:PID"
    /// Called after each job with its id, whether it was done, and its result JSON.
    std::function<void(std::int64_t, bool, const std::string&)> jobFinished;
};

struct ProfileWorkerReport {
    std::string worker;
    std::string deviceFingerprint;
    int done = 0;
    int failed = 0;
    int lost = 0; ///< jobs whose lease ran out while measuring (another worker took them)
};

/// Claims the queue's jobs for the device one at a time (SampleLibrary::claimProfileJob), keeps
/// each claim alive with a heartbeat (a second connection renews the lease every third of it),
/// profiles the job's model into the library (profileIntoLibrary: what is stored is reused, so
/// a job redone after a worker died measures only what that worker had not committed), and
/// marks it done, or failed with the reason when the model or options are bad input. Stops
/// when `progress` is cancelled, after one job with options.once, or when idle for
/// options.idleExitSeconds. Throws InputError for a device that is not a real CPU device of
/// this machine or a library that cannot be opened.
ProfileWorkerReport runProfileWorker(const std::filesystem::path& library,
                                     const ProfileWorkerOptions& options,
                                     Progress* progress = nullptr);

} // namespace paretune
