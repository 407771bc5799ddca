// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: a bundle zip archive through readBundleFiles and verifyBundle, the way
// `paretune bundle verify ARCHIVE` reads it. The bytes go to a file in /dev/shm (libzip reads
// files), one per process.
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "common/input_error.h"
#include "device/device.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/dev/shm/paretune-fuzz-" + std::to_string(::getpid()) + ".zip";
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        return 0;
    }
    std::fwrite(data, 1, size, file);
    std::fclose(file);
    static const paretune::DeviceInventory machine;
    try {
        const paretune::BundleFileMap files = paretune::readBundleFiles(path);
        paretune::verifyBundle(files, machine);
    } catch (const paretune::InputError&) {
    }
    std::remove(path.c_str());
    return 0;
}
