// SPDX-License-Identifier: GPL-3.0-or-later
#include "database_header.h"

#include <array>
#include <fstream>
#include <string_view>
#include <vector>

namespace paretune::store {

namespace {

constexpr std::string_view kMagic{"SQLite format 3\0", 16};
constexpr std::size_t kWalHeader = 32;
constexpr std::size_t kFrameHeader = 24;

std::uint32_t bigEndian(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

std::vector<unsigned char> readBytes(std::ifstream& in, std::size_t count) {
    std::vector<unsigned char> bytes(count);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(count));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

/// The newest committed page 1 in the write-ahead log at `wal` (empty: none). Frames belong to
/// the log when their salts match its header; a commit frame has a non-zero database size.
std::vector<unsigned char> walPageOne(const std::filesystem::path& wal) {
    std::ifstream in(wal, std::ios::binary);
    const std::vector<unsigned char> header = readBytes(in, kWalHeader);
    if (header.size() < kWalHeader || (bigEndian(header.data()) & 0xfffffffeu) != 0x377f0682u) {
        return {};
    }
    const std::uint32_t pageSize = bigEndian(header.data() + 8);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) != 0) {
        return {};
    }
    std::vector<unsigned char> committed;
    std::vector<unsigned char> pending; // page 1 of the transaction being read
    for (;;) {
        const std::vector<unsigned char> frame = readBytes(in, kFrameHeader);
        const std::vector<unsigned char> page = readBytes(in, pageSize);
        if (frame.size() < kFrameHeader || page.size() < pageSize ||
            bigEndian(frame.data() + 8) != bigEndian(header.data() + 16) ||
            bigEndian(frame.data() + 12) != bigEndian(header.data() + 20)) {
            return committed;
        }
        if (bigEndian(frame.data()) == 1) {
            pending = page;
        }
        if (bigEndian(frame.data() + 4) != 0 && !pending.empty()) { // a commit
            committed = std::move(pending);
            pending.clear();
        }
    }
}

} // namespace

std::optional<DatabaseHeader> readDatabaseHeader(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> page = readBytes(in, 512);
    if (page.size() < 512 ||
        std::string_view(reinterpret_cast<const char*>(page.data()), kMagic.size()) != kMagic) {
        return std::nullopt;
    }
    DatabaseHeader header;
    header.walMode = page[18] == 2 || page[19] == 2;
    std::filesystem::path wal = path;
    wal += "-wal";
    if (std::vector<unsigned char> newer = walPageOne(wal); newer.size() >= 512) {
        page = std::move(newer);
        header.walPending = true;
    }
    header.userVersion = bigEndian(page.data() + 60);
    header.applicationId = bigEndian(page.data() + 68);
    // Page 1 is sqlite_master's root: a leaf without cells lists nothing.
    header.hasTables = !(page[100] == 0x0d && page[103] == 0 && page[104] == 0);
    return header;
}

} // namespace paretune::store
