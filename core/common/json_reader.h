// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/input_error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace paretune {

/// The text of a nlohmann exception without its "[json.exception.type_error.302] " prefix:
/// what a user reads names the problem, not the library's error code.
/// Bytes that are not printable ASCII (the parser quotes what it last read, invalid UTF-8
/// included) are written as \xNN.
inline std::string jsonProblemText(const nlohmann::json::exception& error) {
    std::string text = error.what();
    if (text.rfind("[json.exception.", 0) == 0) {
        if (const auto end = text.find("] "); end != std::string::npos) {
            text.erase(0, end + 2);
        }
    }
    std::string shown;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte >= 0x7f) {
            static const char* kHex = "0123456789abcdef";
            shown += "\\x";
            shown += kHex[byte >> 4];
            shown += kHex[byte & 15];
        } else {
            shown += c;
        }
    }
    return shown;
}

/// Parses a JSON document read from `origin` (a file path, "manifest.json of BUNDLE").
/// Throws InputError "origin: not valid JSON: …" for a syntax error, invalid UTF-8, or a number
/// out of range (1e400); never lets a nlohmann exception through.
template <class Json = nlohmann::json>
Json parseJsonDocument(std::string_view text, const std::string& origin) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& error) {
        throw InputError(origin + ": not valid JSON: " + jsonProblemText(error));
    }
}

/// Serialises a document for output: strings that are not valid UTF-8 (node and tensor names
/// come from model files as raw bytes) have each invalid byte replaced by U+FFFD instead of
/// failing the whole output.
template <class Json> std::string dumpJson(const Json& document, int indent = -1) {
    return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Typed access to the fields of a JSON document: every accessor checks the field's type and
/// range and throws InputError "origin: path.to.field: expected …, got …" otherwise. Paths read
/// like the document: "plans[3].assignment", "partitions[0].file".
template <class Json> class JsonFields {
public:
    explicit JsonFields(std::string origin) : m_origin(std::move(origin)) {}

    const std::string& origin() const { return m_origin; }

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw InputError(m_origin + ": " + (path.empty() ? "" : path + ": ") + problem);
    }

    static std::string join(const std::string& path, std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    static std::string at(const std::string& path, std::size_t index) {
        return path + "[" + std::to_string(index) + "]";
    }

    static std::string typeOf(const Json& v) {
        switch (v.type()) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::object:
            return "an object";
        case nlohmann::json::value_t::array:
            return "an array";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::number_float:
            return "the number " + v.dump();
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
            return "the integer " + v.dump();
        default:
            return "a value of another kind";
        }
    }

    void requireObject(const Json& v, const std::string& path) const {
        if (!v.is_object()) {
            fail(path.empty() ? "the document" : path, "expected an object, got " + typeOf(v));
        }
    }

    /// The member `key` of the object `v` (found at `path`), or nullptr when it is absent.
    const Json* find(const Json& v, const std::string& path, std::string_view key) const {
        requireObject(v, path);
        const auto it = v.find(key);
        return it == v.end() ? nullptr : &*it;
    }

    const Json& member(const Json& v, const std::string& path, std::string_view key) const {
        const Json* m = find(v, path, key);
        if (!m) {
            fail(join(path, key), "missing");
        }
        return *m;
    }

    std::string string(const Json& v, const std::string& path, std::string_view key) const {
        return asString(member(v, path, key), join(path, key));
    }
    std::string optionalString(const Json& v, const std::string& path, std::string_view key,
                               const std::string& fallback = {}) const {
        const Json* m = find(v, path, key);
        return m && !m->is_null() ? asString(*m, join(path, key)) : fallback;
    }
    std::string asString(const Json& v, const std::string& path) const {
        if (!v.is_string()) {
            fail(path, "expected a string, got " + typeOf(v));
        }
        return v.template get<std::string>();
    }

    std::int64_t integer(const Json& v, const std::string& path, std::string_view key) const {
        return asInteger(member(v, path, key), join(path, key));
    }
    std::int64_t optionalInteger(const Json& v, const std::string& path, std::string_view key,
                                 std::int64_t fallback) const {
        const Json* m = find(v, path, key);
        return m ? asInteger(*m, join(path, key)) : fallback;
    }
    std::int64_t asInteger(const Json& v, const std::string& path) const {
        if (v.is_number_unsigned() &&
            v.template get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            fail(path, "expected an integer up to 2^63-1, got " + v.dump());
        }
        if (!v.is_number_integer()) {
            fail(path, "expected an integer, got " + typeOf(v));
        }
        return v.template get<std::int64_t>();
    }

    double number(const Json& v, const std::string& path, std::string_view key) const {
        return asNumber(member(v, path, key), join(path, key));
    }
    double optionalNumber(const Json& v, const std::string& path, std::string_view key,
                          double fallback) const {
        const Json* m = find(v, path, key);
        return m ? asNumber(*m, join(path, key)) : fallback;
    }
    double asNumber(const Json& v, const std::string& path) const {
        if (!v.is_number() || !std::isfinite(v.template get<double>())) {
            fail(path, "expected a finite number, got " + typeOf(v));
        }
        return v.template get<double>();
    }

    bool optionalBoolean(const Json& v, const std::string& path, std::string_view key,
                         bool fallback) const {
        const Json* m = find(v, path, key);
        if (!m) {
            return fallback;
        }
        if (!m->is_boolean()) {
            fail(join(path, key), "expected true or false, got " + typeOf(*m));
        }
        return m->template get<bool>();
    }

    const Json& object(const Json& v, const std::string& path, std::string_view key) const {
        const Json& m = member(v, path, key);
        requireObject(m, join(path, key));
        return m;
    }
    /// The member as an object; an empty object when absent.
    const Json& optionalObject(const Json& v, const std::string& path, std::string_view key) const {
        static const Json kEmpty = Json::object();
        const Json* m = find(v, path, key);
        if (!m) {
            return kEmpty;
        }
        requireObject(*m, join(path, key));
        return *m;
    }

    const Json& array(const Json& v, const std::string& path, std::string_view key) const {
        const Json& m = member(v, path, key);
        requireArray(m, join(path, key));
        return m;
    }
    /// The member as an array; an empty array when absent.
    const Json& optionalArray(const Json& v, const std::string& path, std::string_view key) const {
        static const Json kEmpty = Json::array();
        const Json* m = find(v, path, key);
        if (!m) {
            return kEmpty;
        }
        requireArray(*m, join(path, key));
        return *m;
    }
    void requireArray(const Json& v, const std::string& path) const {
        if (!v.is_array()) {
            fail(path, "expected an array, got " + typeOf(v));
        }
    }

private:
    std::string m_origin;
};

} // namespace paretune
