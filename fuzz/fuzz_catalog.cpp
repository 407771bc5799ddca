// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: a device catalog (JSON) through parseDeviceCatalogText.
#include "common/input_error.h"
#include "cost/device_catalog.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        paretune::parseDeviceCatalogText(
            std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    } catch (const paretune::InputError&) {
    }
    return 0;
}
