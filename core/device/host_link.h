// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace paretune {

/// A GPU's measured link to the host: pinned (page-locked) copies, which is how the executor
/// moves tensors between the host and the GPU (the search uses those), and pageable ones.
struct HostLinkFigures {
    double h2dGbs = 0.0;    ///< host to device, GB/s (1e9 bytes)
    double d2hGbs = 0.0;    ///< device to host, GB/s
    double latencyUs = 0.0; ///< a 4-byte host-to-device copy, µs
    /// The same copies from and into ordinary (pageable) host memory, GB/s; 0: not measured.
    double h2dPageableGbs = 0.0;
    double d2hPageableGbs = 0.0;
};

} // namespace paretune
