// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: a bundle's manifest.json through `bundle verify` (verifyBundle) and
// `bundle select` (bundleCandidates), beside a fixed plan.json; no device is attached.
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "common/input_error.h"
#include "device/device.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    paretune::BundleFileMap files;
    files["manifest.json"] = std::string(reinterpret_cast<const char*>(data), size);
    files["plan.json"] = R"({"nodes": [{"name": "n0", "device": "cpu"}]})";
    static const paretune::DeviceInventory machine;
    paretune::verifyBundle(files, machine); // reports problems, never throws for them
    try {
        paretune::bundleCandidates(files, "fuzz-bundle");
    } catch (const paretune::InputError&) {
    }
    return 0;
}
