// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX's backend node tests on one device, without Qt (scripts/gpu-check runs it on cuda:0).
// Usage: bench_conformance DEVICE [TESTS_DIR] [--expected FILE] [--exceptions FILE]
//        [--passing-out FILE]
// DEVICE is cpu or cuda:K. Prints the report, then one JSON object with the counts and the
// expected tests that did not pass; exits 1 when any did, 2 for bad input (a CUDA device this
// LibTorch module cannot use, with the flavour named).
#include "bench_cli.h"
#include "common/input_error.h"
#include "onnx_node_tests.h"
#include "runtime/torch_runtime.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace {

/// The value after option `name` (removed from the arguments with it), or empty.
std::string takeOption(std::vector<std::string>& args, const std::string& name) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == name) {
            std::string value = args[i + 1];
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                       args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
            return value;
        }
    }
    return {};
}

int benchMain(int argc, char** argv) {
    using namespace paretune;
    std::vector<std::string> args(argv + 1, argv + argc);
    const std::string expectedFile = takeOption(args, "--expected");
    const std::string exceptionsFile = takeOption(args, "--exceptions");
    const std::string passingOut = takeOption(args, "--passing-out");
    if (args.empty() || args.size() > 2) {
        throw InputError("expected DEVICE [TESTS_DIR] and options with their values");
    }
    ExecutionDevice device;
    device.id = args[0];
    if (device.id.rfind("cuda:", 0) == 0) {
        const std::string index = device.id.substr(5);
        if (index.empty() || index.size() > 3 ||
            index.find_first_not_of("0123456789") != std::string::npos) {
            throw InputError("'" + device.id + "' is not a device (cpu or cuda:K)");
        }
        device.cudaIndex = std::stoi(index);
        if (const std::string why = torchRuntime().cudaUnusable(device.cudaIndex); !why.empty()) {
            throw InputError(why);
        }
    } else if (device.id != "cpu") {
        throw InputError("'" + device.id + "' is not a device (cpu or cuda:K)");
    }
    const std::string folder = args.size() > 1 ? args[1] : conformance::kDebianNodeTests;
    if (!std::filesystem::is_directory(folder)) {
        throw InputError("node tests folder '" + folder + "' does not exist");
    }
    std::set<std::string> expected;
    if (!expectedFile.empty()) {
        expected = conformance::listedTests(expectedFile);
        if (expected.empty()) {
            throw InputError("--expected " + expectedFile + ": no test names read");
        }
    }
    for (const std::string& name : conformance::listedTests(exceptionsFile)) {
        expected.erase(name);
    }
    const conformance::NodeTestRun run = conformance::runNodeTests(folder, device, expected);
    std::cout << run.report;
    if (!passingOut.empty()) {
        std::ofstream out(passingOut);
        out << "# ONNX node tests the LibTorch executor passes on " << device.id
            << " (bench_conformance)\n";
        for (const std::string& name : run.passing) {
            out << name << "\n";
        }
    }
    const nlohmann::json summary = {{"benchmark", "conformance"},
                                    {"device", device.id},
                                    {"pass", run.pass},
                                    {"fail", run.fail},
                                    {"unsupported", run.unsupported},
                                    {"expected", expected.size()},
                                    {"regressions", run.regressions},
                                    {"newly_passing", run.newlyPassing.size()}};
    std::cout << summary.dump() << "\n";
    return run.regressions.empty() ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_conformance",
         "DEVICE [TESTS_DIR] [--expected FILE] [--exceptions FILE] "
         "[--passing-out FILE]",
         "  Runs ONNX's backend node tests (TESTS_DIR, default Debian's libonnx-testdata) of every "
         "op type the\n  LibTorch executor supports on DEVICE (cpu or cuda:K) and compares the "
         "passing ones with\n  FILE (less the exceptions). Prints the report and a JSON summary; "
         "exit 1 when an expected\n  test fails.\n",
         1,
         6,
         {"--expected", "--exceptions", "--passing-out"}},
        benchMain);
}
