// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/graph.h"
#include "measurement.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

enum class ProfileStatus { Ok, Unsupported, Failed };
std::string_view profileStatusName(ProfileStatus status);

/// Memory of one operator run, in bytes. `inputBytes` and `outputBytes` come from the tensors
/// themselves (an output that aliases an input, e.g. a Reshape view, counts 0). `workspaceBytes`
/// is what the CPU allocator handed out to the profiling thread during one untimed run beyond
/// the outputs (temporaries of the ATen kernel: im2col buffers, transposed copies, …; counted
/// as device_memory.h counts them); it is -1 when the allocator could not be observed. `peakBytes`
/// = inputs + max(allocator high-water mark during the run, outputs): inputs are live throughout,
/// outputs and temporaries come on top. Buffers that a backend allocates outside the c10 allocator
/// (oneDNN's own scratchpads) are not seen.
struct MemoryEstimate {
    std::int64_t inputBytes = 0;
    std::int64_t outputBytes = 0;
    std::int64_t workspaceBytes = -1;
    std::int64_t peakBytes = 0;
};

/// The measured figures of one node on one device.
struct OpProfile {
    NodeId node = kNone;
    std::string name;
    std::string opType;
    ProfileStatus status = ProfileStatus::Failed;
    std::string message; ///< why it is unsupported or failed; empty when ok
    LatencyStats latency;
    int threads = 0; ///< intra-op threads in effect while timing
    MemoryEstimate memory;
    /// Energy per run in µJ from RAPL over a window of many runs, idle power subtracted; unset
    /// when no counter is readable (energySource "none": the caller fills a modelled figure).
    std::optional<double> energyUj;
    std::string energySource = "none";
};

/// A tensor on the host, in and out of LibTorch (executor I/O, tests, diagnostics): values as
/// doubles; integer and bool tensors also keep their exact values in `ints` (an int64 beyond
/// 2^53, e.g. a Slice end of INT64_MAX, does not survive a double). On the way in, `ints` wins
/// for an integer or bool dtype when it is filled, else `values` is used.
struct HostTensor {
    DType dtype = DType::Undefined;
    std::vector<std::int64_t> dims;
    std::vector<double> values;
    std::vector<std::int64_t> ints;

    std::int64_t elementCount() const;
};

} // namespace paretune
