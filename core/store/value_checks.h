// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the sample library (store/sample_library*.cpp): the checks every value passes
// before it reaches SQLite, with messages that name the field.

#include "records.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace paretune::store {

inline constexpr std::size_t kFingerprintLength = 64;
inline constexpr std::size_t kSignatureLength = 32;

/// InputError naming `what` unless `value` is exactly `length` lower-case hex digits.
void requireKey(std::string_view value, std::size_t length, const std::string& what);

/// Lower-cases a hex prefix; InputError when it is not one.
std::string hexPrefix(std::string_view text, std::size_t maxLength, const std::string& what);

/// JSON text as stored: "{}" for empty, InputError for anything that does not parse.
std::string jsonText(const std::string& text, const std::string& what);

/// InputError naming `what` unless `value` is finite (and, with nonNegative, >= 0).
void requireFinite(double value, bool nonNegative, const std::string& what);

/// The timestamp, or the current time when it is empty.
std::string orNow(const std::string& timestamp);

/// One figure of a micro-benchmark's host link, none when it has no link (a bound NULL).
/// A figure of 0 (a pageable rate not measured) is none too.
inline std::optional<double> linkFigure(const BenchmarkRecord& b, double HostLinkFigures::*figure) {
    return b.hostLink && (*b.hostLink).*figure > 0.0 ? std::optional<double>((*b.hostLink).*figure)
                                                     : std::nullopt;
}

} // namespace paretune::store
