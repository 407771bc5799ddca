// SPDX-License-Identifier: GPL-3.0-or-later
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

} // namespace paretune::cli
