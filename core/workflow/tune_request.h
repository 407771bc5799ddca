// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a tune (tune_workflow.h) is asked to do: the checks of its request and the key its rounds
// are stored under. Internal to the tune workflow.
#include "workflow/tune_workflow.h"

#include <string>

namespace paretune {

struct DeviceInventory;

namespace detail {

/// Refuses what cannot be tuned (InputError naming the setting): bad counts or window, no
/// library, devices that are modelled or not real devices of this machine.
void checkRequest(const DeviceCatalog& catalog, const TuneRequest& request,
                  const DeviceInventory& inventory);

/// The run's identity: model, devices (with fingerprints), catalog and settings (not `rounds`;
/// the window only where one is set, so that tunes stored before it resume with none).
std::string tuneKeyOf(const Graph& graph, const DeviceCatalog& catalog, const TuneRequest& request,
                      const DeviceInventory& inventory);

} // namespace detail

} // namespace paretune
