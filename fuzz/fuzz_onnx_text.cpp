// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: ONNX's textual syntax (onnx/defs/parser.h) through importOnnxText.
#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        paretune::importOnnxText(std::string_view(reinterpret_cast<const char*>(data), size), {},
                                 "fuzz.onnxtxt");
    } catch (const paretune::InputError&) {
    }
    return 0;
}
