// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_files.h"

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/output_file.h"

#include <zip.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

namespace paretune {

namespace fs = std::filesystem;

namespace {

// A bundle is read whole into memory, so everything about it is bounded before a byte is
// extracted. One file: protobuf cannot parse an ONNX partition over 2 GiB anyway.
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{2} << 30;
constexpr std::uint64_t kMaxBundleBytes = std::uint64_t{4} << 30;
constexpr std::uint64_t kMaxEntries = 4096;
// Deflate reaches about 1000:1 on zeros; real bundles (ONNX stored, JSON and CSV deflated) stay
// under 20:1. Small entries are exempt: their expansion cannot hurt.
constexpr std::uint64_t kMaxCompressionRatio = 100;
constexpr std::uint64_t kRatioExemptBytes = std::uint64_t{1} << 20;

std::string inQuotes(std::string_view text) {
    return "'" + std::string(text) + "'";
}

void checkTarget(const fs::path& target) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(target, ec))) {
        throw InputError(target.string() +
                         ": already exists; it is never replaced (remove it or choose another "
                         "path)");
    }
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec)) {
        throw InputError(target.string() + ": the folder " + inQuotes(parent.string()) +
                         " does not exist");
    }
}

/// "out/" names the folder "out".
fs::path bundleTarget(const std::string& path) {
    const fs::path target(path);
    return target.has_filename() ? target : target.parent_path();
}

fs::path temporaryNextTo(const fs::path& target) {
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    return parent / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
}

struct ZipCloser {
    void operator()(zip_t* archive) const { zip_discard(archive); }
};

std::string zipProblem(zip_t* archive) {
    return zip_error_strerror(zip_get_error(archive));
}

BundleFileMap readZip(const std::string& path) {
    int code = 0;
    std::unique_ptr<zip_t, ZipCloser> archive(zip_open(path.c_str(), ZIP_RDONLY, &code));
    if (!archive) {
        zip_error_t error;
        zip_error_init_with_code(&error, code);
        const std::string message = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw InputError(path + ": not a readable zip archive: " + message);
    }
    BundleFileMap files;
    const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
    if (count < 0 || static_cast<std::uint64_t>(count) > kMaxEntries) {
        throw InputError(path + ": the zip archive has " + std::to_string(count) +
                         " entries, over the limit of " + std::to_string(kMaxEntries));
    }
    std::error_code sizeError;
    const std::uint64_t archiveBytes = fs::file_size(path, sizeError);
    // Every entry is checked before any is extracted: names, kinds, sizes, ratios, total.
    std::uint64_t total = 0;
    for (zip_int64_t i = 0; i < count; ++i) {
        zip_stat_t stat;
        zip_stat_init(&stat);
        const auto index = static_cast<zip_uint64_t>(i);
        if (zip_stat_index(archive.get(), index, 0, &stat) != 0 ||
            (stat.valid & ZIP_STAT_SIZE) == 0 || (stat.valid & ZIP_STAT_COMP_SIZE) == 0) {
            throw InputError(path + ": entry " + std::to_string(i) +
                             " cannot be read: " + zipProblem(archive.get()));
        }
        const std::string entry =
            path + ": entry " + inQuotes((stat.valid & ZIP_STAT_NAME) ? stat.name : "?");
        if (stat.size > kMaxEntryBytes) {
            throw InputError(entry + " is refused: it expands to " + std::to_string(stat.size) +
                             " bytes, over the limit of " + byteSizeText(kMaxEntryBytes) +
                             " per file");
        }
        if (!sizeError && stat.comp_size > archiveBytes) {
            throw InputError(entry + " is refused: its header claims " +
                             std::to_string(stat.comp_size) +
                             " compressed bytes in an archive of " + std::to_string(archiveBytes));
        }
        if (stat.size > kRatioExemptBytes &&
            stat.size / std::max<zip_uint64_t>(stat.comp_size, 1) > kMaxCompressionRatio) {
            throw InputError(entry + " is refused: it expands " + std::to_string(stat.comp_size) +
                             " bytes to " + std::to_string(stat.size) +
                             ", a compression ratio over the limit of " +
                             std::to_string(kMaxCompressionRatio) + ":1 (a zip bomb)");
        }
        total += stat.size;
        if (total > kMaxBundleBytes) {
            throw InputError(path + ": the zip archive expands to more than " +
                             byteSizeText(kMaxBundleBytes) + ", the limit for a bundle");
        }
    }
    for (zip_int64_t i = 0; i < count; ++i) {
        const auto index = static_cast<zip_uint64_t>(i);
        const char* rawName = zip_get_name(archive.get(), index, ZIP_FL_ENC_RAW);
        if (rawName == nullptr) {
            throw InputError(path + ": entry " + std::to_string(i) +
                             " has no readable name: " + zipProblem(archive.get()));
        }
        std::string name(rawName);
        const std::string entry = path + ": entry " + inQuotes(name);
        const bool directory = !name.empty() && name.back() == '/';
        if (directory) {
            name.pop_back();
        }
        if (const std::string problem = unsafeBundlePath(name); !problem.empty()) {
            throw InputError(entry + " is refused: " + problem);
        }
        zip_uint8_t system = 0;
        zip_uint32_t attributes = 0;
        if (zip_file_get_external_attributes(archive.get(), index, 0, &system, &attributes) == 0 &&
            system == ZIP_OPSYS_UNIX && S_ISLNK(attributes >> 16)) {
            throw InputError(entry + " is refused: it is a symbolic link");
        }
        if (directory) {
            continue;
        }
        zip_stat_t stat;
        zip_stat_init(&stat);
        if (zip_stat_index(archive.get(), index, 0, &stat) != 0 ||
            (stat.valid & ZIP_STAT_SIZE) == 0) {
            throw InputError(entry + " cannot be read: " + zipProblem(archive.get()));
        }
        if ((stat.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 &&
            stat.encryption_method != ZIP_EM_NONE) {
            throw InputError(entry + " is encrypted, which a bundle never is");
        }
        if (files.count(name) != 0) {
            throw InputError(entry + " appears twice in the archive");
        }
        std::string bytes(static_cast<std::size_t>(stat.size), '\0');
        zip_file_t* file = zip_fopen_index(archive.get(), index, 0);
        if (file == nullptr) {
            throw InputError(entry + " cannot be opened: " + zipProblem(archive.get()));
        }
        const zip_int64_t got = zip_fread(file, bytes.data(), stat.size);
        zip_fclose(file);
        if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size) {
            throw InputError(entry + " is truncated or corrupt");
        }
        files.emplace(std::move(name), std::move(bytes));
    }
    return files;
}

