// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace paretune {

/// The threads plan executors run their devices on: one per key (a device with its CPUs,
/// intra-op threads and GPU), started on first use and kept until this object ends. Executors
/// given the same ExecutionThreads (ExecuteOptions::threads) share them; their runs take turns.
///
/// Why share: validation keeps several plans' executors alive and runs them interleaved.
/// libgomp counts the OpenMP thread teams of every thread alive; once they outnumber the CPUs,
/// its threads stop spinning between parallel regions (a throttled spin of 100), and every
/// region of a multi-threaded device wakes its helpers through the kernel. Measured on this
/// project's 2-core machine (MobileNet-V2 all on `cpu`, 30 runs): 11.4-11.8 ms with one
/// executor, 19.6-21.3 ms beside a second. With shared threads the count stays that of one.
class ExecutionThreads {
public:
    /// Run once on a thread when it starts; what it returns lives as long as the thread.
    using Setup = std::function<std::shared_ptr<void>()>;
    /// A thread's work: given the exception its setup threw, if any.
    using Task = std::function<void(std::exception_ptr setupError)>;
    struct Job {
        std::string key;
        Setup setup;
        Task task;
    };

    ExecutionThreads();
    ~ExecutionThreads();
    ExecutionThreads(const ExecutionThreads&) = delete;
    ExecutionThreads& operator=(const ExecutionThreads&) = delete;

    /// Runs each job on its key's thread, all at once, and returns when every task has
    /// returned. One call at a time: a second waits for the first. Jobs must have distinct
    /// keys; tasks must not throw.
    void runTogether(const std::vector<Job>& jobs);

    /// Threads started so far.
    std::size_t threadCount() const;

private:
    class Worker;
    std::mutex m_turn; ///< held for a runTogether
    mutable std::mutex m_mutex;
    std::map<std::string, std::unique_ptr<Worker>> m_workers;
};

} // namespace paretune
