// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

struct Device;
struct Graph;
struct Device;

/// The devices row of a real device of this machine: fingerprint, kind, name, its identity
/// (hardware and software stack) as spec_json and the software versions as software_json.
DeviceRecord deviceRecordOf(const Device& device);

/// The models row of an imported graph: fingerprint, name (the graph's, or the file's stem
/// when the graph has none), source path, node count; importedAt is left empty (now).
ModelRecord modelRecordOf(const Graph& graph);

/// One op_signatures row per distinct signature of the graph's compute nodes (the nodes that
/// are profiled), in node order. FLOPs and bytes (read + written) come from graph.metrics.
std::vector<SignatureRecord> signatureRecordsOf(const Graph& graph);

/// Input and output types of a node as one line: "float32[1,3,224,224],float32[64,3,7,7]->
/// float32[1,64,112,112]" (an omitted optional input is "none").
std::string shapeTupleOf(const Graph& graph, std::int32_t node);

/// A sample of `node` with its keys filled (model fingerprint, signature, op_meta with the
/// node's name and op type, shape tuple, opType); the profiler adds the device and the figures.
Sample sampleFor(const Graph& graph, std::int32_t node);

/// The devices row of a real device: its fingerprint (deviceFingerprint), kind, name, identity
/// as spec_json and this process's software stack (compiler, torch, BLAS) as software_json.
DeviceRecord deviceRecordOf(const Device& device);

} // namespace paretune
