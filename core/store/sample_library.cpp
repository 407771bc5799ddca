// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: opening a library file, and what belongs to the file as a whole. The records
// are read and written in sample_library_keys.cpp, sample_library_samples.cpp and
// sample_library_history.cpp.
#include "sample_library.h"

#include "common/input_error.h"
#include "database_header.h"
#include "library_connection.h"
#include "library_location.h"

#include <libpq-fe.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <pwd.h>
#include <unistd.h>

namespace paretune {

namespace {

/// The first bytes of every SQLite 3 database file.
constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};

std::string fileKind(std::filesystem::file_type type) {
    switch (type) {
    case std::filesystem::file_type::character:
        return "a character device";
    case std::filesystem::file_type::block:
        return "a block device";
    case std::filesystem::file_type::fifo:
        return "a FIFO";
    case std::filesystem::file_type::socket:
        return "a socket";
    default:
        return "not a plain file";
    }
}

/// Whether a key=value connection string sets a password (libpq's own parser decides).
bool hasPasswordSetting(const std::string& location) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(location.c_str(), &error);
    PQfreemem(error); // a string libpq cannot parse fails to connect, with libpq's message
    bool found = false;
    for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
        found = found || (std::string_view(o->keyword) == "password" && o->val != nullptr &&
                          o->val[0] != '\0');
    }
    PQconninfoFree(options);
    return found;
}

} // namespace

SampleLibrary SampleLibrary::openServer(const std::string& location, OpenMode mode) {
    auto impl = std::make_unique<Impl>();
    impl->label = libraryLabel(location);
    impl->path = impl->label;
    if (impl->label != location || hasPasswordSetting(location)) {
        throw InputError(impl->label +
                         ": the connection string holds a password; give it in PGPASSWORD or "
                         "~/.pgpass instead, so that it stays out of command lines and logs");
    }
    impl->backend = store::openPostgres(location, impl->label);
    if (mode == OpenMode::ExistingOnly && impl->backend->readVersion() == 0) {
        throw InputError(impl->label + ": no sample library there (the database holds no "
                                       "tables; paretune profile creates one)");
    }
    impl->classifyAndMigrate();
    return SampleLibrary(std::move(impl));
}

SampleLibrary SampleLibrary::open(const std::filesystem::path& path, OpenMode mode) {
    if (isServerLibrary(path.native())) {
        return openServer(path.native(), mode);
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->label = path.string();
    const std::string& label = impl->label;
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (std::filesystem::is_directory(status)) {
        throw InputError(label + ": is a folder, not a sample library file");
    }
    const bool exists = std::filesystem::exists(status);
    if (exists && !std::filesystem::is_regular_file(status)) {
        // A device, FIFO or socket: reading would block or never end, and SQLite would create
        // its journal beside it (/dev/null-journal).
        throw InputError(label + ": not a regular file (" + fileKind(status.type()) +
                         "), so it cannot hold a sample library; it was left as it is: choose a "
                         "file for the sample library");
    }
    if (!exists) {
        if (mode == OpenMode::ExistingOnly) {
            throw InputError(label + ": no sample library there (no such file)");
        }
        const std::filesystem::path folder = path.parent_path();
        if (!folder.empty()) {
            std::filesystem::create_directories(folder, error);
            if (error) {
                throw InputError(label + ": cannot create the folder " + folder.string() + " (" +
                                 error.message() + ")");
            }
        }
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw InputError(label + ": cannot read the sample library file");
        }
        std::array<char, kSqliteHeader.size()> header{};
        in.read(header.data(), static_cast<std::streamsize>(header.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got > 0 && std::string_view(header.data(), got) != kSqliteHeader.substr(0, got)) {
            throw InputError(label +
                             ": not an SQLite database, so not a Paretune sample library; it was "
                             "left as it is: choose another file for the sample library");
        }
        // Opening a file in write-ahead-log mode checkpoints its -wal into it: decide from the
        // header alone whether it is ours, so that another program's file stays byte-identical.
        const std::optional<store::DatabaseHeader> peek = store::readDatabaseHeader(path);
        if (peek && (peek->walMode || peek->walPending) && peek->applicationId != kApplicationId &&
            (peek->applicationId != 0 || peek->hasTables)) {
            throw InputError(
                label + ": an SQLite database that is not a Paretune sample library (" +
                (peek->hasTables ? std::string("it holds tables") : std::string("no tables")) +
                (peek->applicationId != 0
                     ? "; application id " + std::to_string(peek->applicationId)
                     : std::string()) +
                "; write-ahead-log mode); it was left as it is, its -wal too: choose another "
                "file for the sample library");
        }
    }

    impl->backend = store::openSqlite(path, label, !exists);
    impl->classifyAndMigrate();
    return SampleLibrary(std::move(impl));
}

SampleLibrary::SampleLibrary(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
SampleLibrary::SampleLibrary(SampleLibrary&&) noexcept = default;
SampleLibrary& SampleLibrary::operator=(SampleLibrary&&) noexcept = default;
SampleLibrary::~SampleLibrary() = default;

const std::filesystem::path& SampleLibrary::path() const {
    return m_impl->path;
}

int SampleLibrary::schemaVersion() const {
    return m_impl->version;
}

bool SampleLibrary::isServer() const {
    return m_impl->dialect() == store::Dialect::Postgres;
}

std::vector<std::string> SampleLibrary::integrityProblems() const {
    return m_impl->backend->integrityProblems();
}

// Free functions -------------------------------------------------------------------------------

std::filesystem::path defaultSampleLibraryPath() {
    const char* dataHome = std::getenv("XDG_DATA_HOME");
    if (dataHome != nullptr && dataHome[0] == '/') {
        return std::filesystem::path(dataHome) / "paretune" / "samples.db";
    }
    std::string home;
    if (const char* env = std::getenv("HOME"); env != nullptr && env[0] != '\0') {
        home = env;
    } else if (const passwd* entry = getpwuid(getuid()); entry != nullptr) {
        home = entry->pw_dir;
    }
    return std::filesystem::path(home) / ".local" / "share" / "paretune" / "samples.db";
}

std::string currentTimestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + length, sizeof text - length, ".%03dZ", static_cast<int>(millis));
    return text;
}

} // namespace paretune
