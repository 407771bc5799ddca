// SPDX-License-Identifier: GPL-3.0-or-later
#include "input_file.h"

#include "common/input_error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace paretune {

std::string byteSizeText(std::uint64_t bytes) {
    static const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    std::uint64_t value = bytes;
    while (unit < 4 && value >= 1024 && value % 1024 == 0) {
        value /= 1024;
        ++unit;
    }
    return std::to_string(value) + " " + kUnits[unit];
}

std::string fileKindText(std::filesystem::file_type type) {
    using std::filesystem::file_type;
    switch (type) {
    case file_type::fifo:
        return "a FIFO (named pipe)";
    case file_type::character:
        return "a character device";
    case file_type::block:
        return "a block device";
    case file_type::socket:
        return "a socket";
    case file_type::directory:
        return "a folder";
    default:
        return "not a regular file";
    }
}

std::string readInputFile(const std::string& path, const std::string& what,
                          std::uint64_t maxBytes) {
    const std::string label = path + ": the " + what;
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) {
            throw InputError(path + ": no such " + what);
        }
        throw InputError(label + " cannot be opened: " + std::strerror(error));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        throw InputError(label + " cannot be examined: " + std::strerror(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        throw InputError(label + " is a directory, not a file");
    }
    if (!S_ISREG(info.st_mode)) {
        namespace fs = std::filesystem;
        const fs::file_type type = S_ISFIFO(info.st_mode)   ? fs::file_type::fifo
                                   : S_ISCHR(info.st_mode)  ? fs::file_type::character
                                   : S_ISBLK(info.st_mode)  ? fs::file_type::block
                                   : S_ISSOCK(info.st_mode) ? fs::file_type::socket
                                                            : fs::file_type::unknown;
        throw InputError(label + " is " + fileKindText(type) + "; only regular files are read");
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size > maxBytes) {
        throw InputError(label + " is " + std::to_string(size) + " bytes, over the limit of " +
                         byteSizeText(maxBytes));
    }
    // Regular files never block; clear the flag so that reads behave normally.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::string bytes;
    bytes.resize(static_cast<std::size_t>(size));
    std::size_t got = 0;
    // One byte more than the size: a file that grows while it is read is caught by the limit.
    char extra = 0;
    while (true) {
        char* target = got < bytes.size() ? bytes.data() + got : &extra;
        const std::size_t room = got < bytes.size() ? bytes.size() - got : 1;
        const ssize_t n = ::read(fd, target, room);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw InputError(label + " cannot be read: " + std::strerror(errno));
        }
        if (n == 0) {
            break;
        }
        if (got >= bytes.size()) {
            throw InputError(label + " grew while it was read; read it again when it is complete");
        }
        got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
    return bytes;
}

} // namespace paretune