BundleFileMap readFolder(const std::string& path) {
    BundleFileMap files;
    const fs::path root(path);
    std::error_code ec;
    std::uint64_t total = 0;
    std::uint64_t entries = 0;
    std::vector<std::pair<std::string, fs::path>> toRead;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        const std::string relative = it->path().lexically_relative(root).generic_string();
        const fs::file_status status = it->symlink_status(ec);
        if (fs::is_symlink(status)) {
            throw InputError(path + ": " + inQuotes(relative) +
                             " is a symbolic link, which a bundle never contains");
        }
        if (fs::is_directory(status)) {
            continue;
        }
        if (!fs::is_regular_file(status)) {
            throw InputError(path + ": " + inQuotes(relative) + " is not a regular file");
        }
        if (const std::string problem = unsafeBundlePath(relative); !problem.empty()) {
            throw InputError(path + ": " + inQuotes(relative) + " is refused: " + problem);
        }
        if (++entries > kMaxEntries) {
            throw InputError(path + ": the folder holds more than " + std::to_string(kMaxEntries) +
                             " files, the limit for a bundle");
        }
        struct stat info {};
        if (::lstat(it->path().c_str(), &info) != 0) {
            throw InputError(path + ": " + inQuotes(relative) + " cannot be examined");
        }
        const auto size = static_cast<std::uint64_t>(info.st_size);
        if (size > kMaxEntryBytes) {
            throw InputError(path + ": " + inQuotes(relative) +
                             " is refused: " + std::to_string(size) + " bytes, over the limit of " +
                             byteSizeText(kMaxEntryBytes) + " per file");
        }
        // A sparse file (holes read as zeros) is never something export wrote.
        const auto allocated = static_cast<std::uint64_t>(info.st_blocks) * 512;
        if (size > kRatioExemptBytes && allocated < size / 8) {
            throw InputError(path + ": " + inQuotes(relative) + " is refused: a sparse file (" +
                             std::to_string(size) + " bytes, " + std::to_string(allocated) +
                             " allocated)");
        }
        total += size;
        if (total > kMaxBundleBytes) {
            throw InputError(path + ": the folder's files add up to more than " +
                             byteSizeText(kMaxBundleBytes) + ", the limit for a bundle");
        }
        toRead.emplace_back(relative, it->path());
    }
    if (ec) {
        throw InputError(path + ": cannot list the folder: " + ec.message());
    }
    // Read only once every file passed the checks.
    for (const auto& [relative, file] : toRead) {
        std::ifstream in(file, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if ((!in && !in.eof()) || bytes.size() > kMaxEntryBytes) {
            throw InputError(path + ": " + inQuotes(relative) + " cannot be read");
        }
        files.emplace(relative, std::move(bytes));
    }
    return files;
}

} // namespace

