// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/output_file.h"

#include "common/input_error.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace paretune {

namespace fs = std::filesystem;

namespace {

/// Writes all of `bytes` to an open descriptor; false with errno set on failure.
bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

void writeStream(const std::string& path, std::string_view bytes) {
    const int fd = path == "-" ? STDOUT_FILENO : ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        throw InputError(path + ": cannot be opened for writing: " + std::strerror(errno));
    }
    const bool ok = writeAll(fd, bytes);
    const int error = errno;
    if (fd != STDOUT_FILENO) {
        ::close(fd);
    }
    if (!ok) {
        throw InputError((path == "-" ? std::string("standard output") : path) +
                         ": writing failed: " + std::strerror(error));
    }
}

} // namespace

void writeOutputFile(const std::string& path, std::string_view bytes) {
    if (path.empty()) {
        throw InputError("no output file named");
    }
    if (path == "-") {
        std::fflush(stdout);
        writeStream(path, bytes);
        return;
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            throw InputError(path + ": is a symbolic link; output files are written only as "
                                    "regular files (name the file it points to)");
        }
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            writeStream(path, bytes); // a pipe or a device: written through, never replaced
            return;
        }
        if (!S_ISREG(st.st_mode)) {
            throw InputError(path + ": is " + (S_ISDIR(st.st_mode) ? "a folder" : "not a file") +
                             "; output files are written only as regular files");
        }
    }
    const fs::path target(path);
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const fs::path temporary =
        parent / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw InputError(path + ": cannot write the output file (folder " + parent.string() +
                             ")");
        }
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temporary, ignored);
            throw InputError(path + ": writing the output file failed");
        }
    }
    std::error_code error;
    fs::rename(temporary, target, error);
    if (error) {
        fs::remove(temporary, error);
        throw InputError(path + ": cannot replace the output file");
    }
}

bool renameWithoutReplacing(const fs::path& from, const fs::path& to, std::string& problem) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
        return true;
    }
    if (errno == EINVAL || errno == ENOSYS) {
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(to, ec)) && ::rename(from.c_str(), to.c_str()) == 0) {
            return true;
        }
        if (errno == 0) {
            errno = EEXIST;
        }
    }
    problem = errno == EEXIST ? "already exists; it is never replaced (remove it or choose "
                                "another path)"
                              : std::string("cannot be created: ") + std::strerror(errno);
    return false;
}

} // namespace paretune
