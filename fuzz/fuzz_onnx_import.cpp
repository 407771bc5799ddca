// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: a serialized ONNX model (bytes) through the whole importer: protobuf parse,
// checks, the ONNX checker, shape inference, constant folding, metrics and fingerprint.
#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        paretune::importOnnxBytes(std::string_view(reinterpret_cast<const char*>(data), size), {},
                                  "fuzz.onnx");
    } catch (const paretune::InputError&) {
        // The contract: bad input is an InputError; anything else escapes and is a finding.
    }
    return 0;
}
