// SPDX-License-Identifier: GPL-3.0-or-later
#include "execution_threads.h"

#include <algorithm>
#include <condition_variable>
#include <stdexcept>
#include <thread>

namespace paretune {

/// One thread: its setup when it starts, then one task at a time.
class ExecutionThreads::Worker {
public:
    explicit Worker(Setup setup) : m_thread([this, s = std::move(setup)] { loop(s); }) {}

    ~Worker() {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    void start(const Task& task) {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_task = &task;
        }
        m_wake.notify_all();
    }

    void wait() {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_idle.wait(lock, [&] { return m_task == nullptr; });
    }

private:
    void loop(const Setup& setup) {
        std::shared_ptr<void> held; // released on this thread, as it ends
        std::exception_ptr setupError;
        try {
            held = setup();
        } catch (...) {
            setupError = std::current_exception();
        }
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stopping || m_task != nullptr; });
            if (m_task == nullptr) {
                return;
            }
            const Task* task = m_task;
            lock.unlock();
            (*task)(setupError);
            lock.lock();
            m_task = nullptr;
            m_idle.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    const Task* m_task = nullptr;
    bool m_stopping = false;
    std::thread m_thread; ///< last: it starts once the members above exist
};

ExecutionThreads::ExecutionThreads() = default;

ExecutionThreads::~ExecutionThreads() = default;

void ExecutionThreads::runTogether(const std::vector<Job>& jobs) {
    const std::lock_guard<std::mutex> turn(m_turn);
    std::vector<Worker*> started;
    started.reserve(jobs.size());
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        for (const Job& job : jobs) {
            std::unique_ptr<Worker>& worker = m_workers[job.key];
            if (worker &&
                std::find(started.begin(), started.end(), worker.get()) != started.end()) {
                throw std::invalid_argument("two jobs for the thread '" + job.key + "'");
            }
            if (!worker) {
                worker = std::make_unique<Worker>(job.setup);
            }
            started.push_back(worker.get());
        }
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        started[j]->start(jobs[j].task);
    }
    for (Worker* worker : started) {
        worker->wait();
    }
}

std::size_t ExecutionThreads::threadCount() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_workers.size();
}

} // namespace paretune
