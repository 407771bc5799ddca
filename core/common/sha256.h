// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace paretune {

/// Incremental SHA-256 (FIPS 180-4). Used for fingerprints and file hashes, where a collision
/// would silently merge samples of two different things.
class Sha256 {
public:
    Sha256();

    void update(const void* data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }

    /// Finishes the hash; the object must not be updated afterwards.
    std::array<std::uint8_t, 32> digest();
    std::string hexDigest();

    static std::string hex(std::string_view text);

private:
    void compress(const std::uint8_t* block);

    std::array<std::uint32_t, 8> m_state;
    std::array<std::uint8_t, 64> m_buffer{};
    std::size_t m_buffered = 0;
    std::uint64_t m_totalBytes = 0;
};

/// The SHA-256 of a file's bytes (hex), read in blocks; `bytes` receives its size. A file that
/// cannot be read hashes as far as it was read (callers check existence first).
std::string fileSha256(const std::string& path, std::uintmax_t& bytes);

} // namespace paretune
