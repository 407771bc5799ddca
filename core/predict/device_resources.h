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

/// Gives a cost table the measured links of this machine's GPUs: for each table device matched
/// (by id) with a real CUDA device of `realDevices` whose newest micro-benchmark in `library`
/// carries a host link (SampleLibrary::newestHostLink), every hop between it and a table device
/// matched with a real CPU device takes the measured figures: host to GPU the pinned
/// host-to-device bandwidth, GPU to host the device-to-host one, both the small copy's latency
/// (CostSource::Measured, CostTable::setHopFigures). A GPU without one keeps the catalog's
/// modelled link, with a note naming the command that measures it. Returns Info notes, one per
/// GPU ("cuda:0 and the host: measured link, 24.1 GB/s to the GPU, 25.3 GB/s back, 9.8 µs
/// (measured 2026-12-01)").
Diagnostics applyMeasuredLinks(CostTable& table, const std::vector<Device>& realDevices,
                               const SampleLibrary* library);

/// applyDeviceResources over this machine's CPU devices, then applyMeasuredLinks when the table
/// has a `cuda:K` device (its GPUs are only discovered then). Returns both notes.
Diagnostics applyMachineResources(CostTable& table, const SampleLibrary* library);

} // namespace paretune
