#pragma once

#include "profile/profile_model.h"
#include "store/records.h"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace paretune {
struct Device;
struct DeviceInventory;
} // namespace paretune

namespace paretune::cli {

/// Registers `paretune profile MODEL --device ID [--db PATH] [--catalog FILE] [--repeats N]
/// [--force] [--json]`: measures every compute node of the model on a real CPU device with the
/// LibTorch runner, stores the samples in the sample library and reuses those already measured
/// on the same device fingerprint.
void addProfileCommand(CLI::App& app);

/// The device `id` of the inventory if it can be profiled (a real CPU device); InputError
/// naming the known ids otherwise.
const Device& profiledDevice(const DeviceInventory& inventory, const std::string& id);

/// How `paretune profile` measures on a device: one intra-op thread per CPU of the device,
/// pinned to them; `repeats` > 0 fixes the timed runs per round.
ProfileOptions profileOptionsFor(const Device& device, int repeats);

/// The samples of the nodes `result` measured ok, ready for SampleLibrary::addSamples: device
/// `fingerprint`, the measurement configuration of `options`, energy from the profiler or
/// modelled from `activeW` (W) when given.
std::vector<Sample> samplesOf(const Graph& graph, const ProfileResult& result,
                              const ProfileOptions& options, const std::string& fingerprint,
                              std::optional<double> activeW);

} // namespace paretune::cli
