// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace paretune {

/// LibTorch's intra-op threads come from libgomp. Unless told otherwise (OMP_WAIT_POLICY),
/// an idle libgomp thread spins before it sleeps. When another process shares a core, a
/// thread spinning at a barrier keeps its core until the scheduler's next tick while the
/// thread it waits for cannot run: an op on a multi-threaded device then takes 4, 8 or 32 ms
/// instead of microseconds. Measured on a 2-core machine with a compiler running beside:
/// MobileNet-V2's operators on `cpu` summed to 1.52 s spinning and 33 ms with
/// OMP_WAIT_POLICY=passive. libgomp reads the variable once, when it is loaded.
///
/// Sets OMP_WAIT_POLICY=passive unless it is set already (the user's choice wins). Called by
/// the LibTorch module's loader (runtime/torch_runtime.h) before it opens the module, which is
/// what loads libgomp; a program that links LibTorch directly must call it before main (or be
/// started with the variable set).
void setPassiveOpenMpWaitIfUnset();

/// The wait policy this process's OpenMP threads run with: the value of OMP_WAIT_POLICY, or
/// "default" when it is unset. Stored with every measurement (a sample's config_json).
std::string openMpWaitPolicy();

} // namespace paretune
