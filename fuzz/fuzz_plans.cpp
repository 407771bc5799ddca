// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: a plans document (`paretune search --out`) through checkPlansText, the
// reader `paretune export` uses.
#include "common/input_error.h"
#include "search/plans_file.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        paretune::checkPlansText(std::string_view(reinterpret_cast<const char*>(data), size),
                                 "fuzz-plans.json");
    } catch (const paretune::InputError&) {
    }
    return 0;
}
