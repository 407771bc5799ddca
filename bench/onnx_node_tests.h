// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// ONNX's own backend node tests (Debian's libonnx-testdata: a folder per test with model.onnx
// and test_data_set_0/{input,output}_N.pb) on the LibTorch executor, on any execution device:
// every single-node test of an op type the executor supports runs with its inputs and is
// compared with its expected outputs. Used by tst_conformance (the CPU, and cuda:0 where there
// is one) and by bench_conformance (scripts/gpu-check, without Qt). Links the LibTorch module.

#include "profile/graph_executor.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace paretune::conformance {

/// Where Debian's libonnx-testdata puts the node tests.
inline constexpr const char* kDebianNodeTests = "/usr/share/libonnx-testdata/data/node";

float halfToFloat(std::uint16_t h);

/// Empty when `got` equals `want` (same type and shape, values within ONNX's tolerances);
/// else what differs.
std::string compare(const HostTensor& got, const HostTensor& want);

/// The test names of a list file (one a line, `#` comments); empty when it cannot be read.
std::set<std::string> listedTests(const std::string& path);

struct NodeTestRun {
    std::string report;                    ///< per op type pass / fail / unsupported, and totals
    std::set<std::string> passing;         ///< tests that passed
    std::vector<std::string> regressions;  ///< tests of `expected` that did not pass
    std::vector<std::string> newlyPassing; ///< tests that passed and are not in `expected`
    int pass = 0;
    int fail = 0;
    int unsupported = 0;
};

/// Runs every node test under `folder` whose op type the executor supports on `device` and
/// compares the passing ones with `expected`. Never throws for a test's problem (it fails).
NodeTestRun runNodeTests(const std::string& folder, const ExecutionDevice& device,
                         const std::set<std::string>& expected);

} // namespace paretune::conformance
