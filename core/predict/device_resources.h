// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"

#include <vector>

namespace paretune {

class CostTable;
class SampleLibrary;
struct Device;

/// Gives a cost table the shared resources of this machine's real CPU devices (DESIGN.md "The
/// plan, second generation"). Table devices are matched with the real CPU devices of
/// `realDevices` by id; for each pair of matched devices:
///  * CPU sets that intersect (`cpu` and `cpu:0` share CPU 0): CostTable::setExclusive, they
///    never run at the same time;
///  * disjoint CPU sets (`cpu:0` and `cpu:1`): CostTable::setContention in each direction with
///    the newest factor the library stores for the two device fingerprints (CostSource::
///    Measured); without one (or without a library) the factor stays 1, with a note that
///    `paretune profile` measures it.
/// Table devices that match no real CPU device are left alone. Returns Info notes saying what
/// was applied, one per device at most for each kind ("cpu and cpu:0 share CPU 0: never run at
/// once"; "cpu:0 beside cpu:1: contention 1.12 (measured 2026-12-01)"). The library's
/// exceptions pass through.
Diagnostics applyDeviceResources(CostTable& table, const std::vector<Device>& realDevices,
                                 const SampleLibrary* library);

} // namespace paretune
