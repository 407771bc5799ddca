// SPDX-License-Identifier: GPL-3.0-or-later
#include "value_checks.h"

#include "common/input_error.h"
#include "sample_library.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace paretune::store {

namespace {

bool isHex(std::string_view text) {
    for (const char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

} // namespace

void requireKey(std::string_view value, std::size_t length, const std::string& what) {
    if (value.size() != length || !isHex(value)) {
        throw InputError(what + " \"" + std::string(value) + "\": expected " +
                         std::to_string(length) + " lower-case hex digits");
    }
}

std::string hexPrefix(std::string_view text, std::size_t maxLength, const std::string& what) {
    std::string prefix(text);
    for (char& c : prefix) {
        if (c >= 'A' && c <= 'F') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    if (prefix.size() > maxLength || !isHex(prefix)) {
        throw InputError(what + " \"" + std::string(text) + "\": expected up to " +
                         std::to_string(maxLength) + " hex digits");
    }
    return prefix;
}

std::string jsonText(const std::string& text, const std::string& what) {
    if (text.empty()) {
        return "{}";
    }
    if (!nlohmann::json::accept(text)) {
        throw InputError(what + ": not valid JSON: " + text.substr(0, 80));
    }
    return text;
}

void requireFinite(double value, bool nonNegative, const std::string& what) {
    if (!std::isfinite(value) || (nonNegative && value < 0.0)) {
        throw InputError(what + ": expected a finite number" +
                         (nonNegative ? std::string(" >= 0") : std::string()) + ", got " +
                         std::to_string(value));
    }
}

std::string orNow(const std::string& timestamp) {
    return timestamp.empty() ? currentTimestamp() : timestamp;
}

} // namespace paretune::store
