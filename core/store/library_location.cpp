// SPDX-License-Identifier: GPL-3.0-or-later
#include "library_location.h"

#include <array>
#include <cctype>

namespace paretune {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool isUri(std::string_view location) {
    return startsWith(location, "postgresql://") || startsWith(location, "postgres://");
}

/// The keyword of a key=value string's first pair ("host" in "host=x dbname=y"), or empty.
std::string_view firstKeyword(std::string_view location) {
    std::size_t i = 0;
    while (i < location.size() && std::isspace(static_cast<unsigned char>(location[i]))) {
        ++i;
    }
    std::size_t end = i;
    while (end < location.size() &&
           (std::islower(static_cast<unsigned char>(location[end])) || location[end] == '_')) {
        ++end;
    }
    std::size_t equals = end;
    while (equals < location.size() && std::isspace(static_cast<unsigned char>(location[equals]))) {
        ++equals;
    }
    if (end == i || equals >= location.size() || location[equals] != '=') {
        return {};
    }
    return location.substr(i, end - i);
}

/// Removes "password=VALUE" pairs from a key=value string (a quoted value may hold spaces).
std::string withoutPasswordPairs(std::string_view text) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) {
            ++i;
        }
        const std::size_t keyStart = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
               text[i] != '=') {
            ++i;
        }
        const std::string_view key = text.substr(keyStart, i - keyStart);
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) {
            ++i;
        }
        if (i < text.size() && text[i] == '=') {
            ++i;
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) {
                ++i;
            }
            if (i < text.size() && text[i] == '\'') {
                for (++i; i < text.size() && text[i] != '\''; ++i) {
                    if (text[i] == '\\') {
                        ++i;
                    }
                }
                ++i;
            } else {
                while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
                    ++i;
                }
            }
        }
        i = std::min(i, text.size());
        if (key != "password") {
            out += text.substr(start, i - start);
        }
    }
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.front()))) {
        out.erase(out.begin());
    }
    return out;
}

/// A URI without the password of its user information and its password= parameter.
std::string uriWithoutPassword(std::string_view uri) {
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t authorityEnd = std::min(uri.find('/', authority), uri.find('?', authority));
    const std::string_view hostPart =
        uri.substr(authority, authorityEnd == std::string_view::npos ? std::string_view::npos
                                                                     : authorityEnd - authority);
    std::string out(uri.substr(0, authority));
    const std::size_t at = hostPart.rfind('@');
    if (at != std::string_view::npos) {
        const std::string_view user = hostPart.substr(0, at);
        out += user.substr(0, user.find(':'));
        out += hostPart.substr(at);
    } else {
        out += hostPart;
    }
    if (authorityEnd == std::string_view::npos) {
        return out;
    }
    const std::string_view rest = uri.substr(authorityEnd);
    const std::size_t query = rest.find('?');
    out += rest.substr(0, query);
    if (query == std::string_view::npos) {
        return out;
    }
    std::string kept;
    std::string_view params = rest.substr(query + 1);
    while (!params.empty()) {
        const std::size_t amp = params.find('&');
        const std::string_view param = params.substr(0, amp);
        if (!startsWith(param, "password=") && param != "password") {
            kept += (kept.empty() ? "" : "&") + std::string(param);
        }
        params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
    }
    if (!kept.empty()) {
        out += "?" + kept;
    }
    return out;
}

} // namespace

bool isServerLibrary(std::string_view location) {
    if (isUri(location)) {
        return true;
    }
    static constexpr std::array<std::string_view, 10> kKeywords = {
        "host",    "hostaddr", "port",     "dbname",  "user",
        "service", "sslmode",  "passfile", "options", "application_name"};
    const std::string_view keyword = firstKeyword(location);
    for (std::string_view k : kKeywords) {
        if (keyword == k) {
            return true;
        }
    }
    return false;
}

std::string libraryLabel(std::string_view location) {
    if (isUri(location)) {
        return uriWithoutPassword(location);
    }
    if (isServerLibrary(location)) {
        return withoutPasswordPairs(location);
    }
    return std::string(location);
}

} // namespace paretune
