// SPDX-License-Identifier: GPL-3.0-or-later
#include "einsum.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

namespace paretune {

namespace {

std::string withoutSpaces(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c != ' ') {
            out.push_back(c);
        }
    }
    return out;
}

std::vector<std::string> splitTerms(const std::string& lhs) {
    std::vector<std::string> terms(1);
    for (const char c : lhs) {
        if (c == ',') {
            terms.emplace_back();
        } else {
            terms.back().push_back(c);
        }
    }
    return terms;
}

} // namespace

std::optional<EinsumShape> analyseEinsum(std::string_view equation,
                                         const std::vector<std::vector<std::int64_t>>& inputs) {
    const std::string eq = withoutSpaces(equation);
    const auto arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    const std::vector<std::string> terms = splitTerms(lhs);
    if (terms.size() != inputs.size()) {
        return std::nullopt;
    }
    std::map<char, std::int64_t> sizes;
    std::map<char, int> occurrences;
    std::vector<std::int64_t> ellipsis; // broadcast of every term's "..." dimensions
    bool anyEllipsis = false;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        std::string term = terms[t];
        const auto dots = term.find("...");
        const std::vector<std::int64_t>& dims = inputs[t];
        std::size_t letters = term.size() - (dots == std::string::npos ? 0 : 3);
        if (letters > dims.size() || (dots == std::string::npos && letters != dims.size())) {
            return std::nullopt;
        }
        const std::size_t ellipsisRank = dims.size() - letters;
        std::size_t d = 0;
        for (std::size_t i = 0; i < term.size(); ++i) {
            if (term.compare(i, 3, "...") == 0) {
                anyEllipsis = true;
                std::vector<std::int64_t> own(dims.begin() + static_cast<long>(d),
                                              dims.begin() + static_cast<long>(d + ellipsisRank));
                if (own.size() > ellipsis.size()) {
                    ellipsis.insert(ellipsis.begin(), own.size() - ellipsis.size(), 1);
                }
                const std::size_t offset = ellipsis.size() - own.size();
                for (std::size_t k = 0; k < own.size(); ++k) {
                    std::int64_t& e = ellipsis[offset + k];
                    if (own[k] != 1 && e != 1 && own[k] != e) {
                        return std::nullopt;
                    }
                    e = own[k] == 1 ? e : own[k];
                }
                d += ellipsisRank;
                i += 2;
                continue;
            }
            const char letter = term[i];
            if (!std::isalpha(static_cast<unsigned char>(letter))) {
                return std::nullopt;
            }
            const auto [it, inserted] = sizes.emplace(letter, dims[d]);
            if (!inserted && it->second != dims[d]) {
                if (it->second == 1) {
                    it->second = dims[d];
                } else if (dims[d] != 1) {
                    return std::nullopt;
                }
            }
            ++occurrences[letter];
            ++d;
        }
    }
    std::string rhs;
    if (arrow != std::string::npos) {
        rhs = eq.substr(arrow + 2);
    } else {
        // Implicit output: "..." first, then the letters used once, in alphabetical order.
        rhs = anyEllipsis ? "..." : "";
        for (const auto& [letter, count] : occurrences) {
            if (count == 1) {
                rhs.push_back(letter);
            }
        }
    }
    EinsumShape shape;
    for (std::size_t i = 0; i < rhs.size(); ++i) {
        if (rhs.compare(i, 3, "...") == 0) {
            shape.outputDims.insert(shape.outputDims.end(), ellipsis.begin(), ellipsis.end());
            i += 2;
            continue;
        }
        const auto it = sizes.find(rhs[i]);
        if (it == sizes.end()) {
            return std::nullopt;
        }
        shape.outputDims.push_back(it->second);
    }
    shape.indexSpace = 1.0;
    for (const auto& [letter, size] : sizes) {
        shape.indexSpace *= static_cast<double>(size);
    }
    for (const std::int64_t e : ellipsis) {
        shape.indexSpace *= static_cast<double>(e);
    }
    return shape;
}

} // namespace paretune
