// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "op_profile.h"

#include <memory>

namespace paretune {

class RaplEnergy;

/// Runs one node of a graph alone on the CPU with LibTorch, executing the node's ONNX semantics.
///
/// The constructor builds the node's inputs once: a tensor whose value the graph knows
/// (initializers and folded constants kept in Tensor::value: Reshape targets, Slice bounds,
/// Gather indices) gets that value; any other input gets random values of its static shape and
/// dtype (fixed seed), in a range the operator accepts: Gather/ScatterND indices inside the
/// indexed dimension, positive values for Sqrt/Log/Pow bases, divisors and variances, non-zero
/// integer divisors. A shape-like input that is not a graph constant (Reshape/Expand targets,
/// Slice bounds, Resize sizes, ...) is derived from the node's static output shape.
///
/// Never throws for an operator problem: an op type without a LibTorch implementation gives
/// status Unsupported (message names the op and the node), a node whose inputs cannot be built
/// or whose execution fails (c10::Error) gives Failed with the reason. Throws InputError only
/// for a node id outside the graph. Not thread-safe; one runner per thread.
class OpRunner {
public:
    OpRunner(const Graph& graph, NodeId node, std::uint64_t seed = 0x5eed);
    ~OpRunner();
    OpRunner(const OpRunner&) = delete;
    OpRunner& operator=(const OpRunner&) = delete;

    /// Whether an op type (default ONNX domain) has an implementation.
    static bool supports(std::string_view opType);
    static std::vector<std::string> supportedOps();

    ProfileStatus status() const;
    const std::string& message() const;

    struct Execution {
        ProfileStatus status = ProfileStatus::Failed;
        std::string message;
        std::vector<HostTensor> inputs;  ///< empty entries for omitted optional inputs
        std::vector<HostTensor> outputs; ///< one per node output; empty for an omitted one
    };
    /// Executes the node once and copies inputs and outputs out (for checks, not for timing).
    Execution runOnce();

    /// Measures the node with the discipline of `options`: threads set, thread pinned, output
    /// shapes checked against the graph's static shapes (a mismatch is a failure), memory
    /// probed in one untimed run, then timed rounds, then energy when RAPL is readable.
    OpProfile measure(const MeasureOptions& options);

    /// RAPL meter (owned by the caller, outliving the runner) and the idle power to subtract;
    /// without one, measure() leaves energy unset with source "none".
    void setEnergyMeter(const RaplEnergy* meter, double idlePowerW);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace paretune
