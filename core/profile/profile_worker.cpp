// SPDX-License-Identifier: GPL-3.0-or-later
#include "profile_worker.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "library_profile.h"
#include "runtime/torch_runtime.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace paretune {

namespace {

std::string defaultWorkerName() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) {
        host[0] = '\0';
    }
    return std::string(host[0] != '\0' ? host : "localhost") + ":" + std::to_string(getpid());
}

const Device& workerDevice(const DeviceInventory& inventory, const std::string& id) {
    const Device* device = inventory.find(id);
    if (device == nullptr) {
        std::string ids;
        for (const Device& d : inventory.devices) {
            ids += (ids.empty() ? "" : ", ") + d.id;
        }
        const auto gpus =
            std::count_if(inventory.devices.begin(), inventory.devices.end(), [](const Device& d) {
                return d.tag == DeviceTag::Real && d.cudaIndex >= 0;
            });
        if (const std::string cuda = cudaDeviceRefusal(id, -1, static_cast<int>(gpus));
            !cuda.empty()) {
            throw InputError::forSetting("device", cuda + " (known devices: " + ids + ")");
        }
        throw InputError::forSetting("device", id + ": no such device (known: " + ids + ")");
    }
    if (device->tag != DeviceTag::Real || !device->isCpu()) {
        throw InputError::forSetting("device", id + ": workers profile on real CPU devices in "
                                                    "this version (cpu, cpu:N)");
    }
    return *device;
}

/// Renews a job's lease from its own connection while the job runs; stops when destroyed.
class Heartbeat {
public:
    Heartbeat(const std::filesystem::path& library, std::int64_t job, std::string worker,
              double leaseSeconds)
        : m_thread([this, library, job, worker = std::move(worker), leaseSeconds] {
              run(library, job, worker, leaseSeconds);
          }) {}
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;
    ~Heartbeat() {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    /// The lease was lost: another worker may hold the job now.
    bool lost() const { return m_lost; }

private:
    void run(const std::filesystem::path& path, std::int64_t job, const std::string& worker,
             double leaseSeconds) {
        try {
            SampleLibrary library =
                SampleLibrary::open(path, SampleLibrary::OpenMode::ExistingOnly);
            const auto interval = std::chrono::duration<double>(leaseSeconds / 3.0);
            std::unique_lock lock(m_mutex);
            while (!m_wake.wait_for(lock, interval, [this] { return m_stop; })) {
                lock.unlock();
                const bool held = library.renewProfileJob(job, worker, leaseSeconds);
                lock.lock();
                if (!held) {
                    m_lost = true;
                    return;
                }
            }
        } catch (const std::exception&) {
            m_lost = true; // nothing escapes the thread; the job's end says whether it held
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::atomic<bool> m_lost = false;
    std::thread m_thread;
};

/// Profiles one claimed job; returns whether it was done and its result.
std::pair<bool, nlohmann::json> runJob(const ProfileJobRecord& job, const Device& device,
                                       SampleLibrary& library, Progress* progress) {
    try {
        const nlohmann::json options = nlohmann::json::parse(job.optionsJson);
        LibraryProfileOptions profile;
        profile.force = options.value("force", false);
        profile.repeats = options.value("repeats", 0);
        ImportResult imported = importOnnxBytes(job.modelOnnx, {}, job.modelName);
        imported.graph.sourcePath = job.modelName; // the model keeps the path it was queued from
        if (imported.graph.fingerprint != job.modelFingerprint) {
            throw InputError(job.modelName + ": the queued model's fingerprint does not match "
                                             "its bytes");
        }
        const LibraryProfileRun run =
            profileIntoLibrary(imported.graph, device, library, profile, progress);
        const int measured = static_cast<int>(run.rows.size()) - run.reusedCount() -
                             run.failedCount() - run.cancelledCount();
        return {run.cancelledCount() == 0,
                {{"measured", measured},
                 {"reused", run.reusedCount()},
                 {"failed", run.failedCount()},
                 {"cancelled", run.cancelledCount()}}};
    } catch (const InputError& e) {
        return {false, {{"error", e.what()}}};
    } catch (const nlohmann::json::exception& e) {
        return {false, {{"error", std::string("options: ") + e.what()}}};
    }
}

} // namespace

ProfileWorkerReport runProfileWorker(const std::filesystem::path& path,
                                     const ProfileWorkerOptions& options, Progress* progress) {
    if (!(options.leaseSeconds > 0) || options.idleExitSeconds < 0 || !(options.pollSeconds > 0)) {
        throw InputError::forSetting("lease-seconds",
                                     "the lease and the poll interval must be positive, the idle "
                                     "time 0 or more");
    }
    const DeviceInventory inventory = discoverDevices();
    const Device& device = workerDevice(inventory, options.deviceId);
    ProfileWorkerReport report;
    report.worker = options.workerName.empty() ? defaultWorkerName() : options.workerName;
    report.deviceFingerprint = deviceFingerprint(device);
    SampleLibrary library = SampleLibrary::open(path);
    auto idleSince = std::chrono::steady_clock::now();
    while (progress == nullptr || !progress->cancelled()) {
        std::optional<ProfileJobRecord> job =
            library.claimProfileJob(report.deviceFingerprint, report.worker, options.leaseSeconds);
        if (!job) {
            const double idle =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - idleSince).count();
            if (options.once || (options.idleExitSeconds > 0 && idle >= options.idleExitSeconds)) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::duration<double>(options.pollSeconds));
            continue;
        }
        bool done = false;
        nlohmann::json result;
        bool lost = false;
        {
            const Heartbeat heartbeat(path, job->id, report.worker, options.leaseSeconds);
            std::tie(done, result) = runJob(*job, device, library, progress);
            lost = heartbeat.lost();
        }
        result["worker"] = report.worker;
        result["attempt"] = job->attempts;
        if (lost || !library.finishProfileJob(job->id, report.worker, done, result.dump())) {
            ++report.lost; // its samples are stored; the worker that holds it now reuses them
        } else {
            ++(done ? report.done : report.failed);
        }
        if (options.jobFinished) {
            options.jobFinished(job->id, done && !lost, result.dump());
        }
        idleSince = std::chrono::steady_clock::now();
        if (options.once) {
            break;
        }
    }
    return report;
}

} // namespace paretune
