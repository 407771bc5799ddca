// SPDX-License-Identifier: GPL-3.0-or-later
// Whole-process start-up and short-command times, as a user sees them.
// Usage: bench_startup MODEL_DIR [RUNS]
//   Runs each command RUNS times (default 10) after one untimed run and prints one JSON
//   object: per command the median, p10 and p90 wall time in milliseconds, and whether the
//   process loaded LibTorch (from LD_DEBUG=libs). The workbench figure is the time from start
//   to its first paint (offscreen), reported by the workbench itself on its standard output.
#include "bench_cli.h"
#include <nlohmann/json.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Outcome {
    double ms = 0.0;
    int status = -1;
    std::string out; ///< standard output and error, interleaved
};

/// Runs `args` with `extraEnv` added to the environment; returns the wall time until it exited,
/// or (when `until` is given) until a line containing `until` appeared on its output.
Outcome run(const std::vector<std::string>& args, const std::vector<std::string>& extraEnv,
            const std::string& until = {}) {
    int pipeFds[2];
    if (::pipe(pipeFds) != 0) {
        throw std::runtime_error("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        env.emplace_back(*e);
    }
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    std::vector<char*> argv, envp;
    for (const std::string& a : args) {
        argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    for (const std::string& e : env) {
        envp.push_back(const_cast<char*>(e.c_str()));
    }
    envp.push_back(nullptr);
    Outcome o;
    pid_t pid = 0;
    const auto start = Clock::now();
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
        throw std::runtime_error("cannot start " + args[0]);
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    char buffer[4096];
    bool seen = false;
    for (;;) {
        const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
        if (n <= 0) {
            break;
        }
        o.out.append(buffer, static_cast<std::size_t>(n));
        if (!until.empty() && !seen && o.out.find(until) != std::string::npos) {
            o.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            seen = true;
        }
    }
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!seen) {
        o.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (!until.empty() && !seen) {
        o.status = o.status == 0 ? 1 : o.status;
    }
    return o;
}

nlohmann::json measure(const std::vector<std::string>& args, int runs,
                       const std::vector<std::string>& env = {}, const std::string& until = {}) {
    run(args, env, until); // untimed: page cache, dynamic loader caches
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
        const Outcome o = run(args, env, until);
        if (o.status != 0) {
            return {{"error", "exit " + std::to_string(o.status) + ": " + o.out.substr(0, 400)}};
        }
        ms.push_back(o.ms);
    }
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) {
        return ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1) + 0.5)];
    };
    std::vector<std::string> traced = env;
    traced.emplace_back("LD_DEBUG=libs");
    const Outcome t = run(args, traced, until);
    return {{"median_ms", at(0.5)},
            {"p10_ms", at(0.1)},
            {"p90_ms", at(0.9)},
            {"runs", runs},
            {"loads_libtorch", t.out.find("libtorch_cpu") != std::string::npos}};
}

} // namespace

int benchMain(int argc, char** argv) {
    const fs::path models = argv[1];
    const int runs = argc > 2 ? paretune::bench::positiveInt(argv[2], "RUNS") : 10;
    const std::string cli = PARETUNE_CLI_PATH;
    const std::string workbench = PARETUNE_WORKBENCH_PATH;
    // A fresh library: search on measured devices reads nothing and predicts nothing.
    const fs::path home =
        fs::temp_directory_path() / ("bench_startup." + std::to_string(::getpid()));
    fs::create_directories(home);
    const std::vector<std::string> env = {"XDG_DATA_HOME=" + home.string(),
                                          "XDG_CONFIG_HOME=" + home.string(),
                                          "QT_QPA_PLATFORM=offscreen"};
    nlohmann::json out = {{"benchmark", "startup"}, {"unit", "ms"}};
    try {
        out["commands"]["version"] = measure({cli, "--version"}, runs, env);
        out["commands"]["help"] = measure({cli, "--help"}, runs, env);
        // The sizes: a CNN of about 26 MB (EfficientNet-B0 21 MB, ResNet-18 47 MB) to
        // inspect; one of about 139 nodes (ResNet-50, 122) to search.
        for (const char* name : {"efficientnet_b0", "resnet18"}) {
            const fs::path model = models / (std::string(name) + ".onnx");
            if (!fs::exists(model)) {
                continue;
            }
            nlohmann::json& j = out["commands"][std::string("inspect_") + name];
            j = measure({cli, "inspect", model.string()}, runs, env);
            j["file_mb"] = static_cast<double>(fs::file_size(model)) / 1e6;
        }
        for (const char* name : {"resnet50", "efficientnet_b0"}) {
            const fs::path model = models / (std::string(name) + ".onnx");
            if (!fs::exists(model)) {
                continue;
            }
            out["commands"][std::string("search_200x300_") + name] =
                measure({cli, "search", model.string(), "--catalog", PARETUNE_EXAMPLE_CATALOG,
                         "--devices", "cpu,gpu,npu", "--population", "200", "--generations", "300",
                         "--seed", "1", "--out", (home / "plans.json").string()},
                        runs, env);
        }
        out["commands"]["workbench_first_paint"] =
            measure({workbench}, runs,
                    {env[0], env[1], env[2], "PARETUNE_WORKBENCH_FIRST_PAINT=quit"}, "first paint");
    } catch (const std::exception& e) {
        out["error"] = e.what();
    }
    fs::remove_all(home);
    std::cout << out.dump(2) << "\n";
    return out.contains("error") ? 1 : 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_startup",
         "MODEL_DIR [RUNS]",
         "  Whole-process times of paretune --version, --help, inspect and search, and the\n  "
         "workbench's time to first paint (offscreen), RUNS runs each (default 10). Prints JSON.\n",
         1,
         2,
         {}},
        benchMain);
}