std::string unsafeBundlePath(std::string_view path) {
    if (path.empty()) {
        return "empty path";
    }
    if (path.front() == '/') {
        return "absolute path";
    }
    for (const char c : path) {
        if (c == '\\') {
            return "backslash in the path";
        }
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return "control character in the path";
        }
    }
    std::size_t begin = 0;
    while (begin <= path.size()) {
        const std::size_t end = std::min(path.find('/', begin), path.size());
        const std::string_view part = path.substr(begin, end - begin);
        if (part.empty()) {
            return "empty path component";
        }
        if (part == "..") {
            return "'..' leaves the bundle's folder";
        }
        if (part == ".") {
            return "'.' path component";
        }
        begin = end + 1;
    }
    return {};
}

void checkNewBundlePath(const std::string& path) {
    checkTarget(bundleTarget(path));
}

BundleFileMap readBundleFiles(const std::string& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        throw InputError(path + ": no such bundle (folder or zip archive)");
    }
    if (fs::is_directory(status)) {
        return readFolder(path);
    }
    if (!fs::is_regular_file(status)) { // a FIFO would block the read below
        throw InputError(path + ": not a bundle: " + fileKindText(status.type()) +
                         ", neither a folder nor a zip archive");
    }
    char magic[4] = {0, 0, 0, 0};
    std::ifstream(path, std::ios::binary).read(magic, 4);
    if (std::memcmp(magic, "PK\x03\x04", 4) != 0) {
        throw InputError(path + ": not a bundle: neither a folder nor a zip archive");
    }
    return readZip(path);
}

void writeBundleFolder(const std::string& path, const BundleFileMap& files) {
    const fs::path target = bundleTarget(path);
    checkTarget(target);
    const fs::path temporary = temporaryNextTo(target);
    std::error_code ec;
    fs::remove_all(temporary, ec);
    try {
        fs::create_directory(temporary);
        for (const auto& [name, bytes] : files) {
            if (const std::string problem = unsafeBundlePath(name); !problem.empty()) {
                throw std::logic_error("bundle file " + inQuotes(name) + ": " + problem);
            }
            const fs::path file = temporary / name;
            fs::create_directories(file.parent_path());
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            out.flush();
            if (!out) {
                throw InputError(path + ": writing " + inQuotes(name) + " failed");
            }
        }
        std::string problem;
        if (!renameWithoutReplacing(temporary, target, problem)) {
            throw InputError(path + ": " + problem);
        }
    } catch (const fs::filesystem_error& error) {
        fs::remove_all(temporary, ec);
        throw InputError(path + ": cannot be written: " + error.code().message());
    } catch (...) {
        fs::remove_all(temporary, ec);
        throw;
    }
}

void writeBundleZip(const std::string& path, const BundleFileMap& files) {
    const fs::path target = bundleTarget(path);
    checkTarget(target);
    const fs::path temporary = temporaryNextTo(target);
    std::error_code ec;
    fs::remove(temporary, ec);
    int code = 0;
    zip_t* archive = zip_open(temporary.c_str(), ZIP_CREATE | ZIP_EXCL, &code);
    if (archive == nullptr) {
        throw InputError(path + ": cannot create the zip archive (libzip error " +
                         std::to_string(code) + ")");
    }
    auto fail = [&](const std::string& problem) {
        zip_discard(archive);
        fs::remove(temporary, ec);
        throw InputError(path + ": " + problem);
    };
    // The buffers are the map's own strings: they live until zip_close below.
    for (const auto& [name, bytes] : files) {
        zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
        if (source == nullptr) {
            fail("cannot add " + inQuotes(name) + ": " + zipProblem(archive));
        }
        const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(source);
            fail("cannot add " + inQuotes(name) + ": " + zipProblem(archive));
        }
        // Weights barely compress (ResNet-18: 3 %) and deflating them takes most of the time.
        if (name.ends_with(".onnx") &&
            zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) !=
                0) {
            fail("cannot store " + inQuotes(name) + ": " + zipProblem(archive));
        }
    }
    if (zip_close(archive) != 0) {
        fail("writing the zip archive failed: " + zipProblem(archive));
    }
    std::string problem;
    if (!renameWithoutReplacing(temporary, target, problem)) {
        fs::remove(temporary, ec);
        throw InputError(path + ": " + problem);
    }
}

} // namespace paretune
